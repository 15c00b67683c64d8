/**
 * One pass per field (src/rules/regex-set.ts, regex-sets.ts; docs/rules-language.md "Evaluation budget"): a set's
 * complete DFA answers every pattern exactly as the pattern's own regex does, and a request phase's rule list with
 * its sets gives the same first match, and the same matches in order, as evaluating rule by rule with every regex on
 * its own, over random rule lists and random subjects, including subjects made of the rules' own literals.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allMatches, compileRuleList, firstMatch, requestContext, type RuleList } from "../../../src/rules";
import { compileRegex } from "../../../src/rules/regex";
import { compileLiteralSet, compileRegexSet, MAX_SET_STATES } from "../../../src/rules/regex-set";
import { containsPattern } from "../../../src/rules/set-patterns";
import { compileWildcard } from "../../../src/rules/wildcard";
import { phaseWorstCase, worstCase } from "../../../src/rules/worst-case";
import { MAX_REQUEST_PHASE_UNITS, MAX_RULE_UNITS } from "../../../src/rules/budget";
import { ok } from "../../../src/shared/result";

const LITERALS = ["bot", "a", "ab", "/p1", "/p12", "x-y", "Go", "9", "é"];
/** Pieces of patterns: literals, classes, repetitions, alternations, anchors, case folding. */
const atom = fc.oneof(
  fc.constantFrom(...LITERALS.map((l) => l.replace(/[.*+?()[\]{}|^$\\-]/g, "\\$&"))),
  fc.constantFrom("[a-c]", "[0-9]+", ".", "\\d", "[^/]", "\\x80", "(?:a|bo)", "[ab]?"),
);
const pattern = fc
  .tuple(
    fc.boolean(),
    fc.array(fc.tuple(atom, fc.constantFrom("", "", "*", "+", "?")), { minLength: 1, maxLength: 4 }),
    fc.boolean(),
    fc.boolean(),
  )
  .map(([begin, parts, end, fold]) => {
    const body = parts.map(([a, q]) => (q === "" ? a : `(?:${a})${q}`)).join("");
    return `${fold ? "(?i)" : ""}${begin ? "^" : ""}${body}${end ? "$" : ""}`;
  });
/** Subjects made of the literals (so patterns match), bytes ≥ 0x80, and noise. */
const subject = fc
  .array(fc.oneof(fc.constantFrom(...LITERALS, "BOT", "/", "0", "\x80", "\xff", "\n"), fc.string({ maxLength: 3 })), {
    maxLength: 12,
  })
  .map((parts) => parts.join("").replace(/[^\x00-\xff]/g, "?"));

