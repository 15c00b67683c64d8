/**
 * A raw TCP "origin" on 127.0.0.1 that breaks HTTP on purpose. It reads the request head, then acts on its
 * path:
 *
 * | path | behaviour | expected code (docs/origin.md) |
 * |---|---|---|
 * | `/hang` | accepts, reads, never answers | 524 |
 * | `/reset` | accepts, reads, resets the connection (RST) | 520 |
 * | `/close` | accepts, reads, closes cleanly without a byte (empty reply) | 520 |
 * | `/garbage` | answers bytes that are not HTTP | 502 or 520 |
 * | `/bad-header` | a valid status line, then a header line without a colon | 502 or 520 |
 * | `/bad-status` | `HTTP/1.1 abc Nope` | 502 or 520 |
 * | `/hanging` | 200 with the number of `/hang` connections still open (to check the proxy lets them go) | |
 */
import { createServer, type Server, type Socket } from "node:net";

export async function startRawOrigin(): Promise<{ server: Server; port: number }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let head = "";
    const onData = (data: Buffer): void => {
      head += data.toString("latin1");
      const end = head.indexOf("\r\n\r\n");
      if (end === -1) return;
      socket.off("data", onData);
      act(socket, head.slice(0, end));
    };
    socket.on("data", onData);
  });
  // Hanging sockets must not keep the test run alive.
  server.on("close", () => sockets.forEach((s) => s.destroy()));
  const close = server.close.bind(server);
  server.close = (cb?: (err?: Error) => void) => {
    sockets.forEach((s) => s.destroy());
    return close(cb);
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { server, port: address.port };
}

const hanging = new Set<Socket>();

function act(socket: Socket, head: string): void {
  const path = (head.split(" ")[1] ?? "/").split("?")[0];
  switch (path) {
    case "/hang":
      hanging.add(socket);
      socket.on("close", () => hanging.delete(socket));
      socket.resume(); // keep reading whatever comes, never answer
      return;
    case "/hanging": {
      const body = String(hanging.size);
      socket.end(
        `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    case "/reset":
      socket.resetAndDestroy();
      return;
    case "/close":
      socket.end();
      return;
    case "/garbage":
      socket.end("\u0000\u0001 this is not HTTP at all \u00ff\r\n\r\n");
      return;
    case "/bad-header":
      socket.end("HTTP/1.1 200 OK\r\nThis line has no colon\r\nContent-Length: 2\r\n\r\nok");
      return;
    case "/bad-status":
      socket.end("HTTP/1.1 abc Nope\r\nContent-Length: 2\r\n\r\nok");
      return;
    default:
      socket.end("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nConnection: close\r\n\r\nraw");
  }
}
