#!/usr/bin/env node
/**
 * A tiny origin for local development (`npm run dev` points DEFAULT_ORIGIN or a zone at it) and for the
 * proxy benchmark. Listens on 127.0.0.1 only.
 *
 *   node scripts/example-origin.mjs [--port 8788]      (--port 0: any free port; the first stdout line says which)
 *
 * | path | answer |
 * |---|---|
 * | `/status/{code}` | that status (200–599) with a small JSON body of the origin's own |
 * | `/slow?ms=N` | waits N ms (≤ 300000), then 200 |
 * | `/bytes?n=N` | N bytes (≤ 100 MiB) of `a`, application/octet-stream |
 * | `/hello` | 200 `hello from the origin` (the cheapest answer; used by the benchmark) |
 * | `/sse?n=N&ms=M&then=end\|reset\|idle` | `text/event-stream`: N events (≤ 100, default 3) `M` ms apart (≤ 10000, default 500), then a clean end, a reset (the edge ends the stream with `event: error`, 520) or silence (524 after the zone's read timeout) |
 * | `/ndjson?n=N&ms=M&then=end\|reset\|idle` | the same as `application/x-ndjson` lines (the edge adds a final `{"error":…}` line) |
 * | `/drop` | closes the connection without answering: the edge answers 520 (try the zone's custom errors on it) |
 * | `/errors/maintenance.html` | the shop's maintenance page, linking `maintenance.css` and `logo.svg` (the seed's custom error asset) |
 * | `/errors/maintenance.css`, `/errors/logo.svg` | its stylesheet and image |
 * | anything else | 200 JSON describing the request as received (method, url, headers) |
 */
import { createServer } from "node:http";

const args = process.argv.slice(2);
const flag = args.indexOf("--port");
const port = Number(flag !== -1 ? args[flag + 1] : (process.env.PORT ?? 8788));

/** The maintenance page `npm run dev` makes a custom error asset of (its stylesheet and image are inlined then). */
const MAINTENANCE = {
  "/errors/maintenance.html": [
    "text/html; charset=utf-8",
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop under maintenance</title>' +
      '<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="maintenance.css">' +
      '</head><body><main><img src="logo.svg" alt="" width="48" height="48"><h1>We will be right back</h1>' +
      "<p>The shop is under maintenance. Please try again in a few minutes.</p>" +
      "<p class=ray>Reference: ::RAY_ID::</p></main></body></html>\n",
  ],
  "/errors/maintenance.css": [
    "text/css; charset=utf-8",
    "body{font-family:system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;" +
      "background:#f6f7f9;color:#1d2330}main{max-width:32rem;padding:2rem;text-align:center}" +
      ".ray{font-family:ui-monospace,monospace;color:#5a6270}\n",
  ],
  "/errors/logo.svg": [
    "image/svg+xml",
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48"><circle cx="24" cy="24" r="22" fill="#f38020"/></svg>\n',
  ],
};

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://origin.invalid");
  const status = /^\/status\/([1-5]\d\d)$/.exec(url.pathname);
  req.resume();
  const file = MAINTENANCE[url.pathname];
  if (file) {
    res.writeHead(200, { "Content-Type": file[0] }).end(file[1]);
  } else if (url.pathname === "/sse" || url.pathname === "/ndjson") {
    stream(res, url, url.pathname === "/sse");
  } else if (url.pathname === "/drop") {
    req.socket.destroy();
  } else if (url.pathname === "/hello") {
    res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": "22" });
    res.end("hello from the origin\n");
  } else if (status && Number(status[1]) >= 200) {
    const code = Number(status[1]);
    res.writeHead(code, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ origin: "example", status: code, message: `the origin itself answered ${code}` }) + "\n");
  } else if (url.pathname === "/slow") {
    const ms = Math.min(Number(url.searchParams.get("ms") ?? "1000") || 0, 300_000);
    setTimeout(() => res.writeHead(200, { "Content-Type": "text/plain" }).end(`slept ${ms} ms\n`), ms);
  } else if (url.pathname === "/bytes") {
    const n = Math.min(Math.max(Number(url.searchParams.get("n") ?? "1024") || 0, 0), 100 * 1024 * 1024);
    res.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": String(n) });
    res.end(Buffer.alloc(n, 0x61));
  } else {
    const body = JSON.stringify({ origin: "example", method: req.method, url: req.url, headers: req.headers }, null, 2);
    res.writeHead(200, { "Content-Type": "application/json" }).end(body + "\n");
  }
});

/** A stream of `n` events or lines, then `then`: to try the edge's answers for broken streams (docs/agents.md "Streams"). */
function stream(res, url, sse) {
  const n = Math.min(Math.max(Number(url.searchParams.get("n") ?? "3") || 0, 0), 100);
  const ms = Math.min(Math.max(Number(url.searchParams.get("ms") ?? "500") || 0, 0), 10_000);
  const then = url.searchParams.get("then") ?? "end";
  res.writeHead(200, {
    "Content-Type": sse ? "text/event-stream" : "application/x-ndjson",
    "Cache-Control": "no-store",
  });
  let sent = 0;
  const next = () => {
    if (sent < n) {
      sent += 1;
      res.write(sse ? `event: message\ndata: {"n":${sent}}\n\n` : `{"n":${sent}}\n`);
      setTimeout(next, ms);
    } else if (then === "reset") res.socket?.resetAndDestroy();
    else if (then !== "idle") res.end();
  };
  next();
}

// Longer than any proxy's idle keep-alive, so a pooled connection is never closed under a request in flight.
server.keepAliveTimeout = 65_000;

server.listen(port, "127.0.0.1", () => {
  const address = server.address();
  const actual = typeof address === "object" && address !== null ? address.port : port;
  console.log(`example origin listening on http://127.0.0.1:${actual}`);
});
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
