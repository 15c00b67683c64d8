/** The IP access rules API's part of the OpenAPI document (docs/configuration.md), from the validator's constants. */
import { COMMON_ERRORS, ok, param, ref, response, type OpenApiFragment } from "../kit/openapi";
import { PREFIX_BOUNDS } from "../../state/zone/access-rules/address";
import { ACCESS_RULE_MODES, ACCESS_RULE_TARGETS } from "../../state/zone/access-rules/types";
import { ACCESS_RULES_MAX_BYTES } from "../../state/zone/access-rules/size";
import { ACCESS_RULE_LIMITS } from "../../state/zone/access-rules/validate";

export const accessRulesOpenApi: OpenApiFragment = {
  description:
    "IP access rules per zone (every plan): a client whose `CF-Connecting-IP` address or range matches gets 1006, " +
    "one whose `request.cf.country` matches gets 1009 (status 403).",
  paths: {
    "/zones/{zone}/access_rules": {
      parameters: [param("Zone")],
      get: {
        operationId: "getAccessRules",
        summary: "The zone's IP access rules (an empty list when none)",
        security: [{ bearer: ["zones:read"] }],
        responses: { "200": ok("The rules", ref("AccessRules")), ...COMMON_ERRORS },
      },
      put: {
        operationId: "putAccessRules",
        summary: "Replace the zone's IP access rules",
        description:
          `At most ${ACCESS_RULE_LIMITS.maxRules} rules. Values are stored normalised (RFC 5952 IPv6, the network ` +
          `address of a range, upper-case country); \`ip_range\` prefixes /${PREFIX_BOUNDS.v4.min}–` +
          `/${PREFIX_BOUNDS.v4.max} (IPv4) or /${PREFIX_BOUNDS.v6.min}–/${PREFIX_BOUNDS.v6.max} (IPv6). ` +
          "Duplicate configurations or ids are refused. Invalid rules answer 400 (20026) naming the rule index; " +
          "nothing is stored. The body limit of this endpoint is the size of the largest list GET can return, " +
          `${ACCESS_RULES_MAX_BYTES} bytes (${ACCESS_RULE_LIMITS.maxRules} of the longest rules; 413 above it), ` +
          "and a list that would render larger once ids and notes are filled in is refused (400), so a list GET " +
          "returned can always be PUT back.",
        security: [{ bearer: ["zones:write"] }],
        requestBody: { required: true, content: { "application/json": { schema: ref("AccessRulesBody") } } },
        responses: { "200": ok("The stored rules", ref("AccessRules")), ...COMMON_ERRORS, "413": response("TooLarge") },
      },
    },
  },
  schemas: {
    AccessRule: {
      type: "object",
      required: ["mode", "configuration"],
      additionalProperties: false,
      properties: {
        id: { type: "string", pattern: "^[0-9a-f]{32}$", description: "Generated when absent" },
        mode: { type: "string", enum: [...ACCESS_RULE_MODES] },
        configuration: {
          type: "object",
          required: ["target", "value"],
          additionalProperties: false,
          properties: {
            target: { type: "string", enum: [...ACCESS_RULE_TARGETS] },
            value: { type: "string", description: "An address, a CIDR range or an ISO 3166-1 alpha-2 code" },
          },
        },
        notes: { type: "string", maxLength: ACCESS_RULE_LIMITS.maxNotes },
      },
    },
    AccessRulesBody: {
      type: "object",
      required: ["rules"],
      additionalProperties: false,
      properties: { rules: { type: "array", maxItems: ACCESS_RULE_LIMITS.maxRules, items: ref("AccessRule") } },
      example: {
        rules: [
          { mode: "block", configuration: { target: "ip_range", value: "198.51.100.0/24" }, notes: "abuse, ticket 42" },
          { mode: "block", configuration: { target: "country", value: "AQ" } },
        ],
      },
    },
    AccessRules: {
      type: "object",
      properties: { rules: { type: "array", items: ref("AccessRule") } },
    },
  },
};
