/**
 * The one structured log line per generated error (docs/errors.md "Observability"):
 * `{"event":"edge_error","ray","zone","code","status","cause"}`, at the level of what happened (`levelOf`,
 * docs/configuration.md "Log levels"): error for the service's own failures (500, 1100–1105: an operator must act),
 * warn for the other 5xx (the origin failing, as detected: the service did its job), info for everything else
 * (blocks, rate limits, unknown hosts). So `wrangler dev` shows a red `✘ [ERROR]` only for a real fault. Written
 * through src/shared/log.ts (`edge_error` is its one `per-call` event).
 *
 * A preview (an error shown because someone asked to see it) is no failure a visitor met, so it is no `edge_error`:
 * anything that counts or alerts on `edge_error` lines counts failures only. It still writes a line, the same fields
 * as `{"event":"error_preview",…}` at info, because its answer carries a Ray ID like any error and an operator
 * handed that Ray ID finds it in the log (docs/configuration.md "Events").
 *
 * A console call is not free. In workerd (`wrangler dev`, Miniflare, self-hosted workerd) each one is a
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

import { eventLinePrefix, writeEventLines, type LogLevel } from "../shared/log";
import { jsonString } from "./render-json";

/** A generated error's line: an `edge_error`, or an `error_preview` when `preview` is set. */
export interface EdgeErrorLine {
  readonly ray: string;
  readonly zone: string;
  readonly code: number;
  readonly status: number;
  readonly cause: string | undefined;
  /**
   * The error was shown on request (the preview endpoints: `{SERVICE_PREFIX}/error/{code}`, the zone API's
   * `/preview/{code}`, the draft preview and the request tracer), not because anything failed: the line is an
   * `error_preview`, not an `edge_error`. Set by the producer, never read from `cause`; not a field of the line.
   */
  readonly preview: boolean;
}

/**
 * What the log needs of the invocation: a way to finish work after the response (`ExecutionContext.waitUntil`),
 * written structurally so the module also type-checks outside workerd (test/node/log-events.test.ts reads it).
 */
export interface Invocation {
  waitUntil(promise: Promise<unknown>): void;
}

const PREFIX = eventLinePrefix("edge_error");
const PREVIEW_PREFIX = eventLinePrefix("error_preview");

/**
 * The JSON line: `JSON.stringify({event, ray, zone, code, status, cause})` (the fields of `edge_error`, and of
 * `error_preview`, in src/shared/log.ts `EVENTS`), built without an object.
 */
export function edgeErrorLine(e: EdgeErrorLine): string {
  // Only the strings that can hold anything are serialised (`jsonString`: JSON.stringify, without the stringifier
  // for the usual zone and cause that need no escape); the ray is hex and the numbers are integers. Joined, not
  // concatenated: `+` makes a rope of ~10 strings, which a burst's window keeps alive through the young
  // generation's collections until it closes; `join` makes one flat string (~4–9k instructions less per error in
  // workerd, docs/benchmarks-history.md "The performance-targets work (2026-11-24): the error path, second pass").
  return [
    e.preview ? PREVIEW_PREFIX : PREFIX,
    ',"ray":"',
    e.ray,
    '","zone":',
    jsonString(e.zone),
    ',"code":',
    e.code,
    ',"status":',
    e.status,
    ',"cause":',
    e.cause === undefined ? "null" : jsonString(e.cause),
    "}",
  ].join("");
}

/** The level of an `edge_error` line (docs/configuration.md "Log levels"). Exported for tests. */
export function levelOf(e: Pick<EdgeErrorLine, "code" | "status">): LogLevel {
  // The service's own faults: the 500 of a CONFIG outage or a misconfiguration, the Worker's 1101 and kin.
  if (e.code === 500 || (e.code >= 1100 && e.code <= 1105)) return "error";
  // The origin failing (502, 504, 52x, 1016's 530…): expected, detected and answered as designed.
  if (e.status >= 500) return "warn";
  return "info";
}

/** Where a line waits in a window: the stream of an `edge_error` line's level, or the previews' own. */
type Stream = LogLevel | "preview";

/** Lines waiting for their window to close, per stream. */
let windowOpenedAt: number | null = null;
let waiting: Record<Stream, string[]> = { error: [], warn: [], info: [], preview: [] };

/** Writes (or, inside an open window, queues) the line of one generated error. */
export function logEdgeError(e: EdgeErrorLine, coalesceMs: number, invocation?: Invocation, now = Date.now()): void {
  const line = edgeErrorLine(e);
  const stream: Stream = e.preview ? "preview" : levelOf(e);
  if (windowOpenedAt !== null) {
    // A window whose flush did not come in twice its length is dead: write what waits, then carry on as if closed.
    if (now - windowOpenedAt <= 2 * coalesceMs) {
      waiting[stream].push(line);
      return;
    }
    flush();
  }
  write(stream, line);
  if (coalesceMs <= 0 || invocation === undefined) return;
  windowOpenedAt = now;
  invocation.waitUntil(new Promise<void>((resolve) => setTimeout(resolve, coalesceMs)).then(flush));
}

/** Closes the window: the waiting lines of each stream in one write, in order, one line per error. Exported for tests. */
export function flush(): void {
  windowOpenedAt = null;
  const lines = waiting;
  waiting = { error: [], warn: [], info: [], preview: [] };
  for (const stream of STREAMS) if (lines[stream].length > 0) write(stream, lines[stream].join("\n"));
}

const STREAMS: readonly Stream[] = ["error", "warn", "info", "preview"];

function write(stream: Stream, text: string): void {
  if (stream === "preview") writeEventLines("error_preview", text);
  else writeEventLines("edge_error", text, stream);
}
