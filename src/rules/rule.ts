/**
 * `compile(source, scheme)`: the whole pipeline once (parse → check → closures), giving a `Rule` or a
 * `RuleError` value; `validate` stops before the closures.
 */
import { check, type CheckOptions, type TBool } from "./check";
import { compilePredicate } from "./compile";
import { BudgetExceeded } from "./budget";
import { hoistGuard, type Guard } from "./guard";
import type { EvaluationContext } from "./context";
import type { RuleError } from "./errors";
import { parse, type ParseOptions } from "./parser";
import type { Scheme } from "./scheme";
import { err, ok, type Result } from "../shared/result";

export type CompileOptions = ParseOptions & CheckOptions;

/**
 * What evaluating a rule gives (docs/rules-language.md): a match, a non-match, or over budget (budget.ts), which callers
 * log with zone, phase and rule, and treat as a match in the request phases and a non-match in custom error rules
 * (rule-list.ts `failsClosed`). A value, never a field on the context, never a throw.
 */
export type RuleOutcome =
  | { readonly kind: "match" }
  | { readonly kind: "no-match" }
  | { readonly kind: "over-budget"; readonly reason: string };

const MATCH: RuleOutcome = Object.freeze({ kind: "match" });
const NO_MATCH: RuleOutcome = Object.freeze({ kind: "no-match" });

export interface Rule {
  readonly source: string;
  readonly scheme: Scheme;
  /** Canonical names of the fields the rule reads (wirefilter's `uses`). */
  readonly fields: readonly string[];
  readonly regexCount: number;
  /** The sum of the compiled programs of its regular expressions (re2js instructions), for the zone's cap. */
  readonly programSize: number;
  /** A field and the values it must have for the rule to match, for indexing rules (guard.ts); null if none. */
  readonly guard: Guard | null;
  /** The checked tree, for the static worst case of its evaluation (worst-case.ts). */
  readonly tree: TBool;
  /**
   * Evaluates the rule on `ctx` within the budget: at most `MAX_RULE_UNITS`, and no more than the request has
   * left; what it spent is taken from the request's budget. Never throws for a context built on the rule's scheme.
   */
  evaluate(ctx: EvaluationContext): RuleOutcome;
  /** `evaluate(ctx).kind === "match"`, for tests and benchmarks (the evaluation loops use `evaluate`). */
  matches(ctx: EvaluationContext): boolean;
}

export function compile(source: string, scheme: Scheme, options: CompileOptions = {}): Result<Rule, RuleError> {
  const ast = parse(source, options);
  if (!ast.ok) return ast;
  const checked = check(source, ast.value, scheme, options);
  if (!checked.ok) return checked;
  // The guard conjunct is evaluated first, so skipping a rule on it (rule-index.ts) is unobservable (guard.ts).
  const { root, guard } = hoistGuard(checked.value.root);
  const predicate = compilePredicate(root, scheme);
  const evaluate = (ctx: EvaluationContext): RuleOutcome => {
    if (ctx.scheme !== scheme) throw new TypeError("rule evaluated against a context of another scheme");
    ctx.spent = 0;
    // The limit is set on the rule's first charge (context.ts `charge`): a rule that charges nothing never needs
    // the request's budget.
    ctx.limit = -1;
    try {
      return predicate(ctx) ? MATCH : NO_MATCH;
    } catch (e) {
      // Over the budget (budget.ts): for the caller to log and to fail closed or open by phase (rule-list.ts). The
      // engine's types are checked when compiled, so anything else thrown is a resource limit of the runtime (a
      // RangeError): the same.
      if (e instanceof BudgetExceeded) return { kind: "over-budget", reason: e.reason };
      return { kind: "over-budget", reason: `evaluation stopped: ${e instanceof Error ? e.message : String(e)}` };
    } finally {
      if (ctx.spent > 0) ctx.budget.remaining -= ctx.spent;
    }
  };
  return ok({
    source,
    scheme,
    fields: checked.value.fields,
    regexCount: checked.value.regexCount,
    programSize: checked.value.programSize,
    guard,
    tree: checked.value.root,
    evaluate,
    matches: (ctx) => evaluate(ctx).kind === "match",
  });
}

/** Only validates (parse + type check), for write-time refusal without keeping the compiled closures. */
export function validate(source: string, scheme: Scheme, options: CompileOptions = {}): Result<true, RuleError> {
  const ast = parse(source, options);
  if (!ast.ok) return ast;
  const checked = check(source, ast.value, scheme, options);
  return checked.ok ? ok(true) : err(checked.error);
}