describe("a set's DFA answers as each pattern alone", () => {
  it("over random patterns and subjects (fast-check, 200 sets)", () => {
    fc.assert(
      fc.property(fc.array(pattern, { minLength: 1, maxLength: 12 }), fc.array(subject, { maxLength: 8 }), (ps, ss) => {
        const patterns = [...new Set(ps)];
        const single = patterns.map((p) => {
          const r = compileRegex(p);
          if (!r.ok) throw new Error(r.error);
          return r.value;
        });
        const set = compileRegexSet(patterns, (i) => single[i]?.test("") === true);
        if (set === null) return;
        for (const s of ["", ...ss]) {
          expect([...set.match(s)], `${JSON.stringify(patterns)} on ${JSON.stringify(s)}`).toEqual(
            single.map((r) => (r.test(s) ? 1 : 0)),
          );
        }
      }),
      { numRuns: 200 },
    );
  }, 120_000);

  it("300 bot rules on the User-Agent: one complete DFA each 256 patterns, one lookup per byte", () => {
    const patterns = Array.from({ length: 256 }, (_, k) => `bot${k}[0-9]+`);
    const set = compileRegexSet(patterns, () => false);
    expect(set).not.toBeNull();
    expect(set?.states).toBeLessThan(MAX_SET_STATES);
    const found = set?.match(`Mozilla/5.0 ${"x".repeat(30_000)} bot17 bot42x bot255 9`);
    expect([...(found ?? [])].flatMap((v, i) => (v === 1 ? [i] : []))).toEqual([1, 2, 4, 25]);
  });

  it("literals (`contains`): the literal set and the DFA of their escaped patterns answer as `includes` (fast-check)", () => {
    const literal = fc
      .array(fc.constantFrom(...LITERALS, "b", "o", "t", "\x80", "\xff", "\n", ".", "*", "\\", "("), {
        minLength: 1,
        maxLength: 3,
      })
      .map((parts) => parts.join("").replace(/[^\x00-\xff]/g, "?"));
    fc.assert(
      fc.property(fc.array(literal, { minLength: 1, maxLength: 16 }), fc.array(subject, { maxLength: 8 }), (ls, ss) => {
        const literals = [...new Set(ls)];
        const patterns = literals.map(containsPattern);
        const sets = [compileLiteralSet(literals, patterns), compileRegexSet(patterns, () => false)];
        for (const set of sets) {
          expect(set).not.toBeNull();
          for (const s of ["", ...ss, literals.join(""), literals.join("\x80")])
            expect([...(set?.match(s) ?? [])], `${JSON.stringify(literals)} on ${JSON.stringify(s)}`).toEqual(
              literals.map((l) => (s.includes(l) ? 1 : 0)),
            );
        }
      }),
      { numRuns: 300 },
    );
  }, 120_000);

  it("wildcards: the DFA of their patterns answers as the wildcard matcher (fast-check)", () => {
    const piece = fc.array(fc.constantFrom("bot", "a", "B", "/p1", "\\*", "\\\\", "é", "\n", "?"), { maxLength: 2 });
    const wildcard = fc
      .tuple(
        fc.array(
          piece.map((p) => p.join("")),
          { minLength: 1, maxLength: 4 },
        ),
        fc.boolean(),
      )
      .map(([pieces, fold]) => ({ text: pieces.join("*").replace(/\*\*+/g, "*"), fold }));
    fc.assert(
      fc.property(fc.array(wildcard, { minLength: 1, maxLength: 8 }), fc.array(subject, { maxLength: 8 }), (ws, ss) => {
        const compiled = ws.map(({ text, fold }) => {
          const w = compileWildcard(text, fold);
          if (!w.ok) throw new Error(w.error);
          return w.value;
        });
        const patterns = [...new Set(compiled.map((w) => w.setPattern))];
        const byPattern = patterns.map((p) => compiled.find((w) => w.setPattern === p));
        const set = compileRegexSet(patterns, (i) => byPattern[i]?.match("") === true);
        if (set === null) return;
        for (const s of ["", ...ss, "BOT/p1", "bot*a"])
          expect([...set.match(s)], `${JSON.stringify(ws)} on ${JSON.stringify(s)}`).toEqual(
            byPattern.map((w) => (w?.match(s) === true ? 1 : 0)),
          );
      }),
      { numRuns: 200 },
    );
  }, 120_000);

  it("256 `contains` on the User-Agent: one literal set, a state per trie node", () => {
    const literals = Array.from({ length: 256 }, (_, k) => `bot${k}`);
    const set = compileLiteralSet(literals, literals.map(containsPattern));
    expect(set?.states).toBe(1 + new Set(literals.flatMap((l) => [...l].map((_, i) => l.slice(0, i + 1)))).size);
    const found = set?.match(`Mozilla/5.0 ${"x".repeat(30_000)} bot17 bot255`);
    expect([...(found ?? [])].flatMap((v, i) => (v === 1 ? [i] : []))).toEqual([1, 2, 17, 25, 255]);
  });

  it("a pattern whose DFA would pass the bound gives no set (its rule keeps its own regex)", () => {
    expect(compileRegexSet(["a[ab]{20}w"], () => false)).toBeNull();
  });
});

const block = (id: string, expression: string) => ({ id, expression, action: "block" });

/** Random request-phase rules over the User-Agent and the path: regexes, `contains`, `eq`, combined. */
const ruleExpression = fc.oneof(
  pattern.map((p) => `http.user_agent matches ${JSON.stringify(p)}`),
  pattern.map((p) => `http.request.uri.path matches ${JSON.stringify(p)}`),
  fc
    .tuple(pattern, pattern)
    .map(
      ([a, b]) =>
        `http.user_agent matches ${JSON.stringify(a)} and not http.request.uri.path matches ${JSON.stringify(b)}`,
    ),
  fc
    .tuple(pattern, fc.constantFrom(...LITERALS))
    .map(([a, l]) => `http.user_agent matches ${JSON.stringify(a)} or http.user_agent contains ${JSON.stringify(l)}`),
  fc.constantFrom(...LITERALS).map((l) => `http.request.uri.path eq "/${l}"`),
);

