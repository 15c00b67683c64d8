/**
 * The Ray lookup, one implementation behind two paths (docs/analytics.md "Ray lookup"):
 *
 * - `GET /zones/{zone}/errors/{ray}`: the occurrence in the v4 envelope;
 * - `GET /zones/{zone}/logs/rayids/{ray}`: the published Logpull shape (the official SDK's `logs.RayID.get`,
 *   https://developers.cloudflare.com/logs/logpull/requesting-logs/): the record itself, not enveloped, with the
 *   published `fields` and `timestamps` parameters.
 *
 * Both show every phase's outcome for the error (`phasesOf`): which IP access, firewall or rate-limiting rule
 * blocked it, what the origin did, which custom error rule, page or default answered.
 */
import { apiSuccess } from "../kit/envelope";
import type { ApiContext } from "../kit/types";
import type { ZoneAnswer, ZoneApiFailure } from "../kit/zone-section";
import { isRayId } from "../../shared/ray";
import { err, ok, type Result } from "../../shared/result";
import type { ErrorRecord } from "../../state/analytics/record";
import { RETENTION } from "../../state/analytics/schema";
import {
  decodeDetail,
  ORIGIN_FAILURE_OF_CODE,
  type RequestDetail,
  type RequestPhaseMark,
} from "../../state/analytics/request-detail";
import { zoneLookup } from "../../state/analytics/fan-out";
import { planOf } from "./store";
import type { ERROR_OCCURRENCE, ERROR_PHASE } from "./schemas";
import { described, fields, later, oneOf, parseWith, type Answer } from "../../shared/schema";
import { queryObject } from "../kit/query";
import * as z from "zod/mini";

/** One phase of a recorded error, as the lookups show it (docs/analytics.md "Ray lookup"). */
export type PhaseOutcome = Answer<typeof ERROR_PHASE>;

/** The recorded error of `ray` in `zone`, within retention. */
export async function findRecord(
  c: ApiContext,
  zone: string,
  raw: string,
): Promise<Result<ErrorRecord, ZoneApiFailure>> {
  if (!isRayId(raw)) return err({ kind: "invalid-ray", ray: decoded(raw).slice(0, 64) });
  const plan = await planOf(c, zone);
  if (!plan.ok) return plan;
  // The record's shard under each shard count in force (docs/analytics.md "Shards").
  const record = await zoneLookup(c.env.ZONE_ANALYTICS, zone, plan.value, raw);
  if (record === null) return err({ kind: "unknown-ray", ray: raw, days: RETENTION.eventsMs / 86_400_000 });
  return ok(record);
}

