/**
 * Error analytics on the error path (docs/analytics.md): the same Worker served twice in the same run,
 * with its `ZONE_ANALYTICS` binding (every error of a configured zone is recorded) and without it (recording off:
 * src/edge/analytics/occurrence.ts records nothing when the binding is absent), on the same generated error (1038:
 * request headers over the zone's 1 KiB limit, decided after the zone lookup and before any network I/O).
 * Target: recording on ≥ 0.9× recording off.
 *
 * Then records written vs lost at the highest rate this bench drives: a fresh zone on the recording Worker is loaded
 * with more connections for a few seconds; every 431 answered is an error that should be recorded; after the
 * batches settle, the zone's analytics total is compared with the count of answers.
 */
import { api as apiCall, send } from "../lib/http.ts";
import { warmedRounds, load } from "../lib/load.ts";
import { loadRows } from "../lib/rows.ts";
import { serveWorker, type Served } from "../lib/serve.ts";
import { round } from "../lib/stats.ts";
import type { ResultRow, SuiteContext, SuiteResult } from "../lib/suite.ts";

export const description = "an error (1038) with error analytics recording on vs off (no ZONE_ANALYTICS binding)";

const PATH = "/checkout";
const PAD = "p".repeat(1500);
const STATUS = 431;
const ADMIN_TOKEN = "bench-admin-token";
const TARGET = 0.9;
const ZONE = "analytics.bench.example";
const RATE_ZONE = "analytics-rate.bench.example";
const ZONE_SETTINGS = { plan: "enterprise", origin: "http://origin.bench.example", max_request_header_bytes: 1024 };

interface Scenario {
  readonly name: string;
  readonly served: () => Served;
  readonly target?: number;
}

export async function run(context: SuiteContext): Promise<SuiteResult> {
  const rounds = context.quick ? 1 : 10;
  const seconds = 1;
  const connections = 8;
  const rateSeconds = context.quick ? 2 : 5;
  const rateConnections = 32;
  const bindings = { ADMIN_TOKEN, API_HOSTS: "localhost" };
  const off = await serveWorker({
    root: context.root,
    entry: "src/index.ts",
    bindings,
    durableObjects: { TAG_STORE: "TagStore", ZONE_WRITER: "ZoneWriter", RATE_LIMITER: "RateLimiter" },
  });
  const on = await serveWorker({ root: context.root, entry: "src/index.ts", bindings });
  try {
    for (const served of [off, on]) await api(served, "PUT", `/zones/${ZONE}`, ZONE_SETTINGS);
    await api(on, "PUT", `/zones/${RATE_ZONE}`, ZONE_SETTINGS);
    const scenarios: readonly Scenario[] = [
      { name: "recording off (no ZONE_ANALYTICS binding), JSON 431", served: () => off },
      { name: "recording on, JSON 431", served: () => on, target: TARGET },
    ];
    const drive = (scenario: Scenario, durationSeconds: number, zone = ZONE, conns = connections) => {
      const served = scenario.served();
      return load({
        url: new URL(PATH, served.url),
        headers: { host: zone, accept: "application/json", "x-pad": PAD },
        connections: conns,
        durationSeconds,
        expectStatus: STATUS,
        serverCpu: served.cpuSeconds,
      });
    };
    const results = await warmedRounds(scenarios, {
      rounds,
      seconds,
      drive,
      log: (line) => context.log(line),
    });
    const rows: ResultRow[] = loadRows(scenarios, results, () => 0);

    // Records written vs lost at the highest rate: a fresh zone, more connections, every answer counted (autocannon
    // stops counting at its deadline while requests are still answered, so the count is taken here, exactly).
    context.log(`rate: ${rateSeconds} s at ${rateConnections} connections`);
    const since = Math.floor(Date.now() / 1000) - 60;
    const burst = await countedBurst(on, RATE_ZONE, rateConnections, rateSeconds * 1000);
    let recorded = -1;
    for (let i = 0; i < 50; i++) {
      await new Promise((r) => setTimeout(r, 200));
      const next = await total(on, RATE_ZONE, since);
      if (next === recorded && next >= burst.answered) break;
      if (next === recorded && i > 10) break;
      recorded = next;
    }
    const lost = burst.answered - recorded;
    rows.push({
      name: `records at ${round(burst.answered / burst.seconds, 0)} errors/s: ${recorded} of ${burst.answered} written, ${lost} lost`,
      reqPerSec: round(burst.answered / burst.seconds, 0),
      ratio: burst.answered === 0 ? 0 : round(recorded / burst.answered, 4),
      failures: burst.other,
    });
    return {
      rows,
      notes: [
        `${rounds} round(s) × ${seconds} s per scenario, ${connections} connections; two Workers (Miniflare), the same`,
        "build with and without the ZONE_ANALYTICS binding, the same zone and request; the ratio is recording's cost.",
        `The last row: ${rateConnections} node:http loops for ${rateSeconds} s on a fresh zone of the recording Worker,`,
        "every 431 counted; its ratio is records written (the zone's analytics total, once settled) ÷ errors answered.",
      ],
    };
  } finally {
    await on.dispose();
    await off.dispose();
  }
}

/** `connections` loops sending the error request until `ms` have passed; every 431 and anything else counted. */
async function countedBurst(
  served: Served,
  zone: string,
  connections: number,
  ms: number,
): Promise<{ answered: number; other: number; seconds: number }> {
  const started = performance.now();
  let answered = 0;
  let other = 0;
  const loop = async (): Promise<void> => {
    while (performance.now() - started < ms) {
      const answer = await send(new URL(PATH, served.url), "GET", {
        host: zone,
        accept: "application/json",
        "x-pad": PAD,
      });
      if (answer.status === STATUS) answered += 1;
      else other += 1;
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  return { answered, other, seconds: (performance.now() - started) / 1000 };
}

async function total(served: Served, zone: string, since: number): Promise<number> {
  const until = Math.floor(Date.now() / 1000) + 60;
  const answer = await send(
    new URL(`/zones/${zone}/analytics/errors?since=${since}&until=${until}`, served.url),
    "GET",
    { host: "localhost", authorization: `Bearer ${ADMIN_TOKEN}` },
  );
  if (answer.status !== 200) throw new Error(`analytics answered ${answer.status}: ${answer.body.slice(0, 200)}`);
  return (JSON.parse(answer.body) as { result: { total: number } }).result.total;
}

const api = (served: Served, method: string, path: string, body: unknown): Promise<void> =>
  apiCall(served.url, ADMIN_TOKEN, method, path, body);
