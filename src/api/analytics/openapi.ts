/** The analytics endpoints' part of the OpenAPI document (docs/configuration.md, docs/analytics.md). */
import {
  COMMON_ERRORS,
  jsonBody,
  ok,
  param,
  parameterOf,
  queryParameters,
  ref,
  type Json,
  type OpenApiFragment,
} from "../kit/openapi";
import { RAY_QUERY } from "./ray";
import { COUNT_QUERY } from "./params";
import { BY_TAG_QUERY } from "./by-tag";
import { API_CODES } from "../kit/codes";
import { DEFAULT_SHARDS, MAX_SHARDS } from "../../state/analytics/shards";
import { alertPaths } from "./alerts-openapi";
// The components named below (bodies, answers, the lists of steps, sources and answerers) are registered there.
import { ERRORS_BY_TAG, RAY_ID } from "./schemas";

export const analyticsOpenApi: OpenApiFragment = {
  description:
    "Error analytics (`zones:read`): counts per minute (3 days) and per hour (35 days), requests and dropped records beside them (error rates), one occurrence by Ray ID (7 days), over the zone's analytics shards; alert policies (thresholds, SLO burn rates) delivered as signed webhooks; the page GET /zones/{zone}/analytics is a public HTML shell holding no data.",
  // Built with the document: the parameters' schemas are made on their first use (`later`), not at start-up.
  get paths(): Record<string, Json> {
    const ray = parameterOf(RAY_ID(), { name: "ray", in: "path" });
    return {
      "/zones/{zone}/analytics/settings": {
        parameters: [param("Zone")],
        get: {
          operationId: "getZoneAnalyticsSettings",
          summary: "The zone's analytics shard count and the counts still in force",
          security: [{ bearer: ["zones:read"] }],
          responses: { "200": ok("The settings", ref("AnalyticsSettings")), ...COMMON_ERRORS },
        },
        put: {
          operationId: "putZoneAnalyticsSettings",
          summary: "Set how many analytics objects (shards) the zone's records spread over",
          description:
            `\`shards\`: an integer from 1 to ${MAX_SHARDS} (default ${DEFAULT_SHARDS}). Records made before the change stay ` +
            "where they were written and are still counted and found: every count in force within retention is kept " +
            `(\`shards_in_force\`). Anything else answers 400 (${API_CODES["invalid-analytics-settings"].code}).`,
          security: [{ bearer: ["zones:write"] }],
          requestBody: jsonBody("AnalyticsSettingsBody"),
          responses: { "200": ok("The stored settings", ref("AnalyticsSettings")), ...COMMON_ERRORS },
        },
      },
      "/zones/{zone}/analytics/errors": {
        parameters: [param("Zone")],
        get: {
          operationId: "zoneErrorAnalytics",
          summary: "Counts of generated errors and passed-through origin errors over time, grouped, with error rates",
          security: [{ bearer: ["zones:read"] }],
          parameters: queryParameters(COUNT_QUERY()),
          responses: { "200": ok("Series, top codes and top paths", ref("ErrorCounts")), ...COMMON_ERRORS },
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
          parameters: queryParameters(BY_TAG_QUERY()),
          responses: {
            "200": ok("Counts, requests and error rates per group and per zone", ref("ErrorsByTag")),
            ...COMMON_ERRORS,
          },
        },
      },
      "/zones/{zone}/errors/{ray}": {
        parameters: [param("Zone"), ray],
        get: {
          operationId: "zoneErrorByRay",
          summary: "One recorded occurrence by Ray ID, within 7 days",
          security: [{ bearer: ["zones:read"] }],
          responses: { "200": ok("The occurrence", ref("ErrorOccurrence")), ...COMMON_ERRORS },
        },
      },
      "/zones/{zone}/logs/rayids/{ray}": {
        parameters: [param("Zone"), ray],
        get: {
          operationId: "zoneLogsByRayId",
          summary:
            "The recorded error of a Ray ID as a Logpull record (the published logs.RayID.get shape, not enveloped), within 7 days",
          security: [{ bearer: ["zones:read"] }],
          parameters: queryParameters(RAY_QUERY()),
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
                      {
                        phase: "firewall",
                        outcome: "blocked",
                        code: 1020,
                        rule_id: "0123456789abcdef0123456789abcdef",
                      },
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
      ...alertPaths(),
    };
  },
};
