/**
 * Regular expressions (docs/rules-language.md): RE2 dialect on a linear-time engine, refused constructs, the size cap,
 * the 64-per-expression limit, bytes vs Unicode mode.
 */
import { describe, expect, it } from "vitest";
import { toByteString } from "../../../src/rules";
import { compileRegex, MAX_REGEX_PROGRAM_SIZE, repetitionCost } from "../../../src/rules/regex";
import { evaluate, failure, rule } from "./helpers";

describe("regex", () => {
  it("runs a classic catastrophic pattern on a long input in linear time", () => {
    expect(() => rule('s matches "(a+)+$" or s matches "^(a|aa)+$"')).not.toThrow();
    const subject = "a".repeat(50_000) + "b";
    const ctx = { s: subject };
    // No clock: a backtracking engine would take ~2^50,000 steps on these and never finish, a linear one answers.
    expect(evaluate('s matches "(a+)+$"', ctx)).toBe(false);
    expect(evaluate('s matches "(a+)+b$"', ctx)).toBe(true);
    expect(evaluate('s matches "^(a|aa)+$"', ctx)).toBe(false);
    expect(evaluate('s matches "(a*)*c$"', ctx)).toBe(false);
  });

  it.each([
    ['s matches "(?=a)b"', /look-around/],
    ['s matches "(?!a)b"', /look-around/],
    ['s matches "(?<=a)b"', /look-around/],
    ['s matches "(?<!a)b"', /look-around/],
    ['s matches "(a)\\1"', /back-references/],
    ['s matches "("', /invalid regular expression/],
    ['s matches "a{1001}"', /invalid regular expression/],
    ['s matches "\\pL"', /Unicode classes need/],
    ['s matches "a(?u)b"', /`u` flag/],
  ])("refuses %s when written", (source, message) => {
    const e = failure(source);
    expect(e.kind).toBe("regex");
    expect(e.message).toMatch(message);
  });

  it("caps the compiled size of one regex", () => {
    expect(() => rule('s matches "(?:abcdefgh){1000}"')).not.toThrow();
    const e = failure('s matches "(?:abcdefghijk){1000}"');
    expect(e.kind).toBe("regex");
    expect(e.message).toContain(String(MAX_REGEX_PROGRAM_SIZE));
  });

  it("refuses counted repetitions past the expression budget before compiling them", () => {
    const source = Array.from({ length: 5 }, (_, i) => `s ~ "[a-z]{1000}${i}"`).join(" or ");
    const e = failure(source);
    expect(e.kind).toBe("limit");
    expect(source.slice(e.span.start, e.span.end)).toBe('"[a-z]{1000}4"');
  });

  it("does not count \\x{…} or \\p{…} escapes as repetitions (RE2 syntax)", () => {
    expect(repetitionCost("(?u)\\x{10000}")).toBe(0);
    expect(repetitionCost("[\\x{10000}-\\x{10FFFF}]{2,3}")).toBe(3);
    expect(repetitionCost("\\x{41}{3}")).toBe(3);
    expect(repetitionCost("(?u)\\p{Greek}{5}")).toBe(5);
    expect(repetitionCost("\\{5}a{7}")).toBe(7); // an escaped brace is a literal
    expect(() => rule('s matches "(?u)\\x{10000}"')).not.toThrow();
    expect(evaluate('s matches "(?u)^\\x{10000}$"', { s: toByteString("\u{10000}") })).toBe(true);
    // A real repetition is still counted.
    expect(failure('s matches "a{4001}"').kind).toBe("limit");
  });

  it("allows 64 regexes per expression and refuses the 65th with its position", () => {
    const clause = (i: number): string => `s ~ "a${i}"`;
    expect(() => rule(Array.from({ length: 64 }, (_, i) => clause(i)).join(" or "))).not.toThrow();
    const source = Array.from({ length: 65 }, (_, i) => clause(i)).join(" or ");
    const e = failure(source);
    expect(e.kind).toBe("limit");
    expect(source.slice(e.span.start, e.span.end)).toBe('"a64"');
  });

  it("matches bytes by default and decoded UTF-8 with a leading (?u)", () => {
    const greek = { s: toByteString("αβγ") };
    expect(evaluate('s matches "^.{6}$"', greek)).toBe(true);
    expect(evaluate('s matches "(?u)^.{3}$"', greek)).toBe(true);
    expect(evaluate('s matches "(?u)\\p{Greek}"', greek)).toBe(true);
    expect(evaluate('s matches "(?iu)Β"', greek)).toBe(true);
    expect(evaluate('s matches "\\xce\\xb1"', greek)).toBe(true);
  });

  it("is unanchored and honours (?i)", () => {
    const ua = { s: "Mozilla/5.0 (compatible; Googlebot/2.1)" };
    expect(evaluate('s ~ "(?i)googlebot/\\d+\\.\\d+"', ua)).toBe(true);
    expect(evaluate('s ~ "googlebot"', ua)).toBe(false);
    expect(evaluate('s ~ r"^Mozilla/\\d"', ua)).toBe(true);
  });

  it("remembers its last short subject: repeated, alternating and long subjects all answer as the engine does", () => {
    const compiled = compileRegex("^NeverBot/\\d+\\b");
    if (!compiled.ok) throw new Error(compiled.error);
    const r = compiled.value;
    const engine = (subject: string) => /^NeverBot\/\d+\b/.test(subject); // the same pattern, for the check only
    const subjects = ["NeverBot/1 x", "wrk", "wrk", "NeverBot/1 x", "NeverBot/1 x", "NeverBot/", "", ""];
    for (const subject of subjects) expect(r.test(subject), subject).toBe(engine(subject));
    const long = "NeverBot/7 " + "y".repeat(10_000);
    expect(r.test(long)).toBe(true);
    expect(r.test(long.slice(1))).toBe(false);
    expect(r.test(long)).toBe(true);
  });
});
