/** The analytics endpoints' part of the OpenAPI document (docs/configuration.md, docs/analytics.md). */
import * as z from "zod/mini";
import { COMMON_ERRORS, ok, param, ref, type Json, type OpenApiFragment } from "../kit/openapi";
import { described, named, oneOf } from "../../shared/schema";
import { RAY_FIELDS, TIMESTAMP_FORMATS } from "./ray";
import { RAY_ID_PATTERN } from "../../shared/ray";
import { API_CODES } from "../kit/codes";
import { DEFAULT_SHARDS, MAX_SHARDS } from "../../state/analytics/shards";
import { alertPaths, alertSchemas } from "./alerts-openapi";
import { MAX_FILTERS } from "../../state/tags/errors";
import { ERRORS_BY_TAG } from "./by-tag";
import { AVOIDED_KINDS, type AvoidedKind } from "../../state/analytics/avoided";

const count = (description: string) => described(z.int(), description);

/**
 * The `avoided` section of the error counts (docs/analytics.md "Avoided errors"), a schema so the kinds' list is
 * the one the store uses (no enum written by hand).
 */
named(
  z.object({
    total: count("Every avoided request in the range, all kinds"),
    by_kind: z.object(Object.fromEntries(AVOIDED_KINDS.map((k) => [k, z.int()])) as Record<AvoidedKind, z.ZodMiniInt>),
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

const query = (name: string, description: string, schema: Json): Json => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});

export const analyticsOpenApi: OpenApiFragment = {
  description:
    "Error analytics (`zones:read`): counts per minute (3 days) and per hour (35 days), requests and dropped records beside them (error rates), one occurrence by Ray ID (7 days), over the zone's analytics shards; alert policies (thresholds, SLO burn rates) delivered as signed webhooks; the page GET /zones/{zone}/analytics is a public HTML shell holding no data.",
  paths: {
    "/zones/{zone}/analytics/settings": {
      parameters: [param("Zone")],
      get: {
        operationId: "getZoneAnalyticsSettings",
        summary: "The zone's analytics shard count and the counts still in force",
        security: [{ bearer: ["zones:read"] }],
        responses: { "200": ok("The settings", { $ref: "#/components/schemas/AnalyticsSettings" }), ...COMMON_ERRORS },
      },
      put: {
        operationId: "putZoneAnalyticsSettings",
        summary: "Set how many analytics objects (shards) the zone's records spread over",
        description:
          `\`shards\`: an integer from 1 to ${MAX_SHARDS} (default ${DEFAULT_SHARDS}). Records made before the change stay ` +
          "where they were written and are still counted and found: every count in force within retention is kept " +
          `(\`shards_in_force\`). Anything else answers 400 (${API_CODES["invalid-analytics-settings"].code}).`,
        security: [{ bearer: ["zones:write"] }],
        requestBody: {
          required: true,
          content: {
            "application/json": { schema: { $ref: "#/components/schemas/AnalyticsSettingsBody" } },
          },
        },
        responses: {
          "200": ok("The stored settings", { $ref: "#/components/schemas/AnalyticsSettings" }),
          ...COMMON_ERRORS,
        },
      },
    },
    "/zones/{zone}/analytics/errors": {
      parameters: [param("Zone")],
      get: {
        operationId: "zoneErrorAnalytics",
        summary: "Counts of generated errors and passed-through origin errors over time, grouped, with error rates",
        security: [{ bearer: ["zones:read"] }],
        parameters: [
          query("since", "RFC 3339 or epoch seconds; default until − 1 h", { type: "string" }),
          query("until", "RFC 3339 or epoch seconds; default now", { type: "string" }),
          query("step", "minute (range ≤ 24 h, last 3 days) or hour (range ≤ 35 days)", { enum: ["minute", "hour"] }),
          query("group_by", "up to 2 of code, source, answered_by, format, comma-separated (≤ 50 series)", {
            type: "string",
          }),
          query("code", "filter", { type: "integer" }),
          query("source", "filter", { enum: ["edge", "origin"] }),
          query("answered_by", "filter", { enum: ["rule", "page", "default", "origin"] }),
          query("format", "filter", { type: "string" }),
        ],
        responses: {
          "200": ok("Series, top codes and top paths", { $ref: "#/components/schemas/ErrorCounts" }),
          ...COMMON_ERRORS,
        },
      },
    },
    "/accounts/{account_id}/analytics/errors": {
      parameters: [param("AccountId")],
      get: {
        operationId: "accountErrorsByTag",
        summary: "An account's errors across its tagged zones, filtered by zone tags and grouped by one tag key",
        description:
          "The zones are the account's zones its tag store lists (`type=zone`) matching every `tag` filter (the " +
          "syntax of GET /accounts/{account_id}/tags/resources), that the token may read and whose `account.id` is " +
          `this account. At most ${ERRORS_BY_TAG.maxZones} zones per query: more answers 400 ` +
          `(${API_CODES["errors-by-tag-too-many-zones"].code}); narrow the filter. Needs \`zones:read\` and ` +
          "`tags:read`; a token scoped to zones (not to the account) sees only its own zones, and the groups are " +
          "computed over those (`scope: token-zones`). The window, step and filters are the zone API's.",
        security: [{ bearer: ["zones:read", "tags:read"] }],
        parameters: [
          {
            name: "tag",
            in: "query",
            style: "form",
            explode: true,
            description: `zone tag filters, ANDed (≤ ${MAX_FILTERS}): k, k=v, k=v1,v2, !k, k!=v`,
            schema: { type: "array", maxItems: MAX_FILTERS, items: { type: "string" } },
            example: ["env=prod"],
          },
          query("group_by", "tag:<key>: one group per value of the key, and one (value null) for zones without it", {
            type: "string",
            pattern: "^tag:.+$",
          }),
          query("effective", "true: filters and groups read effective (inherited) tags", { enum: ["true", "false"] }),
          query("since", "RFC 3339 or epoch seconds; default until − 1 h", { type: "string" }),
          query("until", "RFC 3339 or epoch seconds; default now", { type: "string" }),
          query("step", "minute (range ≤ 24 h, last 3 days) or hour (range ≤ 35 days)", { enum: ["minute", "hour"] }),
          query("code", "filter", { type: "integer" }),
          query("source", "filter", { enum: ["edge", "origin"] }),
          query("answered_by", "filter", { enum: ["rule", "page", "default", "origin"] }),
          query("format", "filter", { type: "string" }),
        ],
        responses: {
          "200": ok("Counts, requests and error rates per group and per zone", {
            $ref: "#/components/schemas/ErrorsByTag",
          }),
          ...COMMON_ERRORS,
        },
      },
    },
    "/zones/{zone}/errors/{ray}": {
      parameters: [
        param("Zone"),
        { name: "ray", in: "path", required: true, schema: { type: "string", pattern: RAY_ID_PATTERN.source } },
      ],
      get: {
        operationId: "zoneErrorByRay",
        summary: "One recorded occurrence by Ray ID, within 7 days",
        security: [{ bearer: ["zones:read"] }],
        responses: { "200": ok("The occurrence", { $ref: "#/components/schemas/ErrorOccurrence" }), ...COMMON_ERRORS },
      },
    },
    "/zones/{zone}/logs/rayids/{ray}": {
      parameters: [
        param("Zone"),
        { name: "ray", in: "path", required: true, schema: { type: "string", pattern: RAY_ID_PATTERN.source } },
      ],
      get: {
        operationId: "zoneLogsByRayId",
        summary:
          "The recorded error of a Ray ID as a Logpull record (the published logs.RayID.get shape, not enveloped), within 7 days",
        security: [{ bearer: ["zones:read"] }],
        parameters: [
          query(
            "fields",
            `Comma-separated, no whitespace, each recorded: ${Object.keys(RAY_FIELDS).join(", ")} (default: all)`,
            { type: "string" },
          ),
          query("timestamps", "unixnano (default, integer), unix (integer seconds) or rfc3339 (string)", {
            enum: [...TIMESTAMP_FORMATS],
          }),
        ],
        responses: {
          "200": {
            description: "The record: one JSON object",
            content: {
              "application/json": {
                schema: { type: "object", additionalProperties: true },
                example: {
                  RayID: "8f3a2c1d4e5b6a79",
                  EdgeStartTimestamp: 1764150000123000000,
                  ClientRequestHost: "shop.example",
                  ClientRequestMethod: "GET",
                  ClientRequestURI: "/admin",
                  ClientRequestPath: "/admin",
                  ClientCountry: "fr",
                  EdgeResponseStatus: 403,
                  OriginResponseStatus: 0,
                  SecurityAction: "block",
                  SecurityRuleID: "0123456789abcdef0123456789abcdef",
                  EdgeErrorCode: 1020,
                  EdgeErrorSource: "edge",
                  EdgeErrorAnsweredBy: "default",
                  EdgeErrorAnswerID: "",
                  EdgeResponseFormat: "json",
                  EdgeErrorCause: "firewall rule 0123456789abcdef0123456789abcdef blocks the request",
                  ClientAcceptFamily: "json",
                  ClientAddressClass: "ipv4",
                  EdgePhases: [
                    { phase: "ip_access", outcome: "passed" },
                    { phase: "firewall", outcome: "blocked", code: 1020, rule_id: "0123456789abcdef0123456789abcdef" },
                    { phase: "rate_limit", outcome: "not-reached" },
                    { phase: "origin", outcome: "not-reached" },
                    { phase: "custom_error_rules", outcome: "no-match" },
                    { phase: "custom_page", outcome: "not-run" },
                    { phase: "default", outcome: "answered" },
                  ],
                },
              },
            },
          },
          ...COMMON_ERRORS,
        },
      },
    },
    ...alertPaths,
  },
  schemas: {
    ...alertSchemas,
    AnalyticsSettingsBody: {
      type: "object",
      required: ["shards"],
      additionalProperties: false,
      properties: { shards: { type: "integer", minimum: 1, maximum: MAX_SHARDS } },
      example: { shards: 8 },
    },
    AnalyticsSettings: {
      type: "object",
      required: ["shards", "shards_in_force", "max_shards"],
      properties: {
        shards: { type: "integer", description: "Objects the zone's new records go to" },
        shards_in_force: {
          type: "array",
          items: { type: "integer" },
          description: "Every shard count whose records may still be within retention, the current one first",
        },
        max_shards: { type: "integer" },
      },
      example: { shards: 8, shards_in_force: [8, 4], max_shards: MAX_SHARDS },
    },
    ErrorCounts: {
      type: "object",
      required: [
        "zone",
        "since",
        "until",
        "step",
        "total",
        "requests",
        "error_rate",
        "dropped",
        "shards",
        "timestamps",
        "requests_series",
        "dropped_series",
        "series",
        "top_codes",
        "top_paths",
        "avoided",
      ],
      properties: {
        zone: { type: "string" },
        since: { type: "string", format: "date-time" },
        until: { type: "string", format: "date-time" },
        step: { enum: ["minute", "hour"] },
        group_by: { type: "array", items: { type: "string" } },
        filters: { type: "object" },
        total: { type: "integer", description: "Errors recorded in the range" },
        requests: { type: "integer", description: "Requests of the zone counted in the range (all traffic)" },
        error_rate: { type: ["number", "null"], description: "total ÷ requests; null when no request was counted" },
        dropped: {
          type: "integer",
          description: "Records the store could not take in the range (counted, not stored): the counts miss them",
        },
        shards: { type: "integer", description: "Analytics objects asked (every shard within retention)" },
        requests_series: { type: "array", items: { type: "integer" }, description: "Requests per step" },
        dropped_series: { type: "array", items: { type: "integer" }, description: "Dropped records per step" },
        timestamps: { type: "array", items: { type: "string", format: "date-time" } },
        series: {
          type: "array",
          items: {
            type: "object",
            properties: {
              group: { type: "object" },
              counts: { type: "array", items: { type: "integer" } },
              total: { type: "integer" },
              rate: { type: ["number", "null"], description: "total ÷ requests" },
            },
          },
        },
        top_codes: {
          type: "array",
          items: {
            type: "object",
            properties: {
              code: { type: "integer" },
              count: { type: "integer" },
              rate: { type: ["number", "null"], description: "count ÷ requests" },
            },
          },
        },
        top_paths: {
          type: "array",
          items: {
            type: "object",
            properties: {
              path: { type: "string" },
              count: { type: "integer" },
              rate: { type: ["number", "null"], description: "count ÷ requests over the same whole hours" },
            },
          },
        },
        avoided: ref("AvoidedErrors"),
      },
    },
    ErrorsByTag: {
      type: "object",
      required: [
        "account",
        "since",
        "until",
        "step",
        "group_by",
        "scope",
        "max_zones",
        "total",
        "requests",
        "error_rate",
        "dropped",
        "timestamps",
        "groups",
        "zones",
      ],
      properties: {
        account: { type: "string" },
        since: { type: "string", format: "date-time" },
        until: { type: "string", format: "date-time" },
        step: { enum: ["minute", "hour"] },
        filters: { type: "object" },
        tag_filters: { type: "array", items: { type: "string" } },
        effective: { type: "boolean" },
        group_by: { type: ["string", "null"] },
        scope: {
          enum: ["account", "token-zones"],
          description: "account: every zone of the account; token-zones: only the zones the token names",
        },
        max_zones: { type: "integer" },
        total: { type: "integer", description: "Errors of the zones counted" },
        requests: { type: "integer", description: "Requests of the zones counted" },
        error_rate: { type: ["number", "null"] },
        dropped: { type: "integer", description: "Records the zones' stores could not take (not in total)" },
        timestamps: { type: "array", items: { type: "string", format: "date-time" } },
        requests_series: { type: "array", items: { type: "integer" } },
        dropped_series: { type: "array", items: { type: "integer" } },
        groups: {
          type: "array",
          items: {
            type: "object",
            properties: {
              value: { type: ["string", "null"], description: "The tag's value; null: the zones without the key" },
              zones: { type: "array", items: { type: "string" } },
              total: { type: "integer" },
              requests: { type: "integer" },
              error_rate: { type: ["number", "null"], description: "total ÷ requests of the group's zones" },
              dropped: { type: "integer" },
              counts: { type: "array", items: { type: "integer" }, description: "Errors per step" },
            },
          },
        },
        zones: {
          type: "array",
          items: {
            type: "object",
            properties: {
              zone: { type: "string" },
              value: { type: ["string", "null"] },
              total: { type: "integer" },
              requests: { type: "integer" },
              error_rate: { type: ["number", "null"] },
              dropped: { type: "integer" },
              shards: { type: "integer" },
              top_codes: { type: "array", items: { type: "object" } },
            },
          },
        },
      },
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
    ErrorOccurrence: {
      type: "object",
      properties: {
        ray: { type: "string" },
        zone: { type: "string" },
        time: { type: "string", format: "date-time" },
        at: { type: "integer" },
        code: { type: "integer" },
        status: { type: "integer" },
        source: { enum: ["edge", "origin"] },
        answered_by: { enum: ["rule", "page", "default", "origin"] },
        answer_id: { type: ["string", "null"] },
        format: { type: "string" },
        method: { type: "string" },
        path: { type: "string" },
        country: { type: ["string", "null"] },
        cause: {
          type: ["string", "null"],
          description: "Why it was generated; origin addresses replaced by [origin]/[address]",
        },
        accept: {
          type: ["string", "null"],
          enum: ["html", "json", "problem+json", "markdown", "mcp", "other", "none", null],
        },
        client_address: { type: ["string", "null"], enum: ["ipv4", "ipv6", "private", "none", null] },
        phases: { type: "array", items: { $ref: "#/components/schemas/ErrorPhase" } },
      },
    },
    ErrorPhase: {
      type: "object",
      required: ["phase", "outcome"],
      properties: {
        phase: {
          enum: ["ip_access", "firewall", "rate_limit", "origin", "custom_error_rules", "custom_page", "default"],
        },
        outcome: {
          enum: [
            "none",
            "passed",
            "blocked",
            "not-reached",
            "failed",
            "responded",
            "not-run",
            "no-match",
            "matched",
            "answered",
            "unknown",
          ],
        },
        rule_id: { type: "string" },
        page_id: { type: "string" },
        code: { type: "integer" },
        failure: { type: "string" },
        status: { type: "integer" },
        format: { type: "string" },
      },
    },
  },
};
