/**
 * Streams that fail loudly (docs/agents.md "Streams"): an origin's `text/event-stream` or NDJSON response that
 * breaks after its headers (the connection is reset, or no byte arrives within the idle limit) ends with a final
 * error frame holding the problem object, then closes. Without it the client sees a clean end of stream and reads
 * a truncated answer as a complete one.
 *
 * Only these two kinds of response are watched, and only when the origin did not declare a length (a stream; a
 * `Content-Length` body cannot grow an extra frame); every other response is returned as it came, untouched. A
 * stream that ends cleanly passes through byte for byte.
 */
import { TIMEOUT, within } from "../../shared/timeout";

/** The stream formats that get a final error frame. */
export type StreamKind = "sse" | "ndjson";

/** The NDJSON family of media types: newline-delimited JSON, JSON Lines, JSON text sequences are not included. */
const NDJSON_TYPES = new Set([
  "application/x-ndjson",
  "application/ndjson",
  "application/jsonl",
  "application/x-jsonl",
]);

/** The kind of a response's `Content-Type`, or `null` for anything that is not watched. */
export function streamKindOf(contentType: string | null): StreamKind | null {
  if (contentType === null) return null;
  const semicolon = contentType.indexOf(";");
  const essence = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  if (essence === "text/event-stream") return "sse";
  return NDJSON_TYPES.has(essence) ? "ndjson" : null;
}

/** Why a watched stream ended early: the origin's connection broke, or it went quiet past the idle limit. */
export type StreamFailure =
  { readonly kind: "broken"; readonly message: string } | { readonly kind: "idle"; readonly idleMs: number };

/**
 * What the final frame carries, made only when a stream fails: the problem object's JSON (one line) and, for an
 * MCP request's event stream, the JSON-RPC messages that replace the error event (each one line, sent as `message`
 * events; docs/agents.md "Streams"): an MCP client reads only JSON-RPC messages from its stream.
 */
export interface FinalFrame {
  readonly problem: string;
  readonly messages: readonly string[];
  /**
   * The error's wait in milliseconds (its `retry-after-ms`), `null` when not retryable: the event stream's `retry:`
   * field, so that an `EventSource` reconnects after the error's hint instead of its own default of a few seconds.
   */
  readonly retryMs: number | null;
}

export type ProblemFor = (failure: StreamFailure) => Promise<FinalFrame>;

/**
 * The text to append after `tail` (the stream's last bytes, at most 4) so that the error frame stands alone:
 * SSE (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation) needs it to start
 * after a blank line, or its fields would join the event the origin left half-sent, so that event is ended first;
 * NDJSON needs it on a line of its own. With `messages` (an MCP stream) the frame is those messages alone.
 */
export function errorFrame(
  kind: StreamKind,
  tail: string,
  problemJson: string,
  messages: readonly string[] = [],
  retryMs: number | null = null,
): string {
  if (kind === "ndjson") return `${tail === "" || tail.endsWith("\n") ? "" : "\n"}{"error":${problemJson}}\n`;
  // CRLF, so that a lone CR the origin left (perhaps the first half of its own CRLF) still ends exactly one line.
  const ends = tail.replace(/\r\n/g, "\n").replace(/\r/g, "\n");
  const separator = ends === "" || ends.endsWith("\n\n") ? "" : ends.endsWith("\n") ? "\r\n" : "\r\n\r\n";
  // `retry:` sets the reconnection time of an EventSource (HTML, "event stream interpretation": the field's value
  // in ms when it is only ASCII digits), in the same event as the problem.
  const retry = retryMs === null ? "" : `retry: ${Math.max(0, Math.ceil(retryMs))}\n`;
  // An MCP stream carries JSON-RPC messages only: its clients log any other event as unknown (docs/agents.md).
  if (messages.length > 0) return separator + messages.map((m, i) => `${i === 0 ? retry : ""}data: ${m}\n\n`).join("");
  return `${separator}event: error\n${retry}data: ${problemJson}\n\n`;
}

/** Keeps the last four bytes of what went through, as latin-1 (only CR and LF matter). */
function tailAfter(tail: string, chunk: Uint8Array): string {
  const start = Math.max(0, chunk.byteLength - 4);
  let next = tail;
  for (let i = start; i < chunk.byteLength; i++) next += String.fromCharCode(chunk[i] ?? 0);
  return next.slice(-4);
}

/**
 * `body` with its failures turned into a final error frame. Pull-based: a chunk is read from the origin only when
 * the client is ready for one, and the idle limit counts from that read, so a slow reader is never taken for an
 * idle origin. A cancel from the client reaches the origin.
 */
export function watchStream(
  body: ReadableStream<Uint8Array>,
  kind: StreamKind,
  idleMs: number,
  problemFor: ProblemFor,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let tail = "";
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let failure: StreamFailure;
      try {
        const next = await within(reader.read(), idleMs);
        if (next === TIMEOUT) failure = { kind: "idle", idleMs };
        else if (next.done) return controller.close();
        else {
          tail = tailAfter(tail, next.value);
          return controller.enqueue(next.value);
        }
      } catch (e) {
        failure = { kind: "broken", message: e instanceof Error ? e.message : String(e) };
      }
      reader.cancel().catch(() => undefined); // let the origin's connection go
      const { problem, messages, retryMs } = await problemFor(failure);
      const frame = errorFrame(kind, tail, problem, messages, retryMs);
      controller.enqueue(new TextEncoder().encode(frame));
      controller.close();
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
