/**
 * Limits (docs/custom-errors.md): 4,096 characters, nesting depth 128, refused with a RuleError, never a stack overflow.
 */
import { describe, expect, it } from "vitest";
import { compile } from "../../../src/rules";
import { failure, rule, scheme } from "./helpers";

const nested = (depth: number, open: string, close: string): string => open.repeat(depth) + "b" + close.repeat(depth);

describe("limits", () => {
  it("accepts 4,096 characters and refuses 4,097 (counted in characters, not UTF-16 units)", () => {
    const filler = (n: number): string => `s == "${"x".repeat(n - 7)}"`;
    expect(filler(4096).length).toBe(4096);
    expect(() => rule(filler(4096))).not.toThrow();
    const e = failure(filler(4097));
    expect(e.kind).toBe("limit");
    const emoji = `s == "${"😀".repeat(4089)}"`;
    expect(emoji.length).toBeGreaterThan(4096);
    expect(compile(emoji, scheme).ok).toBe(true);
  });

  it.each([
    ["parentheses", "(", ")"],
    ["not", "not ", ""],
    ["!", "!", ""],
    ["any()", "any(", ")"],
  ])("accepts 128 levels of %s and refuses 129", (_name, open, close) => {
    const inner = open === "any(" ? "bools" : "b";
    const at = open.repeat(128) + inner + close.repeat(128);
    const past = open.repeat(129) + inner + close.repeat(129);
    if (open !== "any(") expect(compile(at, scheme).ok).toBe(true);
    const e = compile(past, scheme);
    expect(e.ok).toBe(false);
    if (!e.ok) expect(e.error.kind).toBe("limit");
  });

  it("counts function calls as levels", () => {
    const calls = (depth: number): string => "lower(".repeat(depth) + "s" + ")".repeat(depth) + ' == "a"';
    expect(compile(calls(128), scheme).ok).toBe(true);
    const e = compile(calls(129), scheme);
    expect(!e.ok && e.error.kind).toBe("limit");
  });

  it("refuses absurd nesting without a stack overflow, even with a raised length limit", () => {
    const source = nested(200_000, "(", ")");
    const r = compile(source, scheme, { maxLength: 1_000_000 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ kind: "limit", line: 1, column: 129 });
  });
});
