/**
 * The 2026 additions to the Rules language (docs/rules-language.md "2026 additions"): `coalesce()`,
 * `concat()` with up to 32 arguments, and dynamic values (fields, function results) on both sides of the equality
 * and ordering operators. Published: developers.cloudflare.com/changelog/post/2026-10-01-coalesce-function/,
 * …/2026-10-01-dynamic-comparison-values/, and the concat changelog of 2026-09-22.
 */
import { describe, expect, it } from "vitest";
import {
  compile,
  contextFromValues,
  formatRuleError,
  guardOf,
  MAX_RULE_UNITS,
  parse,
  print,
  RequestBudget,
  type Value,
} from "../../../src/rules";
import { evaluate, failure, rule, scheme } from "./helpers";

const m = (entries: Record<string, string[]>): Value => new Map(Object.entries(entries));

describe("dynamic values on both sides of eq/ne/lt/le/gt/ge", () => {
  it("compares two String fields bytewise with every operator", () => {
    const v = { s: "/admin", s2: "//admin" };
    expect(evaluate("s ne s2", v)).toBe(true);
    expect(evaluate("s eq s2", v)).toBe(false);
    expect(evaluate("s == s", v)).toBe(true);
    expect(evaluate("s != s", v)).toBe(false);
    // "//admin" < "/admin" bytewise ("/" 0x2f < "a" 0x61)
    expect(evaluate("s2 lt s", v)).toBe(true);
    expect(evaluate("s2 < s", v)).toBe(true);
    expect(evaluate("s le s", v)).toBe(true);
    expect(evaluate("s gt s2", v)).toBe(true);
    expect(evaluate("s >= s2", v)).toBe(true);
    expect(evaluate("s2 >= s", v)).toBe(false);
  });

  it("compares Int and IP values, IPs across families as with a literal (only ne is true)", () => {
    expect(evaluate("len(s) gt len(s2)", { s: "abc", s2: "ab" })).toBe(true);
    expect(evaluate("len(s) le len(s2)", { s: "abc", s2: "ab" })).toBe(false);
    expect(evaluate("n eq len(s)", { n: 3, s: "abc" })).toBe(true);
    expect(evaluate("ip eq ip", { ip: 0x7f000001 })).toBe(true);
    expect(evaluate("ip lt ip", { ip: 1n })).toBe(false);
  });

  it("takes function results and indexed fields on the right (the published examples' shapes)", () => {
    const v = { s: "/x", m: m({ first: ["a"], second: ["a"], p: ["/x"] }) };
    expect(evaluate('m["first"][0] eq m["second"][0]', v)).toBe(true);
    expect(evaluate('s eq coalesce(m["p"][0], "/")', v)).toBe(true);
    expect(evaluate('s eq coalesce(m["absent"][0], "/x")', v)).toBe(true);
    expect(evaluate("lower(s) eq upper(s)", { s: "1-2" })).toBe(true);
    expect(evaluate("lower(s) eq upper(s)", { s: "a" })).toBe(false);
  });

  it("is false when either side is missing, ne included, and not of it is true (docs/rules-language.md)", () => {
    for (const op of ["eq", "ne", "lt", "le", "gt", "ge"]) {
      expect(evaluate(`s ${op} s2`, { s: "a" }), `s ${op} missing`).toBe(false);
      expect(evaluate(`s ${op} s2`, { s2: "a" }), `missing ${op} s2`).toBe(false);
      expect(evaluate(`not s ${op} s2`, { s: "a" })).toBe(true);
      expect(evaluate(`m["a"][0] ${op} m["b"][0]`, { m: m({}) })).toBe(false);
    }
  });

  it("refuses different types on the two sides when written, with the position of the right side", () => {
    const e = failure("s eq n");
    expect(e.kind).toBe("type");
    expect(e.message).toBe("expected a value of type Bytes (the type of the left side), got Int");
    expect(e.column).toBe(6);
    expect(formatRuleError("s eq n", e)).toBe(
      "Filter type error (1:6):\ns eq n\n     ^ expected a value of type Bytes (the type of the left side), got Int\n",
    );
    expect(failure("n lt len(arr) or ip eq s").message).toBe(
      "expected a value of type Ip (the type of the left side), got Bytes",
    );
    expect(failure("s eq arr").kind).toBe("type");
    expect(failure("s eq m").kind).toBe("type");
    expect(failure('s eq starts_with(s, "a")').kind).toBe("type");
  });

  it("keeps a literal on the right of contains, matches, wildcard, in and &, with a clear message", () => {
    for (const source of [
      "s contains s2",
      "s contains lower(s2)",
      'arr[0] contains m["k"][0]',
      "s matches s2",
      "s wildcard s2",
      "s strict wildcard s2",
      "s in s2",
      "n & n",
    ]) {
      const e = failure(source);
      expect(e.kind, source).toBe("syntax");
      expect(e.message, source).toMatch(
        /takes a literal on the right; a field or a function result on the right is allowed only with eq, ne, lt, le, gt, ge/,
      );
    }
  });

  it("leaves every literal its meaning: a bare word that names no field is still a literal", () => {
    expect(evaluate("s eq 61:62", { s: "ab" })).toBe(true);
    expect(evaluate("s eq 61.62", { s: "ab" })).toBe(true);
    expect(failure("n == true").message).toMatch(/expected an integer/);
    expect(failure("s eq nosuch.field").kind).toBe("literal");
    expect(failure("s eq nosuch(s)").kind).toBe("unknown-identifier");
  });

  it("works with [*] on the left, inside any()/all()", () => {
    expect(evaluate("any(arr[*] eq s)", { arr: ["a", "b"], s: "b" })).toBe(true);
    expect(evaluate("all(arr[*] eq s)", { arr: ["a", "b"], s: "b" })).toBe(false);
    expect(evaluate("any(arr[*] eq s)", { arr: ["a", "b"] })).toBe(false);
  });

  it("refuses [*] on the right", () => {
    expect(failure("s eq arr[*]").message).toMatch(/\[\*\] is only allowed/);
  });

  it("prints and parses back to the same tree", () => {
    for (const source of ["s ne s2", 'len(s) gt len(m["a"][0])', 's eq coalesce(m["p"][0], "/")']) {
      const tree = parse(source);
      if (!tree.ok) throw new Error(tree.error.message);
      const again = parse(print(tree.value));
      if (!again.ok) throw new Error(again.error.message);
      expect(print(again.value)).toBe(print(tree.value));
    }
  });

  it("is never a rule-index guard, wherever it is written", () => {
    const guard = (source: string): ReturnType<typeof guardOf> => {
      const r = compile(source, scheme);
      if (!r.ok) throw new Error(r.error.message);
      return r.value.guard;
    };
    expect(guard("s eq s2")).toBeNull();
    expect(guard("n eq len(s)")).toBeNull();
    expect(guard('s eq coalesce(m["p"][0], "/")')).toBeNull();
    expect(guard('s eq s2 and s2 eq "x"')).toEqual({ field: scheme.field("s2")?.index, values: ["x"] });
  });

  it("charges the shorter value's length before comparing two Strings", () => {
    const long = "a".repeat(2_500_000);
    const r = rule("s ge s2");
    const ctx = contextFromValues(scheme, { s: long, s2: long + "b" });
    const outcome = r.evaluate(ctx);
    expect(outcome).toEqual({ kind: "no-match" });
    expect(ctx.spent).toBe(2_500_000);
    // Two comparisons of 2,500,000 bytes pass one rule's 4,000,000 units: over budget before the second runs.
    const twice = rule("s ge s2 or s2 le s");
    const over = twice.evaluate(contextFromValues(scheme, { s: long, s2: long + "b" }));
    expect(over.kind).toBe("over-budget");
    // A missing side charges nothing; Ints and IPs compare in constant time.
    const none = contextFromValues(scheme, { s: long });
    expect(r.evaluate(none)).toEqual({ kind: "no-match" });
    expect(none.spent).toBe(0);
    const ints = contextFromValues(scheme, { n: 5 });
    rule("n eq n").evaluate(ints);
    expect(ints.spent).toBe(0);
    expect(MAX_RULE_UNITS).toBe(4_000_000);
  });

  it("takes the request's budget too (a request that spent most of it leaves the comparison over budget)", () => {
    const budget = new RequestBudget();
    budget.remaining = 10;
    const ctx = contextFromValues(scheme, { s: "x".repeat(100), s2: "x".repeat(100) }, budget);
    expect(rule("s eq s2").evaluate(ctx).kind).toBe("over-budget");
  });
});

