/**
 * The request phases on zone traffic (issue 10): requests through the real Worker and its proxy to the same local
 * origin, on three zones of one Worker, in the same run:
 *   - a zone without rules (the baseline);
 *   - a zone with 50 firewall custom rules, none matching: target ≥ 0.8×;
 *   - the same 50 rules plus one rate-limiting rule that counts every request (limit never reached): target
 *     ≥ 0.5×. Every request is a round trip to a `RateLimiter` Durable Object; all requests come from one client
 *     (`CF-Connecting-IP: 192.0.2.1`), so they share one counter object: the hot-client worst case.
 * `/cdn-cgi/*` is not used (Miniflare refuses it for other hosts: toolchain.md §9); this is plain zone traffic.
 */
import { api as apiCall } from "../lib/http.ts";
import { interleavedRounds, load, type LoadResult } from "../lib/load.ts";
import { startExampleOrigin } from "../lib/origin.ts";
import { loadRows } from "../lib/rows.ts";
import { serveWorker, type Served } from "../lib/serve.ts";
import type { SuiteContext, SuiteResult } from "../lib/suite.ts";

export const description = "zone traffic with 50 firewall rules (+ 1 rate-limiting rule) vs a zone without rules";

const ADMIN_TOKEN = "bench-admin-token";
const PLAIN = "plain.producers.bench.example";
const FIREWALL = "fw50.producers.bench.example";
const LIMITED = "fw50-rl.producers.bench.example";
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
}

const SCENARIOS: readonly Scenario[] = [
  { name: "zone without rules, GET /hello", host: PLAIN },
  { name: "50 non-matching firewall rules", host: FIREWALL, target: 0.8 },
  { name: "50 firewall rules + 1 counting rate-limiting rule", host: LIMITED, target: 0.5 },
];

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
    for (const host of [PLAIN, FIREWALL, LIMITED]) await api(served, "PUT", `/zones/${host}`, zone);
    const firewall = { rules: nonMatchingFirewallRules() };
    for (const host of [FIREWALL, LIMITED])
      await api(served, "PUT", `/zones/${host}/rulesets/phases/http_request_firewall_custom/entrypoint`, firewall);
    await api(served, "PUT", `/zones/${LIMITED}/rulesets/phases/http_ratelimit/entrypoint`, {
      rules: [
        {
          expression: 'http.request.method ne "PURGE"',
          action: "block",
          // Counts every request; 1,000,000 per hour is never reached by a run.
          ratelimit: {
            characteristics: ["ip.src"],
            period: 3600,
            requests_per_period: 1_000_000,
            mitigation_timeout: 60,
          },
        },
      ],
    });

    const target = served;
    const drive = (scenario: Scenario, durationSeconds: number): Promise<LoadResult> =>
      load({
        url: new URL(PATH, target.url),
        headers: { host: scenario.host, "cf-connecting-ip": CLIENT },
        connections,
        durationSeconds,
        serverCpu: target.cpuSeconds,
      });
    context.log("warm-up");
    for (const scenario of SCENARIOS) await drive(scenario, 1);
    const results = await interleavedRounds(
      SCENARIOS,
      rounds,
      (s) => drive(s, seconds),
      (line) => context.log(line),
    );
    const rows = loadRows(SCENARIOS, results, () => 0);
    return {
      rows,
      notes: [
        `${rounds} round(s) × ${seconds} s per scenario, ${connections} connections, one client (${CLIENT});`,
        "one Worker (Miniflare) with three zones in front of scripts/example-origin.mjs (its own process);",
        "ratio = that round's req/s ÷ the same round's zone without rules, median over rounds.",
      ],
    };
  } finally {
    await served?.dispose();
    origin.process.kill("SIGTERM");
  }
}

const api = (served: Served, method: string, path: string, body: unknown): Promise<void> =>
  apiCall(served.url, ADMIN_TOKEN, method, path, body);
