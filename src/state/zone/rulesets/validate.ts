/**
 * Validation of `PUT /zones/{zone}/rulesets/phases/{phase}/entrypoint` bodies (docs/custom-errors.md, docs/producers.md, docs/configuration.md): pure, no
 * bindings. Every expression is compiled against its phase's field set and every limit checked before anything is
 * stored; a refused body changes nothing. Errors name the rule index, and for expressions the 1-based line and
 * column with what was expected (the engine's `RuleError`).
 *
 * Shapes follow the published rulesets API: a ruleset `{id, name, kind: "zone", phase, version, last_updated,
 * rules}` whose rules carry `id`, `version`, `expression`, `action`, `action_parameters`, `enabled`, `description`,
 * `last_updated` (and `ratelimit` in `http_ratelimit`), so its official clients can drive this API.
 */
import * as z from "zod/mini";
import { RATE_LIMIT, type RateLimitParameters } from "./ratelimit";
import { compile, type Rule } from "../../../rules";
import { compileExpression } from "../../../rules/rule-list";
import { phaseWorstCase, type WorstCase } from "../../../rules/worst-case";
import { DEFAULT_MAX_LENGTH } from "../../../rules/parser";
import { err, ok, type Result } from "../../../shared/result";
import { described, fields, int, named, oneOf, parseAt, type Output } from "../../../shared/schema";
import {
  IssueList,
  isObject,
  optional,
  readArray,
  readBoolean,
  readObject,
  readString,
  unknownKeys,
  type IssueKind,
  type Issues,
} from "../../../shared/validation";
import { ZONE_LIMITS, type Plan, type PlanForbids } from "../schema";
import { PHASE_SPECS, type Phase, type RuleAction } from "./phases";
import { parseAssetServeError, type AssetServeError } from "./serve-error";
import { parseOverlayParameters, type Overlay } from "./overlay";
import { budgetIssues, isRequestPhase, type BudgetScope } from "./worst-case";

/**
 * docs/custom-errors.md: custom error responses: the published four, and (our addition, docs/differences.md) `text/markdown` and
 * `application/problem+json`, the two structured formats the service itself answers in.
 */
const CONTENT_TYPES = [
  "application/json",
  "text/html",
  "text/plain",
  "text/xml",
  "text/markdown",
  "application/problem+json",
] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];
export const LIMITS = {
  /**
   * The zone's regular expressions together, in all three phases, compiled: at most this many re2js instructions
   *. Per expression the engine already caps 64 regexes, 10,000 instructions per regex and 4,000 counted
   * repetitions; this bounds what one zone makes every isolate compile and hold (once per config version) — 25
   * firewall rules of four `a[ab]{998}w` each are ~100,000.
   */
  zoneProgramSize: 200_000,
  contentBytes: { min: 1, max: 10_240 },
  statusCode: { min: 400, max: 599 },
  descriptionLength: 500,
  /** A ruleset's `name` (rulesets API, `POST /zones/{zone}/rulesets`): the project's bound, docs/rulesets-api.md. */
  nameLength: 255,
  /** An expression's length in characters: the engine's own limit (rules/parser.ts), restated for the API. */
  expressionLength: DEFAULT_MAX_LENGTH,
} as const;

const CONTENT_MESSAGE = `must be a string of ${LIMITS.contentBytes.min} to ${LIMITS.contentBytes.max} bytes`;
const BYTES = new TextEncoder();

/** A custom error's status: the published range. */
const STATUS_CODE = int(
  LIMITS.statusCode.min,
  LIMITS.statusCode.max,
  `must be an integer from ${LIMITS.statusCode.min} to ${LIMITS.statusCode.max} (docs/custom-errors.md)`,
);

