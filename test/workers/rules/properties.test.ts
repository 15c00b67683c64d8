/**
 * Property tests (fast-check): the engine never throws on any input, printing and re-parsing is stable, and
 * nesting past the limit is refused with a RuleError.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile, contextFromValues, parse, print, toByteString } from "../../../src/rules";
import { scheme } from "./helpers";
import { withoutSpans } from "../support/ast";

const KINDS = ["syntax", "literal", "unknown-identifier", "type", "regex", "limit"];

/** Source fragments that exercise every lexer path, glued randomly. */
const fragment = fc.constantFrom(
  "s",
  "n",
  "ip",
  "b",
  "arr",
  "m",
  "bools",
  "json",
  "(",
  ")",
  "[",
  "]",
  "[*]",
  "[0]",
  '["k"]',
  "{",
  "}",
  ",",
  " ",
  "\n",
  "\t",
  "and",
  "or",
  "xor",
  "not",
  "!",
  "&&",
  "||",
  "^^",
  "==",
  "!=",
  "<",
  "<=",
  ">",
  ">=",
  "~",
  "&",
  "eq",
  "contains",
  "matches",
  "in",
  "wildcard",
  "strict wildcard",
  "bitwise_and",
  "any(",
  "all(",
  "lower(",
  "len(",
  "concat(",
  "split(",
  '"a"',
  '"\\x4',
  '"\\',
  'r#"x"#',
  'r"',
  "r###",
  '"(a+)+$"',
  '"(?=x)"',
  "1",
  "-1",
  "0x1f",
  "0777",
  "99999999999999999999",
  "10.0.0.0/8",
  "::1",
  "1..5",
  "aa:bb",
  "$list",
  "true",
  "é",
  "😀",
);

const randomSource = fc.oneof(
  fc.array(fragment, { maxLength: 30 }).map((parts) => parts.join(" ")),
  fc.array(fragment, { maxLength: 30 }).map((p) => p.join("")),
  fc.string({ maxLength: 200 }),
  fc.string({ unit: "grapheme", maxLength: 60 }),
);

/** Well-formed expressions over the helper scheme, generated from the grammar. */
const expression = fc.letrec((tie) => ({
  comparison: fc.oneof(
    fc
      .tuple(
        fc.constantFrom("==", "!=", "<", "ge", "contains", "wildcard", "strict wildcard", "matches"),
        fc.string({ maxLength: 8 }),
      )
      .map(([op, text]) => {
        const literal = JSON.stringify(text.replace(/[\\*"]/g, "")).replace(/[\u007f-\uffff]/g, "");
        return `s ${op} ${op === "matches" ? literal.replace(/[()[\]{}+?|^$.]/g, "") : literal}`;
      }),
    fc
      .tuple(fc.constantFrom("==", "!=", "<", ">", "le", "&"), fc.integer({ min: -1000, max: 1000 }))
      .map(([op, n]) => `n ${op} ${n}`),
    fc
      .tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 50 }))
      .map(([a, b]) => `n in {${Math.min(a, b)}..${Math.max(a, b)} 99}`),
    fc.ipV4().map((a) => `ip in {${a}/24 ::1}`),
    fc.constantFrom(
      "b",
      "true",
      'any(arr[*] == "x")',
      'all(lower(arr[*])[*] contains "a")',
      'len(m["k"]) > 0',
      "any(bools)",
      'concat(s, "x") == "ax"',
    ),
  ),
  expr: fc.oneof(
    { depthSize: "small" },
    tie("comparison") as fc.Arbitrary<string>,
    fc
      .tuple(
        tie("expr") as fc.Arbitrary<string>,
        fc.constantFrom(" and ", " or ", " xor ", " && ", " || ", " ^^ "),
        tie("expr") as fc.Arbitrary<string>,
      )
      .map(([a, op, b]) => a + op + b),
    (tie("expr") as fc.Arbitrary<string>).map((e) => `(${e})`),
    (tie("expr") as fc.Arbitrary<string>).map((e) => `not ${e.startsWith("(") ? e : `(${e})`}`),
  ),
})).expr;

describe("properties", () => {
  it("never throws on random input: the result is a Rule or a well-formed RuleError", () => {
    fc.assert(
      fc.property(randomSource, (source) => {
        const r = compile(source, scheme);
        if (r.ok) {
          expect(typeof r.value.matches(contextFromValues(scheme, {}))).toBe("boolean");
          return;
        }
        expect(KINDS).toContain(r.error.kind);
        expect(r.error.line).toBeGreaterThanOrEqual(1);
        expect(r.error.column).toBeGreaterThanOrEqual(1);
        expect(r.error.span.start).toBeLessThanOrEqual(r.error.span.end);
        expect(r.error.span.end).toBeLessThanOrEqual(source.length);
      }),
      { numRuns: 2000 },
    );
  });

  it("evaluates generated expressions against random values without throwing", () => {
    const values = fc.record({
      s: fc.option(fc.string({ maxLength: 10 }).map(toByteString), { nil: undefined }),
      n: fc.option(fc.integer(), { nil: undefined }),
      b: fc.option(fc.boolean(), { nil: undefined }),
      arr: fc.option(fc.array(fc.string({ maxLength: 4 }), { maxLength: 4 }), { nil: undefined }),
      bools: fc.option(fc.array(fc.boolean(), { maxLength: 4 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(expression, values, (source, v) => {
        const r = compile(source, scheme);
        if (!r.ok) throw new Error(`${source}: ${r.error.message}`);
        expect(typeof r.value.matches(contextFromValues(scheme, v))).toBe("boolean");
      }),
      { numRuns: 500 },
    );
  });

  it("print → parse is stable (same tree, same text)", () => {
    fc.assert(
      fc.property(fc.oneof(expression, randomSource), (source) => {
        const first = parse(source);
        if (!first.ok) return;
        const printed = print(first.value);
        const second = parse(printed);
        if (!second.ok) throw new Error(`re-parse of ${printed} failed: ${second.error.message}`);
        expect(withoutSpans(second.value)).toEqual(withoutSpans(first.value));
        expect(print(second.value)).toBe(printed);
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses nesting past the limit with a RuleError, whatever the mix of levels", () => {
    const opener = fc.constantFrom("(", "not ", "!", "any(", "lower(");
    fc.assert(
      fc.property(fc.array(opener, { minLength: 129, maxLength: 3000 }), (openers) => {
        const source = openers.join("") + "b" + ")".repeat(openers.filter((o) => o.endsWith("(")).length);
        const r = compile(source, scheme, { maxLength: 100_000 });
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.error.kind).toBe("limit");
      }),
      { numRuns: 200 },
    );
  });
});
