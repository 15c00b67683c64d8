/**
 * A request body that can be sent a second time, to the fallback origin (docs/fewer-errors.md "Request bodies").
 *
 * The body still streams to the first origin as it arrives; what the first origin's upload read is kept, up to
 * `REPLAY_CAP` bytes, and the bytes it never read stay in the client's stream. The second sending is the kept
 * prefix followed by the rest of the client's stream: exactly the body, with no more held than the first origin
 * read. An origin that was never reached (521, 522, 523, 525, 526, 1016) usually read nothing, so nothing is held.
 * Past the cap the kept bytes are let go and the body cannot be sent again: the first origin's failure is answered
 * as it would be without a fallback.
 *
 * Why not `tee()`: its unread branch would hold the whole upload in memory for the fallback that is rarely needed.
 */

/** The most bytes kept for a second sending (a larger upload the first origin read goes to no fallback). */
export const REPLAY_CAP = 1024 * 1024;

export interface ReplayableBody {
  /** What the first origin gets. */
  readonly first: ReadableStream<Uint8Array>;
  /** The whole body again, for the second origin; `null` when more than the cap was read (or it was asked before). */
  again(): ReadableStream<Uint8Array> | null;
}

/**
 * Splits `body` into a first sending and a possible second. `length`: the request's `Content-Length`, when it has one:
 * both sendings then go as a `FixedLengthStream` of that length, so each origin gets the same `Content-Length` the
 * client sent (a stream of unknown length would go chunked).
 */
export function replayable(body: ReadableStream<Uint8Array>, length: number | null, cap = REPLAY_CAP): ReplayableBody {
  const reader = body.getReader();
  let kept: Uint8Array[] | null = [];
  let keptBytes = 0;
  let replayed = false;
  // Chunks the first sending's read got after the second sending began (its read was already waiting): they belong
  // to the second sending, in order, before anything it reads itself.
  const late: Uint8Array[] = [];
  // The first sending's read in flight: the runtime's reader takes one pending read at a time, so the second waits.
  let inFlight: Promise<unknown> | null = null;
  const first = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (replayed) return controller.close();
      const reading = reader.read();
      inFlight = reading;
      const { done, value } = await reading;
      inFlight = null;
      if (done) return controller.close();
      if (replayed) {
        late.push(value);
        return controller.close();
      }
      if (kept !== null) {
        keptBytes += value.byteLength;
        if (keptBytes > cap) kept = null;
        else kept.push(value);
      }
      controller.enqueue(value);
    },
    // The first origin gave up on its upload: the client's stream stays open for the second sending.
    cancel() {},
  });
  return {
    first: fixedLength(first, length),
    again() {
      if (kept === null || replayed) return null;
      replayed = true;
      const prefix = kept;
      kept = null;
      let next = 0;
      const whole = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (next < prefix.length) return controller.enqueue(prefix[next++]);
          // The first sending's pending read settles first (its handler runs before this one), into `late`.
          if (inFlight !== null) await inFlight.catch(() => undefined);
          if (late.length > 0) return controller.enqueue(late.shift());
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel(reason) {
          return reader.cancel(reason);
        },
      });
      return fixedLength(whole, length);
    },
  };
}

/** `stream` with a known length for the runtime's fetch (workerd's `FixedLengthStream`); as it is without one. */
function fixedLength(stream: ReadableStream<Uint8Array>, length: number | null): ReadableStream<Uint8Array> {
  if (length === null) return stream;
  const fixed = new FixedLengthStream(length);
  // A failed sending cancels its side; the pipe then ends with it (nothing to report: the fetch says what failed).
  stream.pipeTo(fixed.writable).catch(() => undefined);
  return fixed.readable;
}

/** A `Content-Length` value as a byte count; `null` when absent or not one non-negative integer. */
export function contentLength(value: string | null): number | null {
  if (value === null || !/^\d{1,15}$/.test(value)) return null;
  return Number(value);
}