describe("coalesce()", () => {
  it("returns the first argument that is not missing", () => {
    const v = { m: m({ a: ["1"], b: ["2"] }) };
    expect(evaluate('coalesce(m["a"][0], m["b"][0]) eq "1"', v)).toBe(true);
    expect(evaluate('coalesce(m["x"][0], m["b"][0]) eq "2"', v)).toBe(true);
    expect(evaluate('coalesce(m["x"][0], m["y"][0], "fallback") eq "fallback"', v)).toBe(true);
    expect(evaluate("coalesce(n, 0) eq 0", {})).toBe(true);
    expect(evaluate("coalesce(n, 0) eq 7", { n: 7 })).toBe(true);
    expect(evaluate("coalesce(ip, 10.0.0.1) eq 10.0.0.1", {})).toBe(true);
  });

  it('keeps "" and an empty array: only a missing value is skipped', () => {
    expect(evaluate('coalesce(s, "x") eq ""', { s: "" })).toBe(true);
    expect(evaluate('len(coalesce(arr, m["k"])) eq 0', { arr: [], m: m({ k: ["a", "b"] }) })).toBe(true);
    expect(evaluate('len(coalesce(arr, m["k"])) eq 2', { m: m({ k: ["a", "b"] }) })).toBe(true);
  });

  it("is missing when every argument is: every comparison on it is false, ne included", () => {
    for (const op of ["eq", "ne", "lt", "ge", "contains", "matches"]) {
      const rhs = op === "matches" ? '".*"' : '"a"';
      expect(evaluate(`coalesce(s, s2) ${op} ${rhs}`, {}), op).toBe(false);
      expect(evaluate(`not coalesce(s, s2) ${op} ${rhs}`, {}), op).toBe(true);
    }
    expect(evaluate("len(coalesce(s, s2)) ge 0", {})).toBe(false);
  });

  it("maps over [*] in its first argument: a missing element falls back", () => {
    const v = { arr: ["a", "b"], m: m({ k: ["x"] }) };
    expect(evaluate('any(coalesce(arr[*], "z")[*] eq "b")', v)).toBe(true);
  });

  it("evaluates lazily: a fallback after a present value is never computed (and never charged)", () => {
    const heavy = `url_decode(s2, "r")`;
    const r = rule(`coalesce(s, ${heavy}) eq "a"`);
    const ctx = contextFromValues(scheme, { s: "a", s2: "%25".repeat(300_000) });
    expect(r.evaluate(ctx)).toEqual({ kind: "match" });
    // the chosen "a": 1 unit as an argument, 1 as the result
    expect(ctx.spent).toBe(2);
  });

  it("refuses arguments of different types, and no arguments, when written", () => {
    const e = failure('coalesce(s, 1) eq "a"');
    expect(e.kind).toBe("type");
    expect(e.message).toBe("coalesce() arguments must all be Bytes, got Int");
    expect(e.column).toBe(13);
    expect(failure('coalesce(arr, s) eq "a"').message).toBe("coalesce() arguments must all be Array<Bytes>, got Bytes");
    expect(failure('coalesce() eq "a"').message).toBe("coalesce() takes at least 1 argument, got 0");
  });
});

