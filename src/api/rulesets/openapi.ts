/** The rulesets API's part of the OpenAPI document (docs/configuration.md), from the same constants as the validators. */
import { COMMON_ERRORS, ok, param, parameterOf, ref, response, type Json, type OpenApiFragment } from "../kit/openapi";
import { MAX_VERSIONS_KEPT, RULESET_VERSION } from "../../state/zone/rulesets/versions";
import { PHASE, PHASE_SPECS, PHASES } from "../../state/zone/rulesets/phases";
import { LIMITS, MAX_RULESET_ISSUES } from "../../state/zone/rulesets/validate";
import { PLANS } from "../../state/zone/schema";

const WRITE_ERRORS = {
  ...COMMON_ERRORS,
  "413": response("TooLarge"),
};
const read = (operationId: string, summary: string, result: Json, description?: string): Json => ({
  operationId,
  summary,
  ...(description ? { description } : {}),
  security: [{ bearer: ["zones:read"] }],
  responses: { "200": ok(summary, result), ...COMMON_ERRORS },
});
const write = (
  operationId: string,
  summary: string,
  description: string,
  body: string | null,
  answer: "ruleset" | "none",
): Json => ({
  operationId,
  summary,
  description,
  security: [{ bearer: ["zones:write"] }],
  ...(body ? { requestBody: { required: true, content: { "application/json": { schema: ref(body) } } } } : {}),
  responses: {
    ...(answer === "ruleset"
      ? { "200": ok("The ruleset after the write (its new version)", ref("Ruleset")) }
      : { "204": { description: "Done; no body" } }),
    ...WRITE_ERRORS,
  },
});
const VERSIONS =
  `Every write of a ruleset makes a version; the newest ${MAX_VERSIONS_KEPT} of each ruleset are kept (older ` +
  "ones are dropped), and deleting the ruleset or the zone deletes them.";

/** The published Rulesets API beyond the entry points (docs/rulesets-api.md). */
const RULESETS_API_PATHS: Record<string, Json> = {
  "/zones/{zone}/rulesets": {
    parameters: [param("Zone")],
    get: read("listRulesets", "The zone's rulesets (one per phase that has one), without their rules", {
      type: "array",
      items: ref("RulesetSummary"),
    }),
    post: write(
      "createRuleset",
      "Create the zone's ruleset of a phase",
      "`kind` must be `zone`; a phase that already has its ruleset is refused (400, 20044): update that one. " +
        "Rules are validated exactly as on the entry point PUT.",
      "RulesetCreateBody",
      "ruleset",
    ),
  },
  "/zones/{zone}/rulesets/{ruleset_id}": {
    parameters: [param("Zone"), param("RulesetId")],
    get: read("getRuleset", "One ruleset with its rules", ref("Ruleset")),
    put: write(
      "updateRuleset",
      "Replace a ruleset's rules (and name, description)",
      "As the entry point PUT of the ruleset's phase; `phase` and `kind`, when sent, must be the ruleset's.",
      "RulesetBody",
      "ruleset",
    ),
    delete: write(
      "deleteRuleset",
      "Delete a ruleset and every version of it",
      "Allowed on every plan (removing rules never adds a feature).",
      null,
      "none",
    ),
  },
  "/zones/{zone}/rulesets/{ruleset_id}/rules": {
    parameters: [param("Zone"), param("RulesetId")],
    post: write(
      "createRulesetRule",
      "Add one rule at a position",
      "Last by default. The ruleset's limits apply as on a PUT of the whole list; issues of the rule sent are " +
        "named by its own fields (`expression`, `position.before`). A position naming no rule of the ruleset, two " +
        "position keys, or an index out of range is refused (400, 20021) and nothing is stored.",
      "RuleRequest",
      "ruleset",
    ),
  },
  "/zones/{zone}/rulesets/{ruleset_id}/rules/{rule_id}": {
    parameters: [param("Zone"), param("RulesetId"), param("RuleId")],
    patch: write(
      "editRulesetRule",
      "Edit one rule: its definition, its position, or both",
      "The rule keeps its id; its version goes up when its definition changes.",
      "RuleRequest",
      "ruleset",
    ),
    delete: write("deleteRulesetRule", "Delete one rule", "Answers the ruleset after the delete.", null, "ruleset"),
  },
  "/zones/{zone}/rulesets/{ruleset_id}/versions": {
    parameters: [param("Zone"), param("RulesetId")],
    get: read(
      "listRulesetVersions",
      "The ruleset's versions, oldest first",
      { type: "array", items: ref("RulesetSummary") },
      VERSIONS,
    ),
  },
  "/zones/{zone}/rulesets/{ruleset_id}/versions/{ruleset_version}": {
    parameters: [param("Zone"), param("RulesetId"), param("RulesetVersion")],
    get: read("getRulesetVersion", "One version of the ruleset, with its rules as they were", ref("Ruleset")),
    delete: write(
      "deleteRulesetVersion",
      "Delete a version that is not the current one",
      "The current version cannot be deleted (400, 20043); a deleted number is never reused.",
      null,
      "none",
    ),
  },
  "/zones/{zone}/rulesets/phases/{phase}/entrypoint/versions": {
    parameters: [param("Zone"), param("Phase")],
    get: read(
      "listPhaseEntrypointVersions",
      "The versions of the phase's ruleset, oldest first",
      { type: "array", items: ref("RulesetSummary") },
      VERSIONS + " A phase without a ruleset answers 404 (20040).",
    ),
  },
  "/zones/{zone}/rulesets/phases/{phase}/entrypoint/versions/{ruleset_version}": {
    parameters: [param("Zone"), param("Phase"), param("RulesetVersion")],
    get: read("getPhaseEntrypointVersion", "One version of the phase's ruleset", ref("Ruleset")),
  },
};

/** An id in a path: any text, looked up (an unknown one answers 404). */
const pathId = (name: string, description: string): Json => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});

/** `free 0, pro 25, …` for one phase, from the validator's own table. */
const perPlan = (phase: (typeof PHASES)[number]): string =>
  PLANS.map((plan) => `${plan} ${PHASE_SPECS[phase].maxRules[plan]}`).join(", ");

export const rulesetsOpenApi: OpenApiFragment = {
  description:
    "Rulesets per phase (docs/configuration.md): custom error rules (`http_custom_errors`, paid plans), firewall custom rules " +
    "and rate-limiting rules; invalid rules answer 400 (20021) naming the rule index, line and column.",
  paths: {
    ...RULESETS_API_PATHS,
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
          `${LIMITS.zoneProgramSize} RE2 instructions (400, code 20021, naming the limit). Firewall and ` +
          "rate-limiting rules must fit the evaluation budget on the largest request the zone accepts, one by one " +
          "and together (400, code 20045, naming each rule; docs/rulesets-api.md). At most " +
          `${MAX_RULESET_ISSUES} errors are listed, then one line counts the rest. Every write makes a version ` +
          "(`…/entrypoint/versions`).",
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
  // Made with the document: two of them read request schemas, which are made on first use.
  get parameters() {
    return {
      RulesetId: pathId(
        "ruleset_id",
        "A ruleset of this zone (32 hex characters, as listed); any other id answers 404 (20040)",
      ),
      RuleId: pathId("rule_id", "A rule of the ruleset; any other id answers 404 (20041)"),
      RulesetVersion: parameterOf(RULESET_VERSION(), {
        name: "ruleset_version",
        in: "path",
        description: "A version number of the ruleset, as listed; any other answers 404 (20042)",
        example: "1",
      }),
      Phase: parameterOf(PHASE(), { name: "phase", in: "path", example: "http_request_firewall_custom" }),
    };
  },
};
