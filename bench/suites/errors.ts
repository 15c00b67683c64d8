/**
 * Error synthesis under load (issue 2): `GET /cdn-cgi/error/522` on the real Worker, negotiated as JSON
 * and as HTML, against a trivial Worker (`new Response("ok")`) served the same way. Target: ≥ 0.85× the
 * baseline's throughput.
 *
 * Both Workers run at once (two Miniflare instances, one idle while the other is measured). The load
 * generator shares the 2 cores with workerd, so absolute req/s are noisy: scenarios are interleaved in
 * rounds (rotating the order) and each round's ratio uses that round's baseline.
 */
import { request } from "node:http";
import { load, type LoadResult } from "../lib/load.ts";
import { serveWorker, type Served } from "../lib/serve.ts";
import { median, round } from "../lib/stats.ts";
import type { ResultRow, SuiteContext, SuiteResult } from "../lib/suite.ts";

export const description = "GET /cdn-cgi/error/522 (JSON, HTML) vs a trivial Worker, Miniflare on a port";

const PATH = "/cdn-cgi/error/522";
const TARGET = 0.85;

interface Scenario {
  readonly name: string;
  readonly served: "real" | "baseline";
  readonly accept: string;
  readonly expectStatus: number;
  /** Content-Type the real Worker must answer with (checked once before the load). */
  readonly expectContentType?: string;
}

const SCENARIOS: readonly Scenario[] = [
  { name: "baseline Worker (Accept: application/json)", served: "baseline", accept: "application/json", expectStatus: 200 },
  {
    name: `GET ${PATH} (Accept: application/json)`,
    served: "real",
    accept: "application/json",
    expectStatus: 522,
    expectContentType: "application/json; charset=utf-8",
  },
  {
    name: `GET ${PATH} (Accept: text/html)`,
    served: "real",
    accept: "text/html",
    expectStatus: 522,
    expectContentType: "text/html; charset=utf-8",
  },
];

export async function run(context: SuiteContext): Promise<SuiteResult> {
  const rounds = context.quick ? 1 : 3;
  const seconds = context.quick ? 1 : 5;
  const connections = 8; // enough to keep workerd busy; more only queues on 2 cores (toolchain.md §6)
  const notes: string[] = [];
  const real = await serveWorker({ root: context.root, entry: "src/index.ts" });
  // The baseline exports no Durable Object class, so it gets no DO binding (workerd would warn); it has
  // the same KV namespace, vars and serving path.
  const baseline = await serveWorker({ root: context.root, entry: "bench/baseline/worker.ts", durableObjects: {} });
  try {
    const servers = { real, baseline };
    for (const scenario of SCENARIOS) {
      const problem = await checkOnce(servers[scenario.served], scenario);
      if (problem !== null) notes.push(`WARNING ${scenario.name}: ${problem}`);
    }
    const drive = (scenario: Scenario, durationSeconds: number): Promise<LoadResult> =>
      load({
        url: new URL(PATH, servers[scenario.served].url),
        headers: { host: "localhost", accept: scenario.accept },
        connections,
        durationSeconds,
        expectStatus: scenario.expectStatus,
      });

    context.log("warm-up");
    for (const scenario of SCENARIOS) await drive(scenario, context.quick ? 1 : 2);

    const results = SCENARIOS.map((): LoadResult[] => []);
    for (let r = 0; r < rounds; r++) {
      // Rotate the order each round so no scenario always follows the same one.
      for (let k = 0; k < SCENARIOS.length; k++) {
        const index = (k + r) % SCENARIOS.length;
        const scenario = SCENARIOS[index] as Scenario;
        const result = await drive(scenario, seconds);
        (results[index] as LoadResult[]).push(result);
        context.log(`round ${r + 1}/${rounds} ${scenario.name}: ${result.reqPerSec} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, failures ${result.failures}`);
      }
    }

    const baselineRuns = results[0] as LoadResult[];
    const rows: ResultRow[] = SCENARIOS.map((scenario, index) => {
      const runs = results[index] as LoadResult[];
      const isBaseline = scenario.served === "baseline";
      return {
        name: scenario.name,
        ...(isBaseline ? { baseline: true } : {}),
        reqPerSec: round(median(runs.map((run) => run.reqPerSec)), 0),
        p50Ms: median(runs.map((run) => run.p50Ms)),
        p99Ms: median(runs.map((run) => run.p99Ms)),
        // Per-round ratio against the same round's baseline, then the median over rounds.
        ratio: round(median(runs.map((run, r) => run.reqPerSec / (baselineRuns[r] as LoadResult).reqPerSec))),
        ...(isBaseline ? {} : { target: TARGET }),
        failures: runs.reduce((sum, run) => sum + run.failures, 0),
      };
    });
    notes.push(
      `${rounds} round(s) × ${seconds} s per scenario, ${connections} connections, autocannon in this process,`,
      "Miniflare (workerd) on 127.0.0.1, both sharing the machine's cores; ratios are per round, then the median.",
    );
    return { rows, notes };
  } finally {
    await Promise.all([real.dispose(), baseline.dispose()]);
  }
}

/** One request with the scenario's headers; a description of what is wrong, or null. */
async function checkOnce(served: Served, scenario: Scenario): Promise<string | null> {
  const { status, contentType } = await get(new URL(PATH, served.url), { host: "localhost", accept: scenario.accept });
  if (status !== scenario.expectStatus) return `status ${status}, expected ${scenario.expectStatus}`;
  if (scenario.expectContentType !== undefined && contentType !== scenario.expectContentType) {
    return `Content-Type ${contentType}, expected ${scenario.expectContentType}`;
  }
  return null;
}

/** A GET with node:http, which (unlike fetch) sends the Host header we give it (toolchain.md §9). */
function get(url: URL, headers: Record<string, string>): Promise<{ status: number; contentType: string }> {
  return new Promise((resolvePromise, reject) => {
    const outgoing = request(url, { method: "GET", headers }, (response) => {
      response.resume();
      response.on("end", () =>
        resolvePromise({ status: response.statusCode ?? 0, contentType: response.headers["content-type"] ?? "" }),
      );
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}