/** `contains` and wildcards, standalone and beside regexes, on both fields: enough of them to get sets of their own. */
const literalExpression = fc.oneof(
  fc.constantFrom(...LITERALS, "bo", "ot", "b", "-", "/").map((l) => `http.user_agent contains ${JSON.stringify(l)}`),
  fc.constantFrom(...LITERALS, "/p", "1", "2/").map((l) => `http.request.uri.path contains ${JSON.stringify(l)}`),
  fc
    .tuple(fc.constantFrom("", "*"), fc.constantFrom(...LITERALS), fc.constantFrom("", "*"), fc.boolean())
    .map(
      ([a, l, b, strict]) =>
        `http.user_agent ${strict ? "strict wildcard" : "wildcard"} ${JSON.stringify(a + l.replace("*", "\\*") + b)}`,
    ),
  fc
    .tuple(fc.constantFrom(...LITERALS), fc.constantFrom(...LITERALS))
    .map(([a, b]) => `http.request.uri.path wildcard "/*${a}*${b}"`),
  fc
    .tuple(fc.constantFrom(...LITERALS), pattern)
    .map(
      ([l, p]) => `http.user_agent contains ${JSON.stringify(l)} and not http.user_agent matches ${JSON.stringify(p)}`,
    ),
);

function list(expressions: readonly string[]): RuleList {
  return compileRuleList(
    "http_request_firewall_custom",
    expressions.map((e, i) => block(`r${i}`, e)),
    { prepare: () => ok({}) },
  );
}

function request(ua: string, path: string): Request {
  return new Request(`http://shop.example${encodeURI(path).replace(/%25/g, "%")}`, { headers: { "user-agent": ua } });
}

/**
 * The list's first match and every match, with its sets, equal what evaluating each rule on its own gives (every
 * regex alone: no sets on the context). Lists where an expression does not compile are skipped.
 */
function matchesAsRuleByRule(expressions: readonly string[], requests: readonly (readonly [string, string])[]): void {
  const compiled = list(expressions);
  if (compiled.rules.length !== expressions.length) return;
  for (const [ua, path] of requests) {
    const req = request(ua === "" ? "x" : ua, `/${path}`);
    const each = compiled.rules.map((entry) => entry.rule.matches(requestContext(req)));
    const first = firstMatch(compiled, requestContext(req), "zone");
    expect(first?.id ?? null).toBe(compiled.rules[each.indexOf(true)]?.id ?? null);
    const all = [...allMatches(compiled, requestContext(req), "zone")].map((e) => e.id);
    expect(all).toEqual(compiled.rules.filter((_, i) => each[i]).map((e) => e.id));
  }
}

describe("a rule list with sets gives the same matches as rule by rule", () => {
  it("first match and every match, over random lists and requests (fast-check, 150 lists)", () => {
    const printable = subject.map((s) => s.replace(/[^\x21-\x7e]/g, "-"));
    fc.assert(
      fc.property(
        fc.array(fc.oneof(ruleExpression, literalExpression, literalExpression), { minLength: 1, maxLength: 30 }),
        fc.array(fc.tuple(printable, printable), { minLength: 1, maxLength: 4 }),
        (expressions, requests) => matchesAsRuleByRule(expressions, requests),
      ),
      { numRuns: 150 },
    );
  }, 120_000);
});

describe("a rule list with literal sets gives the same matches as rule by rule", () => {
  it("`contains` and wildcards, subjects made of the rules' own literals (fast-check, 200 lists)", () => {
    const piece = fc.constantFrom(...LITERALS, "bo", "ot", "b", "-", "/", "/p", "1", "2/", "BOT", "x");
    const printable = fc.array(piece, { maxLength: 10 }).map((parts) => parts.join("").replace(/[^\x21-\x7e]/g, "-"));
    fc.assert(
      fc.property(
        fc.array(fc.oneof(literalExpression, literalExpression, ruleExpression), { minLength: 5, maxLength: 40 }),
        fc.array(fc.tuple(printable, printable), { minLength: 1, maxLength: 6 }),
        (expressions, requests) => matchesAsRuleByRule(expressions, requests),
      ),
      { numRuns: 200 },
    );
  }, 120_000);
});

