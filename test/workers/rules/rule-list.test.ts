/**
 * The one rule list of the three phases (src/rules/rule-list.ts): compiled once through the shared compile cache,
 * evaluated on the rule index's candidates. `firstMatch` and `allMatches` must answer exactly what a pass over every
 * rule answers (skipping is unobservable, guard.ts), and every over-budget outcome is logged with zone, phase, rule.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resetOverBudgetLog } from "../../../src/rules/over-budget-log";
import {
  allMatches,
  compileRuleList,
  failsClosed,
  fieldsOf,
  firstMatch,
  requestContext,
} from "../../../src/rules/rule-list";
import { ok } from "../../../src/shared/result";

afterEach(() => vi.restoreAllMocks());

const POOL = [
  'http.request.uri.path eq "/a"',
  'http.request.uri.path eq "/b" and http.host eq "x.example"',
  'http.request.uri.path in {"/a" "/c"}',
  'http.host eq "y.example"',
  'starts_with(http.request.uri.path, "/a")',
  'http.request.uri.path ne "/b"',
  'http.request.method eq "POST"',
  'http.request.uri.path eq "/c" or http.host eq "x.example"',
];

const list = (picks: readonly number[]) =>
  compileRuleList(
    "http_ratelimit",
    picks.map((i, n) => ({ id: `r${n}`, expression: POOL[i] ?? "true" })),
    { prepare: () => ok({}) },
  );

const request = (host: string, path: string, method: string) =>
  new Request(`https://${host}${path}`, { method, headers: { "CF-Connecting-IP": "192.0.2.1" } });

/** A list of rules picked from the pool, and a request: host, path, method. */
const listAndRequest = [
  fc.array(fc.integer({ min: 0, max: POOL.length - 1 }), { maxLength: 20 }),
  fc.constantFrom("x.example", "y.example"),
  fc.constantFrom("/a", "/ab", "/b", "/c", "/d"),
  fc.constantFrom("GET", "POST"),
] as const;

