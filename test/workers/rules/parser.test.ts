/** Lexer and parser units: precedence, notations, literals, whitespace, grouping (docs/rules-language.md). */
import { describe, expect, it } from "vitest";
import { parse, print } from "../../../src/rules";
import type { Expr } from "../../../src/rules/ast";
import { withoutSpans } from "../support/ast";

function tree(source: string): string {
  const r = parse(source);
  if (!r.ok) throw new Error(`${source}: ${r.error.message}`);
  return print(r.value);
}

function ast(source: string): Expr {
  const r = parse(source);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe("parser", () => {
  it.each([
    ["a or b and c", "a or (b and c)"],
    ["a and b or c", "(a and b) or c"],
    ["a xor b or c", "(a xor b) or c"],
    ["a xor b and c", "a xor (b and c)"],
    ["not a and b", "not a and b"],
    ["not (a and b)", "not (a and b)"],
    ["a or b && c and d or e ^^ f and g || h", "a or (b and c and d) or (e xor (f and g)) or h"],
    ["((a))", "a"],
    ["!!a", "not not a"],
  ])("%s parses as %s", (source, printed) => {
    expect(tree(source)).toBe(printed);
  });

  it.each([
    ["x == 1", "x eq 1"],
    ["x != 1", "x ne 1"],
    ["x < 1", "x lt 1"],
    ["x <= 1", "x le 1"],
    ["x > 1", "x gt 1"],
    ["x >= 1", "x ge 1"],
    ['x ~ "a"', 'x matches r"a"'],
    ["x & 1", "x bitwise_and 1"],
    ["a && b || c ^^ d", "(a and b) or (c xor d)"],
  ])("C-like %s equals English %s", (cLike, english) => {
    expect(withoutSpans(ast(cLike))).toEqual(withoutSpans(ast(english)));
  });

  it("reads strings: escapes, raw strings with hashes, non-UTF-8 bytes", () => {
    const bytesOf = (source: string): string => {
      const e = ast(`x == ${source}`);
      if (e.kind !== "comparison" || e.rhs.kind !== "string") throw new Error("not a string comparison");
      return e.rhs.bytes;
    };
    expect(bytesOf('"a\\"b\\\\c\\x41\\101"')).toBe('a"b\\cAA');
    expect(bytesOf('"\\xff"')).toBe("\u00ff");
    expect(bytesOf('r#"say "hi""#')).toBe('say "hi"');
    expect(bytesOf('"é"')).toBe("\u00c3\u00a9");
  });

  it("keeps a quoted regex's backslashes and lets a quote inside [...] through", () => {
    const e = ast('x matches "[\\"a]\\d\\""');
    expect(e.kind === "comparison" && e.rhs.kind === "regex" ? e.rhs.pattern : undefined).toBe('[\\"a]\\d"');
  });

  it("accepts CR/LF as whitespace and trims leading/trailing tabs, but refuses an inner tab", () => {
    expect(tree("\t a\r\n and\nb \t")).toBe("a and b");
    expect(parse("a\tand b").ok).toBe(false);
  });

  it("needs whole keywords: `t andf` is not `t and f`", () => {
    expect(parse("t andf").ok).toBe(false);
    expect(parse("notx").ok).toBe(true);
  });

  it("refuses whitespace before [ and keywords in upper case", () => {
    expect(parse('x [0] == "a"').ok).toBe(false);
    expect(parse("x EQ 1").ok).toBe(false);
    expect(parse("x AND y").ok).toBe(false);
  });

  it("reads sets, lists and strict wildcard", () => {
    expect(tree("p in { 80 443 1..5 }")).toBe("p in { 80 443 1..5 }");
    expect(tree("p in {}")).toBe("p in {}");
    expect(tree("ip in $cf.list_1")).toBe("ip in $cf.list_1");
    expect(tree('x strict wildcard "a*"')).toBe('x strict wildcard "a*"');
    expect(parse('x strict  wildcard "a*"').ok).toBe(false);
  });

  it("parses function arguments as wirefilter does", () => {
    expect(tree('any(not(x[*] in {"a"}))')).toBe('any(not x[*] in { "a" })');
    expect(tree('concat(x, "-", 0x1f, aa:bb, -2)[0]')).toBe('concat(x, "-", 0x1f, aa:bb, -2)[0]');
    expect(parse('any(x[*] == "a" or y[*] == "b")').ok).toBe(false);
    expect(tree('any((x[*] == "a" or y[*] == "b"))')).toBe('any((x[*] eq "a" or y[*] eq "b"))');
  });
});
