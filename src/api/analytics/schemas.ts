/**
 * The analytics endpoints' body and answers as schemas (docs/analytics.md "API"): each is the OpenAPI component
 * of its name and the TypeScript type the route builds, so the document and the answer cannot drift apart; the
 * settings body is also the validator. The lists (steps, sources, phases, outcomes) are the store's own.
 */
import * as z from "zod/mini";
import { dateTime, described, fields, int, later, oneOf } from "../../shared/schema";
import { RAY_ID_PATTERN } from "../../shared/ray";
import { ALERT_KINDS } from "../../state/analytics/alerts";
import { AVOIDED_KINDS, type AvoidedKind } from "../../state/analytics/avoided";
import { ANSWERED_BY, FORMATS, SOURCES } from "../../state/analytics/record";
import { ACCEPT_FAMILIES, ADDRESS_CLASSES, PHASE_MARKS, RULES_MARKS } from "../../state/analytics/request-detail";
import { MAX_SHARDS } from "../../state/analytics/shards";
import { STEP_MS, type Step } from "../../state/analytics/schema";
import { HEX_ID } from "../../shared/crypto";

/** The bounds of one query (docs/analytics.md "Errors by tag"). */
export const ERRORS_BY_TAG = {
  /** Zones one query reads: each costs one RPC per shard (4 by default), so 50 zones are ~200 object calls. */
  maxZones: 50,
  /** Zones read at once: at most this many zones' shard fan-outs are in flight together. */
  concurrency: 8,
  /** Codes kept per zone. */
  topCodes: 3,
} as const;

const count = (description: string) => described(z.int(), description);
const rate = (description: string) => described(z.nullable(z.number()), description);
const counts = (description: string) => described(z.array(z.int()), description);
/** An object the document does not detail (a group's or a filter's dimensions, a zone's top codes). */
const anyObject = () => z.record(z.string(), z.unknown());

export const ANALYTICS_STEP = later(() => oneOf(Object.keys(STEP_MS) as [Step, ...Step[]]), { id: "AnalyticsStep" });
export const ERROR_SOURCE = later(() => oneOf(SOURCES), { id: "ErrorSource" });
export const ANSWERED_BY_SCHEMA = later(() => oneOf(ANSWERED_BY), { id: "AnsweredBy" });
export const RAY_ID = later(() => z.string().check(z.regex(RAY_ID_PATTERN)), {
  id: "RayId",
  example: "8f3a2c1d4e5b6a79",
});

/** `PUT /zones/{zone}/analytics/settings`: the one setting, the shard count. */
export const ANALYTICS_SETTINGS_BODY = later(
  () =>
    fields(
      {
        shards: int(
          1,
          MAX_SHARDS,
          ({ input }) =>
            `must be an integer from 1 to ${MAX_SHARDS}; got ${JSON.stringify(input ?? null).slice(0, 100)}`,
        ),
      },
      "is not an analytics setting (only shards)",
    ),
  { id: "AnalyticsSettingsBody", example: { shards: 8 } },
);

export const ANALYTICS_SETTINGS = later(
  () =>
    z.object({
      shards: count("Objects the zone's new records go to"),
      shards_in_force: counts("Every shard count whose records may still be within retention, the current one first"),
      max_shards: z.int(),
    }),
  { id: "AnalyticsSettings", example: { shards: 8, shards_in_force: [8, 4], max_shards: MAX_SHARDS } },
);

/**
 * The `avoided` section of the error counts (docs/analytics.md "Avoided errors"), a schema so the kinds' list is
 * the one the store uses (no enum written by hand).
 */
const AVOIDED_ERRORS = later(
  () =>
    z.object({
      total: count("Every avoided request in the range, all kinds"),
      by_kind: z.object(
        Object.fromEntries(AVOIDED_KINDS.map((k) => [k, z.int()])) as Record<AvoidedKind, z.ZodMiniInt>,
      ),
      by_code: described(
        z.array(
          z.object({
            kind: oneOf(AVOIDED_KINDS),
            code: described(z.int(), "The origin's failure (or the one that opened its circuit)"),
            count: z.int(),
          }),
        ),
        "Each kind and code of the origin's failure, most first",
      ),
    }),
  {
    id: "AvoidedErrors",
    description:
      "Requests in the range whose origin failed or was skipped (its circuit open), by how the visitor was " +
      "answered: stale (a kept copy), failover (the fallback origin), circuit_open (the error at once, the " +
      "origin not asked; that error is also in total). The error filters do not apply",
    example: {
      total: 42,
      by_kind: { stale: 0, failover: 30, circuit_open: 12 },
      by_code: [
        { kind: "failover", code: 521, count: 30 },
        { kind: "circuit_open", code: 521, count: 12 },
      ],
    },
  },
);

