/**
 * Guards (src/rules/guard.ts) and the rule index (src/rules/rule-index.ts): which conjuncts make a guard, and, over
 * random rule lists and contexts, that the index's first match is the first match of a pass over every rule.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contextFromValues, RequestBudget, RuleIndex } from "../../../src/rules";
import { rule, scheme } from "./helpers";

const field = (name: string): number => scheme.field(name)!.index;

describe("guardOf", () => {
  it.each([
    ['s eq "a"', "s", ["a"]],
    ["n eq 3", "n", [3]],
    ["n == 3", "n", [3]],
    ['s in {"a" "b"}', "s", ["a", "b"]],
    ["n in {1 3}", "n", [1, 3]],
    ["b", "b", [true]],
    ['s eq "a" and n eq 3', "s", ["a"]],
    ['(s eq "a" and n eq 3) and b', "s", ["a"]],
    ['s contains "x" and n eq 3', "n", [3]],
    ['s matches "^a" and b', "b", [true]],
    ['any(arr[*] eq "a") and s eq "x"', "s", ["x"]],
    ['n eq 3 and lower(s) eq "a"', "n", [3]],
    ['lower(s) eq "a" and n eq 3', "n", [3]], // hoisted: evaluated first (guard.ts)
    ["len(s) > 1 and b", "b", [true]],
  ])("%s → %s in %j", (source, name, values) => {
    expect(rule(source).guard).toEqual({ field: field(name), values });
  });

  it.each([
    's ne "a"',
    "n > 3",
    "n in {1..3}",
    "n in {1 2}", // adjacent values merge into the range 1..2: no guard
    "not b",
    'not s eq "a"',
    's eq "a" or n eq 3',
    's eq "a" xor n eq 3',
    'arr[0] eq "a"',
    'm["k"][0] eq "a"',
    'any(arr[*] eq "a")',
    'lower(s) eq "a"',
    's contains "a"',
    "true and n eq 3 or b",
  ])("%s has no guard", (source) => {
    expect(rule(source).guard).toBeNull();
  });
});

describe("a guard is evaluated first, so skipping on it is unobservable", () => {
  it("a failing guard written after a regex answers no-match and spends nothing, even with no budget left", () => {
    const r = rule('s matches "^a.*z" and lower(s) eq "a" and n eq 3');
    const spent = new RequestBudget(0);
    expect(r.evaluate(contextFromValues(scheme, { s: "abc", n: 4 }, spent))).toEqual({ kind: "no-match" });
    const budget = new RequestBudget();
    expect(r.evaluate(contextFromValues(scheme, { s: "abc", n: 4 }, budget))).toEqual({ kind: "no-match" });
    expect(budget.remaining).toBe(budget.total);
    // With the guard holding, the regex runs and is charged.
    expect(r.evaluate(contextFromValues(scheme, { s: "abc", n: 3 }, budget))).toEqual({ kind: "no-match" });
    expect(budget.remaining).toBeLessThan(budget.total);
  });
});

describe("RuleIndex", () => {
  /** A pool of shapes: guarded on s, n or b, and unguarded. */
  const POOL = [
    's eq "a"',
    's eq "b" and n eq 1',
    's in {"a" "c"}',
    "n eq 2",
    "n in {1 3}",
    "b",
    's matches "^c" and b',
    'n eq 3 and s ne "a"',
    's ne "b"',
    'any(arr[*] eq "a")',
    "not b",
    'lower(s) eq "c" and n eq 2',
    's eq "c" or n eq 1',
    "n > 1",
  ];
  const compiled = POOL.map(rule);

  const context = (s: string | undefined, n: number | undefined, b: boolean | undefined, arr: string[] | undefined) =>
    contextFromValues(scheme, { s, n, b, arr });

  const arbitraryContext = fc.tuple(
    fc.option(fc.constantFrom("a", "b", "c", "d"), { nil: undefined }),
    fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
    fc.option(fc.boolean(), { nil: undefined }),
    fc.option(fc.array(fc.constantFrom("a", "b")), { nil: undefined }),
  );

  it("finds the first match of a pass over every rule, for any rule list and context", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: POOL.length - 1 }), { maxLength: 30 }),
        arbitraryContext,
        (picks, [s, n, b, arr]) => {
          const rules = picks.map((i) => compiled[i]!);
          const index = new RuleIndex(rules);
          const linear = rules.findIndex((r) => r.matches(context(s, n, b, arr)));
          const ctx = context(s, n, b, arr);
          const candidates = index.candidates(ctx);
          const indexed = candidates.find((position) => rules[position]!.matches(ctx)) ?? -1;
          expect(indexed).toBe(linear);
          // Every rule that matches is a candidate; candidates are ascending and distinct.
          rules.forEach((r, position) => {
            if (r.matches(ctx)) expect(candidates).toContain(position);
          });
          expect([...candidates]).toEqual([...new Set(candidates)].sort((x, y) => x - y));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("leaves out the rules whose guard fails and keeps the unguarded ones in order", () => {
    const rules = ['s eq "a"', "n eq 2", 's ne "b"', 's eq "b"', "b", 's in {"a" "b"}'].map(rule);
    const index = new RuleIndex(rules);
    expect(index.candidates(context("a", 1, false, undefined))).toEqual([0, 2, 5]);
    expect(index.candidates(context("b", 2, true, undefined))).toEqual([1, 2, 3, 4, 5]);
    expect(index.candidates(context(undefined, undefined, undefined, undefined))).toEqual([2]);
  });

  it("names no rule twice when a guard lists a value twice", () => {
    const index = new RuleIndex([rule('s in {"a" "a"}')]);
    expect(index.candidates(context("a", undefined, undefined, undefined))).toEqual([0]);
  });
});
