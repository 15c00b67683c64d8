/**
 * The draft preview (`POST /zones/{zone}/preview`): time per call with a 300-rule draft (every rule
 * validated as a write would be, compiled, then the described request run five times with the trace), against the
 * same described request previewed on the zone's saved configuration of the same 300 rules (no validation, the
 * compiled version traffic uses), in the same run; the GET preview of the same error is shown too. Calls are sent
 * one after another (the time of one call is what an operator waits), interleaved round by round.
 */
import { api as apiCall, send } from "../lib/http.ts";
import { serveWorker, type Served } from "../lib/serve.ts";
import { median, quantile, round } from "../lib/stats.ts";
import type { ResultRow, SuiteContext, SuiteResult } from "../lib/suite.ts";
import { nonMatchingRules } from "./custom-errors.ts";

export const description = "POST /zones/{zone}/preview with a 300-rule draft vs the saved 300 rules, time per call";

const ADMIN_TOKEN = "bench-admin-token";
const ZONE = "preview.bench.example";
const REQUEST = {
  path: "/checkout?item=42",
  headers: { Accept: "application/json", "User-Agent": "bench" },
  client_ip: "198.51.100.7",
  origin: { failure: "refused" },
};

interface Scenario {
  readonly name: string;
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly body?: string;
  readonly baseline?: boolean;
}

export async function run(context: SuiteContext): Promise<SuiteResult> {
  const rounds = context.quick ? 1 : 10;
  const callsPerRound = context.quick ? 3 : 20;
  const rules = nonMatchingRules(300);
  // The draft: the same 300 rules with the last one edited to match, so the trace has a match at index 299.
  const draft = rules.map((rule, i) => (i === 299 ? { ...rule, expression: "http.response.code eq 521" } : rule));
  const scenarios: readonly Scenario[] = [
    {
      name: "POST preview, saved configuration (300 rules)",
      method: "POST",
      path: `/zones/${ZONE}/preview`,
      body: JSON.stringify({ request: REQUEST }),
      baseline: true,
    },
    {
      name: "POST preview, 300-rule draft",
      method: "POST",
      path: `/zones/${ZONE}/preview`,
      body: JSON.stringify({ draft: { rules: draft }, request: REQUEST }),
    },
    { name: "GET /zones/{zone}/preview/521 (one format, no trace)", method: "GET", path: `/zones/${ZONE}/preview/521` },
  ];

  const served: Served = await serveWorker({
    root: context.root,
    entry: "src/index.ts",
    bindings: { ADMIN_TOKEN, API_HOSTS: "localhost" },
  });
  try {
    await api(served, "PUT", `/zones/${ZONE}`, { plan: "enterprise", origin: "http://127.0.0.1:9" });
    await api(served, "PUT", `/zones/${ZONE}/rulesets/phases/http_custom_errors/entrypoint`, { rules });
    const call = async (scenario: Scenario): Promise<number> => {
      const started = performance.now();
      const answer = await send(
        new URL(scenario.path, served.url),
        scenario.method,
        {
          host: "localhost",
          authorization: `Bearer ${ADMIN_TOKEN}`,
          accept: "application/json",
          ...(scenario.body === undefined ? {} : { "content-type": "application/json" }),
        },
        scenario.body,
      );
      const ms = performance.now() - started;
      const expected = scenario.method === "GET" ? 521 : 200;
      if (answer.status !== expected)
        throw new Error(`${scenario.name}: ${answer.status} ${answer.body.slice(0, 300)}`);
      return ms;
    };
    context.log("warm-up");
    for (const scenario of scenarios) for (let i = 0; i < 5; i++) await call(scenario);
    const times = scenarios.map(() => [] as number[]);
    const perRound = scenarios.map(() => [] as number[]);
    for (let round_ = 0; round_ < rounds; round_++) {
      // Alternating which scenario goes first, so a slow moment of the machine does not always fall on the same one.
      const order = round_ % 2 === 0 ? scenarios.keys() : [...scenarios.keys()].reverse();
      for (const index of order) {
        const scenario = scenarios[index] as Scenario;
        const got: number[] = [];
        for (let i = 0; i < callsPerRound; i++) got.push(await call(scenario));
        times[index]?.push(...got);
        perRound[index]?.push(median(got));
      }
      context.log(`round ${round_ + 1}/${rounds}`);
    }
    const base = perRound[0] as number[];
    const rows: ResultRow[] = scenarios.map((scenario, index) => {
      const all = times[index] as number[];
      const mine = perRound[index] as number[];
      return {
        name: scenario.name,
        ...(scenario.baseline ? { baseline: true } : {}),
        p50Ms: round(median(all), 2),
        p99Ms: round(quantile(all, 0.99), 2),
        // Calls per second relative to the baseline's, round by round (higher is better).
        ratio: round(median(mine.map((ms, i) => (base[i] as number) / ms))),
        failures: 0,
      };
    });
    return {
      rows,
      notes: [
        `${rounds} round(s) × ${callsPerRound} sequential calls per scenario; one Worker (Miniflare), one enterprise zone;`,
        "p50/p99 are the time of one call (client side, loopback); the ratio is the baseline's time ÷ the row's.",
        "each POST runs the described request 5 times (as described, then JSON, problem+json, Markdown, HTML).",
      ],
    };
  } finally {
    await served.dispose();
  }
}

const api = (served: Served, method: string, path: string, body: unknown): Promise<void> =>
  apiCall(served.url, ADMIN_TOKEN, method, path, body);
