/**
 * The IP access rules API's part of the OpenAPI document (docs/configuration.md); the bodies' schemas are the
 * validator's (src/state/zone/access-rules/validate.ts).
 */
import * as z from "zod/mini";
import { jsonBody, ok, operation, param, queryParameters, ref, response, type OpenApiFragment } from "../kit/openapi";
import { named } from "../../shared/schema";
import { PREFIX_BOUNDS } from "../../state/zone/access-rules/address";
import { ACCESS_RULES_MAX_BYTES } from "../../state/zone/access-rules/size";
import {
  ACCESS_RULE_BODY,
  ACCESS_RULE_CONFIGURATION,
  ACCESS_RULE_LIMITS,
  accessRuleMode,
  ruleId,
} from "../../state/zone/access-rules/validate";
import { API_CODES } from "../kit/codes";
import { ACCESS_RULE_QUERY } from "./query";

export const accessRulesOpenApi: OpenApiFragment = {
  description:
    "IP access rules per zone (every plan): a client whose `CF-Connecting-IP` address or range matches gets 1006, " +
    "one whose `request.cf.country` matches gets 1009 (status 403).",
  paths: {
    "/zones/{zone}/firewall/access_rules/rules": {
      parameters: [param("Zone")],
      get: operation(
        "zones:read",
        "listZoneAccessRules",
        "The zone's IP access rules, one page (the published list)",
        { "200": ok("One page of rules", { type: "array", items: ref("PublishedAccessRule") }, ref("PageResultInfo")) },
        {
          description:
            "Filters combine by `match` (`all` by default); `notes` is a case-insensitive substring, " +
            "`configuration.value` compared without regard to case. An unknown, repeated or malformed parameter " +
            `answers 400 (${API_CODES["invalid-access-rule-query"].code}).`,
          parameters: queryParameters(ACCESS_RULE_QUERY),
        },
      ),
      post: operation(
        "zones:write",
        "createZoneAccessRule",
        "Create one IP access rule",
        { "200": ok("The rule created", ref("PublishedAccessRule")) },
        {
          description:
            "Validated as a rule of `PUT /zones/{zone}/access_rules`, against the stored list (a configuration " +
            `already used, or a list at ${ACCESS_RULE_LIMITS.maxRules} rules: 400, ${API_CODES["invalid-access-rules"].code}).`,
          requestBody: jsonBody("AccessRuleCreate"),
        },
      ),
    },
    "/zones/{zone}/firewall/access_rules/rules/{rule_id}": {
      parameters: [param("Zone"), param("AccessRuleId")],
      get: operation("zones:read", "getZoneAccessRule", "One IP access rule", {
        "200": ok("The rule", ref("PublishedAccessRule")),
      }),
      patch: operation(
        "zones:write",
        "editZoneAccessRule",
        "Edit one IP access rule",
        { "200": ok("The rule as stored", ref("PublishedAccessRule")) },
        {
          description: "The fields given replace the rule's (`configuration` whole); the others are kept.",
          requestBody: jsonBody("AccessRuleEdit"),
        },
      ),
      delete: operation("zones:write", "deleteZoneAccessRule", "Delete one IP access rule", {
        "200": ok("Deleted", { type: "object", required: ["id"], properties: { id: { type: "string" } } }),
      }),
    },
    "/zones/{zone}/access_rules": {
      parameters: [param("Zone")],
      get: operation("zones:read", "getAccessRules", "The zone's IP access rules (an empty list when none)", {
        "200": ok("The rules", ref("AccessRules")),
      }),
      put: operation(
        "zones:write",
        "putAccessRules",
        "Replace the zone's IP access rules",
        { "200": ok("The stored rules", ref("AccessRules")), "413": response("TooLarge") },
        {
          description:
            `At most ${ACCESS_RULE_LIMITS.maxRules} rules. Values are stored normalised (RFC 5952 IPv6, the network ` +
            `address of a range, upper-case country); \`ip_range\` prefixes /${PREFIX_BOUNDS.v4.min}–` +
            `/${PREFIX_BOUNDS.v4.max} (IPv4) or /${PREFIX_BOUNDS.v6.min}–/${PREFIX_BOUNDS.v6.max} (IPv6). ` +
            "Duplicate configurations or ids are refused. Invalid rules answer 400 (20026) naming the rule index; " +
            "nothing is stored. The body limit of this endpoint is the size of the largest list GET can return, " +
            `${ACCESS_RULES_MAX_BYTES} bytes (${ACCESS_RULE_LIMITS.maxRules} of the longest rules; 413 above it), ` +
            "and a list that would render larger once ids and notes are filled in is refused (400), so a list GET " +
            "returned can always be PUT back.",
          requestBody: jsonBody("AccessRulesBody"),
        },
      ),
    },
  },
  parameters: {
    AccessRuleId: {
      name: "rule_id",
      in: "path",
      required: true,
      description: `An IP access rule of the zone (32 hex characters, as listed); any other id answers 404 (${API_CODES["unknown-access-rule"].code})`,
      schema: { type: "string" },
      example: "92f17202ed8bd63d69a66b86a49a8f6b",
    },
  },
  documentOnly: () => {
    // GET's and PUT's answer, built by the route: the document alone shows it.
    named(z.object({ rules: z.array(ACCESS_RULE_BODY()) }), { id: "AccessRules" });
    // The published rule object GET answers: the request schemas' pieces, so its bounds are theirs.
    named(
      z.object({
        id: ruleId(),
        mode: accessRuleMode(),
        allowed_modes: z.array(accessRuleMode()),
        configuration: ACCESS_RULE_CONFIGURATION(),
        notes: z.string(),
      }),
      {
        id: "PublishedAccessRule",
        description:
          "The published IP access rule object (without `scope`, `created_on`, `modified_on`: docs/differences.md).",
        example: {
          id: "92f17202ed8bd63d69a66b86a49a8f6b",
          mode: "block",
          allowed_modes: ["block"],
          configuration: { target: "ip", value: "198.51.100.4" },
          notes: "abuse, ticket 42",
        },
      },
    );
  },
};
