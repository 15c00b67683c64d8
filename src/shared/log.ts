/**
 * Every log line the service writes goes through here: one JSON object per line, `{"event": name, …fields}`, at the
 * level its event has in ONE table, `EVENTS` (name → level, fields, when). docs/configuration.md "Events" lists the
 * same table, and test/node/log-events.test.ts fails when the two differ, when src/ names an event the table lacks,
 * or when anything in src/ but this file calls `console`.
 *
 * Levels (docs/configuration.md "Log levels"): `error` (`console.error`) where an operator must act, `warn`
 * (`console.warn`) for an expected failure that was detected and answered, `info` (`console.log`) for the rest, so
 * `wrangler dev` and Workers Logs show a red `✘ [ERROR]` only for a real fault. One event, `edge_error`, has its
 * level decided per line by its writer (src/errors/error-log.ts `levelOf`, from the error's code): its table entry
 * says `per-call`, and only for such an event does `logEvent` take (and require) a level.
 *
 * Each call is looked up in the console at call time (never a saved reference), so tests can spy on the console.
 */

export type LogLevel = "error" | "warn" | "info";

export interface EventSpec {
  /** The level of every line of the event, or `per-call`: its writer passes the level of each line. */
  readonly level: LogLevel | "per-call";
  /** The line's fields after `event`, in the order they are written. */
  readonly fields: readonly string[];
  /** When the line is written (docs/configuration.md "Events"). */
  readonly when: string;
}

/** The event table: the only names a log line may have. Keep docs/configuration.md "Events" equal to it. */
export const EVENTS = {
  edge_error: {
    level: "per-call",
    fields: ["ray", "zone", "code", "status", "cause"],
    when:
      "every generated error a request met, once (docs/errors.md); coalesced in bursts (`ERROR_LOG_COALESCE_MS`); " +
      "never for a preview (`error_preview`); the level, `levelOf` in src/errors/error-log.ts: error for 500 and " +
      "1100–1105, warn for other 5xx, info otherwise",
  },
  error_preview: {
    level: "info",
    fields: ["ray", "zone", "code", "status", "cause"],
    when:
      "every error shown on request, once: `{SERVICE_PREFIX}/error/{code}`, `/zones/{zone}/preview/{code}`, each run " +
      "of `POST /zones/{zone}/preview` and of the request tracer (nothing failed, so it is no `edge_error`; the line " +
      "finds the Ray ID the answer carries); coalesced with `edge_error`; a replay's records write none",
  },
  rule_over_budget: {
    level: "error",
    fields: ["zone", "phase", "rule", "cause", "suppressed"],
    when:
      "a rule's evaluation passed its budget (docs/rules-language.md) in any phase, on traffic and on a trace's rate-limit " +
      "count when it contacts the origin (a draft preview's, a replay's or a trace's own evaluation says so in its answer " +
      "instead); at most one line per (zone, phase, rule) a minute per isolate, `suppressed` counting the rest",
  },
  rule_unusable: {
    level: "error",
    fields: ["zone", "version", "phase", "rule", "cause"],
    when: "a stored rule of any phase no longer compiles (an engine change) and is skipped; once per zone version",
  },
  rate_limiter_unavailable: {
    level: "error",
    fields: ["zone", "phase", "rule", "cause"],
    when:
      "rate limiting failed open (docs/origin.md): no `RATE_LIMITER` binding, the counter threw, or it gave no answer " +
      "within `RATE_LIMIT_TIMEOUT_MS` (1 s by default)",
  },
  custom_page_unavailable: {
    level: "error",
    fields: ["zone", "page", "cause"],
    when: "a custom error page could not be read from `CONFIG`; the structured default is served instead",
  },
  stale_copy_unavailable: {
    level: "error",
    fields: ["zone", "cause"],
    when:
      "the Cache API failed to keep or to find a stale copy (docs/fewer-errors.md): the answer goes on without it " +
      "(an origin failure is answered as an error)",
  },
  custom_asset_unavailable: {
    level: "error",
    fields: ["zone", "asset", "cause"],
    when:
      "a matching custom error rule's asset could not be read from `CONFIG` (a failure, or no value yet); the next " +
      "step answers instead: the error page or structured default, or the origin's error response unchanged",
  },
  config_invalid: {
    level: "error",
    fields: ["var", "value", "problem", "used"],
    when: "a var is present but invalid; once per isolate per value, naming what is used instead",
  },
  api_tokens_invalid: {
    level: "error",
    fields: ["reason"],
    when: "`API_TOKENS` is malformed: no scoped token works (fails closed), the admin token still does",
  },
  api_error: {
    level: "error",
    fields: ["ray", "zone", "code", "cause"],
    when: "`CONFIG` or a zone's writer failed during a management API call, answered 500 (code 10500) with the ray",
  },
  api_exception: {
    level: "error",
    fields: ["ray", "path", "cause"],
    when: "an exception escaped a management API handler, answered 500 (code 10500) with the ray",
  },
  analytics_record_failed: {
    level: "error",
    fields: ["zone", "cause"],
    when:
      "an answered error could not be turned into an analytics record; the response was already sent, " +
      "the record is lost (docs/analytics.md)",
  },
  analytics_write_failed: {
    level: "error",
    fields: ["zone", "records", "cause"],
    when:
      "a batch of analytics records could not be written to the zone's `ZONE_ANALYTICS` object; once per batch, " +
      'the batch is dropped, never retried (docs/analytics.md "Loss bound")',
  },
  alert_webhook_failed: {
    level: "error",
    fields: ["zone", "policy", "message", "attempts", "cause"],
    when:
      "an alert's webhook event (`message`: its webhook-id) was given up: its last attempt failed, or its target is " +
      'refused by the settings of now; it is `failed` in the policy\'s deliveries and never sent again (docs/analytics.md "Delivery")',
  },
  preview_replay: {
    level: "info",
    fields: ["zone", "draft", "records", "replayed", "changed", "truncated", "units"],
    when:
      'each `POST /zones/{zone}/preview/replay` that ran (docs/custom-errors.md "Replay"): one line for the call, ' +
      "whatever the number of records replayed (their errors write no `edge_error` line); `units`: the rules' cost; " +
      "`truncated`: the replay's budget stopped it",
  },
} as const satisfies Readonly<Record<string, EventSpec>>;