/** `serve_error` with fixed content (the published shape; two content types are this service's addition). */
export const INLINE_SERVE_ERROR = named(
  fields(
    {
      content: described(
        z.string({ error: CONTENT_MESSAGE }).check(
          z.refine((content) => {
            const bytes = BYTES.encode(content).byteLength;
            return bytes >= LIMITS.contentBytes.min && bytes <= LIMITS.contentBytes.max;
          }, CONTENT_MESSAGE),
          // The lower bound as the document states it (a character is at least a byte); the upper one is in bytes,
          // which JSON Schema cannot state, so the description gives it.
          z.meta({ minLength: LIMITS.contentBytes.min }),
        ),
        `${LIMITS.contentBytes.min}–${LIMITS.contentBytes.max} bytes of UTF-8`,
      ),
      content_type: oneOf(CONTENT_TYPES),
      status_code: z.optional(STATUS_CODE),
    },
    "is not a parameter of serve_error",
  ),
  { id: "ServeErrorContent" },
);

export type InlineServeError = Output<typeof INLINE_SERVE_ERROR>;

/** The `kind` of every ruleset this API holds (the published API's zone-level entry points). */
export const RULESET_KINDS = ["zone"] as const;

/**
 * Inline content (docs/custom-errors.md), a custom error asset named by `asset_name` (serve-error.ts), or an overlay of the
 * structured error (overlay.ts; docs/custom-errors.md, docs/differences.md).
 */
export type ServeErrorParameters = InlineServeError | AssetServeError | ServeOverlayParameters;

/** `serve_error` overlaying the structured error: the error keeps its status and format. */
export interface ServeOverlayParameters {
  readonly overlay: Overlay;
}

/** A rule as stored in the zone document's `rulesets` section (and shown by the API). */
export interface StoredRule {
  readonly id: string;
  readonly version: string;
  readonly expression: string;
  readonly action: RuleAction;
  readonly action_parameters?: ServeErrorParameters;
  readonly ratelimit?: RateLimitParameters;
  readonly description: string;
  readonly enabled: boolean;
  readonly last_updated: string;
}

export interface StoredRuleset {
  readonly id: string;
  readonly version: string;
  readonly last_updated: string;
  readonly rules: readonly StoredRule[];
  /**
   * Set only when a client sent one (rulesets API create/update, or the entrypoint PUT); absent, the ruleset shows
   * `{zone} {phase}` and `""`, as every ruleset did before (docs/rulesets-api.md), so stored documents stay valid.
   */
  readonly name?: string;
  readonly description?: string;
}

export type RulesetFailure =
  /** The zone's plan cannot use the phase (docs/custom-errors.md: 403, code 1100). */
  | PlanForbids
  /** Rule fields are named `rules[i].field` (0-based, as sent); at most `MAX_RULESET_ISSUES` are listed. */
  | { readonly kind: "invalid-ruleset"; readonly issues: Issues }
  /**
   * A valid ruleset of a request phase whose worst case does not fit the evaluation budget (worst-case.ts): each
   * issue names the rule, `rules[i].expression` (docs/rulesets-api.md, 400 with code 20045).
   */
  | { readonly kind: "over-budget"; readonly issues: Issues };

/** Issues listed for one body; the rest are counted. */
export const MAX_RULESET_ISSUES = 20;

/** A write checked without its zone (tests, previews): the default header limit, nothing else stored. */
const DEFAULT_BUDGET_SCOPE: BudgetScope = {
  limits: { headerBytes: ZONE_LIMITS.maxRequestHeaderBytes.default },
  otherPhaseUnits: 0,
  previousUnits: 0,
};
const UNBOUNDED: WorstCase = { kind: "unbounded", reason: "the expression did not compile" };
/** A disabled rule: not evaluated, so it costs nothing. */
const FREE: WorstCase = { kind: "bounded", units: 0 };

const RULESET_FIELDS = new Set(["rules", "name", "description", "kind", "phase"]);
const RULE_FIELDS = new Set([
  "id",
  "ref",
  "expression",
  "action",
  "action_parameters",
  "ratelimit",
  "description",
  "enabled",
]);
const ID = /^[0-9a-f]{32}$/;

/** Where a rule's issues go: `at("invalid", "id", …)` is `rules[i].id`. */
type At = (kind: IssueKind, field: string, message: string) => void;

