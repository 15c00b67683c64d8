/**
 * The one structured log line per generated error (docs/errors.md "Observability"):
 * `{"event":"edge_error","ray","zone","code","status","cause"}`, to `console.error` for 5xx, else `console.log`.
 *
 * Issue 12: a console line is not free. In workerd (`wrangler dev`, Miniflare, self-hosted workerd) each one is a
 * synchronous write to the process's stdout or stderr, and the reader on the other end is woken for each; measured
 * under load, one line per error cost ~30 µs of workerd CPU (about a tenth of a trivial Worker's whole request)
 * and ~25 µs of the reading process's. Lines written back to back cost a fraction of that each. So during a burst
 * the lines are coalesced, not dropped:
 *
 *   - a line is written at once when no window is open, and opens a window of `coalesceMs`;
 *   - lines of errors inside an open window wait, in order, and are written one by one (each its own line and its
 *     own log entry, JSON as always) when the window closes, by the request that opened it (`waitUntil`).
 *
 * So a lone error's line is written at once, in its own invocation, as before; in a burst, every line is still
 * written, at most `coalesceMs` late, attributed to the invocation that opened the window (each line carries its
 * ray). What can be lost: the waiting lines of one window if the isolate dies inside it. A window whose flush never
 * came (its request was cancelled) is closed by the next line after twice its length. `coalesceMs = 0`
 * (`ERROR_LOG_COALESCE_MS=0`) writes every line at once, in its own invocation. Without a `waitUntil` (unit tests
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

interface Pending {
  readonly line: string;
  readonly error: boolean;
}

let windowOpenedAt: number | null = null;
let pending: Pending[] = [];

/** Writes (or, inside an open window, queues) the line of one generated error. */
export function logEdgeError(e: EdgeErrorLine, coalesceMs: number, invocation?: Invocation, now = Date.now()): void {
  const line = edgeErrorLine(e);
  const error = e.status >= 500;
  if (windowOpenedAt !== null) {
    // A window whose flush did not come in twice its length is dead: write what waits, then carry on as if closed.
    if (now - windowOpenedAt <= 2 * coalesceMs) {
      pending.push({ line, error });
      return;
    }
    flush();
  }
  write(line, error);
  if (coalesceMs <= 0 || invocation === undefined) return;
  windowOpenedAt = now;
  invocation.waitUntil(new Promise<void>((resolve) => setTimeout(resolve, coalesceMs)).then(flush));
}

/** Closes the window: every waiting line, in order. Exported for tests. */
export function flush(): void {
  windowOpenedAt = null;
  const lines = pending;
  pending = [];
  for (const { line, error } of lines) write(line, error);
}

function write(line: string, error: boolean): void {
  if (error) console.error(line);
  else console.log(line);
}
