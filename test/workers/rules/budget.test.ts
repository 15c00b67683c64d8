/**
 * The evaluation budget (docs/rules-language.md, docs/differences.md): the denials of service review found in the engine,
 * with exactly their inputs, and the CPU budget that charges work before it runs. Each evaluation ends fast, as an
 * `over-budget` outcome with a reason, and never throws.
 */
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { countStringWork } from "../support/string-work";
import { MAX_VALUE_BYTES } from "../../../src/rules/budget";
import { compileRegex, REGEX_DFA_STATE_UNITS, regexUnits } from "../../../src/rules/regex";
import { percentDecodeRecursive } from "../../../src/rules/functions";
import {
  compile,
  contextFromValues,
  customErrorFields,
  logOverBudget,
  MAX_REQUEST_UNITS,
  MAX_RULE_UNITS,
  RequestBudget,
  requestBudget,
} from "../../../src/rules";
import {
  OVER_BUDGET_LOG_KEYS,
  OVER_BUDGET_LOG_WINDOW_MS,
  resetOverBudgetLog,
} from "../../../src/rules/over-budget-log";
import { rule, scheme } from "./helpers";

function evaluate(
  expression: string,
  userAgent: string,
): { matched: boolean; overBudget: string | undefined; units: number } {
  const rule = compile(expression, customErrorFields.scheme);
  if (!rule.ok) throw new Error(rule.error.message);
  const ctx = customErrorFields.context({
    request: new Request("https://x.example/", { headers: { "User-Agent": userAgent } }),
  });
  // Counted, not timed (test/workers/support/string-work.ts): the same on a busy machine as on a quiet one.
  const { value: outcome, units } = countStringWork(() => rule.value.evaluate(ctx));
  return {
    matched: outcome.kind === "match",
    overBudget: outcome.kind === "over-budget" ? outcome.reason : undefined,
    units,
  };
}

const level = (x: string): string => `join(split(${x}, "a", 128), ${x})`;