/** What a ruleset body is validated against: the zone's plan and stored ruleset, the clock, the id source. */
export interface RulesetParseScope {
  readonly plan: Plan;
  readonly previous: StoredRuleset | null;
  readonly now: Date;
  readonly newId: () => string;
  /** The compiled regex program size of the zone's OTHER phases (`rulesetProgramSize`), for the zone's cap. */
  readonly otherPhasesProgramSize?: number;
  /**
   * For a request phase: the zone's largest request and its other request phase's worst case (worst-case.ts
   * `budgetScope`); without it, the default header limit and nothing else stored.
   */
  readonly budget?: BudgetScope;
}

/**
 * Validates a body for `phase` on a zone of `plan`, against the ruleset stored before (kept ids keep their rule's
 * history: its version goes up by one when the rule changes). `newId` mints ids (random 32 hex in production).
 */
export function parseRuleset(
  body: unknown,
  phase: Phase,
  on: RulesetParseScope,
): Result<StoredRuleset, RulesetFailure> {
  const { plan, previous, now, newId, otherPhasesProgramSize = 0, budget } = on;
  const spec = PHASE_SPECS[phase];
  if (spec.maxRules[plan] === 0) {
    return err({ kind: "plan-forbids", plan, feature: phase, reason: "custom error rules need a paid plan" });
  }
  const issues = new IssueList(MAX_RULESET_ISSUES);
  const input = readObject(body, "body", "must be a JSON object with a `rules` array");
  if (!input.ok) return invalid(issues, input.error.kind, "body", input.error.message);
  for (const key of unknownKeys(input.value, RULESET_FIELDS))
    issues.add("unknown-field", key, "is not a ruleset field");
  if (input.value.phase !== undefined && input.value.phase !== phase)
    issues.add("not-allowed", "phase", `must be ${phase} (the path's phase)`);
  if (input.value.kind !== undefined && input.value.kind !== RULESET_KINDS[0])
    issues.add("not-allowed", "kind", `must be "${RULESET_KINDS[0]}" (a zone's entry point ruleset)`);
  const name = optional(input.value.name, (v) =>
    readString(v, "name", {
      min: 1,
      max: LIMITS.nameLength,
      message: `must be a string of 1 to ${LIMITS.nameLength} characters`,
    }),
  );
  if (!name.ok) issues.add(name.error.kind, "name", name.error.message);
  const description = optional(input.value.description, (v) =>
    readString(v, "description", {
      max: LIMITS.descriptionLength,
      message: `must be a string of at most ${LIMITS.descriptionLength} characters`,
    }),
  );
  if (!description.ok) issues.add(description.error.kind, "description", description.error.message);
  const max = spec.maxRules[plan];
  const rules = readArray(input.value.rules, "rules", {
    max,
    message: `at most ${max} rules in ${phase} on the ${plan} plan (docs/custom-errors.md)`,
  });
  if (!rules.ok) {
    const message = rules.error.kind === "wrong-type" ? "must be an array" : rules.error.message;
    return invalid(issues, rules.error.kind, "rules", message);
  }
  const stamp = now.toISOString();
  const before = new Map((previous?.rules ?? []).map((r) => [r.id, r]));
  const seen = new Set<string>();
  const stored: StoredRule[] = [];
  const compiled: (Rule | null)[] = [];
  const scope = budget ?? DEFAULT_BUDGET_SCOPE;
  let programSize = 0;
  for (const [index, raw] of rules.value.entries()) {
    const rule = parseRule(raw, index, phase, issues);
    if (!rule) continue;
    programSize += rule.programSize;
    // Only the request phases fail closed (worst-case.ts); a rule that did not compile has an issue already.
    if (isRequestPhase(phase) && rule.compiled) compiled.push(rule.value.enabled === false ? null : rule.compiled);
    const id = rule.id ?? newId();
    if (seen.has(id)) {
      issues.add("duplicate", `rules[${index}].id`, "is used by another rule of this ruleset");
      continue;
    }
    seen.add(id);
    const old = before.get(id);
    const candidate = { ...rule.value, id };
    const unchanged = old !== undefined && sameRule(old, candidate);
    stored.push({
      ...candidate,
      version: old ? (unchanged ? old.version : String(Number(old.version) + 1)) : "1",
      last_updated: unchanged ? old.last_updated : stamp,
    });
  }
  if (issues.count === 0 && otherPhasesProgramSize + programSize > LIMITS.zoneProgramSize) {
    issues.add(
      "out-of-range",
      "rules",
      `the zone's regular expressions would compile to ${otherPhasesProgramSize + programSize} instructions ` +
        `(${programSize} in ${phase}, ${otherPhasesProgramSize} in the other phases), over the zone's limit of ` +
        `${LIMITS.zoneProgramSize} (docs/rules-language.md "Evaluation budget")`,
    );
  }
  if (issues.count > 0 || !name.ok || !description.ok) return err({ kind: "invalid-ruleset", issues: issues.issues });
  // Valid: now whether its worst case fits (every rule compiled, so `costs` follows `stored`).
  if (isRequestPhase(phase)) {
    const costs = phaseWorstCase(compiled, scope.limits);
    const over = budgetIssues(
      phase,
      stored.map((rule, i) => {
        const cost = costs[i];
        return cost === undefined
          ? { ...rule, cost: UNBOUNDED }
          : cost === null
            ? { ...rule, cost: FREE }
            : { ...rule, cost: cost.alone, share: cost.share };
      }),
      scope,
    );
    if (over !== null) return err({ kind: "over-budget", issues: over });
  }
  // Sent: stored; not sent: the previous value kept (a rule-level edit never names the ruleset).
  const kept = {
    name: name.value ?? previous?.name,
    description: description.value ?? previous?.description,
  };
  return ok({
    id: previous?.id ?? newId(),
    version: String(Number(previous?.version ?? "0") + 1),
    last_updated: stamp,
    rules: stored,
    ...(kept.name === undefined ? {} : { name: kept.name }),
    ...(kept.description === undefined ? {} : { description: kept.description }),
  });
}

