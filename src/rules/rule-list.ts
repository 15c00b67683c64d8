/**
 * One rule list for the three phases that run stored rules (docs/custom-errors.md custom errors, docs/rules-language.md firewall custom rules
 * and rate limiting): a stored ruleset compiled once into an ordered list with its rule index (rule-index.ts), and
 * the two ways of running it, `firstMatch` (firewall, custom errors: the first matching rule wins) and `allMatches`
 * (rate limiting: every matching rule, in order, until the caller stops). Skipping the rules the index leaves out
 * is unobservable (guard.ts: a guard is hoisted from the expression, so a rule it leaves out cannot match), which is
 * why the index serves all three phases. Every over-budget evaluation, in every phase, is reported through the one
 * `logOverBudget` with zone, phase and rule id, and fails closed where it protects (`failsClosed`):
 * a match in the request phases, a non-match in custom error rules. Pure: no bindings.
 *
 * Expressions are compiled through one bounded per-isolate cache keyed by field set and source text (docs/configuration.md),
 * so a new zone version recompiles only the rules whose text changed, and zones sharing a rule share its closures.
 */
import type { EvaluationContext } from "./context";
import type { RuleError } from "./errors";
import { customErrorFields } from "./fields/custom-errors";
import type { FieldSet } from "./fields/field-set";
import { requestFields } from "./fields/request";
import { logOverBudget, type RulePhase } from "./over-budget-log";
import { compile, type Rule, type RuleOutcome } from "./rule";
import { RuleIndex } from "./rule-index";
import { planRegexSets, type RegexSets } from "./regex-sets";
import { BoundedCache } from "../shared/bounded-cache";
import { logEvent } from "../shared/log";
import type { Result } from "../shared/result";
import type { RuleUrl } from "../shared/rule-url";

/** What every stored rule has (state/zone/rulesets/validate.ts `StoredRule` and the phases' inputs). */
export interface StoredRuleInput {
  readonly id: string;
  readonly expression: string;
  readonly enabled?: boolean;
}

/** A compiled rule: its id, its expression, and what its phase needs of it (`T`). */
export type RuleListEntry<T extends object = object> = { readonly id: string; readonly rule: Rule } & T;

/** A stored rule that cannot run (should not happen: rules are checked when written); the caller logs it. */
export interface RuleProblem {
  readonly phase: RulePhase;
  readonly ruleId: string;
  readonly reason: string;
}

export interface RuleList<T extends object = object> {
  readonly phase: RulePhase;
  /** The rules that can run, in stored order. */
  readonly rules: readonly RuleListEntry<T>[];
  readonly index: RuleIndex;
  /**
   * The request phases' one-pass regex sets of these rules (regex-sets.ts), or null (none, or custom error rules:
   * they fail open, and keep one run per regex).
   */
  readonly regexSets: RegexSets | null;
  readonly problems: readonly RuleProblem[];
}

/** Before compiling: use the rule, skip it silently (disabled, nothing to serve), or report why it cannot run. */
export type Admission =
  { readonly kind: "use" } | { readonly kind: "skip" } | { readonly kind: "problem"; readonly reason: string };

export interface RuleListOptions<S extends StoredRuleInput, T extends object> {
  /** At most this many rules are kept: the first usable ones, in order (docs/custom-errors.md plan limits). */
  readonly maxRules?: number;
  /** Default: a rule with `enabled: false` is skipped, every other is used. */
  readonly admit?: (stored: S) => Admission;
  /** After the expression compiled: what the phase needs of the rule, or why it cannot run. */
  readonly prepare: (stored: S) => Result<T, string>;
}

export const RULE_COMPILE_CACHE_SIZE = 2048;

/** Compiled expressions (failures too, so a bad stored rule is not re-parsed per version), per isolate. */
const compiled = new BoundedCache<string, Result<Rule, RuleError>>({ capacity: RULE_COMPILE_CACHE_SIZE });

/** The fields a phase's rules see: custom error rules also see the error (docs/custom-errors.md), the others the request. */
export function fieldsOf(phase: RulePhase): FieldSet {
  return phase === "http_custom_errors" ? customErrorFields : requestFields;
}

