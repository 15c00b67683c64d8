/** Error values: kinds, 1-based positions, spans, and the wirefilter-like formatter (docs/rules-language.md). */
import { describe, expect, it } from "vitest";
import { formatRuleError } from "../../../src/rules";
import { failure } from "./helpers";
import { countStringWork } from "../support/string-work";

describe("rule errors", () => {
  it.each([
    ['s == "a" and x == 1', "unknown-identifier", 1, 14, "x"],
    ['s == "a" or\n  n == "x"', "literal", 2, 8, '"x"'],
    ["n == 1 and", "syntax", 1, 11, ""],
    ["(n == 1", "syntax", 1, 8, ""],
    ['s ~ "(?=a)"', "regex", 1, 5, '"(?=a)"'],
    ["n contains 1", "type", 1, 3, "contains"],
    ["arr", "type", 1, 1, "arr"],
    ['lower("A") == "a"', "type", 1, 7, '"A"'],
    ["nope(s) == 1", "unknown-identifier", 1, 1, "nope"],
    ["ip == 10.0.0.0/8", "literal", 1, 7, "10.0.0.0/8"],
    ['s == "é" and n == x', "literal", 1, 19, "x"],
  ] as const)("%j → %s at %i:%i", (source, kind, line, column, spanText) => {
    const e = failure(source);
    expect(e.kind).toBe(kind);
    expect([e.line, e.column]).toEqual([line, column]);
    expect(source.slice(e.span.start, e.span.end)).toBe(spanText);
  });

  it("formats like wirefilter: header, the line, carets under the span, the message", () => {
    const source = "n == 10 or\nn == true or\nn == 20";
    const e = failure(source);
    expect(formatRuleError(source, e)).toBe(
      "Filter parsing error (2:6):\nn == true or\n     ^^^^ expected an integer (decimal, 0x hex or 0 octal), found `true`\n",
    );
  });

  it("formats type errors with their own title and one caret at the end of input", () => {
    expect(formatRuleError("arr", failure("arr"))).toMatch(/^Filter type error \(1:1\):\narr\n\^\^\^ /);
    const eof = failure("n ==");
    expect(formatRuleError("n ==", eof)).toBe(
      "Filter parsing error (1:5):\nn ==\n    ^ expected a value after the operator, found the end of the expression\n",
    );
  });

  it("says that starts_with/ends_with are functions", () => {
    expect(failure('s ends_with ".html"').message).toMatch(/`ends_with` is a function, not an operator/);
  });

  it("parses a long run of inner spaces in linear time", () => {
    // Counted, not timed (test/workers/support/string-work.ts): 8× the spaces, 8× the work, not 64×.
    const work = (spaces: number): number => {
      const source = `n == 1 ${" ".repeat(spaces)} x`;
      const { value, units } = countStringWork(() => failure(source));
      expect(value.kind).toBe("syntax");
      expect(units).toBeGreaterThanOrEqual(spaces); // the meter saw the scan
      return units;
    };
    expect(work(4_000) / work(500)).toBeLessThanOrEqual(8.5);
  });

  it("counts columns in characters, not UTF-16 units", () => {
    const e = failure('s == "😀" and zz');
    expect(e.column).toBe(14);
  });
});