describe("a set's pass, remembered", () => {
  const rules = list(Array.from({ length: 40 }, (_, k) => `http.user_agent matches "bot${k}[0-9]+"`));
  const ua = "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0";
  const spentBy = (run: (ctx: ReturnType<typeof requestContext>) => void): number => {
    const ctx = requestContext(request(ua, "/"));
    const before = ctx.budget.remaining;
    run(ctx);
    return before - ctx.budget.remaining;
  };

  it("is charged to every request, also when the previous request had the same User-Agent", () => {
    const first = spentBy((ctx) => firstMatch(rules, ctx, "zone"));
    expect(first).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) expect(spentBy((ctx) => firstMatch(rules, ctx, "zone"))).toBe(first);
  });

  it("is charged once to a request whose rate-limiting loop another request interleaves", () => {
    const once = spentBy((ctx) => firstMatch(rules, ctx, "zone"));
    const matching = list([...Array.from({ length: 5 }, (_, k) => `http.user_agent matches "fox${k}|Firefox"`)]);
    const ctx = requestContext(request(ua, "/"));
    const before = ctx.budget.remaining;
    const each = allMatches(matching, ctx, "zone");
    expect(each.next().done).toBe(false);
    // Another request, with another User-Agent, on the same sets between two of this one's rules.
    firstMatch(matching, requestContext(request("curl/8.0", "/")), "zone");
    expect([...each].length).toBe(4);
    const spent = before - ctx.budget.remaining;
    expect(spent).toBe(spentBy((c) => [...allMatches(matching, c, "zone")]));
    expect(once).toBeGreaterThan(0);
  });

  it("answers each request for its own User-Agent, however requests alternate", () => {
    for (const [agent, expected] of [
      ["bot71", "r7"],
      [ua, null],
      ["bot71", "r7"],
      ["x bot399", "r3"],
      [ua, null],
    ] as const)
      expect(firstMatch(rules, requestContext(request(agent, "/")), "zone")?.id ?? null).toBe(expected);
  });
});

describe("the worst case with sets", () => {
  const limits = { headerBytes: 32 * 1024 };
  const compiledRules = (expressions: readonly string[]) => list(expressions).rules.map((e) => e.rule);

  it("300 User-Agent regexes: each set's pass is counted once, and the phase fits the budget", () => {
    const rules = compiledRules(Array.from({ length: 300 }, (_, k) => `http.user_agent matches "bot${k}[0-9]+"`));
    const costs = phaseWorstCase(rules, limits);
    const total = costs.reduce((n, c) => n + (c?.share.kind === "bounded" ? c.share.units : Infinity), 0);
    expect(total).toBeLessThan(MAX_REQUEST_PHASE_UNITS);
    for (const c of costs) expect(c?.alone.kind === "bounded" && c.alone.units <= MAX_RULE_UNITS).toBe(true);
    // Alone (no set) the same rule costs its own run on the whole User-Agent.
    const alone = worstCase(rules[0] as (typeof rules)[number], limits);
    expect(alone.kind === "bounded" && alone.units).toBeGreaterThan(total / 2);
  });

  it("300 User-Agent `contains`: two literal sets, one pass each, where their own scans did not fit", () => {
    const expressions = Array.from({ length: 300 }, (_, k) => `http.user_agent contains "bot${k}"`);
    expect(list(expressions).regexSets?.sets.map((e) => e.set.patterns.length)).toEqual([256, 44]);
    const rules = compiledRules(expressions);
    const share = (costs: ReturnType<typeof phaseWorstCase>) =>
      costs.reduce((n, c) => n + (c?.share.kind === "bounded" ? c.share.units : Infinity), 0);
    expect(share(phaseWorstCase(rules, limits))).toBeLessThan(MAX_REQUEST_PHASE_UNITS / 10);
    const alone = rules.map((r) => worstCase(r, limits));
    expect(alone.reduce((n, c) => n + (c.kind === "bounded" ? c.units : Infinity), 0)).toBeGreaterThan(
      MAX_REQUEST_PHASE_UNITS,
    );
  });

  it("four `contains` on one field keep their own scans (a pass would cost more)", () => {
    const few = (n: number) => list(Array.from({ length: n }, (_, k) => `http.user_agent contains "bot${k}"`));
    expect(few(4).regexSets).toBeNull();
    expect(few(5).regexSets?.sets.length).toBe(1);
  });

  it("a disabled rule neither reads nor pays for a set", () => {
    const rules = compiledRules(['http.user_agent matches "bot1"', 'http.user_agent matches "bot2"']);
    const costs = phaseWorstCase([null, rules[1] ?? null], limits);
    expect(costs[0]).toBeNull();
    expect(costs[1]?.share).toEqual(costs[1]?.alone);
  });
});