type RuleFields = Omit<StoredRule, "id" | "version" | "last_updated">;

function parseRule(
  raw: unknown,
  index: number,
  phase: Phase,
  issues: IssueList,
): { id: string | undefined; value: RuleFields; programSize: number; compiled: Rule | undefined } | null {
  const spec = PHASE_SPECS[phase];
  const at: At = (kind, field, message) => issues.add(kind, `rules[${index}].${field}`, message);
  if (!isObject(raw)) {
    at("wrong-type", "rule", "must be an object");
    return null;
  }
  const r = raw;
  const count = issues.count;
  for (const key of unknownKeys(r, RULE_FIELDS)) at("unknown-field", key, "is not a rule field");
  const id = optional(r.id, (v) => readString(v, "id", { message: "must be 32 lower-case hex characters" }));
  if (!id.ok) at(id.error.kind, "id", id.error.message);
  else if (id.value !== undefined && !ID.test(id.value)) at("invalid", "id", "must be 32 lower-case hex characters");
  if (r.action !== spec.action) at("not-allowed", "action", `must be "${spec.action}" in ${phase}`);
  const description = optional(r.description, (v) =>
    readString(v, "description", {
      max: LIMITS.descriptionLength,
      message: `must be a string of at most ${LIMITS.descriptionLength} characters`,
    }),
  );
  if (!description.ok) at(description.error.kind, "description", description.error.message);
  const enabled = optional(r.enabled, (v) => readBoolean(v, "enabled"));
  if (!enabled.ok) at(enabled.error.kind, "enabled", enabled.error.message);
  let programSize = 0;
  let rule: Rule | undefined;
  const expression = readString(r.expression, "expression", { min: 1, message: "must be a non-empty string" });
  if (!expression.ok) at(expression.error.kind, "expression", expression.error.message);
  else {
    // Compiled against the phase's fields, with the engine's limits (length, depth, regex count: docs/custom-errors.md),
    // through the engine's one compile cache: the zone compiled after the write, or a draft preview that compiled
    // its expressions beforehand in turns (src/api/preview/draft-cache.ts), finds them there.
    const compiled = compileExpression(phase, expression.value);
    if (!compiled.ok) {
      const e = compiled.error;
      at("invalid", "expression", `${e.line}:${e.column}: ${e.message}`);
    } else {
      programSize = compiled.value.programSize;
      rule = compiled.value;
    }
  }
  const parameters = phase === "http_custom_errors" ? parseServeError(r.action_parameters, at) : undefined;
  if (phase !== "http_custom_errors" && r.action_parameters !== undefined)
    at("unknown-field", "action_parameters", `is not used in ${phase}`);
  const ratelimit =
    phase === "http_ratelimit" ? parseAt(RATE_LIMIT, r.ratelimit, "ratelimit", at, MAX_RULESET_ISSUES) : undefined;
  if (phase !== "http_ratelimit" && r.ratelimit !== undefined)
    at("unknown-field", "ratelimit", `is only used in http_ratelimit`);
  if (issues.count > count || !expression.ok || !id.ok || !description.ok || !enabled.ok) return null;
  return {
    id: id.value,
    programSize,
    compiled: rule,
    value: {
      expression: expression.value,
      action: spec.action,
      ...(parameters ? { action_parameters: parameters } : {}),
      ...(ratelimit ? { ratelimit } : {}),
      description: description.value ?? "",
      enabled: enabled.value ?? true,
    },
  };
}

