/** The rulesets API's part of the OpenAPI document (contract §6), from the same constants as the validators. */
import { COMMON_ERRORS, ok, param, ref, response, type OpenApiFragment } from "../kit/openapi";
import { RATE_LIMIT_BOUNDS } from "../../state/zone/rulesets/ratelimit";
import { PHASE_SPECS, PHASES, RULE_ACTIONS } from "../../state/zone/rulesets/phases";
import { CONTENT_TYPES, LIMITS, MAX_RULESET_ISSUES, RULESET_KINDS } from "../../state/zone/rulesets/validate";
import { PLANS } from "../../state/zone/schema";

/** `free 0, pro 25, …` for one phase, from the validator's own table. */
const perPlan = (phase: (typeof PHASES)[number]): string =>
  PLANS.map((plan) => `${plan} ${PHASE_SPECS[phase].maxRules[plan]}`).join(", ");

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
          "Every expression is compiled and every limit checked before anything is stored. A phase a plan cannot " +
          "use (0 rules) is refused with 403 (1100). Rules per phase and plan: " +
          PHASES.map((phase) => `${phase}: ${perPlan(phase)}`).join("; ") +
          ". The zone's regular expressions, all phases together, compile to at most " +
          `${LIMITS.zoneProgramSize} RE2 instructions (400, code 20021, naming the limit). At most ` +
          `${MAX_RULESET_ISSUES} errors are listed, then one line counts the rest.`,
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
    Phase: {
      name: "phase",
      in: "path",
      required: true,
      schema: { type: "string", enum: [...PHASES] },
      example: "http_request_firewall_custom",
    },
  },
  schemas: {
    RuleBody: {
      type: "object",
      required: ["expression", "action"],
      additionalProperties: false,
      properties: {
        id: { type: "string", pattern: "^[0-9a-f]{32}$" },
        ref: { type: "string" },
        expression: { type: "string", minLength: 1, maxLength: LIMITS.expressionLength },
        action: { type: "string", enum: [...RULE_ACTIONS] },
        action_parameters: {
          type: "object",
          required: ["content", "content_type"],
          properties: {
            content: {
              type: "string",
              minLength: LIMITS.contentBytes.min,
              description: `${LIMITS.contentBytes.min}–${LIMITS.contentBytes.max} bytes of UTF-8`,
            },
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
      properties: {
        rules: {
          type: "array",
          maxItems: Math.max(...PHASES.flatMap((phase) => PLANS.map((plan) => PHASE_SPECS[phase].maxRules[plan]))),
          items: ref("RuleBody"),
        },
        phase: { type: "string", enum: [...PHASES], description: "When present, the path's phase" },
      },
      // For the `Phase` parameter's example (http_request_firewall_custom).
      example: {
        rules: [
          {
            expression: 'http.request.uri.path eq "/admin" and not ip.src in {192.0.2.0/24}',
            action: "block",
            description: "Only the office reaches /admin",
          },
        ],
      },
    },
    Ruleset: {
      type: "object",
      properties: {
        id: { type: "string" },
        name: { type: "string" },
        kind: { type: "string", enum: [...RULESET_KINDS] },
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
