/**
 * A well-behaved (if sometimes slow) origin on 127.0.0.1 for the proxy tests. One mode per path:
 *
 * | path | behaviour |
 * |---|---|
 * | `/echo...` | 200 JSON: method, url (path + query), headers, body byte count |
 * | `/slow-body` | 200, five chunks 100 ms apart (headers at once) |
 * | `/slow-headers?ms=N` | waits N ms, then 200 "late" |
 * | `/status/503-json` | 503 `application/problem+json` with a fixed body and an `X-Origin` header |
 * | `/status/404` | 404 text |
 * | `/redirect` | 302 to `/elsewhere` (must not be followed by the proxy) |
 * | `/big?id=X&mb=N` | sends 1 MiB, then waits for `/release?id=X` before the remaining N-1 MiB |
 * | `/upload?id=X` | counts the request body; `/progress?id=X` reports the bytes received so far |
 * | `/slow-read?ms=N` | reads nothing of the request body for N ms, then reads it all and answers 200 with its byte count |
 * | `/big-error?id=X&mb=N` | 500 `text/plain` of N MiB (default 30), written as the client reads it; `/progress?id=X` reports the bytes written so far |
 * | `/asset/page.html` | 200 HTML linking `/asset/style.css`, `<img src="logo.png">`, a `<style>` with `url(bg.png)`, and a stylesheet on another host |
 * | `/asset/style.css` | CSS with `url("img/dot.png")` (relative to the stylesheet) |
 * | `/asset/logo.png`, `/asset/bg.png`, `/asset/img/dot.png` | `image/png` bytes (ASSET_PNG) |
 * | `/asset/404.html` | 404 HTML page (accepted as an asset since 2025-06-09) |
 * | `/asset/huge.html?kb=N` | 200 HTML of N KiB (default 2,000) |
 * | `/asset/broken-link.html` | 200 HTML linking a stylesheet that answers 404 |
 * | `/asset/counter.html?id=X` | 200 HTML naming how often `id` was asked (refetch on update), and the request's X-Forwarded-Host |
 * | `/errors/maintenance.html` | 200 HTML (the path of the assets' OpenAPI examples) |
 * | `/asset/slow-image.html` | 200 HTML whose image (`/slow-headers?ms=20000`) answers late |
 * | `/asset/repeat.html?n=N&kb=K&via=V` | 200 HTML referencing `/asset/blob.png?kb=K` N times: `<img>` tags (`via=img`), `url()`s in a `<style>` (`css`), or N links to `/asset/repeat.css?n=1&kb=K` (`sheet`) |
 * | `/asset/repeat.css?n=N&kb=K` | CSS with N `url()`s of `/asset/blob.png?kb=K` |
 * | `/asset/blob.png?kb=K` | `image/png`, K KiB |
 * | `/asset/error-page.html?box=500\|1000` | 200 HTML error page with `<head>`, a stylesheet (`/asset/style.css`), an image (`logo.png`) and the class's box token |
 *
 * Control endpoints (`/release`, `/progress`) let a test inside workerd observe streaming from the outside.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { ASSET_PNG, ORIGIN_503_BODY } from "./context.ts";

const MIB = 1024 * 1024;

interface Deferred {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
}

function deferred(): Deferred {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Starts the origin on an ephemeral loopback port. */
export async function startHttpOrigin(): Promise<{ server: Server; port: number }> {
  const releases = new Map<string, Deferred>();
  const progress = new Map<string, number>();
  const releaseOf = (id: string): Deferred => {
    let d = releases.get(id);
    if (!d) releases.set(id, (d = deferred()));
    return d;
  };

  // Header limit above the proxy's largest zone limit (128 KiB), so 1038 tests see the proxy's limit, not Node's.
  const server = createServer({ maxHeaderSize: 256 * 1024 }, (req, res) => {
    route(req, res, { releaseOf, progress }).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { server, port: address.port };
}

interface State {
  readonly releaseOf: (id: string) => Deferred;
  readonly progress: Map<string, number>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function route(req: IncomingMessage, res: ServerResponse, state: State): Promise<void> {
  const url = new URL(req.url ?? "/", "http://origin.invalid");
  const id = url.searchParams.get("id") ?? "";
  switch (url.pathname) {
    case "/slow-body": {
      res.writeHead(200, { "Content-Type": "text/plain" });
      for (let i = 0; i < 5; i++) {
        res.write(`chunk ${i}\n`);
        await sleep(100);
      }
      res.end();
      return;
    }
    case "/slow-headers": {
      await drain(req);
      await sleep(Number(url.searchParams.get("ms") ?? "0"));
      res.writeHead(200, { "Content-Type": "text/plain" }).end("late");
      return;
    }
    case "/status/503-json":
      await drain(req);
      res.writeHead(503, { "Content-Type": "application/problem+json", "X-Origin": "yes", "Retry-After": "7" });
      res.end(ORIGIN_503_BODY);
      return;
    case "/status/503-hints": {
      // An API origin's own 503 with the retry headers the query names (`ms` → retry-after-ms, `s` → Retry-After,
      // `verdict` → x-should-retry): the client tests read them through the Worker, which forwards them untouched.
      await drain(req);
      const headers: Record<string, string> = { "Content-Type": "application/json" };
      const ms = url.searchParams.get("ms");
      const s = url.searchParams.get("s");
      const verdict = url.searchParams.get("verdict");
      if (ms !== null) headers["retry-after-ms"] = ms;
      if (s !== null) headers["Retry-After"] = s;
      if (verdict !== null) headers["x-should-retry"] = verdict;
      res.writeHead(503, headers).end('{"error":"busy"}');
      return;
    }
    case "/status/404":
      await drain(req);
      res.writeHead(404, { "Content-Type": "text/plain" }).end("origin says no");
      return;
    case "/redirect":
      await drain(req);
      res.writeHead(302, { Location: "/elsewhere" }).end();
      return;
    case "/asset/page.html":
      await drain(req);
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      res.end(
        '<!doctype html><html><head><title>Down</title><link rel="stylesheet" href="/asset/style.css" media="screen">' +
          '<link rel="stylesheet" href="https://fonts.other.example/font.css">' +
          "<style>body{background:url(bg.png)}</style></head>" +
          '<body><img src="logo.png" srcset="logo-2x.png 2x" alt="logo"><p>Ray ::RAY_ID:: \u00e9</p></body></html>',
      );
      return;
    case "/asset/style.css":
      await drain(req);
      res.writeHead(200, { "Content-Type": "text/css" }).end('h1{color:red}.dot{background:url("img/dot.png")}');
      return;
    case "/asset/logo.png":
    case "/asset/bg.png":
    case "/asset/img/dot.png":
      await drain(req);
      res.writeHead(200, { "Content-Type": "image/png" }).end(Buffer.from(ASSET_PNG));
      return;
    case "/asset/error-page.html": {
      await drain(req);
      const box = url.searchParams.get("box") === "1000" ? "1000" : "500";
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      res.end(
        '<!doctype html><html><head><title>Shop down</title><link rel="stylesheet" href="/asset/style.css"></head>' +
          `<body><img src="logo.png" alt="logo"><h1>Sorry</h1>::EDGE_ERROR_${box}S_BOX::</body></html>`,
      );
      return;
    }
    case "/asset/404.html":
      await drain(req);
      res
        .writeHead(404, { "Content-Type": "text/html" })
        .end("<html><head></head><body>Not here (origin 404)</body></html>");
      return;
    case "/asset/huge.html": {
      await drain(req);
      const kb = Number(url.searchParams.get("kb") ?? "2000");
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end(`<html><body>${"x".repeat(kb * 1024)}</body></html>`);
      return;
    }
    case "/asset/repeat.html": {
      await drain(req);
      const n = Number(url.searchParams.get("n") ?? "200");
      const kb = Number(url.searchParams.get("kb") ?? "500");
      const via = url.searchParams.get("via") ?? "img";
      const image = `/asset/blob.png?kb=${kb}`;
      const refs =
        via === "css"
          ? `<style>${`.a{background:url(${image})}`.repeat(n)}</style>`
          : via === "sheet"
            ? `<link rel="stylesheet" href="/asset/repeat.css?n=1&amp;kb=${kb}">`.repeat(n)
            : `<img src="${image}">`.repeat(n);
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end(`<html><head>${via === "img" ? "" : refs}</head><body>${via === "img" ? refs : ""}</body></html>`);
      return;
    }
    case "/asset/repeat.css": {
      await drain(req);
      const n = Number(url.searchParams.get("n") ?? "200");
      const kb = Number(url.searchParams.get("kb") ?? "500");
      res.writeHead(200, { "Content-Type": "text/css" });
      res.end(`.b{background:url("blob.png?kb=${kb}")}`.repeat(n));
      return;
    }
    case "/asset/blob.png": {
      await drain(req);
      const kb = Number(url.searchParams.get("kb") ?? "500");
      res.writeHead(200, { "Content-Type": "image/png" }).end(Buffer.alloc(kb * 1024, 7));
      return;
    }
    case "/asset/broken-link.html":
      await drain(req);
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end('<html><head><link rel="stylesheet" href="/status/404"></head><body>broken</body></html>');
      return;
    case "/asset/counter.html": {
      await drain(req);
      const n = (state.progress.get(`counter:${id}`) ?? 0) + 1;
      state.progress.set(`counter:${id}`, n);
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end(`<html><body>fetch ${n} host ${String(req.headers["x-forwarded-host"])}</body></html>`);
      return;
    }
    case "/errors/maintenance.html":
      await drain(req);
      res.writeHead(200, { "Content-Type": "text/html" }).end("<html><head></head><body>maintenance</body></html>");
      return;
    case "/asset/slow-image.html":
      await drain(req);
      res
        .writeHead(200, { "Content-Type": "text/html" })
        .end('<html><body><img src="/slow-headers?ms=20000"></body></html>');
      return;
    case "/release":
      state.releaseOf(id).resolve();
      res.writeHead(204).end();
      return;
    case "/progress":
      res.writeHead(200, { "Content-Type": "text/plain" }).end(String(state.progress.get(id) ?? 0));
      return;
    case "/big": {
      const total = Number(url.searchParams.get("mb") ?? "50");
      const chunk = Buffer.alloc(MIB, 0x61);
      res.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": String(total * MIB) });
      res.write(chunk);
      await state.releaseOf(id).promise;
      for (let i = 1; i < total; i++) {
        if (!res.write(chunk)) await new Promise((r) => res.once("drain", r));
      }
      res.end();
      return;
    }
    case "/big-error": {
      const total = Number(url.searchParams.get("mb") ?? "30");
      const chunk = Buffer.alloc(64 * 1024, 0x62);
      state.progress.set(id, 0);
      res.writeHead(500, { "Content-Type": "text/plain", "Content-Length": String(total * MIB) });
      for (let written = 0; written < total * MIB && !res.destroyed; written += chunk.byteLength) {
        if (!res.write(chunk)) await new Promise((r) => (res.once("drain", r), res.once("close", r)));
        state.progress.set(id, written + chunk.byteLength);
      }
      res.end();
      return;
    }
    case "/slow-read": {
      req.pause();
      await new Promise((r) => setTimeout(r, Number(url.searchParams.get("ms") ?? "1000")));
      const bytes = await drain(req);
      res.writeHead(200, { "Content-Type": "text/plain" }).end(String(bytes));
      return;
    }
    case "/upload": {
      let received = 0;
      state.progress.set(id, 0);
      for await (const part of req) {
        received += (part as Buffer).byteLength;
        state.progress.set(id, received);
      }
      res.writeHead(200, { "Content-Type": "text/plain" }).end(String(received));
      return;
    }
    default: {
      // `/echo` and everything else: describe the request as received.
      const bytes = await drain(req);
      const body = JSON.stringify({ method: req.method, url: req.url, headers: req.headers, bodyBytes: bytes });
      res.writeHead(200, { "Content-Type": "application/json", "X-Origin": "yes" }).end(body);
    }
  }
}

async function drain(req: IncomingMessage): Promise<number> {
  let bytes = 0;
  for await (const part of req) bytes += (part as Buffer).byteLength;
  return bytes;
}