describe("concat() up to 32 arguments", () => {
  const args = (n: number): string => Array.from({ length: n }, (_, i) => (i % 2 === 0 ? "s" : `"${i}"`)).join(", ");

  it("accepts 32 arguments and concatenates them", () => {
    const expected = Array.from({ length: 32 }, (_, i) => (i % 2 === 0 ? "a" : String(i))).join("");
    expect(evaluate(`concat(${args(32)}) eq "${expected}"`, { s: "a" })).toBe(true);
  });

  it("refuses 33 when written, naming the limit", () => {
    const source = `concat(${args(33)}) eq "x"`;
    const e = failure(source);
    expect(e.kind).toBe("type");
    expect(e.message).toBe("concat() takes 1 to 32 arguments, got 33");
    expect(e.column).toBe(1);
  });

  it("charges its 32 arguments and its result before the comparison", () => {
    const long = "x".repeat(20_000);
    const ctx = contextFromValues(scheme, { s: long });
    rule(`concat(${args(32)}) eq "x"`).evaluate(ctx);
    const argBytes = 16 * 20_000 + [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31].join("").length;
    // arguments, then the result of the same length
    expect(ctx.spent).toBe(2 * argBytes);
    // 32 arguments of 32,000 bytes: 1,024,000 units of arguments + 1,024,000 of result (a value under 1 MiB), twice
    // (two calls with different text are two computations) pass one rule's 4,000,000 units.
    const wide = "x".repeat(32_000);
    const over = contextFromValues(scheme, { s: wide, s2: wide });
    const all = Array.from({ length: 32 }, (_, i) => (i % 2 === 0 ? "s" : "s2")).join(", ");
    const reversed = Array.from({ length: 32 }, (_, i) => (i % 2 === 0 ? "s2" : "s")).join(", ");
    const outcome = rule(`concat(${all}) eq "x" or concat(${reversed}) eq "x"`).evaluate(over);
    expect(outcome).toEqual({ kind: "over-budget", reason: expect.stringContaining("concat") as unknown });
  });

  it("reads a missing String argument as an empty string", () => {
    expect(evaluate('concat(s, s2, "c") eq "ac"', { s: "a" })).toBe(true);
  });
});
