/**
 * `compile(source, scheme)`: the whole pipeline once (parse → check → closures), giving a `Rule` or a
 * `RuleError` value; `validate` stops before the closures.
 */
import { check, type CheckOptions } from "./check";
import { compilePredicate } from "./compile";
import { BudgetExceeded } from "./budget";
import { guardOf, type Guard } from "./guard";
import type { EvaluationContext } from "./context";
import type { RuleError } from "./errors";
import { parse, type ParseOptions } from "./parser";
import type { Scheme } from "./scheme";
import { err, ok, type Result } from "../result";

export type CompileOptions = ParseOptions & CheckOptions;

export interface Rule {
  readonly source: string;
  readonly scheme: Scheme;
  /** Canonical names of the fields the rule reads (wirefilter's `uses`). */
  readonly fields: readonly string[];
  readonly regexCount: number;
  /** A field and the values it must have for the rule to match, for indexing rules (guard.ts); null if none. */
  readonly guard: Guard | null;
  /** True when the expression matches; never throws for any context built on the rule's scheme. */
  matches(ctx: EvaluationContext): boolean;
}

export function compile(source: string, scheme: Scheme, options: CompileOptions = {}): Result<Rule, RuleError> {
  const ast = parse(source, options);
  if (!ast.ok) return ast;
  const checked = check(source, ast.value, scheme, options);
  if (!checked.ok) return checked;
  const predicate = compilePredicate(checked.value.root, scheme);
  return ok({
    source,
    scheme,
    fields: checked.value.fields,
    regexCount: checked.value.regexCount,
    guard: guardOf(checked.value.root),
    matches(ctx: EvaluationContext): boolean {
      if (ctx.scheme !== scheme) throw new TypeError("rule evaluated against a context of another scheme");
      ctx.work = 0; // each rule has the whole budget (budget.ts)
      try {
        return predicate(ctx);
      } catch (e) {
        // Over the evaluation budget (budget.ts): a non-match, recorded for the caller to log (contract §2.2).
        if (e instanceof BudgetExceeded) {
          ctx.overBudget = e.reason;
          return false;
        }
        throw e;
      }
    },
  });
}

/** Only validates (parse + type check), for write-time refusal without keeping the compiled closures. */
export function validate(source: string, scheme: Scheme, options: CompileOptions = {}): Result<true, RuleError> {
  const ast = parse(source, options);
  if (!ast.ok) return ast;
  const checked = check(source, ast.value, scheme, options);
  return checked.ok ? ok(true) : err(checked.error);
}