describe("nested join(split(…)) is bounded", () => {
  it("two levels on a 227-byte header: a non-match over budget after little work (was 1.9 s of joins)", () => {
    const expression = `len(${level(level("http.user_agent"))}) > 0`;
    expect(expression.length).toBeLessThan(200);
    const r = evaluate(expression, "a".repeat(227));
    expect(r.matched).toBe(false);
    expect(r.overBudget).toMatch(/join\(\) would be \d+ bytes, over/);
    // 58,824 units measured: a bound 8× above that, where the 1.9 s version joined strings of many megabytes.
    expect(r.units).toBeLessThan(500_000);
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
  it('"%" + "25" × n + "41" at 64 KB decodes to "A" in one pass (was 13 s: a pass per "25")', () => {
    const input = "%" + "25".repeat(32 * 1024) + "41";
    const { value, units } = countStringWork(() => percentDecodeRecursive(input, false));
    expect(value).toBe("A");
    // One pass: 4 units per character measured; a pass per "25" would be ~32,768 × the input.
    expect(units).toBeGreaterThanOrEqual(input.length); // the meter saw the scan
    expect(units).toBeLessThan(input.length * 8);
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

describe("the CPU budget: work is charged before it runs", () => {
  const outcome = (source: string, values: Record<string, string>, budget?: RequestBudget) =>
    rule(source).evaluate(contextFromValues(scheme, values, budget));

  it("a regex whose bytes × program would pass the rule's units is over budget, and re2js never runs", () => {
    // ~1,000 instructions × 14 KB ≈ 14 M units, over the rule's 4 M: refused before the run (which took ~0.2 s).
    let s = "";
    for (let i = 0; i < 14_000; i++) s += i % 7 < 3 ? "a" : "b";
    const { value: r, units } = countStringWork(() => outcome('s matches "a[ab]{998}w"', { s: s + "w" }));
    expect(r).toEqual({
      kind: "over-budget",
      reason: expect.stringContaining("a regular expression needs") as unknown,
    });
    // 8,373 units measured, all of them compiling the rule: the 14,001-character subject was never scanned.
    expect(units).toBeLessThan(s.length);
  });

  it("charges regexUnits per run (the NFA bound and the DFA states it may build), also when the memo answers", () => {
    const compiled = rule('s matches "^ab+c"');
    const size = compiled.programSize;
    expect(size).toBeGreaterThan(0);
    const regex = compileRegex("^ab+c");
    if (!regex.ok) throw new Error(regex.error);
    const budget = new RequestBudget();
    for (let i = 0; i < 2; i++) compiled.evaluate(contextFromValues(scheme, { s: "abbbc" }, budget));
    // 5 bytes: 6 × (size + 1) for the run, and at most 7 DFA states of (size + classes + 128) each.
    const once = 6 * (size + 1) + 7 * (size + regex.value.classes + REGEX_DFA_STATE_UNITS);
    expect(regexUnits(5, 1, size, regex.value.classes)).toBe(once);
    expect(budget.total - budget.remaining).toBe(2 * once);
  });

  it.each([
    ['s contains "x"', MAX_RULE_UNITS + 1],
    ['s wildcard "a*b"', MAX_RULE_UNITS / 2 + 1],
    ['lower(s) eq "a"', MAX_RULE_UNITS + 1],
    ['url_decode(s) eq "a"', MAX_RULE_UNITS + 1],
  ])("%s on %i bytes is over budget (no operator escapes)", (source, bytes) => {
    expect(outcome(source, { s: "y".repeat(bytes) }).kind).toBe("over-budget");
    expect(outcome(source, { s: "y".repeat(1000) }).kind).toBe("no-match");
  });

  it("contexts of one request share its budget; a rule gets at most what is left", () => {
    const budget = new RequestBudget();
    const big = "y".repeat(MAX_RULE_UNITS - 10);
    const rules = Math.floor(MAX_REQUEST_UNITS / (MAX_RULE_UNITS - 10));
    for (let i = 0; i < rules; i++) expect(outcome('s contains "x"', { s: big }, budget).kind).toBe("no-match");
    const spent = rules * (MAX_RULE_UNITS - 10);
    expect(budget.remaining).toBe(MAX_REQUEST_UNITS - spent);
    const third = outcome('s contains "x"', { s: "y".repeat(MAX_REQUEST_UNITS - spent + 1) }, budget);
    expect(third).toEqual({
      kind: "over-budget",
      reason: expect.stringContaining("the rest of the request's budget") as unknown,
    });
    // An over-budget rule spends nothing: the refused work was not done.
    expect(budget.remaining).toBe(MAX_REQUEST_UNITS - spent);
  });

  it("requestBudget gives one budget per Request object", () => {
    const a = new Request("https://x.example/");
    expect(requestBudget(a)).toBe(requestBudget(a));
    expect(requestBudget(a)).not.toBe(requestBudget(new Request("https://x.example/")));
    expect(customErrorFields.context({ request: a }).budget).toBe(requestBudget(a));
  });
});

describe("rule_over_budget lines are bounded per (zone, phase, rule)", () => {
  it("one line per window; the next one carries how many were counted meanwhile", () => {
    resetOverBudgetLog();
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    const event = { zone: "z.example", phase: "http_ratelimit", rule: "r1", reason: "why" } as const;
    const t0 = 1_000_000;
    logOverBudget(event, t0);
    for (let i = 1; i <= 24; i++) logOverBudget(event, t0 + i);
    logOverBudget({ ...event, rule: "r2" }, t0 + 30);
    logOverBudget(event, t0 + OVER_BUDGET_LOG_WINDOW_MS);
    const lines = spy.mock.calls.map((c) => JSON.parse(String(c[0])) as Record<string, unknown>);
    expect(lines).toEqual([
      {
        event: "rule_over_budget",
        zone: "z.example",
        phase: "http_ratelimit",
        rule: "r1",
        cause: "why",
        suppressed: 0,
      },
      {
        event: "rule_over_budget",
        zone: "z.example",
        phase: "http_ratelimit",
        rule: "r2",
        cause: "why",
        suppressed: 0,
      },
      {
        event: "rule_over_budget",
        zone: "z.example",
        phase: "http_ratelimit",
        rule: "r1",
        cause: "why",
        suppressed: 24,
      },
    ]);
    spy.mockRestore();
  });

  it("keeps at most OVER_BUDGET_LOG_KEYS keys", () => {
    resetOverBudgetLog();
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    const at = (i: number) => ({ zone: "z.example", phase: "http_ratelimit", rule: `r${i}`, reason: "why" }) as const;
    for (let i = 0; i <= OVER_BUDGET_LOG_KEYS; i++) logOverBudget(at(i), 5);
    // r0 was pushed out by the (KEYS + 1)th key: it writes again at once; the newest key is inside its window.
    logOverBudget(at(0), 6);
    logOverBudget(at(OVER_BUDGET_LOG_KEYS), 6);
    expect(spy).toHaveBeenCalledTimes(OVER_BUDGET_LOG_KEYS + 2);
    spy.mockRestore();
  });
});
