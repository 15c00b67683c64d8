/**
 * A rule's guard: one field and the values it must have for the rule to match, read off the checked expression
 * (check.ts) so that a list of rules can be indexed by it (rule-index.ts) and a rule whose guard fails is never
 * evaluated (300 non-matching custom error rules cost ~32 µs per error in a loop inside workerd and
 * ~50–75 µs of workerd CPU under load; docs/rules-language.md "Rule index").
 *
 * A guard is a top-level conjunct (`A and B and …`) of one of these shapes, on a field without index steps:
 *   - `field eq "literal"` (Bytes) or `field eq 123` (Int): the values `{literal}`;
 *   - `field in {"a" "b"}` (Bytes) or `field in {1 2}` (Int, single values only): the set's values;
 *   - a Bool field alone (`ssl`): `{true}`.
 * Each is false for a missing field, exactly as compile.ts evaluates it (`ctx.get(i) === c`, `set.has(v)` on a
 * present value, `get(ctx) === true`), so "the field's value is not one of the guard's values" implies "the rule
 * does not match". `not`, `or`, `ne`, ranges, indexes and calls never make a guard, nor does a comparison with a
 * dynamic value on the right (`field eq other.field`, test kind `dynamic-order`: it has no literal to index by, and
 * it charges the budget, so it cannot be hoisted for free).
 *
 * Skipping a rule must also be unobservable, and evaluating one can be observed through the evaluation budget
 * (budget.ts: what a rule spends is taken from the request's budget, and an over-budget rule is logged). A guard
 * conjunct itself charges nothing (no call, no linear test), so the rule is compiled with its guard conjunct FIRST
 * (`hoistGuard`): `and` stops at the first false, so when the guard fails the evaluation reads one field, spends
 * nothing and answers false, exactly as skipping does, wherever the conjunct was written. Moving a conjunct that
 * charges nothing to the front changes no result (`and` is commutative when nothing else is observable).
 * Pure: no bindings.
 */
import type { TBool, TValue } from "./check";
import type { Value } from "./values";

export interface Guard {
  /** The field's index in the rule's scheme (`EvaluationContext.get`). */
  readonly field: number;
  /** The rule can match only when the field is present and one of these (Bytes strings or Int numbers). */
  readonly values: readonly Value[];
}

/** The first guard among the top-level conjuncts of `root`, or null. */
export function guardOf(root: TBool): Guard | null {
  for (const conjunct of conjuncts(root)) {
    const guard = conjunctGuard(conjunct);
    if (guard !== null) return guard;
  }
  return null;
}

/**
 * `root` with its guard conjunct (the one `guardOf` names) evaluated first, and the guard; `root` itself when the
 * guard is already first or there is none.
 */
export function hoistGuard(root: TBool): { readonly root: TBool; readonly guard: Guard | null } {
  const all = conjuncts(root);
  const at = all.findIndex((c) => conjunctGuard(c) !== null);
  if (at === -1) return { root, guard: null };
  const first = all[at] as TBool;
  const guard = conjunctGuard(first);
  if (at === 0) return { root, guard };
  const operands = [first, ...all.slice(0, at), ...all.slice(at + 1)];
  return { root: { kind: "logical", op: "and", operands, array: false }, guard };
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
    case "dynamic-order":
      return null;
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