describe("firstMatch / allMatches over the rule index", () => {
  it("answer what a pass over every rule answers, for any list and request", () => {
    fc.assert(
      fc.property(...listAndRequest, (picks, host, path, method) => {
        const rules = list(picks);
        const every = rules.rules.filter((r) => r.rule.matches(requestContext(request(host, path, method))));
        expect(firstMatch(rules, requestContext(request(host, path, method)), host)?.id).toBe(every[0]?.id);
        expect([...allMatches(rules, requestContext(request(host, path, method)), host)].map((r) => r.id)).toEqual(
          every.map((r) => r.id),
        );
      }),
      { numRuns: 500 },
    );
  });

  it("a tracer sees exactly the evaluations firstMatch does and changes no answer (the draft preview)", () => {
    fc.assert(
      fc.property(...listAndRequest, (picks, host, path, method) => {
        const rules = list(picks);
        const ctx = requestContext(request(host, path, method));
        const seen: number[] = [];
        const kinds: string[] = [];
        let started = 0;
        const matched = firstMatch(rules, ctx, host, {
          started: (c) => {
            expect(c).toBe(ctx);
            started++;
          },
          evaluated: (position, outcome, units) => {
            seen.push(position);
            kinds.push(outcome.kind);
            expect(units).toBeGreaterThanOrEqual(0);
          },
        });
        expect(started).toBe(1);
        expect(matched?.id).toBe(firstMatch(rules, requestContext(request(host, path, method)), host)?.id);
        // The positions evaluated are the index's candidates, in order, up to and including the match.
        const candidates = [...rules.index.candidates(requestContext(request(host, path, method)))];
        const end = matched === null ? candidates.length : candidates.indexOf(rules.rules.indexOf(matched)) + 1;
        expect(seen).toEqual(candidates.slice(0, end));
        // Only the last evaluation may be a match, and it is one exactly when firstMatch answered a rule.
        expect(kinds.slice(0, -1)).not.toContain("match");
        expect(kinds.at(-1) === "match").toBe(matched !== null);
      }),
      { numRuns: 300 },
    );
  });

  it("allMatches is lazy: a caller that stops at the first match evaluates nothing after it", () => {
    resetOverBudgetLog();
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const level = (x: string): string => `join(split(${x}, "a", 128), ${x})`;
    const rules = compileRuleList(
      "http_ratelimit",
      [
        { id: "first", expression: "true" },
        { id: "boom", expression: `len(${level(level("http.user_agent"))}) > 0` },
      ],
      { prepare: () => ok({}) },
    );
    const ctx = requestContext(new Request("https://z.example/", { headers: { "User-Agent": "a".repeat(227) } }));
    for (const match of allMatches(rules, ctx, "z.example")) {
      expect(match.id).toBe("first");
      break;
    }
    expect(logged).not.toHaveBeenCalled();
    // Over budget in a request phase is a match (it fails closed: the request counts), logged.
    expect([...allMatches(rules, ctx, "z.example")].map((r) => r.id)).toEqual(["first", "boom"]);
    expect(JSON.parse(String(logged.mock.calls[0]?.[0]))).toMatchObject({
      event: "rule_over_budget",
      zone: "z.example",
      phase: "http_ratelimit",
      rule: "boom",
    });
  });

  it("over budget fails closed in the request phases and open in custom error rules, logged in each", () => {
    resetOverBudgetLog();
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const level = (x: string): string => `join(split(${x}, "a", 128), ${x})`;
    const stored = [
      { id: "boom", expression: `len(${level(level("http.user_agent"))}) > 0` },
      { id: "later", expression: "true" },
    ];
    const phases = ["http_request_firewall_custom", "http_ratelimit", "http_custom_errors"] as const;
    // Each phase's own fields (custom error rules also see the error's): the same padded request.
    const ctx = (phase: (typeof phases)[number]) =>
      fieldsOf(phase).context({
        request: new Request("https://z.example/", { headers: { "User-Agent": "a".repeat(227) } }),
      });
    const list = (phase: (typeof phases)[number]) => compileRuleList(phase, stored, { prepare: () => ok({}) });
    expect(phases.map((phase) => firstMatch(list(phase), ctx(phase), "z.example")?.id)).toEqual([
      "boom",
      "boom",
      "later",
    ]);
    expect(phases.map((phase) => [...allMatches(list(phase), ctx(phase), "z.example")].map((r) => r.id))).toEqual([
      ["boom", "later"],
      ["boom", "later"],
      ["later"],
    ]);
    expect(phases.map(failsClosed)).toEqual([true, true, false]);
    // One line per (zone, phase, rule) within the window: three phases.
    expect(logged).toHaveBeenCalledTimes(3);
  });
});

describe("compileRuleList", () => {
  it("skips disabled rules, reports what cannot run, keeps at most maxRules, and shares compiled expressions", () => {
    const stored = [
      { id: "off", expression: "true", enabled: false },
      { id: "bad", expression: "http.nope eq 1" },
      { id: "a", expression: 'http.host eq "a.example"' },
      { id: "b", expression: 'http.host eq "a.example"' },
      { id: "c", expression: "true" },
    ];
    const rules = compileRuleList("http_request_firewall_custom", stored, { maxRules: 2, prepare: () => ok({}) });
    expect(rules.rules.map((r) => r.id)).toEqual(["a", "b"]);
    expect(rules.rules[0]?.rule).toBe(rules.rules[1]?.rule); // one compile per source text
    expect(rules.problems).toEqual([
      {
        phase: "http_request_firewall_custom",
        ruleId: "bad",
        reason: expect.stringContaining("expression does not compile") as unknown,
      },
    ]);
    const again = compileRuleList("http_request_firewall_custom", stored, { prepare: () => ok({}) });
    expect(again.rules[0]?.rule).toBe(rules.rules[0]?.rule); // the compile cache is shared across lists
  });
});
