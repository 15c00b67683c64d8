/**
 * How many firewall custom rules of each shape a zone can store and evaluate (docs/rules-language.md "Evaluation
 * budget", the table of stored counts), on every plan, through the API and the Worker: the plan's maximum number of
 * rules, each with a `matches` on the User-Agent or on the path (or two regexes, or `contains`, or `eq` and `in`),
 * is accepted on the default 32 KiB header limit, and a request that only the last rule matches is blocked (1020),
 * while an ordinary one reaches the origin. Before the one-pass sets, an enterprise zone stored 11 path regexes,
 * 18 User-Agent regexes and 244 User-Agent `contains`.
 */
import { describe, expect, it } from "vitest";
import { api, entrypoint } from "../../support/envelope";
import { expectGeneratedError, loopback, ports, putZone, sendTraffic, uniqueZone } from "../../support/origin";

const PLANS = { free: 5, pro: 25, business: 50, enterprise: 300 } as const;

interface Row {
  readonly name: string;
  readonly rule: (k: number) => string;
  /** A request only rule `k` (the last) matches: its path and User-Agent. */
  readonly hit: (k: number) => { readonly path: string; readonly ua: string };
  /** The most rules of the shape the budget holds, when fewer than a plan allows (docs: 32,754 units each). */
  readonly most?: number;
}

const ROWS: readonly Row[] = [
  {
    name: 'http.request.uri.path matches "^/p<k>/[a-z]+$"',
    rule: (k) => `http.request.uri.path matches "^/p${k}/[a-z]+$"`,
    hit: (k) => ({ path: `/p${k}/abc`, ua: "Mozilla/5.0" }),
  },
  {
    name: 'http.user_agent matches "bot<k>[0-9]+"',
    rule: (k) => `http.user_agent matches "bot${k}[0-9]+"`,
    // (also matched by the rules of k's prefixes, `bot2[0-9]+` for `bot299`: blocked either way)
    hit: (k) => ({ path: "/", ua: `Mozilla/5.0 bot${k}7` }),
  },
  {
    name: 'http.user_agent contains "bot<k>"',
    rule: (k) => `http.user_agent contains "bot${k}"`,
    hit: (k) => ({ path: "/", ua: `Mozilla/5.0 bot${k}` }),
  },
  {
    name: 'http.request.uri.path eq "/p<k>", ip.src in {…}',
    rule: (k) => `http.request.uri.path eq "/p${k}" and ip.src in {192.0.2.0/24 198.51.100.${k % 256}}`,
    hit: (k) => ({ path: `/p${k}`, ua: "Mozilla/5.0" }),
  },
  {
    name: "two regexes a rule (User-Agent and path)",
    rule: (k) => `http.user_agent matches "crawl${k}[0-9]+" or http.request.uri.path matches "^/q${k}/[a-z]+$"`,
    hit: (k) => ({ path: `/q${k}/abc`, ua: "Mozilla/5.0" }),
  },
];

describe.each(Object.entries(PLANS))("the %s plan stores its maximum of each shape", (plan, max) => {
  it.each(ROWS.map((row) => [row.name, row] as const))("%s", async (_, row) => {
    const zone = uniqueZone(`counts-${plan}`);
    await putZone(zone, { plan, origin: loopback(ports.http) });
    const count = Math.min(max, row.most ?? Infinity);
    const rules = (n: number) => Array.from({ length: n }, (_, k) => ({ expression: row.rule(k), action: "block" }));
    if (count < max) {
      const over = await api("PUT", entrypoint(zone, "http_request_firewall_custom"), { rules: rules(count + 1) });
      expect(over.status).toBe(400);
      expect(over.body.errors[0]?.code).toBe(20045);
    }
    const res = await api("PUT", entrypoint(zone, "http_request_firewall_custom"), { rules: rules(count) });
    expect(res.status, JSON.stringify(res.body.errors)).toBe(200);

    const { path, ua } = row.hit(count - 1);
    const blocked = await sendTraffic(`http://${zone}${path}`, { "User-Agent": ua, "CF-Connecting-IP": "192.0.2.9" });
    await expectGeneratedError(blocked, 1020);
    const passed = await sendTraffic(`http://${zone}/hello`, {
      "User-Agent": "Mozilla/5.0",
      "CF-Connecting-IP": "203.0.113.9",
    });
    expect(passed.status).toBe(200);
    await passed.body?.cancel();
  });
});