/** The compiled expression of a rule of `phase` (from the isolate's cache). */
export function compileExpression(phase: RulePhase, source: string): Result<Rule, RuleError> {
  const fields = phase === "http_custom_errors" ? "error" : "request";
  return compiled.getOrBuild(`${fields}\u0000${source}`, () => compile(source, fieldsOf(phase).scheme));
}

const USE: Admission = { kind: "use" };
const SKIP: Admission = { kind: "skip" };
const defaultAdmit = (stored: StoredRuleInput): Admission => (stored.enabled === false ? SKIP : USE);

/** `admit` for the request phases: enabled rules whose action is `action`; another action cannot run (reported). */
export function admitAction(action: string): (stored: StoredRuleInput & { readonly action: string }) => Admission {
  return (stored) =>
    stored.enabled === false
      ? SKIP
      : stored.action === action
        ? USE
        : { kind: "problem", reason: `unsupported action ${stored.action}` };
}

/** Compiles a stored ruleset of `phase` into its rule list. */
export function compileRuleList<S extends StoredRuleInput, T extends object>(
  phase: RulePhase,
  stored: readonly S[],
  options: RuleListOptions<S, T>,
): RuleList<T> {
  const maxRules = options.maxRules ?? Infinity;
  const admit = options.admit ?? defaultAdmit;
  const rules: RuleListEntry<T>[] = [];
  const problems: RuleProblem[] = [];
  for (const rule of stored) {
    if (rules.length >= maxRules) break;
    const admission = admit(rule);
    if (admission.kind === "skip") continue;
    if (admission.kind === "problem") {
      problems.push({ phase, ruleId: rule.id, reason: admission.reason });
      continue;
    }
    const expression = compileExpression(phase, rule.expression);
    if (!expression.ok) {
      problems.push({ phase, ruleId: rule.id, reason: `expression does not compile: ${expression.error.message}` });
      continue;
    }
    const data = options.prepare(rule);
    if (!data.ok) {
      problems.push({ phase, ruleId: rule.id, reason: data.error });
      continue;
    }
    rules.push({ ...data.value, id: rule.id, rule: expression.value });
  }
  const regexSets = failsClosed(phase) ? planRegexSets(rules.map((r) => r.rule.tree)) : null;
  return { phase, rules, index: new RuleIndex(rules.map((r) => r.rule)), regexSets, problems };
}

/**
 * Sees what `firstMatch` does: the context it runs on (to read, afterwards, the fields the rules read: memoised, so
 * reading them again extracts nothing twice), then every evaluation in order: the position in the list, the outcome
 * and the units it spent. A position the loop did not evaluate was left out by the index (before the match) or not
 * reached (after it).
 */
export interface RuleListTracer {
  started(ctx: EvaluationContext): void;
  evaluated(position: number, outcome: RuleOutcome, units: number): void;
}

/**
 * Whether an evaluation of `phase` that cannot finish within the budget counts as a match (budget.ts). In the
 * request phases it does: a block blocks and a rate limit counts, so no input a client chooses (a padded header)
 * can switch a rule off. In custom error rules it does not: only the content of an error is at stake, and the
 * default answer is always right. Request-phase rules are refused when written unless their worst case fits
 * (worst-case.ts), so this is the net under that check, not the way rules are meant to end.
 */
export function failsClosed(phase: RulePhase): boolean {
  return phase !== "http_custom_errors";
}

/**
 * The first rule that matches, or null. Only the rules the index names are evaluated, in order (the others cannot
 * match). A rule over the evaluation budget is logged, and is the answer in the request phases (`failsClosed`);
 * in custom error rules it is a non-match and later rules still run on what is left of the request's budget
 * (budget.ts). Not logged when traced: a traced evaluation is a management run (a draft preview, a replay, the
 * request tracer), on a smaller budget than traffic's and often over a draft's rules, whose ids no zone holds (each
 * new draft wrote a line per rule); its answer names the rule that ran over (docs/rules-language.md "Logging").
 */
