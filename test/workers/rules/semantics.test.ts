/**
 * Evaluation semantics: operators per type, missing values (docs/rules-language.md), sets, IPs, ints, wildcards and every
 * function of docs/rules-language.md with its argument rules.
 */
import { describe, expect, it } from "vitest";
import { contextFromValues, parseIp, toByteString, type Value } from "../../../src/rules";
import { evaluate, failure, rule, scheme } from "./helpers";

const ip = (text: string): Value => {
  const v = parseIp(text);
  if (v === undefined) throw new Error(text);
  return v;
};

describe("missing values (docs/rules-language.md)", () => {
  it.each([
    ['s == "a"', false],
    ['s != "a"', false],
    ["n != 1", false],
    ["ip != 1.2.3.4", false],
    ['not s == "a"', true],
    ['s contains ""', false],
    ['any(arr[*] == "a")', false],
    ['all(arr[*] == "a")', true],
    ["all(bools)", false],
    ["b", false],
    ["len(s) >= 0", false],
    ['m["x"][0] == "a"', false],
    ['concat(s, "x") == "x"', true],
  ] as const)("%s over missing fields → %s", (source, expected) => {
    expect(evaluate(source, {})).toBe(expected);
  });
});

describe("operators", () => {
  it.each([
    ['s == "abc"', { s: "abc" }, true],
    ['s lt "abd"', { s: "abc" }, true],
    ['s > "ab"', { s: "abc" }, true],
    ['s contains "bc"', { s: "abc" }, true],
    ["s contains 62:63", { s: "abc" }, true],
    ['s in {"x" "abc"}', { s: "abc" }, true],
    ['s wildcard "A*C"', { s: "abc" }, true],
    ['s strict wildcard "A*C"', { s: "abc" }, false],
    ['s wildcard "a\\\\*c"', { s: "a*c" }, true],
    ['s wildcard "a\\\\*c"', { s: "abc" }, false],
    ['s wildcard "*"', { s: "" }, true],
    ['s wildcard "a*b*a"', { s: "aba" }, true],
    ['s wildcard "a*b*a"', { s: "ab" }, false],
    ["n == 0x10", { n: 16 }, true],
    ["n == 010", { n: 8 }, true],
    ["n in {1..3 10}", { n: 2 }, true],
    ["n in {1..3 10}", { n: 4 }, false],
    ["n in {1 2 3 4 5 6 7 8 9 10 20..30}", { n: 25 }, true],
    ["n in {1 2 3 4 5 6 7 8 9 10 20..30}", { n: 19 }, false],
    ["n & 4", { n: 6 }, true],
    ["n & 8", { n: 6 }, false],
    ["n & 0x100000000", { n: 2 ** 32 }, true],
    ["n bitwise_and 1", { n: -1 }, true],
    ["ip == 10.0.0.1", { ip: ip("10.0.0.1") }, true],
    ["ip != ::ffff:10.0.0.1", { ip: ip("10.0.0.1") }, true],
    ["ip < ::1", { ip: ip("10.0.0.1") }, false],
    ["ip in {10.0.0.0/8 2001:db8::/32}", { ip: ip("2001:db8::5") }, true],
    ["ip in {10.0.0.0/8 2001:db8::/32}", { ip: ip("11.0.0.0") }, false],
    ["ip in {10.0.0.1..10.0.0.9}", { ip: ip("10.0.0.5") }, true],
  ] as const)("%s (case %#)", (source, values, expected) => {
    const prepared = Object.fromEntries(
      Object.entries(values).map(([k, v]) => [k, typeof v === "string" ? toByteString(v) : v]),
    );
    expect(evaluate(source, prepared)).toBe(expected);
  });

  it("evaluates xor over every operand and and/or left to right", () => {
    expect(evaluate("b xor b xor b", { b: true })).toBe(true);
    expect(evaluate("b ^^ b", { b: true })).toBe(false);
  });
});

