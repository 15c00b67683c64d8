/** The rulesets API's part of the OpenAPI document (contract §6), from the same constants as the validators. */
import { COMMON_ERRORS, ok, param, ref, response, type OpenApiFragment } from "../kit/openapi";
import { RATE_LIMIT_BOUNDS } from "../../state/zone/rulesets/ratelimit";
import { PHASES } from "../../state/zone/rulesets/phases";
import { CONTENT_TYPES, LIMITS } from "../../state/zone/rulesets/validate";

export const rulesetsOpenApi: OpenApiFragment = {
  description:
    "Rulesets per phase (contract §6): custom error rules (`http_custom_errors`, paid plans), firewall custom rules " +
    "and rate-limiting rules; invalid rules answer 400 (20021) naming the rule index, line and column.",
  paths: {
    "/zones/{zone}/rulesets/phases/{phase}/entrypoint": {
      parameters: [param("Zone"), param("Phase")],
      get: {
        operationId: "getPhaseEntrypoint",
        summary: "The zone's ruleset of one phase (no rules yet: an empty ruleset, version 0)",
        security: [{ bearer: ["zones:read"] }],
        responses: { "200": ok("The ruleset", ref("Ruleset")), ...COMMON_ERRORS },
      },
      put: {
        operationId: "putPhaseEntrypoint",
        summary: "Replace the zone's ruleset of one phase",
        description:
          "Every expression is compiled and every limit checked before anything is stored. On the free plan " +
          "`http_custom_errors` is refused (403, 1100); at most 5 firewall and 1 rate-limiting rule; paid plans " +
          "25 / 50 / 300 rules per phase. The zone's regular expressions, all phases together, compile to at most " +
          "200,000 RE2 instructions (400, code 20021, naming the limit).",
        security: [{ bearer: ["zones:write"] }],
        requestBody: { required: true, content: { "application/json": { schema: ref("RulesetBody") } } },
        responses: {
          "200": ok("The stored ruleset", ref("Ruleset")),
          ...COMMON_ERRORS,
          "409": { description: "The zone kept changing while the write was prepared; retry" },
          "413": response("TooLarge"),
        },
      },
    },
  },
  parameters: {
    Phase: { name: "phase", in: "path", required: true, schema: { type: "string", enum: [...PHASES] } },
  },
  schemas: {
    RuleBody: {
      type: "object",
      required: ["expression", "action"],
      additionalProperties: false,
      properties: {
        id: { type: "string", pattern: "^[0-9a-f]{32}$" },
        ref: { type: "string" },
        expression: { type: "string", maxLength: 4096 },
        action: { type: "string", enum: ["serve_error", "block"] },
        action_parameters: {
          type: "object",
          required: ["content", "content_type"],
          properties: {
            content: { type: "string", description: `${LIMITS.contentBytes.min}–${LIMITS.contentBytes.max} bytes` },
            content_type: { type: "string", enum: [...CONTENT_TYPES] },
            status_code: { type: "integer", minimum: LIMITS.statusCode.min, maximum: LIMITS.statusCode.max },
          },
        },
        ratelimit: {
          type: "object",
          required: ["characteristics", "period", "requests_per_period", "mitigation_timeout"],
          properties: {
            characteristics: {
              type: "array",
              minItems: RATE_LIMIT_BOUNDS.characteristics.min,
              maxItems: RATE_LIMIT_BOUNDS.characteristics.max,
              uniqueItems: true,
              description:
                "What names one counter: `ip.src` (from CF-Connecting-IP only), `ip.src.country`, `ip.src.asnum`, " +
                '`http.host`, `http.request.uri.path`, `http.request.headers["name"]` (lower-case), ' +
                '`http.request.uri.args["name"]`, `http.request.cookies["name"]`, `cf.colo.id`.',
              items: { type: "string" },
            },
            period: { type: "integer", minimum: RATE_LIMIT_BOUNDS.period.min, maximum: RATE_LIMIT_BOUNDS.period.max },
            requests_per_period: {
              type: "integer",
              minimum: RATE_LIMIT_BOUNDS.requestsPerPeriod.min,
              maximum: RATE_LIMIT_BOUNDS.requestsPerPeriod.max,
            },
            mitigation_timeout: {
              type: "integer",
              minimum: RATE_LIMIT_BOUNDS.mitigationTimeout.min,
              maximum: RATE_LIMIT_BOUNDS.mitigationTimeout.max,
            },
          },
        },
        description: { type: "string", maxLength: LIMITS.descriptionLength },
        enabled: { type: "boolean", default: true },
      },
    },
    RulesetBody: {
      type: "object",
      required: ["rules"],
      properties: { rules: { type: "array", items: ref("RuleBody") } },
    },
    Ruleset: {
      type: "object",
      properties: {
        id: { type: "string" },
        name: { type: "string" },
        kind: { type: "string", enum: ["zone"] },
        phase: { type: "string", enum: [...PHASES] },
        version: { type: "string" },
        last_updated: { type: ["string", "null"], format: "date-time" },
        rules: {
          type: "array",
          items: {
            allOf: [
              ref("RuleBody"),
              {
                type: "object",
                properties: { version: { type: "string" }, last_updated: { type: "string", format: "date-time" } },
              },
            ],
          },
        },
      },
    },
  },
};
