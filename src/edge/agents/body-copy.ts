/**
 * A bounded copy of an MCP request's body, for the JSON-RPC id an error answer needs (docs/agents.md "Reading the
 * id"). The body is not teed: one pump reads the client's body a chunk at a time, keeps a copy of the chunk (up to
 * `MCP_BODY_CAP`), and hands it to the forwarded stream, reading the next only once the origin's side took it. So
 * the client is read at the origin's pace and the isolate never holds the body for a slow origin (a tee's eager
 * copy branch made the other branch buffer the whole body until the origin read it). Past the cap the copy is
 * dropped and the id is unknown; forwarding goes on. When forwarding stops (the origin failed or answered without
 * reading it all), the pump reads the rest of the client's body into the copy, still capped, so an error answer can
 * find the id. The copy is parsed only when an error must be answered.
 */
import { TIMEOUT, within } from "../../shared/timeout";

/** The largest body whose id is read: a JSON-RPC request of MCP is small; a bigger one is answered as usual. */
export const MCP_BODY_CAP = 1024 * 1024;

/**
 * How long an error answer waits for the rest of a body still arriving from the client: a client that stops
 * sending must not hold its own error back (docs/agents.md).
 */
export const MCP_BODY_WAIT_MS = 1000;

/** The copy: the body text once complete (`null` when over the cap, unreadable, or not complete in time). */
export interface BodyCopy {
  readonly text: () => Promise<string | null>;
}

/**
 * Splits `body`: the returned stream is what to forward (of `length` bytes when the request declared one, so the
 * origin gets the same framing), the copy is what the error answer may read.
 */
export function copyBody(
  body: ReadableStream<Uint8Array>,
  length: number | null,
): { forward: ReadableStream<Uint8Array>; copy: BodyCopy } {
  const pipe = length === null ? new IdentityTransformStream() : new FixedLengthStream(length);
  const read = pump(body.getReader(), pipe.writable.getWriter(), MCP_BODY_CAP);
  return { forward: pipe.readable as ReadableStream<Uint8Array>, copy: { text: () => waitFor(read) } };
}

/**
 * Forwards `reader`'s chunks to `writer` one at a time, each after the last was taken, keeping the first `cap`
 * bytes; resolves to the body's text, or `null` past the cap or when the client's body failed. Never rejects: every
 * failure of either side is handled here (an unfinished body must not surface as an uncaught rejection).
 */
async function pump(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  writer: WritableStreamDefaultWriter<ArrayBufferView | ArrayBuffer>,
  cap: number,
): Promise<string | null> {
  const kept = new Kept(cap);
  let forwarding = true;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      kept.add(value);
      if (forwarding)
        forwarding = await writer.write(value).then(
          () => true,
          () => false,
        );
      if (!forwarding && kept.over) {
        // Nobody takes the rest and no id can be read from it: stop reading the client.
        await reader.cancel("over the cap of the MCP body copy").catch(() => undefined);
        return null;
      }
    }
  } catch (e) {
    // The client's body broke off: the origin's side fails too (as with the body itself), the copy is unusable.
    if (forwarding) await writer.abort(e).catch(() => undefined);
    return null;
  }
  if (forwarding) await writer.close().catch(() => undefined);
  return kept.text();
}

/** The first `cap` bytes of a stream, dropped (memory freed) as soon as the stream is longer. */
class Kept {
  private chunks: Uint8Array[] = [];
  private total = 0;
  constructor(private readonly cap: number) {}

  get over(): boolean {
    return this.total > this.cap;
  }

  add(chunk: Uint8Array): void {
    this.total += chunk.byteLength;
    if (this.over) this.chunks = [];
    else this.chunks.push(chunk);
  }

  text(): string | null {
    if (this.over) return null;
    const bytes = new Uint8Array(this.total);
    let offset = 0;
    for (const chunk of this.chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return new TextDecoder().decode(bytes);
  }
}

/** A body that is not forwarded (an error before the origin was asked): read it, with the same bounds. */
export function bodyText(body: ReadableStream<Uint8Array> | null): Promise<string | null> {
  return body === null ? Promise.resolve(null) : waitFor(readCapped(body, MCP_BODY_CAP));
}

async function waitFor(read: Promise<string | null>): Promise<string | null> {
  const text = await within(read, MCP_BODY_WAIT_MS);
  return text === TIMEOUT ? null : text;
}

/** The stream's bytes as UTF-8 text, or `null` past `cap` bytes or on a read error; never rejects. */
export async function readCapped(stream: ReadableStream<Uint8Array>, cap: number): Promise<string | null> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > cap) {
        await reader.cancel("over the cap of the MCP body copy");
        return null;
      }
      chunks.push(value);
    }
  } catch {
    return null;
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
