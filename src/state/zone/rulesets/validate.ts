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
import {
  dateTime,
  described,
  fields,
  later,
  oneOf,
  parseAt,
  text,
  type Answer,
  type Later,
  type Output,
} from "../../../shared/schema";
import { IssueList, isObject, type IssueKind, type Issues } from "../../../shared/validation";
import { PLANS, ZONE_LIMITS, type Plan, type PlanForbids } from "../schema";
import { PHASE, PHASE_SPECS, PHASES, RULE_ACTIONS, type Phase, type RuleAction } from "./phases";
import { ASSET_SERVE_ERROR, statusCode, type AssetServeError } from "./serve-error";
import { OVERLAY_PARAMETERS } from "./overlay";
import { budgetIssues, isRequestPhase, type BudgetScope } from "./worst-case";
import { HEX_ID } from "../../../shared/crypto";

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
export const LIMITS = {
  /**
   * The zone's regular expressions together, in all three phases, compiled: at most this many re2js instructions
   *. Per expression the engine already caps 64 regexes, 10,000 instructions per regex and 4,000 counted
   * repetitions; this bounds what one zone makes every isolate compile and hold (once per config version) — 25
   * firewall rules of four `a[ab]{998}w` each are ~100,000.
   */
  zoneProgramSize: 200_000,
  contentBytes: { min: 1, max: 10_240 },
  descriptionLength: 500,
  /** A ruleset's `name` (rulesets API, `POST /zones/{zone}/rulesets`): the project's bound, docs/rulesets-api.md. */
  nameLength: 255,
  /** An expression's length in characters: the engine's own limit (rules/parser.ts), restated for the API. */
  expressionLength: DEFAULT_MAX_LENGTH,
} as const;

const CONTENT_MESSAGE = `must be a string of ${LIMITS.contentBytes.min} to ${LIMITS.contentBytes.max} bytes`;
const BYTES = new TextEncoder();