/** What both counts answer, the zone's and the account's by tag: the window, its totals and its series. */
const counted = () => ({
  since: dateTime(),
  until: dateTime(),
  step: ANALYTICS_STEP(),
  filters: anyObject(),
  total: count("Errors counted in the range"),
  requests: count("Requests counted in the range (all traffic)"),
  error_rate: rate("total ÷ requests; null when no request was counted"),
  dropped: count("Records the stores could not take in the range (counted, not stored): the counts miss them"),
  timestamps: z.array(dateTime()),
  requests_series: counts("Requests per step"),
  dropped_series: counts("Dropped records per step"),
});

/** A part's errors and requests over the range, with its error rate. */
const errorRate = () => ({ total: z.int(), requests: z.int(), error_rate: rate("total ÷ requests"), dropped: z.int() });

export const ERROR_COUNTS = later(
  () =>
    z.object({
      zone: z.string(),
      group_by: z.array(z.string()),
      ...counted(),
      shards: count("Analytics objects asked (every shard within retention)"),
      series: z.array(
        z.object({ group: anyObject(), counts: z.array(z.int()), total: z.int(), rate: rate("total ÷ requests") }),
      ),
      top_codes: z.array(z.object({ code: z.int(), count: z.int(), rate: rate("count ÷ requests") })),
      top_paths: z.array(
        z.object({ path: z.string(), count: z.int(), rate: rate("count ÷ requests over the same whole hours") }),
      ),
      avoided: AVOIDED_ERRORS(),
    }),
  { id: "ErrorCounts" },
);

export const ERRORS_BY_TAG_ANSWER = later(
  () =>
    z.object({
      account: z.string(),
      tag_filters: z.array(z.string()),
      effective: z.boolean(),
      group_by: z.nullable(z.string()),
      scope: described(
        oneOf(["account", "token-zones"]),
        "account: every zone of the account; token-zones: only the zones the token names",
      ),
      max_zones: z.int(),
      ...counted(),
      groups: z.array(
        z.object({
          value: described(z.nullable(z.string()), "The tag's value; null: the zones without the key"),
          zones: z.array(z.string()),
          ...errorRate(),
          counts: counts("Errors per step"),
        }),
      ),
      zones: z.array(
        z.object({
          zone: z.string(),
          value: z.nullable(z.string()),
          ...errorRate(),
          shards: z.int(),
          top_codes: z.array(anyObject()),
        }),
      ),
    }),
  {
    id: "ErrorsByTag",
    example: {
      account: "0123456789abcdef0123456789abcdef",
      since: "2026-11-26T10:00:00.000Z",
      until: "2026-11-26T11:00:00.000Z",
      step: "hour",
      filters: {},
      tag_filters: ["env=prod"],
      effective: false,
      group_by: "tag:team",
      scope: "account",
      max_zones: ERRORS_BY_TAG.maxZones,
      total: 9,
      requests: 120,
      error_rate: 0.075,
      dropped: 0,
      timestamps: ["2026-11-26T10:00:00.000Z"],
      requests_series: [120],
      dropped_series: [0],
      groups: [
        {
          value: "payments",
          zones: ["pay.example", "shop.example"],
          total: 6,
          requests: 80,
          error_rate: 0.075,
          dropped: 0,
          counts: [6],
        },
        { value: null, zones: ["blog.example"], total: 3, requests: 40, error_rate: 0.075, dropped: 0, counts: [3] },
      ],
      zones: [
        {
          zone: "pay.example",
          value: "payments",
          total: 4,
          requests: 50,
          error_rate: 0.08,
          dropped: 0,
          shards: 4,
          top_codes: [{ code: 502, count: 4 }],
        },
      ],
    },
  },
);

