/**
 * A raw TCP origin on 127.0.0.1 whose streams break after their headers (docs/agents.md "Streams"). It reads the
 * request head, answers 200 with chunked transfer coding and the path's media type, sends the first part, then
 * acts on the path:
 *
 * | path | type | after the first part |
 * |---|---|---|
 * | `/sse/reset` | `text/event-stream` | a half-sent event (`data: par`), then a reset (RST) |
 * | `/sse/idle` | `text/event-stream` | nothing more; the connection stays open |
 * | `/sse/clean` | `text/event-stream` | a second event, then the final chunk (a clean end) |
 * | `/ndjson/reset` | `application/x-ndjson` | a half-sent line (`{"n":2`), then a reset |
 * | `/ndjson/idle` | `application/x-ndjson` | nothing more |
 * | `/ndjson/clean` | `application/x-ndjson` | a second line, then a clean end |
 * | `/text/reset` | `text/plain` | a reset: not a stream the edge watches |
 */
import { createServer, type Server, type Socket } from "node:net";

/** The first event every SSE path sends, and the first NDJSON line. */
export const FIRST_EVENT = "event: message\ndata: one\n\n";
export const FIRST_LINE = '{"n":1}\n';

export async function startStreamOrigin(): Promise<{ server: Server; port: number }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let head = "";
    const onData = (data: Buffer): void => {
      head += data.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      socket.off("data", onData);
      socket.resume();
      act(socket, (head.split(" ")[1] ?? "/").split("?")[0] ?? "/");
    };
    socket.on("data", onData);
  });
  // Idle streams must not keep the test run alive.
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

const chunk = (text: string): string => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
const later = (ms: number, f: () => void): void => void setTimeout(f, ms);

function act(socket: Socket, path: string): void {
  const [, family = "", ending = ""] = path.split("/");
  const type =
    family === "sse" ? "text/event-stream" : family === "ndjson" ? "application/x-ndjson" : "text/plain; charset=utf-8";
  const first = family === "sse" ? FIRST_EVENT : FIRST_LINE;
  socket.write(`HTTP/1.1 200 OK\r\nContent-Type: ${type}\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(first)}`);
  switch (ending) {
    case "reset":
      later(100, () => {
        socket.write(chunk(family === "sse" ? "data: par" : family === "ndjson" ? '{"n":2' : "more"));
        later(100, () => socket.resetAndDestroy());
      });
      return;
    case "clean":
      later(100, () =>
        socket.end(chunk(family === "sse" ? "event: message\ndata: two\n\n" : '{"n":2}\n') + "0\r\n\r\n"),
      );
      return;
    default: // idle: say nothing more
      return;
  }
}
