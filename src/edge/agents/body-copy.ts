/**
 * What an MCP error answer needs from the request's body, read on the body's way to the origin (docs/agents.md
 * "Reading the id"). The body is neither teed nor copied: one pump reads the client's body a chunk at a time, passes
 * the chunk through the JSON-RPC scan (src/edge/agents/rpc-scan.ts, which keeps no bytes), and writes it to the
 * forwarded stream, reading the next only once the origin's side took it. So the client is read at the origin's
 * pace and nothing of the body waits in the isolate for a slow origin (a tee's eager copy branch read the client
 * ahead and held up to 1 MiB, while the forwarded branch buffered what the origin had not read yet). Past
 * `MCP_BODY_CAP` the scan stops and the id is unknown; forwarding goes on. When forwarding stops (the origin failed
 * or answered without reading it all), the pump reads the rest of the client's body through the scan, up to the cap,
 * so an error answer can still find the id.
 */
import { TIMEOUT, within } from "../../shared/timeout";
import { RpcScanner } from "./rpc-scan";

/** The largest body whose id is read: a JSON-RPC request of MCP is small; a bigger one is answered as usual. */
export const MCP_BODY_CAP = 1024 * 1024;

/**
 * How long an error answer waits for the rest of a body still arriving from the client: a client that stops
 * sending must not hold its own error back (docs/agents.md).
 */
export const MCP_BODY_WAIT_MS = 1000;

/**
 * The body as the scan reduced it (`RpcScanner.finish`), or `null` when it is not there to read: over the cap, not
 * JSON, broken off, or not complete in time.
 */
export type ScannedBody = { readonly value: unknown } | null;

/** The scan of a forwarded body, awaited only when an error must be answered. */
export interface BodyCopy {
  readonly scanned: () => Promise<ScannedBody>;
}

/**
 * The stream to forward in place of `body` (of `length` bytes when the request declared one, so the origin gets the
 * same framing as for any other request), and the scan an error answer may read.
 */
export function copyBody(
  body: ReadableStream<Uint8Array>,
  length: number | null,
): { forward: ReadableStream<Uint8Array>; copy: BodyCopy } {
  const pipe = length === null ? new IdentityTransformStream() : new FixedLengthStream(length);
  const read = pump(body.getReader(), pipe.writable.getWriter());
  return { forward: pipe.readable, copy: { scanned: () => waitFor(read) } };
}

/** A body that is not forwarded (an error before the origin was asked): scanned with the same bounds. */
export function bodyScanned(body: ReadableStream<Uint8Array> | null): Promise<ScannedBody> {
  return body === null ? Promise.resolve(null) : waitFor(pump(body.getReader(), null));
}

async function waitFor(read: Promise<ScannedBody>): Promise<ScannedBody> {
  const scanned = await within(read, MCP_BODY_WAIT_MS);
  return scanned === TIMEOUT ? null : scanned;
}

/**
 * Reads `reader` to its end, each chunk through the scan (up to `MCP_BODY_CAP`) and on to `writer` (when there is
 * one and it still takes chunks), each after the last was taken. Never rejects: every failure of either side is
 * handled here, so that an unfinished body never surfaces as an unhandled rejection.
 */
async function pump(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  writer: WritableStreamDefaultWriter<ArrayBufferView | ArrayBuffer> | null,
): Promise<ScannedBody> {
  const scanner = new RpcScanner();
  let total = 0;
  let forwarding = writer !== null;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total <= MCP_BODY_CAP) scanner.push(value);
      if (forwarding && writer !== null) {
        forwarding = await writer.write(value).then(
          () => true,
          () => false,
        );
      }
      if (!forwarding && total > MCP_BODY_CAP) {
        // Nobody takes the rest and no id can be read from it: stop reading the client.
        await reader.cancel("past the cap of the MCP body scan").catch(() => undefined);
        return null;
      }
    }
  } catch (e) {
    // The client's body broke off: the origin's side fails as it would for the body itself; no id is read.
    if (forwarding && writer !== null) await writer.abort(e).catch(() => undefined);
    return null;
  }
  if (forwarding && writer !== null) await writer.close().catch(() => undefined);
  if (total > MCP_BODY_CAP) return null;
  const value = scanner.finish();
  return value === undefined ? null : { value };
}
