/**
 * The request phases on zone traffic: requests through the real Worker and its proxy to the same local
 * origin, on three zones of one Worker, in the same run:
 *   - a zone without rules (the baseline);
 *   - a zone with 50 firewall custom rules, none matching: target ≥ 0.8×;
 *   - the same 50 rules plus one rate-limiting rule that counts every request (limit never reached), against the
 *     zone with the 50 rules alone ("the same zone without the rule"), once with `counting` left to its
 *     default (approximate: leases, target ≥ 0.9×) and once with `counting: "exact"` (a round trip to the
 *     `RateLimiter` Durable Object per request, what every rule did before the performance-targets work (2026-11-24): target ≥ 0.5×);
 *   - the one rate-limiting rule alone, both ways, against the zone without rules: the rule's cost with nothing else.
 * All requests come from one client (`CF-Connecting-IP: 192.0.2.1`), so they share one counter object: the
 * hot-client worst case.
 * `/cdn-cgi/*` is not used (Miniflare refuses it for other hosts: docs/development.md "wrangler dev and /cdn-cgi"); this is plain zone traffic.
 */
import { api as apiCall } from "../lib/http.ts";
import { warmedRounds, load, type LoadResult } from "../lib/load.ts";
import { startExampleOrigin } from "../lib/origin.ts";
import { loadRows } from "../lib/rows.ts";
import { serveWorker, type Served } from "../lib/serve.ts";
import type { SuiteContext, SuiteResult } from "../lib/suite.ts";

export const description = "zone traffic with 50 firewall rules (+ 1 rate-limiting rule) vs a zone without rules";

const ADMIN_TOKEN = "bench-admin-token";
const PLAIN = "plain.producers.bench.example";
const FIREWALL = "fw50.producers.bench.example";
const LIMITED = "fw50-rl.producers.bench.example";
const LIMITED_EXACT = "fw50-rl-exact.producers.bench.example";
const RL_ONLY = "rl.producers.bench.example";
const RL_ONLY_EXACT = "rl-exact.producers.bench.example";
const PATH = "/hello";
const CLIENT = "192.0.2.1";

/** 50 firewall rules in the shapes operators write, none matching the benchmark's request. */
export function nonMatchingFirewallRules(count = 50): { expression: string; action: string }[] {
  const shapes = [
    (i: number) => `http.request.uri.path eq "/wp-admin/${i}"`,
    (i: number) => `ip.src in {203.0.113.${i % 256} 198.51.100.0/24}`,
    (i: number) => `http.user_agent contains "BadBot/${i}" or http.user_agent matches "^curl/${i}\\\\."`,
    (i: number) => `any(http.request.headers["x-attack-${i}"][*] ne "")`,
    (i: number) => `ip.src.country eq "K${String.fromCharCode(65 + (i % 26))}" and not ssl`,
    (i: number) => `starts_with(http.request.uri.path, "/private/${i}/") and http.request.method eq "POST"`,
    (i: number) => `lower(http.request.uri.query) contains "union select ${i}"`,
  ];
  return Array.from({ length: count }, (_, i) => ({ expression: shapes[i % shapes.length]!(i), action: "block" }));
}

interface Scenario {
  readonly name: string;
  readonly host: string;
  readonly target?: number;
  /** The index of the row this one is compared with (itself for a baseline). */
  readonly baseline: number;
}

const SCENARIOS: readonly Scenario[] = [
  { name: "zone without rules, GET /hello", host: PLAIN, baseline: 0 },
  { name: "50 non-matching firewall rules (vs no rules)", host: FIREWALL, target: 0.8, baseline: 0 },
  {
    name: "50 firewall rules + 1 rate-limiting rule, approximate (vs the 50 rules)",
    host: LIMITED,
    target: 0.9,
    baseline: 1,
  },
  {
    name: "50 firewall rules + 1 rate-limiting rule, exact (vs the 50 rules)",
    host: LIMITED_EXACT,
    target: 0.5,
    baseline: 1,
  },
  { name: "1 rate-limiting rule, approximate (vs no rules)", host: RL_ONLY, target: 0.9, baseline: 0 },
  { name: "1 rate-limiting rule, exact (vs no rules)", host: RL_ONLY_EXACT, baseline: 0 },
];

/** Counts every request; 1,000,000 per hour is never reached by a run. */
const countingRule = (counting?: "exact") => ({
  expression: 'http.request.method ne "PURGE"',
  action: "block",
  ratelimit: {
    characteristics: ["ip.src"],
    period: 3600,
    requests_per_period: 1_000_000,
    mitigation_timeout: 60,
    ...(counting === undefined ? {} : { counting }),
  },
});

export async function run(context: SuiteContext): Promise<SuiteResult> {
  const rounds = context.quick ? 1 : 12;
  const seconds = 1;
  const connections = 8;
  const origin = await startExampleOrigin(context.root);
  let served: Served | undefined;
  try {
    served = await serveWorker({
      root: context.root,
      entry: "src/index.ts",
      bindings: { ADMIN_TOKEN, API_HOSTS: "localhost" },
    });
    const zone = { plan: "enterprise", origin: origin.url };
    for (const { host } of SCENARIOS) await api(served, "PUT", `/zones/${host}`, zone);
    const firewall = { rules: nonMatchingFirewallRules() };
    for (const host of [FIREWALL, LIMITED, LIMITED_EXACT])
      await api(served, "PUT", `/zones/${host}/rulesets/phases/http_request_firewall_custom/entrypoint`, firewall);
    const worker = served;
    const limits = (host: string, rule: ReturnType<typeof countingRule>) =>
      api(worker, "PUT", `/zones/${host}/rulesets/phases/http_ratelimit/entrypoint`, { rules: [rule] });
    // The default (no `counting`: approximate) and the operator's explicit choice of exact counting.
    for (const host of [LIMITED, RL_ONLY]) await limits(host, countingRule());
    for (const host of [LIMITED_EXACT, RL_ONLY_EXACT]) await limits(host, countingRule("exact"));

    const target = served;
    const drive = (scenario: Scenario, durationSeconds: number): Promise<LoadResult> =>
      load({
        url: new URL(PATH, target.url),
        headers: { host: scenario.host, "cf-connecting-ip": CLIENT },
        connections,
        durationSeconds,
        serverCpu: target.cpuSeconds,
      });
    const results = await warmedRounds(SCENARIOS, {
      rounds,
      seconds,
      drive,
      log: (line) => context.log(line),
    });
    const rows = loadRows(SCENARIOS, results, (index) => SCENARIOS[index]?.baseline ?? 0);
    return {
      rows,
      notes: [
        `${rounds} round(s) × ${seconds} s per scenario, ${connections} connections, one client (${CLIENT});`,
        "one Worker (Miniflare) with three zones in front of scripts/example-origin.mjs (its own process);",
        "ratio = that round's req/s ÷ the same round's req/s of the row named in brackets, median over rounds.",
      ],
    };
  } finally {
    await served?.dispose();
    origin.process.kill("SIGTERM");
  }
}

const api = (served: Served, method: string, path: string, body: unknown): Promise<void> =>
  apiCall(served.url, ADMIN_TOKEN, method, path, body);
