/**
 * The evaluation budget (contract §2.2, §9; issue 9): the two denials of service review found in the engine, with
 * exactly their inputs. Each evaluation ends fast, as a non-match with a reason, and never throws.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_VALUE_BYTES } from "../../../src/rules/budget";
import { percentDecodeRecursive } from "../../../src/rules/functions";
import { compile, customErrorFields } from "../../../src/rules";

function evaluate(
  expression: string,
  userAgent: string,
): { matched: boolean; overBudget: string | undefined; ms: number } {
  const rule = compile(expression, customErrorFields.scheme);
  if (!rule.ok) throw new Error(rule.error.message);
  const ctx = customErrorFields.context({
    request: new Request("https://x.example/", { headers: { "User-Agent": userAgent } }),
  });
  const started = performance.now();
  const outcome = rule.value.evaluate(ctx);
  return {
    matched: outcome.kind === "match",
    overBudget: outcome.kind === "over-budget" ? outcome.reason : undefined,
    ms: performance.now() - started,
  };
}

const level = (x: string): string => `join(split(${x}, "a", 128), ${x})`;

describe("nested join(split(…)) is bounded", () => {
  it("two levels on a 227-byte header: a non-match over budget in milliseconds (was 1.9 s)", () => {
    const expression = `len(${level(level("http.user_agent"))}) > 0`;
    expect(expression.length).toBeLessThan(200);
    const r = evaluate(expression, "a".repeat(227));
    expect(r.matched).toBe(false);
    expect(r.overBudget).toMatch(/join\(\) would be \d+ bytes, over/);
    expect(r.ms).toBeLessThan(200);
  });

  it("one more level never throws (was RangeError: Invalid string length)", () => {
    const r = evaluate(`len(${level(level(level("http.user_agent")))}) > 0`, "a".repeat(227));
    expect(r.matched).toBe(false);
    expect(r.overBudget).toBeDefined();
  });

  it("within the budget the same functions still work", () => {
    const r = evaluate(`len(${level("http.user_agent")}) > 1000`, "a".repeat(227));
    expect(r.matched).toBe(true);
    expect(r.overBudget).toBeUndefined();
    expect(MAX_VALUE_BYTES).toBe(1024 * 1024);
  });
});

describe("recursive url_decode is linear", () => {
  it('"%" + "25" × n + "41" at 64 KB decodes to "A" in milliseconds (was 13 s)', () => {
    const input = "%" + "25".repeat(32 * 1024) + "41";
    const started = performance.now();
    expect(percentDecodeRecursive(input, false)).toBe("A");
    expect(performance.now() - started).toBeLessThan(200);
    const r = evaluate(`url_decode(http.user_agent, "r") eq "A"`, input);
    expect(r.matched).toBe(true);
  });

  /** The definition: decode again until nothing changes. */
  function fixpoint(s: string, unicode: boolean): string {
    const once = (t: string): string =>
      t.replace(
        unicode ? /%[uU]([0-9a-fA-F]{4})|%([0-9a-fA-F]{2})|\+/g : /()%([0-9a-fA-F]{2})|\+/g,
        (m, u?: string, h?: string) =>
          m === "+"
            ? " "
            : u
              ? unescape(encodeURIComponent(String.fromCharCode(parseInt(u, 16))))
              : String.fromCharCode(parseInt(h!, 16)),
      );
    for (let prev = s, next = once(s); ; prev = next, next = once(next)) if (next === prev) return next;
  }

  it("equals decoding until nothing changes (5,000 random strings)", () => {
    const alphabet = fc.constantFrom("%", "2", "5", "4", "1", "+", "B", "b", "u", "0", "x");
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 24 }), fc.boolean(), (chars, unicode) => {
        const s = chars.join("");
        expect(percentDecodeRecursive(s, unicode)).toBe(fixpoint(s, unicode));
      }),
      { numRuns: 5000 },
    );
  });
});
