/**
 * The one structured log line per generated error (docs/errors.md "Observability"):
 * `{"event":"edge_error","ray","zone","code","status","cause"}`, to `console.error` for 5xx, else `console.log`.
 *
 * Issue 12: a console call is not free. In workerd (`wrangler dev`, Miniflare, self-hosted workerd) each one is a
 * synchronous write to the process's stdout or stderr, and the reader on the other end is woken for each. Measured
 * under load (docs/benchmarks.md), one call per error cost ~70 µs of workerd CPU, a quarter of a trivial Worker's
 * whole request, and ~45 µs of the reading process's; the same lines written one call per line at the end of a
 * 50 ms window still cost ~20 µs each; one call per window, next to nothing. So during a burst the lines are
 * coalesced, never dropped:
 *
 *   - a line is written at once when no window is open, and opens a window of `coalesceMs`;
 *   - the lines of errors inside an open window wait, in order, and are written when the window closes, by the
 *     request that opened it (`waitUntil`): one write per stream holding one line per error (NDJSON).
 *
 * So a lone error's line is written at once, in its own invocation, as before. In a burst every line is still
 * written, at most `coalesceMs` late, and still one JSON object per line, but the waiting lines of a window are one
 * log entry, attributed to the invocation that opened the window (each line carries its ray). What can be lost: the
 * waiting lines of one window if the isolate dies inside it. A window whose flush never came (its request was
 * cancelled) is closed by the next line after twice its length. `coalesceMs = 0` (`ERROR_LOG_COALESCE_MS=0`, for
 * one log entry per error in its own invocation) writes every line at once. Without a `waitUntil` (unit tests
 * calling the pipeline directly, the last-resort funnel) a line is always written at once.
 */

export interface EdgeErrorLine {
  readonly ray: string;
  readonly zone: string;
  readonly code: number;
  readonly status: number;
  readonly cause: string | undefined;
}

/** What the log needs of the invocation: a way to finish work after the response. */
export type Invocation = Pick<ExecutionContext, "waitUntil">;

/** The JSON line: `JSON.stringify({event, ray, zone, code, status, cause})`, built without an object. */
export function edgeErrorLine(e: EdgeErrorLine): string {
  // Only the strings that can hold anything are serialised; the ray is hex and the numbers are integers.
  return (
    `{"event":"edge_error","ray":"${e.ray}","zone":${JSON.stringify(e.zone)},"code":${e.code},` +
    `"status":${e.status},"cause":${e.cause === undefined ? "null" : JSON.stringify(e.cause)}}`
  );
}

/** Lines waiting for their window to close, per stream (5xx lines go to the error stream). */
let windowOpenedAt: number | null = null;
let waitingErrors: string[] = [];
let waitingInfo: string[] = [];

/** Writes (or, inside an open window, queues) the line of one generated error. */
export function logEdgeError(e: EdgeErrorLine, coalesceMs: number, invocation?: Invocation, now = Date.now()): void {
  const line = edgeErrorLine(e);
  const error = e.status >= 500;
  if (windowOpenedAt !== null) {
    // A window whose flush did not come in twice its length is dead: write what waits, then carry on as if closed.
    if (now - windowOpenedAt <= 2 * coalesceMs) {
      (error ? waitingErrors : waitingInfo).push(line);
      return;
    }
    flush();
  }
  write(line, error);
  if (coalesceMs <= 0 || invocation === undefined) return;
  windowOpenedAt = now;
  invocation.waitUntil(new Promise<void>((resolve) => setTimeout(resolve, coalesceMs)).then(flush));
}

/** Closes the window: the waiting lines of each stream in one write, in order, one line per error. Exported for tests. */
export function flush(): void {
  windowOpenedAt = null;
  const errors = waitingErrors;
  const info = waitingInfo;
  waitingErrors = [];
  waitingInfo = [];
  if (errors.length > 0) write(errors.join("\n"), true);
  if (info.length > 0) write(info.join("\n"), false);
}

function write(text: string, error: boolean): void {
  if (error) console.error(text);
  else console.log(text);
}