function parseServeError(raw: unknown, at: At): ServeErrorParameters | undefined {
  const p = readObject(
    raw,
    "action_parameters",
    "must be an object {content, content_type, status_code?}, {asset_name, status_code?} or {overlay}",
  );
  if (!p.ok) {
    at(p.error.kind, "action_parameters", p.error.message);
    return undefined;
  }
  // Our addition: an overlay of the structured error, alone (overlay.ts).
  if (p.value.overlay !== undefined) return parseOverlayParameters(p.value, at);
  // The published alternative to inline content: a custom error asset (serve-error.ts).
  if (p.value.asset_name !== undefined) return parseAssetServeError(p.value, at, LIMITS.statusCode);
  return parseAt(INLINE_SERVE_ERROR, p.value, "action_parameters", at, MAX_RULESET_ISSUES);
}

/** The compiled regex program size of a stored ruleset (its expressions compiled against the phase's fields). */
export function rulesetProgramSize(phase: Phase, ruleset: StoredRuleset | null): number {
  let size = 0;
  for (const rule of ruleset?.rules ?? []) {
    const compiled = compile(rule.expression, PHASE_SPECS[phase].fields.scheme);
    if (compiled.ok) size += compiled.value.programSize;
  }
  return size;
}

function sameRule(a: StoredRule, b: RuleFields & { id: string }): boolean {
  const strip = ({ version: _v, last_updated: _l, ...rest }: StoredRule): RuleFields & { id: string } => rest;
  return JSON.stringify(strip(a)) === JSON.stringify(b);
}

function invalid(issues: IssueList, kind: IssueKind, path: string, message: string): Result<never, RulesetFailure> {
  issues.add(kind, path, message);
  return err({ kind: "invalid-ruleset", issues: issues.issues });
}

/** The ruleset as the published API shows it. */
export function presentRuleset(zone: string, phase: Phase, stored: StoredRuleset | null): Record<string, unknown> {
  return {
    id: stored?.id ?? "",
    name: stored?.name ?? `${zone} ${phase}`,
    description: stored?.description ?? "",
    kind: RULESET_KINDS[0],
    phase,
    version: stored?.version ?? "0",
    last_updated: stored?.last_updated ?? null,
    rules: (stored?.rules ?? []).map((r) => ({ ...r, ref: r.id })),
  };
}
