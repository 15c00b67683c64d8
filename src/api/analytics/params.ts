/**
 * The query of `GET /zones/{zone}/analytics/errors` (docs/analytics.md "API"), validated before any storage is
 * touched: every limit answers a precise 400 naming the parameter, the value and the limit (docs/configuration.md).
 */
import { err, ok, type Result } from "../../shared/result";
import { API_CODES } from "../kit/codes";
import type { ZoneApiFailure } from "../kit/zone-section";
import { DIMENSIONS, type CountQuery, type Dimension } from "../../state/analytics/query";
import { ANSWERED_BY, FORMATS, SOURCES } from "../../state/analytics/record";
import { MAX_RANGE_MS, RETENTION, STEP_MS, type Step } from "../../state/analytics/schema";

/** The v4 error codes of this resource. */
export const ANALYTICS_CODES = {
  invalidParameter: API_CODES["invalid-analytics-query"].code,
  rangeTooLarge: API_CODES["analytics-range-too-large"].code,
  tooManySeries: API_CODES["too-many-series"].code,
} as const;

/** A refused query: the parameter, the value and the limit, in words (mapped by the kit's one switch). */
export type QueryFailure = Extract<ZoneApiFailure, { kind: "invalid-analytics-query" | "analytics-range-too-large" }>;

const bad = (message: string): QueryFailure => ({ kind: "invalid-analytics-query", message });
const KNOWN = new Set(["since", "until", "step", "group_by", ...DIMENSIONS]);
const MAX_PARAM_CHARS = 100;

/** An RFC 3339 date-time (or a whole number of seconds since the epoch). */
function instant(name: string, raw: string): Result<number, QueryFailure> {
  const ms = /^\d{1,12}$/.test(raw)
    ? Number(raw) * 1000
    : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i.test(raw)
      ? Date.parse(raw)
      : Number.NaN;
  if (!Number.isFinite(ms))
    return err(bad(`${name} must be an RFC 3339 date-time or seconds since the epoch; got ${JSON.stringify(raw)}`));
  return ok(ms);
}

/** Parses and checks the query string; `now` is the clock of the retention checks. */
export function parseCountQuery(params: URLSearchParams, now: number): Result<CountQuery, QueryFailure> {
  for (const [name, value] of params) {
    if (!KNOWN.has(name))
      return err(
        bad(`unknown parameter ${JSON.stringify(name.slice(0, MAX_PARAM_CHARS))}; known: ${[...KNOWN].join(", ")}`),
      );
    if (params.getAll(name).length > 1) return err(bad(`parameter ${name} given more than once`));
    if (value.length > MAX_PARAM_CHARS)
      return err(bad(`parameter ${name} is longer than ${MAX_PARAM_CHARS} characters`));
  }
  const stepRaw = params.get("step");
  if (stepRaw !== null && stepRaw !== "minute" && stepRaw !== "hour")
    return err(bad(`step must be minute or hour; got ${JSON.stringify(stepRaw)}`));
  const untilRaw = params.get("until");
  const until = untilRaw === null ? ok(now) : instant("until", untilRaw);
  if (!until.ok) return until;
  const sinceRaw = params.get("since");
  const since = sinceRaw === null ? ok(until.value - STEP_MS.hour) : instant("since", sinceRaw);
  if (!since.ok) return since;
  if (since.value >= until.value) return err(bad("since must be before until"));
  const step: Step = stepRaw ?? (until.value - since.value <= MAX_RANGE_MS.minute ? "minute" : "hour");
  const size = STEP_MS[step];
  // Aligned outwards to whole steps: a bucket is counted whole or not at all.
  const from = Math.floor(since.value / size) * size;
  const to = Math.ceil(until.value / size) * size;
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
  const groupBy: Dimension[] = [];
  const groupRaw = params.get("group_by");
  if (groupRaw !== null && groupRaw !== "") {
    for (const name of groupRaw.split(",")) {
      if (!(DIMENSIONS as readonly string[]).includes(name))
        return err(bad(`group_by: unknown dimension ${JSON.stringify(name)}; known: ${DIMENSIONS.join(", ")}`));
      if (groupBy.includes(name as Dimension)) return err(bad(`group_by: ${name} given twice`));
      groupBy.push(name as Dimension);
    }
    if (groupBy.length > 2) return err(bad(`group_by: at most 2 dimensions; got ${groupBy.length}`));
  }
  const filters: Partial<Record<Dimension, string | number>> = {};
  const code = params.get("code");
  if (code !== null) {
    if (!/^[1-9][0-9]{2,3}$/.test(code))
      return err(bad(`code must be a 3- or 4-digit error code; got ${JSON.stringify(code)}`));
    filters.code = Number(code);
  }
  const oneOf = (name: "source" | "answered_by" | "format", allowed: readonly string[]): QueryFailure | null => {
    const value = params.get(name);
    if (value === null) return null;
    if (!allowed.includes(value))
      return bad(`${name} must be one of ${allowed.join(", ")}; got ${JSON.stringify(value)}`);
    filters[name] = value;
    return null;
  };
  const failed = oneOf("source", SOURCES) ?? oneOf("answered_by", ANSWERED_BY) ?? oneOf("format", FORMATS);
  if (failed) return err(failed);
  return ok({ since: from, until: to, step, groupBy, filters });
}