/** One phase of a recorded error, as the lookups show it (docs/analytics.md "Ray lookup"). */
export const ERROR_PHASE = later(
  () =>
    z.object({
      phase: oneOf(["ip_access", "firewall", "rate_limit", "origin", "custom_error_rules", "custom_page", "default"]),
      /** `unknown`: the record was stored before its request detail was kept (schema migration 4). */
      outcome: oneOf([...PHASE_MARKS, "failed", "responded", ...RULES_MARKS, "answered", "unknown"]),
      rule_id: z.optional(z.string()),
      page_id: z.optional(z.string()),
      /** The error a block or an origin failure produced. */
      code: z.optional(z.int()),
      /** How the origin failed (docs/origin.md "How each failure is detected"). */
      failure: z.optional(z.string()),
      /** The origin's own status and format, when it answered with an error. */
      status: z.optional(z.int()),
      format: z.optional(z.string()),
    }),
  { id: "ErrorPhase" },
);

export const ERROR_OCCURRENCE = later(
  () =>
    z.object({
      ray: z.string(),
      zone: z.string(),
      time: dateTime(),
      at: z.int(),
      code: z.int(),
      status: z.int(),
      source: ERROR_SOURCE(),
      answered_by: ANSWERED_BY_SCHEMA(),
      answer_id: z.nullable(z.string()),
      format: oneOf(FORMATS),
      method: z.string(),
      path: z.string(),
      country: z.nullable(z.string()),
      cause: described(z.nullable(z.string()), "Why it was generated; origin addresses replaced by [origin]/[address]"),
      accept: z.nullable(oneOf(ACCEPT_FAMILIES)),
      client_address: z.nullable(oneOf(ADDRESS_CLASSES)),
      phases: z.array(ERROR_PHASE()),
    }),
  { id: "ErrorOccurrence" },
);

/** Policy ids are 32 lower-case hex characters (`HEX_ID`, src/shared/crypto.ts). */
export const ALERT_ID = later(() => z.string().check(z.regex(HEX_ID)), {
  id: "AlertId",
  example: "4b7d0c7e1f2a4e3c9d8b6a5f4e3d2c1b",
});

/** A policy as answered: its definition flat (its rule's fields as the body that makes it), its state. */
export const ALERT_POLICY = later(
  () =>
    z.looseObject({
      id: z.string(),
      name: z.string(),
      kind: oneOf(ALERT_KINDS),
      enabled: z.boolean(),
      resolve_after: z.int(),
      webhook: z.object({
        url: z.string(),
        secret: z.optional(described(z.string(), "whsec_…: in the create answer only")),
      }),
      state: z.object({
        status: oneOf(["ok", "firing"]),
        since: dateTime(),
        value: rate("The last value evaluated (burn_rate: the short window's)"),
        evaluated_at: z.nullable(dateTime()),
      }),
      created_at: dateTime(),
      updated_at: dateTime(),
    }),
  {
    id: "AlertPolicy",
    example: {
      id: "4b7d0c7e1f2a4e3c9d8b6a5f4e3d2c1b",
      name: "Checkout SLO",
      kind: "burn_rate",
      enabled: true,
      slo: 99.9,
      long_window_minutes: 60,
      short_window_minutes: 5,
      burn_rate: 14.4,
      min_requests: 1,
      resolve_after: 3,
      webhook: { url: "https://hooks.example.com/edge-alerts" },
      state: {
        status: "firing",
        since: "2026-11-26T10:42:05.000Z",
        value: 21.5,
        evaluated_at: "2026-11-26T10:44:05.000Z",
      },
      created_at: "2026-11-26T09:00:00.000Z",
      updated_at: "2026-11-26T09:00:00.000Z",
    },
  },
);

/** One event of a policy (a firing or a resolution) and every delivery attempt of its webhook. */
export const ALERT_DELIVERY = later(
  () =>
    z.object({
      id: described(z.string(), "msg_…: the webhook-id of every attempt"),
      type: oneOf(["alert.firing", "alert.resolved"]),
      created_at: dateTime(),
      status: oneOf(["pending", "delivered", "failed"]),
      next_attempt_at: z.nullable(dateTime()),
      payload: described(anyObject(), "The body sent"),
      attempts: z.array(
        z.object({
          attempt: z.int(),
          at: dateTime(),
          outcome: oneOf(["delivered", "failed", "refused"]),
          http_status: z.nullable(z.int()),
          error: z.nullable(z.string()),
        }),
      ),
    }),
  { id: "AlertDelivery" },
);
