/**
 * The query of `GET /zones/{zone}/analytics/errors` (docs/analytics.md "API") as a schema, validated before any
 * storage is touched: the validator and, through `queryParameters`, the OpenAPI parameters. A refusal is the capped
 * issues of every request schema, each naming its parameter (400, 10101); the window against the step's range and
 * retention needs the clock, so it is checked after the parse (10102).
 */
import * as z from "zod/mini";
import { err, ok, type Result } from "../../shared/result";
import { described, fields, int, later, oneOf, parseWith, type Output } from "../../shared/schema";
import { oneIssue, type Issues } from "../../shared/validation";
import { queryObject } from "../kit/query";
import type { ZoneApiFailure } from "../kit/zone-section";
import { DIMENSIONS, type CountQuery, type Dimension } from "../../state/analytics/query";
import { CODE_RANGE, FORMATS } from "../../state/analytics/record";
import { MAX_RANGE_MS, MAX_SERIES, RETENTION, STEP_MS, type Step } from "../../state/analytics/schema";
import { ANALYTICS_STEP, ANSWERED_BY_SCHEMA, ERROR_SOURCE } from "./schemas";

/** A refused query: the capped issues (10101), or a window over the step's limits (10102). */
export type QueryFailure = Extract<ZoneApiFailure, { kind: "invalid-analytics-query" | "analytics-range-too-large" }>;

/** The longest free-text parameter (a time, a grouping): longer is refused before it is read. */
const MAX_PARAM_CHARS = 100;
/** Dimensions one query may group by. */
const MAX_GROUP_BY = 2;

/** Free text of a query: its length first and alone, so no refusal quotes a value longer than that. */
const queryText = (...checks: z.core.$ZodCheck<string>[]) =>
  z
    .string()
    .check(
      z.maxLength(MAX_PARAM_CHARS, { error: `is longer than ${MAX_PARAM_CHARS} characters`, abort: true }),
      ...checks,
    );

/** An RFC 3339 date-time, or a whole number of seconds since the epoch. */
const INSTANT = /^(?:\d{1,12}|\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:\d{2}))$/;

/** The instant in ms (NaN for a date-time no calendar has, such as month 13). */
const instantMs = (raw: string): number => (/^\d+$/.test(raw) ? Number(raw) * 1000 : Date.parse(raw));

const instant = (description: string) => {
  const error = (issue: { readonly input?: unknown }) =>
    `must be an RFC 3339 date-time or seconds since the epoch; got ${JSON.stringify(issue.input)}`;
  return described(
    queryText(
      z.regex(INSTANT, { error, abort: true }),
      z.refine((raw) => Number.isFinite(instantMs(raw)), { error }),
    ),
    description,
  );
};

/** What is wrong with a `group_by` list (`""`: no grouping), or null. */
function groupByProblem(raw: string): string | null {
  if (raw === "") return null;
  const names = raw.split(",");
  for (const [i, name] of names.entries()) {
    if (!(DIMENSIONS as readonly string[]).includes(name))
      return `has an unknown dimension ${JSON.stringify(name)}; known: ${DIMENSIONS.join(", ")}`;
    if (names.indexOf(name) !== i) return `names ${name} twice`;
  }
  return names.length > MAX_GROUP_BY ? `must name at most ${MAX_GROUP_BY} dimensions; got ${names.length}` : null;
}

/**
 * The window and the filters, as the zone's counts and the account's by-tag counts both read them: made inside each
 * query's maker (the queries are made on their first parse or when the document is built).
 */
export const countWindowFields = () => ({
  since: z.optional(instant("RFC 3339 or epoch seconds; default until − 1 h")),
  until: z.optional(instant("RFC 3339 or epoch seconds; default now")),
  // minute: a range ≤ 24 h within the last 3 days (the default for such a range); hour: ≤ 35 days.
  step: z.optional(ANALYTICS_STEP()),
  code: z.optional(described(int(CODE_RANGE.min, CODE_RANGE.max, "must be a 3- or 4-digit error code"), "filter")),
  source: z.optional(ERROR_SOURCE()),
  answered_by: z.optional(ANSWERED_BY_SCHEMA()),
  format: z.optional(described(oneOf(FORMATS), "filter")),
});

/** The parameters a query reads as numbers (a numeral). */
export const COUNT_NUMERIC = ["code"] as const;

/** The zone's count query: the window, the filters and `group_by`. */
export const COUNT_QUERY = later(
  () =>
    fields(
      {
        ...countWindowFields(),
        group_by: z.optional(
          described(
            queryText(
              z.superRefine((raw, context) => {
                const problem = groupByProblem(raw);
                if (problem !== null) context.issues.push({ code: "custom", message: problem, input: raw });
              }),
            ),
            `up to ${MAX_GROUP_BY} of ${DIMENSIONS.join(", ")}, comma-separated (≤ ${MAX_SERIES} series)`,
          ),
        ),
      },
      "is not a parameter of this query (since, until, step, code, source, answered_by, format, group_by)",
    ),
  { id: "ErrorCountsQuery", example: { since: "2026-11-29T10:00:00Z", step: "minute", group_by: "code,source" } },
);

/** The window and filters as the schema left them. */
export type CountWindow = Omit<Output<typeof COUNT_QUERY>, "group_by">;

const invalid = (issues: Issues): QueryFailure => ({ kind: "invalid-analytics-query", issues });

/** Parses and checks the zone's query string; `now` is the clock of the retention checks. */
export function parseCountQuery(params: URLSearchParams, now: number): Result<CountQuery, QueryFailure> {
  const given = queryObject(params, COUNT_NUMERIC);
  const parsed = given.ok ? parseWith(COUNT_QUERY, given.value) : given;
  if (!parsed.ok) return err(invalid(parsed.error));
  const window = countWindow(parsed.value, now);
  if (!window.ok) return window;
  const groupBy = parsed.value.group_by ? (parsed.value.group_by.split(",") as Dimension[]) : [];
  return ok({ ...window.value, groupBy });
}

/**
 * The parsed window aligned outwards to whole steps (a bucket is counted whole or not at all), checked against the
 * step's range and retention, with the filters; `groupBy` is the caller's.
 */
export function countWindow(q: CountWindow, now: number): Result<Omit<CountQuery, "groupBy">, QueryFailure> {
  const until = q.until === undefined ? now : instantMs(q.until);
  const since = q.since === undefined ? until - STEP_MS.hour : instantMs(q.since);
  if (since >= until) return err(invalid(oneIssue("invalid", "since", "must be before until")));
  const step: Step = q.step ?? (until - since <= MAX_RANGE_MS.minute ? "minute" : "hour");
  const size = STEP_MS[step];
  const from = Math.floor(since / size) * size;
  const to = Math.ceil(until / size) * size;
  if (to - from > MAX_RANGE_MS[step]) {
    return err({
      kind: "analytics-range-too-large",
      message:
        `range of ${Math.round((to - from) / size)} ${step}s is over the limit of ${MAX_RANGE_MS[step] / size} ${step}s for step=${step}` +
        (step === "minute" ? "; use step=hour" : ""),
    });
  }
  const kept = step === "minute" ? RETENTION.minutesMs : RETENTION.hoursMs;
  if (from < now - kept - size) {
    return err({
      kind: "analytics-range-too-large",
      message:
        `since is before the retention of ${step} counts (${kept / 86_400_000} days)` +
        (step === "minute" ? "; use step=hour" : ""),
    });
  }
  const filters: Partial<Record<Dimension, string | number>> = {};
  for (const name of DIMENSIONS) if (q[name] !== undefined) filters[name] = q[name];
  return ok({ since: from, until: to, step, filters });
}
