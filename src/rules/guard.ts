/**
 * A rule's guard: one field and the values it must have for the rule to match, read off the checked expression
 * (check.ts) so that a list of rules can be indexed by it (rule-index.ts) and a rule whose guard fails is never
 * evaluated (issue 12: 300 non-matching custom error rules cost ~32 µs per error in a loop inside workerd and
 * ~50–75 µs of workerd CPU under load; docs/rules-language.md "Rule index").
 *
 * A guard is a top-level conjunct (`A and B and …`) of one of these shapes, on a field without index steps:
 *   - `field eq "literal"` (Bytes) or `field eq 123` (Int): the values `{literal}`;
 *   - `field in {"a" "b"}` (Bytes) or `field in {1 2}` (Int, single values only): the set's values;
 *   - a Bool field alone (`ssl`): `{true}`.
 * Each is false for a missing field, exactly as compile.ts evaluates it (`ctx.get(i) === c`, `set.has(v)` on a
 * present value, `get(ctx) === true`), so "the field's value is not one of the guard's values" implies "the rule
 * does not match". `not`, `or`, `ne`, ranges, indexes and calls never make a guard.
 *
 * Skipping a rule must also be unobservable, and evaluating one can be observed only through a function call
 * (the evaluation budget: `custom_rule_over_budget`). So a conjunct is a guard only when every conjunct before it
 * calls no function: `and` evaluates left to right and stops at the first false, so with a failing guard the
 * evaluation would have read some fields and answered false, as skipping does. Pure: no bindings.
 */
import type { TBool, TValue } from "./check";
import type { Value } from "./values";

export interface Guard {
  /** The field's index in the rule's scheme (`EvaluationContext.get`). */
  readonly field: number;
  /** The rule can match only when the field is present and one of these (Bytes strings or Int numbers). */
  readonly values: readonly Value[];
}

/** The first guard among the leading call-free conjuncts of `root`, or null. */
export function guardOf(root: TBool): Guard | null {
  for (const conjunct of conjuncts(root)) {
    const guard = conjunctGuard(conjunct);
    if (guard !== null) return guard;
    if (callsFunction(conjunct)) return null; // later conjuncts would run only after this one's calls
  }
  return null;
}

/** `a and (b and c)` → a, b, c, in evaluation order; anything else is one conjunct. */
function conjuncts(node: TBool): TBool[] {
  if (node.kind === "logical" && node.op === "and" && !node.array) return node.operands.flatMap(conjuncts);
  return [node];
}

function conjunctGuard(node: TBool): Guard | null {
  if (node.array) return null;
  if (node.kind === "value") {
    const field = plainField(node.value);
    return field !== null && node.value.type.kind === "Bool" ? { field, values: [true] } : null;
  }
  if (node.kind !== "compare") return null;
  const field = plainField(node.lhs);
  if (field === null) return null;
  const test = node.test;
  switch (test.kind) {
    case "bytes-order":
    case "int-order":
      return test.op === "eq" ? { field, values: [test.value] } : null;
    case "bytes-in":
      return { field, values: test.values };
    case "int-in":
      return test.ranges.every(([low, high]) => low === high) ? { field, values: test.ranges.map(([v]) => v) } : null;
    default:
      return null;
  }
}

/** The field index of a bare field reference (no `[…]`, no call), else null. */
function plainField(value: TValue): number | null {
  return value.base.kind === "field" && value.steps.length === 0 && !value.mapped ? value.base.index : null;
}

/** Whether evaluating `node` may call a function (anywhere inside it, arguments included). */
function callsFunction(node: TBool): boolean {
  switch (node.kind) {
    case "logical":
      return node.operands.some(callsFunction);
    case "not":
      return callsFunction(node.operand);
    case "quantifier":
      return callsFunction(node.argument);
    case "compare":
      return valueCalls(node.lhs);
    case "value":
      return valueCalls(node.value);
  }
}

function valueCalls(value: TValue): boolean {
  return value.base.kind === "call";
}