describe("functions", () => {
  const req = {
    s: toByteString("/Path/To/Page.HTML"),
    s2: toByteString("a%2520b+c%u0041"),
    arr: ["one", "two", "three"],
    ints: [1, 2, 3],
    json: toByteString('{"user":{"id":42,"name":"Zoë","tags":["a","b"]},"f":4.5}'),
    m: new Map([["k", ["v1", "v2"]]]),
  };
  it.each([
    ['lower(s) == "/path/to/page.html"', true],
    ['upper(s) == "/PATH/TO/PAGE.HTML"', true],
    ["len(s) == 18", true],
    ["len(arr) == 3", true],
    ['starts_with(s, "/Path")', true],
    ['ends_with(lower(s), ".html")', true],
    ['concat(s, "?", "x") == "/Path/To/Page.HTML?x"', true],
    ['concat(arr, arr)[5] == "three"', true],
    ['substring(s, 1, 5) == "Path"', true],
    ['substring(s, -4) == "HTML"', true],
    ['substring(s, -4, -2) == "HT"', true],
    ['url_decode(s2) == "a%20b c%u0041"', true],
    ['url_decode(s2, "r") == "a b c%u0041"', true],
    ['url_decode(s2, "ur") == "a b cA"', true],
    ['join(arr, ",") == "one,two,three"', true],
    ['split(s, "/", 3)[2] == "To/Page.HTML"', true],
    ['len(split(s, "/", 128)) == 4', true],
    ['remove_bytes(s, "/.") == "PathToPageHTML"', true],
    ['lookup_json_string(json, "user", "name") == "Zoë"', true],
    ['lookup_json_string(json, "user", "tags", 1) == "b"', true],
    ['lookup_json_integer(json, "user", "id") == 42', true],
    ['lookup_json_integer(json, "f") == 4', false],
    ['lookup_json_string(json, "nope") == ""', false],
    ['any(upper(arr[*])[*] == "TWO")', true],
    ["all(len(arr[*])[*] >= 3)", true],
    ['join(m["k"], "+") == "v1+v2"', true],
    ['join(m["absent"], "+") == ""', false],
  ] as const)("%s → %s", (source, expected) => {
    expect(evaluate(source, req)).toBe(expected);
  });

  it("shares a call's result between the rules of one context, never across contexts or different calls", () => {
    const a = rule('substring(s, 0, 1) == "x"');
    const b = rule('substring(s, 0, 2) == "xy"');
    const c = rule('lower(s) == "xyz"');
    const one = contextFromValues(scheme, { s: "XYZ" });
    const two = contextFromValues(scheme, { s: "xyz" });
    expect([a.matches(one), b.matches(one), c.matches(one)]).toEqual([false, false, true]);
    expect([a.matches(two), b.matches(two), c.matches(two)]).toEqual([true, true, true]);
    expect(rule('lower(s2) == "xyz"').matches(one)).toBe(false);
  });

  it("maps ASCII case only: bytes ≥ 0x80 (Latin-1 letters, ß, ÿ) are untouched", () => {
    expect(evaluate('lower(s) == "ab\\xc9"', { s: "aB\u00c9" })).toBe(true);
    expect(evaluate('upper(s) == "AB\\xe9\\xdf\\xff"', { s: "ab\u00e9\u00df\u00ff" })).toBe(true);
    expect(evaluate('lower(s) == "abc"', { s: "ABC" })).toBe(true);
  });

  it.each([
    ['lower("A") == "a"', "literal source"],
    ["lower(n) == 1", "Int source"],
    ['starts_with("a", s)', "literal source"],
    ['upper(s, s) == "A"', "arity"],
    ["concat(s, n) == 1", "mixed types"],
    ['substring(s, "1") == "a"', "String index"],
    ['url_decode(s, "x") == "a"', "bad option"],
    ['url_decode(s, s2) == "a"', "option not a literal"],
    ['split(s, ",", 0)[0] == "a"', "limit out of range"],
    ['split(s, ",", 129)[0] == "a"', "limit out of range"],
    ['split(s, s2, 2)[0] == "a"', "separator not a literal"],
    ['join(s, ",") == "a"', "not an array"],
    ['remove_bytes(s, s2) == "a"', "bytes not a literal"],
    ['lookup_json_string(json, ip) == "a"', "bad path"],
    ['concat(s, arr[*]) == "a"', "[*] outside the first argument"],
    ['any(lower(s) == "a")', "any over Bool"],
    ['s in {"a" 1.2.3.4}', "IP in a String set"],
  ])("refuses %s (%s)", (source) => {
    const e = failure(source);
    expect(["type", "literal", "syntax"]).toContain(e.kind);
  });
});
