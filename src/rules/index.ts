/**
 * The Rules language engine (docs/rules-language.md). The pipeline is visible in the files:
 *
 *   scheme.ts → lexer.ts → parser.ts → check.ts → compile.ts → context.ts (lazy field values)
 *
 * and, for a phase's ordered rule list, guard.ts → rule-index.ts (rules that cannot match are skipped) → rule-list.ts
 * (one compile cache; `firstMatch` for custom errors and firewall, `allMatches` for rate limiting).
 *
 * `compile(source, scheme)` runs it once and returns a `Rule` (or a `RuleError` value); `rule.evaluate(ctx)`
 * evaluates the closures against one context within the budget (budget.ts) and gives a `RuleOutcome`. Pure: no bindings, no `eval`.
 */
export { compile, validate, type CompileOptions, type Rule, type RuleOutcome } from "./rule";
export { MAX_REQUEST_UNITS, MAX_RULE_UNITS, RequestBudget, requestBudget } from "./budget";
export { logOverBudget, type OverBudgetEvent, type RulePhase } from "./over-budget-log";
export { EvaluationContext, contextFromValues } from "./context";
export { formatRuleError, type RuleError, type RuleErrorKind, type Span } from "./errors";
export { defineScheme, type FieldDecl, type Scheme } from "./scheme";
export { arrayOf, BOOL, BYTES, INT, IP, mapOf, parseTypeName, typeName, type Type } from "./types";
export { toByteString, fromByteString, type Value } from "./values";
export { parseIp } from "../shared/ip";
export { parse } from "./parser";
export { print } from "./printer";
export { customErrorFields } from "./fields/custom-errors";
export { requestFields } from "./fields/request";
export type { FieldSet } from "./fields/field-set";
export type { ErrorInfo, RuleInput } from "./fields/input";
export {
  compileRuleList,
  firstMatch,
  allMatches,
  requestContext,
  type RuleList,
  type RuleListEntry,
  type RuleProblem,
} from "./rule-list";
export { guardOf, type Guard } from "./guard";
export { RuleIndex } from "./rule-index";