export type EventName = keyof typeof EVENTS;

/** What a field may hold: JSON scalars (`undefined` leaves the field out, as `JSON.stringify` does). */
export type FieldValue = string | number | boolean | null | undefined;

/** Exactly the fields the table lists for the event. */
export type EventFields<N extends EventName> = { readonly [F in (typeof EVENTS)[N]["fields"][number]]: FieldValue };

/** A level argument only for a `per-call` event, where it is required. */
export type LevelArgument<N extends EventName> = (typeof EVENTS)[N]["level"] extends "per-call"
  ? [level: LogLevel]
  : [];

/** The event's JSON line: `{"event":name, …fields}` in the fields' order. */
export function eventLine<N extends EventName>(name: N, fields: EventFields<N>): string {
  return JSON.stringify({ event: name, ...fields });
}

/**
 * The opening of the event's line, `{"event":"name"`, for a writer that builds the rest by hand on a hot path
 * (src/errors/error-log.ts `edgeErrorLine`); its test checks the fields against the table.
 */
export function eventLinePrefix(name: EventName): string {
  return `{"event":${JSON.stringify(name)}`;
}

/** Writes one line of the event at its level (the table's, or the given one for a `per-call` event). */
export function logEvent<N extends EventName>(name: N, fields: EventFields<N>, ...level: LevelArgument<N>): void;
export function logEvent(name: EventName, fields: Readonly<Record<string, FieldValue>>, level?: LogLevel): void {
  write(levelFor(name, level), JSON.stringify({ event: name, ...fields }));
}

/**
 * Writes lines of the event already built (`eventLine`, `eventLinePrefix`), several joined by `\n` in one write:
 * the coalesced `edge_error` lines of a burst (one console call per window), or a line a writer keeps to
 * write once (`config_invalid`).
 */
export function writeEventLines<N extends EventName>(name: N, text: string, ...level: LevelArgument<N>): void;
export function writeEventLines(name: EventName, text: string, level?: LogLevel): void {
  write(levelFor(name, level), text);
}

function levelFor(name: EventName, given: LogLevel | undefined): LogLevel {
  const spec: EventSpec = EVENTS[name];
  return spec.level === "per-call" ? (given ?? "error") : spec.level;
}

function write(level: LogLevel, text: string): void {
  switch (level) {
    case "error":
      console.error(text);
      return;
    case "warn":
      console.warn(text);
      return;
    case "info":
      console.log(text);
      return;
  }
}
