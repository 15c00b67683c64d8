/**
 * An ordered list of rules indexed by their guards (guard.ts): for one evaluation context, the positions of the
 * rules that may match, in list order, without touching the others. Rules without a guard are always candidates.
 *
 * Used by every phase's rule list (rule-list.ts: custom errors, firewall, rate limiting): evaluating the candidates
 * in order finds the same first match, and the same matches in the same order, as evaluating every rule in order,
 * because a rule left out cannot match and leaving it out is unobservable (guard.ts). Per context it reads each guarded field once (memoised in the context, so the
 * rules that test it read it again for free) and does one Map lookup per field. Pure: no bindings.
 */
import type { EvaluationContext } from "./context";
import type { Rule } from "./rule";
import type { Value } from "./values";

interface FieldIndex {
  readonly field: number;
  /** Guard value → positions of the rules guarded by it, ascending. */
  readonly byValue: ReadonlyMap<Value, readonly number[]>;
}

export class RuleIndex {
  /** Positions of the rules without a guard, ascending. */
  private readonly unguarded: readonly number[];
  private readonly fields: readonly FieldIndex[];

  constructor(rules: readonly Pick<Rule, "guard">[]) {
    const unguarded: number[] = [];
    const byField = new Map<number, Map<Value, number[]>>();
    rules.forEach((rule, position) => {
      const guard = rule.guard;
      if (guard === null) {
        unguarded.push(position);
        return;
      }
      let byValue = byField.get(guard.field);
      if (byValue === undefined) byField.set(guard.field, (byValue = new Map<Value, number[]>()));
      for (const value of new Set(guard.values)) {
        const positions = byValue.get(value);
        if (positions === undefined) byValue.set(value, [position]);
        else positions.push(position);
      }
    });
    this.unguarded = unguarded;
    this.fields = [...byField].map(([field, byValue]) => ({ field, byValue }));
  }

  /** Positions (ascending, each once) of the rules that may match in `ctx`. */
  candidates(ctx: EvaluationContext): readonly number[] {
    let found: (readonly number[])[] | undefined;
    for (const { field, byValue } of this.fields) {
      const value = ctx.get(field);
      const positions = value === undefined ? undefined : byValue.get(value);
      if (positions !== undefined) (found ??= []).push(positions);
    }
    if (found === undefined) return this.unguarded;
    if (this.unguarded.length > 0) found.push(this.unguarded);
    return found.length === 1 ? (found[0] as readonly number[]) : merge(found);
  }
}

/**
 * Sorted lists → one sorted list. A rule has at most one guard, so the lists are disjoint. The lists are few (one
 * per guarded field that matched, plus the unguarded rules): a linear pick of the smallest head is enough.
 */
function merge(lists: readonly (readonly number[])[]): number[] {
  const heads = lists.map(() => 0);
  const out: number[] = [];
  for (;;) {
    let best = -1;
    let bestValue = Infinity;
    for (let i = 0; i < lists.length; i++) {
      const value = (lists[i] as readonly number[])[heads[i] as number];
      if (value !== undefined && value < bestValue) {
        best = i;
        bestValue = value;
      }
    }
    if (best === -1) return out;
    out.push(bestValue);
    heads[best] = (heads[best] as number) + 1;
  }
}