function decoded(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The occurrence as `GET /zones/{zone}/errors/{ray}` answers it: the record, its time, request detail and phases. */
export function occurrenceView(record: ErrorRecord, zone: string): Answer<typeof ERROR_OCCURRENCE> {
  const { detail: packed, ...fields } = record;
  const detail = decodeDetail(packed);
  return {
    ...fields,
    zone,
    time: new Date(record.at).toISOString(),
    accept: detail?.accept ?? null,
    client_address: detail?.client ?? null,
    phases: phasesOf(record, detail),
  };
}

/** Every phase's outcome, in the order they run (docs/producers.md, docs/origin.md, docs/custom-errors.md). */
export function phasesOf(record: ErrorRecord, detail: RequestDetail | null): PhaseOutcome[] {
  const blocked = (phase: PhaseOutcome["phase"], mark: RequestPhaseMark | undefined): PhaseOutcome =>
    mark === undefined
      ? { phase, outcome: "unknown" }
      : mark === "blocked"
        ? { phase, outcome: mark, code: record.code, ...(detail?.blockedBy ? { rule_id: detail.blockedBy } : {}) }
        : { phase, outcome: mark };
  const fromOrigin = record.source === "origin";
  const origin: PhaseOutcome =
    detail === null
      ? fromOrigin
        ? { phase: "origin", outcome: "responded", status: record.code }
        : { phase: "origin", outcome: "unknown" }
      : detail.origin.kind === "responded"
        ? { phase: "origin", outcome: "responded", status: record.code, format: detail.origin.format }
        : detail.origin.kind === "failed"
          ? {
              phase: "origin",
              outcome: "failed",
              code: record.code,
              failure: ORIGIN_FAILURE_OF_CODE[record.code] ?? "other",
            }
          : { phase: "origin", outcome: "not-reached" };
  const by = record.answered_by;
  const rules: PhaseOutcome =
    by === "rule"
      ? { phase: "custom_error_rules", outcome: "matched", ...(record.answer_id ? { rule_id: record.answer_id } : {}) }
      : { phase: "custom_error_rules", outcome: detail?.rules ?? "unknown" };
  // Pages and the structured default never replace an origin's response (docs/custom-errors.md).
  const page: PhaseOutcome =
    by === "page"
      ? { phase: "custom_page", outcome: "answered", ...(record.answer_id ? { page_id: record.answer_id } : {}) }
      : { phase: "custom_page", outcome: "not-run" };
  const fallback: PhaseOutcome = { phase: "default", outcome: by === "default" ? "answered" : "not-run" };
  return [
    blocked("ip_access", detail?.ipAccess),
    blocked("firewall", detail?.firewall),
    blocked("rate_limit", detail?.rateLimit),
    origin,
    rules,
    page,
    fallback,
  ];
}

export async function byRay(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const found = await findRecord(c, zone, c.params.ray ?? "");
  if (!found.ok) return found;
  return ok(apiSuccess(occurrenceView(found.value, zone)));
}

/** `timestamps` as published: `unixnano` (the default, integers), `unix` (integer seconds), `rfc3339` (strings). */
export const TIMESTAMP_FORMATS = ["unixnano", "unix", "rfc3339"] as const;
type TimestampFormat = (typeof TIMESTAMP_FORMATS)[number];

interface FieldInput {
  readonly record: ErrorRecord;
  readonly detail: RequestDetail | null;
  readonly zone: string;
  readonly timestamps: TimestampFormat;
}

/**
 * The fields the published lookup answers, each from the record: the published Logpull names where the record holds
 * that value (https://developers.cloudflare.com/logs/reference/log-fields/zone/http_requests/), then this service's
 * own (the error, what answered, the request detail, the phases). Every field is in the default set. A published
 * field the record does not hold (`ClientIP`, `EdgeResponseBytes`, …) is refused by name: addresses are never
 * recorded, and the rest is not measured.
 */
export const RAY_FIELDS: Readonly<Record<string, (f: FieldInput) => unknown>> = {
  RayID: (f) => f.record.ray,
  EdgeStartTimestamp: (f) =>
    f.timestamps === "rfc3339"
      ? new Date(f.record.at).toISOString()
      : f.timestamps === "unix"
        ? Math.floor(f.record.at / 1000)
        : f.record.at * 1_000_000,
  ClientRequestHost: (f) => f.zone,
  ClientRequestMethod: (f) => f.record.method,
  // The path: the query is never recorded (docs/analytics.md "Records").
  ClientRequestURI: (f) => f.record.path,
  ClientRequestPath: (f) => f.record.path,
  // Published country codes are lower-case ISO 3166-1 alpha-2; "" when unknown.
  ClientCountry: (f) => f.record.country?.toLowerCase() ?? "",
  EdgeResponseStatus: (f) => f.record.status,
  // 0 when no origin response was received, as published.
  OriginResponseStatus: (f) => (f.record.source === "origin" ? f.record.code : 0),
  SecurityAction: (f) => (blockedByRule(f.detail) ? "block" : ""),
  SecurityRuleID: (f) => (blockedByRule(f.detail) ? (f.detail?.blockedBy ?? "") : ""),
  EdgeErrorCode: (f) => f.record.code,
  EdgeErrorSource: (f) => f.record.source,
  EdgeErrorAnsweredBy: (f) => f.record.answered_by,
  EdgeErrorAnswerID: (f) => f.record.answer_id ?? "",
  EdgeResponseFormat: (f) => f.record.format,
  EdgeErrorCause: (f) => f.record.cause ?? "",
  ClientAcceptFamily: (f) => f.detail?.accept ?? "",
  ClientAddressClass: (f) => f.detail?.client ?? "",
  EdgePhases: (f) => phasesOf(f.record, f.detail),
};

function blockedByRule(detail: RequestDetail | null): boolean {
  return (
    detail !== null &&
    (detail.ipAccess === "blocked" || detail.firewall === "blocked" || detail.rateLimit === "blocked")
  );
}

/** At most this many names in `fields` (the recorded ones are fewer), in at most this many characters. */
const MAX_FIELDS = 64;
const MAX_FIELDS_CHARS = 2048;

/** What is wrong with a `fields` list, or null. */
function fieldsProblem(raw: string): string | null {
  const names = raw.split(",");
  if (names.length > MAX_FIELDS) return `must name at most ${MAX_FIELDS} fields`;
  for (const name of names) {
    if (name === "" || /\s/.test(name)) return "must be a comma-separated list of field names without whitespace";
    if (!Object.hasOwn(RAY_FIELDS, name))
      return `names ${JSON.stringify(name.slice(0, 64))}, not a field this service records (${Object.keys(RAY_FIELDS).join(", ")})`;
  }
  return null;
}

/** The published lookup's query: `fields` (comma-separated, no whitespace, each recorded) and `timestamps`. */
export const RAY_QUERY = later(
  () =>
    fields(
      {
        fields: z.optional(
          described(
            z.string().check(
              z.maxLength(MAX_FIELDS_CHARS, { error: `must name at most ${MAX_FIELDS} fields`, abort: true }),
              z.superRefine((raw, context) => {
                const problem = fieldsProblem(raw);
                if (problem !== null) context.issues.push({ code: "custom", message: problem, input: raw });
              }),
            ),
            `Comma-separated, no whitespace, each recorded: ${Object.keys(RAY_FIELDS).join(", ")} (default: all)`,
          ),
        ),
        timestamps: z._default(
          described(
            oneOf(TIMESTAMP_FORMATS),
            "unixnano (integer nanoseconds), unix (integer seconds) or rfc3339 (string)",
          ),
          "unixnano",
        ),
      },
      "is not a parameter of the lookup (fields, timestamps)",
    ),
  { id: "RayLogQuery", example: { fields: "RayID,EdgeStartTimestamp,EdgePhases", timestamps: "rfc3339" } },
);

/** The published lookup's query, checked: the fields to answer (all by default, each once) and `timestamps`. */
export function parseRayQuery(
  params: URLSearchParams,
): Result<{ readonly fields: readonly string[]; readonly timestamps: TimestampFormat }, ZoneApiFailure> {
  const given = queryObject(params, []);
  const parsed = given.ok ? parseWith(RAY_QUERY, given.value) : given;
  if (!parsed.ok) return err({ kind: "invalid-rayid-query", issues: parsed.error });
  const { fields: raw, timestamps } = parsed.value;
  return ok({ fields: raw === undefined ? Object.keys(RAY_FIELDS) : [...new Set(raw.split(","))], timestamps });
}

/** `GET /zones/{zone}/logs/rayids/{ray}`: the record as a Logpull line (one JSON object; Ray IDs are unique here). */
export async function publishedByRay(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const query = parseRayQuery(c.url.searchParams);
  if (!query.ok) return query;
  const found = await findRecord(c, zone, c.params.ray ?? "");
  if (!found.ok) return found;
  const input: FieldInput = {
    record: found.value,
    detail: decodeDetail(found.value.detail),
    zone,
    timestamps: query.value.timestamps,
  };
  const line: Record<string, unknown> = {};
  for (const name of query.value.fields) line[name] = RAY_FIELDS[name]!(input);
  return ok(
    new Response(JSON.stringify(line), {
      headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "private, no-store" },
    }),
  );
}