/** `serve_error` with fixed content (the published shape; two content types are this service's addition). */
export const INLINE_SERVE_ERROR = later(
  () =>
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
        status_code: z.optional(statusCode()),
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
export type ServeOverlayParameters = Output<typeof OVERLAY_PARAMETERS>;

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

const ruleId = () => text({ pattern: HEX_ID }, "must be 32 lower-case hex characters");
const descriptionText = () =>
  text({ max: LIMITS.descriptionLength }, `must be a string of at most ${LIMITS.descriptionLength} characters`);
const EXPRESSION_MESSAGE = "must be a non-empty string";
const rulesetName = () =>
  text({ min: 1, max: LIMITS.nameLength }, `must be a string of 1 to ${LIMITS.nameLength} characters`);

/**
 * A rule's fields, whatever its phase: the document's `RuleBody` and each phase's validator differ only in the
 * action, the expression's check and the two phase-dependent fields (`action_parameters`, `ratelimit`), each given
 * as the field's schema (optional or not).
 */
function ruleFields<A extends z.ZodMiniType, E extends z.ZodMiniType, P extends z.ZodMiniType, R extends z.ZodMiniType>(
  action: A,
  expression: E,
  parameters: P,
  ratelimit: R,
) {
  return fields(
    {
      id: z.optional(ruleId()),
      ref: z.optional(described(z.unknown(), "Ignored on a write; an answer's `ref` is the rule's id")),
      action,
      description: z.optional(descriptionText()),
      enabled: z.optional(described(z.boolean(), { description: "Whether the rule is evaluated", default: true })),
      expression,
      action_parameters: parameters,
      ratelimit,
    },
    "is not a rule field",
    "must be an object",
  );
}

/** A rule as the document states it: the action and parameters of every phase. */
export const RULE_BODY = later(
  () =>
    ruleFields(
      oneOf(RULE_ACTIONS),
      // The engine's own length limit, stated for the document (the engine refuses a longer one with its position).
      text({ min: 1 }, EXPRESSION_MESSAGE).check(z.meta({ maxLength: LIMITS.expressionLength })),
      z.optional(
        described(
          z.union([INLINE_SERVE_ERROR(), ASSET_SERVE_ERROR(), OVERLAY_PARAMETERS()]),
          "`serve_error` (http_custom_errors): fixed content (the published shape; `text/markdown` and " +
            "`application/problem+json` are this service's addition), a custom error asset, or instead `overlay` " +
            '(this service\'s addition, docs/custom-errors.md "Overlay"): the structured error keeps its negotiated ' +
            "format, status, machine fields and headers, with the overlay's texts, links and page branding. " +
            "`overlay` beside `content`, `asset_name`, `content_type` or `status_code` is refused by name.",
        ),
      ),
      z.optional(RATE_LIMIT()),
    ),
  { id: "RuleBody" },
);

/**
 * `serve_error`'s parameters, told apart by their keys: an overlay (overlay.ts), an asset (serve-error.ts: stored
 * without `content_type`, which can only be text/html), or inline content; each read by its own schema, whose issues
 * are this field's.
 */
const serveErrorParameters = () =>
  z.pipe(
    z.unknown(),
    z.transform((value, payload): ServeErrorParameters | undefined => {
      if (!isObject(value)) {
        const message =
          "must be an object {content, content_type, status_code?}, {asset_name, status_code?} or {overlay}";
        payload.issues.push({ code: "custom", message, input: value, params: { kind: "wrong-type" } });
        return undefined;
      }
      const schema =
        value.overlay !== undefined
          ? OVERLAY_PARAMETERS()
          : value.asset_name !== undefined
            ? ASSET_SERVE_ERROR()
            : INLINE_SERVE_ERROR();
      const parsed = schema.safeParse(value, { reportInput: true });
      if (!parsed.success) {
        // Finalised already (worded, `input` kept): the parse's own issues, under this field's path.
        payload.issues.push(...(parsed.error.issues as z.core.$ZodRawIssue[]));
        return undefined;
      }
      if ("overlay" in parsed.data) return { overlay: parsed.data.overlay };
      if ("asset_name" in parsed.data) {
        const { asset_name, status_code } = parsed.data;
        return { asset_name, ...(status_code === undefined ? {} : { status_code }) };
      }
      return parsed.data;
    }),
  );

/** A field its phase does not use: refused when given, after the rule's own fields. */
const unused = (message: string) =>
  z.optional(z.custom<undefined>(() => false, { error: message, params: { kind: "unknown-field" } }));

/**
 * A rule of `phase` as its validator reads it: the phase's one action, the expression compiled against the phase's
 * fields with the engine's limits (length, depth, regex count: docs/custom-errors.md) through the engine's one
 * compile cache (the zone compiled after the write, or a draft preview that compiled its expressions beforehand in
 * turns, src/api/preview/draft-cache.ts, finds them there), and the parameters of its phase.
 */
function phaseRule(phase: Phase) {
  const { action } = PHASE_SPECS[phase];
  return ruleFields(
    z.literal(action, { error: `must be "${action}" in ${phase}` }),
    z.string({ error: EXPRESSION_MESSAGE }).check(
      z.minLength(1, { error: EXPRESSION_MESSAGE, abort: true }),
      z.superRefine((expression, context) => {
        const compiled = compileExpression(phase, expression);
        if (compiled.ok) return;
        const { line, column, message } = compiled.error;
        context.issues.push({ code: "custom", message: `${line}:${column}: ${message}`, input: expression });
      }),
    ),
    phase === "http_custom_errors" ? serveErrorParameters() : unused(`is not used in ${phase}`),
    phase === "http_ratelimit" ? RATE_LIMIT() : unused("is only used in http_ratelimit"),
  );
}

/** A ruleset body's own fields; `rules` is the list of its rules. */
function rulesetFields<R extends z.ZodMiniType, P extends z.ZodMiniType, K extends z.ZodMiniType>(
  rules: R,
  phase: P,
  kind: K,
) {
  return {
    phase: z.optional(phase),
    kind: z.optional(kind),
    name: z.optional(rulesetName()),
    description: z.optional(descriptionText()),
    rules,
  };
}

/** The most rules any phase takes on any plan (a phase's own limit by plan is in the path's description). */
const MOST_RULES = Math.max(...PHASES.flatMap((phase) => PLANS.map((plan) => PHASE_SPECS[phase].maxRules[plan])));
const rulesDocumented = () => z.array(RULE_BODY()).check(z.maxLength(MOST_RULES));

/** `PUT …/entrypoint`, `PUT /zones/{zone}/rulesets/{id}`: the rules, and the ruleset's name and description. */
export const RULESET_BODY = later(
  () =>
    fields(
      rulesetFields(
        rulesDocumented(),
        described(PHASE(), "When present, the path's phase"),
        described(z.literal(RULESET_KINDS[0]), "When present, `zone`"),
      ),
      "is not a ruleset field",
    ),
  {
    id: "RulesetBody",
    description: "`name` and `description` are kept when absent",
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
);

/** `POST /zones/{zone}/rulesets`: as `RulesetBody`, with `name`, `kind` and `phase` required. */
export const RULESET_CREATE_BODY = later(
  () =>
    fields(
      {
        ...rulesetFields(z.optional(rulesDocumented()), PHASE(), z.literal(RULESET_KINDS[0])),
        phase: PHASE(),
        kind: z.literal(RULESET_KINDS[0]),
        name: rulesetName(),
      },
      "is not a ruleset field",
    ),
  {
    id: "RulesetCreateBody",
    example: {
      name: "Firewall",
      kind: "zone",
      phase: "http_request_firewall_custom",
      rules: [{ expression: 'http.request.uri.path eq "/admin"', action: "block", description: "No /admin" }],
    },
  },
);

/** A ruleset body of `phase` as its validator reads it: its own fields; the rules are read one by one after them. */
function phaseRuleset(phase: Phase) {
  return fields(
    rulesetFields(
      z.array(z.unknown(), { error: "must be an array" }),
      z.literal(phase, { error: `must be ${phase} (the path's phase)` }),
      z.literal(RULESET_KINDS[0], { error: `must be "${RULESET_KINDS[0]}" (a zone's entry point ruleset)` }),
    ),
    "is not a ruleset field",
  );
}

/** Each phase's validators, made by the first write of the phase. */
const BY_PHASE = Object.fromEntries(
  PHASES.map((phase) => [phase, { ruleset: later(() => phaseRuleset(phase)), rule: later(() => phaseRule(phase)) }]),
) as Readonly<
  Record<
    Phase,
    {
      readonly ruleset: Later<ReturnType<typeof phaseRuleset>>;
      readonly rule: Later<ReturnType<typeof phaseRule>>;
    }
  >
>;

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
  const add = (kind: IssueKind, path: string, message: string): void => issues.add(kind, path, message);
  if (!isObject(body)) return invalid(issues, "wrong-type", "body", "must be a JSON object with a `rules` array");
  const input = parseAt(BY_PHASE[phase].ruleset, body, "", add, MAX_RULESET_ISSUES);
  if (!Array.isArray(body.rules)) return err({ kind: "invalid-ruleset", issues: issues.issues });
  const max = spec.maxRules[plan];
  if (body.rules.length > max) {
    const message = `at most ${max} rules in ${phase} on the ${plan} plan (docs/custom-errors.md)`;
    return invalid(issues, "out-of-range", "rules", message);
  }
  const rules = body.rules as readonly unknown[];
  const stamp = now.toISOString();
  const before = new Map((previous?.rules ?? []).map((r) => [r.id, r]));
  const seen = new Set<string>();
  const stored: StoredRule[] = [];
  const compiled: (Rule | null)[] = [];
  const scope = budget ?? DEFAULT_BUDGET_SCOPE;
  let programSize = 0;
  for (const [index, raw] of rules.entries()) {
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
  if (issues.count > 0 || input === undefined) return err({ kind: "invalid-ruleset", issues: issues.issues });
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
    name: input.name ?? previous?.name,
    description: input.description ?? previous?.description,
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
  if (!isObject(raw)) {
    issues.add("wrong-type", `rules[${index}].rule`, "must be an object");
    return null;
  }
  const add = (kind: IssueKind, path: string, message: string): void => issues.add(kind, path, message);
  const rule = parseAt(BY_PHASE[phase].rule, raw, `rules[${index}]`, add, MAX_RULESET_ISSUES);
  if (rule === undefined) return null;
  // Compiled once already, by the schema's check: this is the compile cache's hit.
  const compiled = compileExpression(phase, rule.expression);
  return {
    id: rule.id,
    programSize: compiled.ok ? compiled.value.programSize : 0,
    compiled: compiled.ok ? compiled.value : undefined,
    value: {
      expression: rule.expression,
      action: rule.action,
      ...(rule.action_parameters ? { action_parameters: rule.action_parameters } : {}),
      ...(rule.ratelimit ? { ratelimit: rule.ratelimit } : {}),
      description: rule.description ?? "",
      enabled: rule.enabled ?? true,
    },
  };
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

/** A ruleset without its rules: the list items and version summaries of the published API. */
const summaryFields = () => ({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  kind: oneOf(RULESET_KINDS),
  phase: PHASE(),
  version: z.string(),
  last_updated: dateTime(),
});
export const RULESET_SUMMARY = later(() => z.object(summaryFields()), { id: "RulesetSummary" });

/** A ruleset with its rules as the published API shows it (no rules yet: version 0, never updated). */
export const RULESET = later(
  () =>
    z.object({
      ...summaryFields(),
      last_updated: z.nullable(dateTime()),
      rules: z.array(z.object({ ...RULE_BODY().shape, id: z.string(), version: z.string(), last_updated: dateTime() })),
    }),
  { id: "Ruleset" },
);

/** The ruleset as the published API shows it. */
export function presentRuleset(zone: string, phase: Phase, stored: StoredRuleset | null): Answer<typeof RULESET> {
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