export function firstMatch<T extends object>(
  list: RuleList<T>,
  ctx: EvaluationContext,
  zone: string,
  tracer?: RuleListTracer,
): RuleListEntry<T> | null {
  tracer?.started(ctx);
  const closed = failsClosed(list.phase);
  // The list's sets for the whole loop (no rule yields here), and the context's own back after it: the context of
  // a request serves both request phases, each with its own sets.
  const before = ctx.regexSets;
  ctx.regexSets = list.regexSets;
  try {
    for (const position of candidatesOf(list, ctx)) {
      const entry = list.rules[position] as RuleListEntry<T>;
      const outcome = entry.rule.evaluate(ctx);
      // The draft preview's trace (src/api/explain/trace.ts) is recorded here, in the loop traffic runs, so
      // what it shows is what traffic does; `ctx.spent` holds the units of this evaluation (rule.ts resets it).
      tracer?.evaluated(position, outcome, ctx.spent);
      if (outcome.kind === "match") return entry;
      if (outcome.kind === "over-budget") {
        if (tracer === undefined) logOverBudget({ zone, phase: list.phase, rule: entry.id, reason: outcome.reason });
        if (closed) return entry;
      }
    }
    return null;
  } finally {
    ctx.regexSets = before;
  }
}

/**
 * Every rule that matches, in order, lazily: the caller stops when it has its answer (rate limiting stops at the
 * first rule that blocks), and rules after that are not evaluated, exactly as in a loop over the list. A rule over
 * the evaluation budget is logged (not when traced, as in `firstMatch`) and, in the request phases, given as a match
 * (`failsClosed`: the request counts).
 */
export function* allMatches<T extends object>(
  list: RuleList<T>,
  ctx: EvaluationContext,
  zone: string,
  /** As `firstMatch`'s: custom errors pass overlay rules over on an origin's error, traced the same way. */
  tracer?: RuleListTracer,
): Generator<RuleListEntry<T>, void, undefined> {
  tracer?.started(ctx);
  const closed = failsClosed(list.phase);
  for (const position of candidatesOf(list, ctx)) {
    const entry = list.rules[position] as RuleListEntry<T>;
    const outcome = evaluateIn(list, entry, ctx);
    tracer?.evaluated(position, outcome, ctx.spent);
    if (outcome.kind === "match") yield entry;
    else if (outcome.kind === "over-budget") {
      if (tracer === undefined) logOverBudget({ zone, phase: list.phase, rule: entry.id, reason: outcome.reason });
      if (closed) yield entry;
    }
  }
}

/**
 * One rule of `list` on `ctx`, with the list's regex sets (regex-sets.ts) for the time of the evaluation only: the
 * context of a request serves both request phases, each with its own sets, and `allMatches` yields between rules.
 */
function evaluateIn(list: RuleList, entry: RuleListEntry, ctx: EvaluationContext): RuleOutcome {
  const before = ctx.regexSets;
  ctx.regexSets = list.regexSets;
  try {
    return entry.rule.evaluate(ctx);
  } finally {
    ctx.regexSets = before;
  }
}

/** The index's candidates; every position if reading a guarded field throws (it should not), so a fault costs speed. */
function candidatesOf(list: RuleList, ctx: EvaluationContext): Iterable<number> {
  try {
    return list.index.candidates(ctx);
  } catch {
    return list.rules.keys();
  }
}

/**
 * The lazy field context of one request, shared by every rule of both request phases (fields computed once); its
 * budget is the request's (budget.ts), which custom error rules on the same request's error path draw on too.
 * `ruleUrl` carries the zone host and the zone's URL normalisation (docs/rules-language.md); without it, the host is
 * `zoneOf(request.url)` and the path is normalised with the published defaults.
 */
export function requestContext(request: Request, ruleUrl?: RuleUrl): EvaluationContext {
  return requestFields.context(ruleUrl === undefined ? { request } : { request, ruleUrl });
}

/**
 * Logs the stored rules a compiled list could not use (validated when written, so only an engine change or a plan
 * downgrade makes one): once per zone version, when the list is compiled (docs/configuration.md "Events", `rule_unusable`).
 */
export function logUnusableRules(zone: string, version: number, problems: readonly RuleProblem[]): void {
  for (const p of problems)
    logEvent("rule_unusable", { zone, version, phase: p.phase, rule: p.ruleId, cause: p.reason });
}
