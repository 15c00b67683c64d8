/**
 * Origins a test can stop and start again, on 127.0.0.1, behind one control server (docs/fewer-errors.md "Tests"):
 * warming a copy and then stopping the origin must refuse connections for real (521), not answer an error.
 *
 * Control (the switchboard's own port):
 * | request | effect |
 * |---|---|
 * | `POST /origins` | starts a new origin on a free port below the ephemeral range; answers `{"port": N}` |
 * | `POST /origins/{port}/stop` | closes its listening socket and every open connection: connections are refused |
 * | `POST /origins/{port}/start` | listens on the same port again |
 * | `POST /origins/{port}/mode?m=ok\|reset\|hang\|slow\|status&ms=N&s=N` | how it answers: normally, by resetting each connection, never, after `ms` more milliseconds, or with status `s` (the same body) |
 * | `GET /origins/{port}/stats` | `{"connections": N, "requests": N}`: TCP connections accepted, requests answered |
 *
 * Each origin answers `GET /page?cc=<Cache-Control>&vary=<Vary>&cookie=1&status=N&delay=<ms>` with the body
 * `<path> #<n> lang=<Accept-Language> method=<method> length=<Content-Length|chunked|none> body=<the request body>`
 * (`n` counts its requests), the given `Cache-Control` and `Vary`, a `Set-Cookie` when asked, after `delay` ms; any
 * method is answered, so a replayed `POST` is seen in the count and its body in the answer.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

type Mode = "ok" | "reset" | "hang" | "slow" | "status";

interface Switched {
  readonly server: Server;
  readonly sockets: Set<Socket>;
  mode: Mode;
  /** `slow`: the added delay, ms; `status`: the status answered. */
  slowMs: number;
  status: number;
  connections: number;
  requests: number;
}

/** Ports handed out, from below the kernel's ephemeral range (global-setup.ts `closedPort` says why). */
let nextPort = 23_000;

async function listenOn(server: Server, port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const onError = (): void => resolve(false);
    server.once("error", onError);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", onError);
      resolve(true);
    });
  });
}

function originServer(state: () => Switched): Server {
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const s = state();
    if (s.mode === "hang") return; // never answers
    s.requests += 1;
    const url = new URL(req.url ?? "/", "http://origin");
    const delay = Number(url.searchParams.get("delay") ?? 0) + (s.mode === "slow" ? s.slowMs : 0);
    const headers: Record<string, string> = { "Content-Type": "text/plain" };
    const cc = url.searchParams.get("cc");
    if (cc !== null) headers["Cache-Control"] = cc;
    const vary = url.searchParams.get("vary");
    if (vary !== null) headers.Vary = vary;
    if (url.searchParams.get("cookie") === "1") headers["Set-Cookie"] = "session=abc; Path=/";
    const status = s.mode === "status" ? s.status : Number(url.searchParams.get("status") ?? 200);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const sent = Buffer.concat(chunks).toString("utf8");
      const framing =
        req.headers["content-length"] ?? (req.headers["transfer-encoding"] === undefined ? "none" : "chunked");
      const lang = String(req.headers["accept-language"] ?? "");
      const body = `${url.pathname} #${s.requests} lang=${lang} method=${req.method ?? ""} length=${framing} body=${sent}`;
      setTimeout(() => res.writeHead(status, headers).end(body), delay);
    });
  });
  // Idle connections stay open, as for the other origins (global-setup.ts: workerd's pool reused ones Node had closed).
  server.keepAliveTimeout = 0;
  server.on("connection", (socket: Socket) => {
    const s = state();
    s.connections += 1;
    s.sockets.add(socket);
    socket.on("close", () => s.sockets.delete(socket));
    socket.on("error", () => undefined);
    if (s.mode === "reset") socket.resetAndDestroy();
  });
  return server;
}

export async function startSwitchboard(): Promise<{ server: Server; port: number }> {
  const origins = new Map<number, Switched>();
  const control = createHttpServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://control");
    const reply = (status: number, body: unknown): void => {
      res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
    };
    void (async () => {
      if (req.method === "POST" && url.pathname === "/origins") {
        const ref: { switched?: Switched } = {};
        const server = originServer(() => ref.switched as Switched);
        const switched: Switched = {
          server,
          sockets: new Set(),
          mode: "ok",
          slowMs: 0,
          status: 200,
          connections: 0,
          requests: 0,
        };
        ref.switched = switched;
        // Each try claims its number before it awaits: two origins asked for at once (test files run in
        // parallel) must never try, or be filed under, the same port.
        let port = nextPort++;
        while (port < 24_000 && !(await listenOn(server, port))) port = nextPort++;
        if (port >= 24_000) return reply(503, { error: "no free port in 23000–23999" });
        origins.set(port, switched);
        return reply(200, { port });
      }
      const match = /^\/origins\/(\d+)\/(stop|start|mode|stats)$/.exec(url.pathname);
      const origin = match === null ? undefined : origins.get(Number(match[1]));
      if (match === null || origin === undefined) return reply(404, { error: "no such origin" });
      switch (match[2]) {
        case "stop":
          await new Promise<void>((resolve) => {
            origin.server.close(() => resolve());
            for (const socket of origin.sockets) socket.destroy();
          });
          return reply(200, { stopped: true });
        case "start":
          return reply((await listenOn(origin.server, Number(match[1]))) ? 200 : 409, {});
        case "mode":
          origin.mode = (url.searchParams.get("m") ?? "ok") as Mode;
          origin.slowMs = Number(url.searchParams.get("ms") ?? 0);
          origin.status = Number(url.searchParams.get("s") ?? 200);
          return reply(200, { mode: origin.mode });
        default:
          return reply(200, { connections: origin.connections, requests: origin.requests });
      }
    })();
  });
  control.on("close", () => {
    for (const origin of origins.values()) {
      for (const socket of origin.sockets) socket.destroy();
      origin.server.close();
    }
  });
  await new Promise<void>((resolve) => control.listen(0, "127.0.0.1", resolve));
  const address = control.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { server: control, port: address.port };
}
