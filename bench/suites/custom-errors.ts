/**
 * Custom error rules on the error path: an error generated on zone traffic (1038: request headers over the
 * zone's 1 KiB limit, produced after the zone lookup and before any network I/O) on a zone with 300 custom error
 * rules, none matching, against the same Worker and the same request on a zone with none, in the same run.
 * Target: ≥ 0.8×. (`/cdn-cgi/*` is refused by Miniflare for hosts other than localhost: docs/development.md "wrangler dev and /cdn-cgi")
 * Also measured, in milliseconds: compiling the 300 rules (in this process, the engine alone), and the first error
 * after a config change (the isolate compiles the new version on that request) against the next one.
 */
import { compile, customErrorFields } from "../../src/rules/index.ts";
import { api as apiCall, send } from "../lib/http.ts";
import { warmedRounds, load, type LoadResult } from "../lib/load.ts";
import { loadRows } from "../lib/rows.ts";
import { serveWorker, type Served } from "../lib/serve.ts";
import { median, round } from "../lib/stats.ts";
import type { SuiteContext, SuiteResult } from "../lib/suite.ts";

export const description = "an error (1038) on a zone with 300 non-matching custom error rules vs none";

const PATH = "/checkout";
/** Over the zones' 1 KiB header limit: every request is a generated 1038 (status 431). */
const PAD = "p".repeat(1500);
const STATUS = 431;
const ADMIN_TOKEN = "bench-admin-token";
const TARGET = 0.8;
const PLAIN = "plain.bench.example";
const RULES = "rules300.bench.example";

/** 300 rules in the shapes operators write, none of which matches the benchmark's request. */
export function nonMatchingRules(count = 300): { expression: string; action: string; action_parameters: unknown }[] {
  const shapes = [
    (i: number) => `http.request.uri.path eq "/never/${i}" and edge.response.error_type eq "5xx"`,
    (i: number) => `any(http.request.headers["x-bench-${i}"][*] eq "yes")`,
    (i: number) => `http.response.code eq ${400 + (i % 100)} and starts_with(http.request.uri.path, "/api/${i}/")`,
    (i: number) => `lower(http.host) eq "host-${i}.example" or http.request.uri.query contains "never=${i}"`,
    (i: number) => `http.user_agent matches "^NeverBot/${i}\\\\b" and ssl`,
  ];
  return Array.from({ length: count }, (_, i) => ({
    expression: shapes[i % shapes.length]!(i),
    action: "serve_error",
    action_parameters: { content: `{"rule":${i}}`, content_type: "application/json" },
  }));
}

interface Scenario {
  readonly name: string;
  readonly host: string;
  readonly accept: string;
  readonly target?: number;
}

const SCENARIOS: readonly Scenario[] = [
  { name: "zone without rules, JSON", host: PLAIN, accept: "application/json" },
  { name: "zone with 300 non-matching rules, JSON", host: RULES, accept: "application/json", target: TARGET },
  // Each format against the same request on the zone without rules: an HTML page is ten times the bytes of the
  // JSON body, and against the JSON baseline its row measured the page's size as much as the rules.
  { name: "zone without rules, HTML", host: PLAIN, accept: "text/html" },
  { name: "zone with 300 non-matching rules, HTML", host: RULES, accept: "text/html", target: TARGET },
];

export async function run(context: SuiteContext): Promise<SuiteResult> {
  const rounds = context.quick ? 1 : 12;
  const seconds = 1;
  const connections = 8;
  const notes: string[] = [];
  const rules = nonMatchingRules();

  // Compile cost, the engine alone: 300 rules against the custom-error fields, median of 20 runs.
  const compileMs: number[] = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    for (const rule of rules) {
      const compiled = compile(rule.expression, customErrorFields.scheme);
      if (!compiled.ok) throw new Error(`bench rule does not compile: ${compiled.error.message}`);
    }
    compileMs.push(performance.now() - started);
  }

  const served: Served = await serveWorker({
    root: context.root,
    entry: "src/index.ts",
    bindings: { ADMIN_TOKEN, API_HOSTS: "localhost" },
  });
  try {
    const zone = { plan: "enterprise", origin: "http://origin.bench.example", max_request_header_bytes: 1024 };
    await api(served, "PUT", `/zones/${PLAIN}`, zone);
    await api(served, "PUT", `/zones/${RULES}`, zone);
    await api(served, "PUT", `/zones/${RULES}/rulesets/phases/http_custom_errors/entrypoint`, { rules });

    // The first error after the change compiles the new version on that request; the next one does not.
    const first = await timed(served, RULES);
    const next: number[] = [];
    for (let i = 0; i < 20; i++) next.push(await timed(served, RULES));
    // An edit of one rule among the 300 (the usual change): the new version's other 299 expressions come from the
    // per-isolate compile cache (src/rules/rule-list.ts), so only the edited one is compiled. Median of 5 edits.
    const edits: number[] = [];
    for (let edit = 1; edit <= 5; edit++) {
      const edited = rules.map((rule, i) =>
        i === 0 ? { ...rule, expression: `${rule.expression} and http.request.uri.path ne "/edit/${edit}"` } : rule,
      );
      await api(served, "PUT", `/zones/${RULES}/rulesets/phases/http_custom_errors/entrypoint`, { rules: edited });
      edits.push(await timed(served, RULES));
    }
    notes.push(
      `compile 300 rules (engine alone, in Node): median ${round(median(compileMs), 2)} ms over 20 runs;`,
      `first error after the rules changed: ${round(first, 2)} ms end to end, then median ${round(median(next), 2)} ms;`,
      `first error after one of the 300 rules changed: median ${round(median(edits), 2)} ms end to end over 5 edits;`,
    );

    const drive = (scenario: Scenario, durationSeconds: number): Promise<LoadResult> =>
      load({
        url: new URL(PATH, served.url),
        headers: { host: scenario.host, accept: scenario.accept, "x-pad": PAD },
        connections,
        durationSeconds,
        expectStatus: STATUS,
        serverCpu: served.cpuSeconds,
      });
    const results = await warmedRounds(SCENARIOS, {
      rounds,
      seconds,
      drive,
      log: (line) => context.log(line),
    });
    const rows = loadRows(SCENARIOS, results, (i) => (SCENARIOS[i]?.host === PLAIN ? i : i - 1));
    notes.push(
      `${rounds} round(s) × ${seconds} s per scenario, ${connections} connections; one Worker (Miniflare), two zones;`,
      "the baseline is the same Worker and request on a zone without rules: the ratio is the rules' own cost.",
    );
    return { rows, notes };
  } finally {
    await served.dispose();
  }
}

async function timed(served: Served, host: string): Promise<number> {
  const started = performance.now();
  const answer = await send(new URL(PATH, served.url), "GET", { host, accept: "application/json", "x-pad": PAD });
  if (answer.status !== STATUS) throw new Error(`the error answered ${answer.status}: ${answer.body.slice(0, 200)}`);
  return performance.now() - started;
}

const api = (served: Served, method: string, path: string, body: unknown): Promise<void> =>
  apiCall(served.url, ADMIN_TOKEN, method, path, body);
