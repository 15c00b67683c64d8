/**
 * A bounded copy of an MCP request's body, for the JSON-RPC id an error answer needs (docs/agents.md "Reading the
 * id"). The forwarded body is one branch of a tee: the origin gets the same bytes at the same pace, and nothing
 * waits for the copy. The copy reads its branch eagerly, so the tee never holds more than `MCP_BODY_CAP` for it:
 * past the cap the copy cancels its branch (the other goes on) and the id is unknown. The copy is parsed only
 * when an error must be answered.
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

/** Splits `body`: the returned stream is what to forward, the copy is what the error answer may read. */
export function copyBody(body: ReadableStream<Uint8Array>): { forward: ReadableStream<Uint8Array>; copy: BodyCopy } {
  const [forward, mine] = body.tee();
  const read = readCapped(mine, MCP_BODY_CAP);
  return { forward, copy: { text: () => waitFor(read) } };
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
