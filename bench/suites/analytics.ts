/**
 * Error analytics on the error path (docs/analytics.md): the same Worker served twice in the same run,
 * with its `ZONE_ANALYTICS` binding (every error of a configured zone is recorded) and without it (recording off:
 * src/edge/analytics/occurrence.ts records nothing when the binding is absent), on the same generated error (1038:
 * request headers over the zone's 1 KiB limit, decided after the zone lookup and before any network I/O).
 * Target: recording on ≥ 0.9× recording off.
 *
 * The request counter (docs/analytics.md "Requests and drops") on the proxy path: a healthy request proxied to the
 * example origin by the same two Workers (the one without the binding counts nothing), and the Worker without the
 * binding measured twice, whose ratio is the proxy's run-to-run spread in this run.
 *
 * Then records written vs lost at the highest rate this bench drives: a fresh zone on the recording Worker is loaded
 * with more connections for a few seconds; every 431 answered is an error that should be recorded; after the
 * batches settle, the zone's analytics total and its drop count are compared with the count of answers.
 *
 * Then the per-object ceilings of docs/scale.md, with a diagnostic Worker (bench/baseline/object-ceilings.ts) whose
 * every request is one RPC to one object, under many concurrent senders: one ZoneAnalytics object taking small and
 * large batches, the same spread over 4 objects (shards), one TagStore (tag writes of one account), one ZoneWriter
 * (edits of one zone), one RateLimiter (exact counter hits).
 */
import { api as apiCall, send } from "../lib/http.ts";
import { warmedRounds, load } from "../lib/load.ts";
import { loadRows } from "../lib/rows.ts";
import { serveWorker, type Served } from "../lib/serve.ts";
import { startExampleOrigin } from "../lib/origin.ts";
import type { LoadResult } from "../lib/load.ts";
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
const PROXY_ZONE = "analytics-proxy.bench.example";
const ZONE_SETTINGS = { plan: "enterprise", origin: "http://origin.bench.example", max_request_header_bytes: 1024 };

interface Scenario {
  readonly name: string;
  readonly served: () => Served;
  readonly target?: number;
  /** A healthy request proxied to the origin (else the generated 431). */
  readonly proxy?: boolean;
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
  const origin = await startExampleOrigin(context.root);
  try {
    for (const served of [off, on]) {
      await api(served, "PUT", `/zones/${ZONE}`, ZONE_SETTINGS);
      await api(served, "PUT", `/zones/${PROXY_ZONE}`, { plan: "enterprise", origin: origin.url });
    }
    await api(on, "PUT", `/zones/${RATE_ZONE}`, ZONE_SETTINGS);
    const scenarios: readonly Scenario[] = [
      { name: "recording off (no ZONE_ANALYTICS binding), JSON 431", served: () => off },
      { name: "recording on, JSON 431", served: () => on, target: TARGET },
      { name: "proxy, no request counter (no ZONE_ANALYTICS binding), GET /hello", served: () => off, proxy: true },
      { name: "proxy, request counter on, GET /hello", served: () => on, proxy: true },
      { name: "proxy, no request counter, measured again (the run-to-run spread)", served: () => off, proxy: true },
    ];
    const drive = (scenario: Scenario, durationSeconds: number, zone = ZONE, conns = connections) => {
      const served = scenario.served();
      return load({
        url: new URL(scenario.proxy === true ? "/hello" : PATH, served.url),
        headers:
          scenario.proxy === true ? { host: PROXY_ZONE } : { host: zone, accept: "application/json", "x-pad": PAD },
        connections: conns,
        durationSeconds,
        expectStatus: scenario.proxy === true ? 200 : STATUS,
        serverCpu: served.cpuSeconds,
      });
    };
    const results = await warmedRounds(scenarios, {
      rounds,
      seconds,
      drive,
      log: (line) => context.log(line),
    });
    const rows: ResultRow[] = loadRows(scenarios, results, (index) => (index < 2 ? 0 : 2));

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
    const dropped = await droppedCount(on, RATE_ZONE, since);
    rows.push({
      name: `records at ${round(burst.answered / burst.seconds, 0)} errors/s: ${recorded} of ${burst.answered} written, ${lost} lost, ${dropped} counted as dropped`,
      reqPerSec: round(burst.answered / burst.seconds, 0),
      ratio: burst.answered === 0 ? 0 : round(recorded / burst.answered, 4),
      failures: burst.other,
    });
    rows.push(...(await ceilings(context)));
    return {
      rows,
      notes: [
        `${rounds} round(s) × ${seconds} s per scenario, ${connections} connections; two Workers (Miniflare), the same`,
        "build with and without the ZONE_ANALYTICS binding, the same zone and request; the ratio is recording's cost.",
        `The last row: ${rateConnections} node:http loops for ${rateSeconds} s on a fresh zone of the recording Worker,`,
        "every 431 counted; its ratio is records written (the zone's analytics total, once settled) ÷ errors answered.",
        "Proxy rows: their ratio is against the proxy without the counter; the third proxy row is that same Worker",
        "measured again, so its distance from 1 is this run's spread.",
        `Ceiling rows: ${CEILING_SENDERS} concurrent senders for ${ceilingSeconds(context)} s each, one RPC per request`,
        "(bench/baseline/object-ceilings.ts); req/s is calls/s of the object(s), the ratio is records/s ÷ 1,000 for",
        "analytics rows and 1 elsewhere. Every object runs in the one workerd process (2 CPUs shared with the senders).",
      ],
    };
  } finally {
    origin.process.kill();
    await on.dispose();
    await off.dispose();
  }
}

const CEILING_SENDERS = 64;
const ceilingSeconds = (context: SuiteContext): number => (context.quick ? 1 : 3);

/** Calls per second of one object (or of `objects` objects, the senders spread over them) under many senders. */
async function ceilings(context: SuiteContext): Promise<ResultRow[]> {
  const probe = await serveWorker({ root: context.root, entry: "bench/baseline/object-ceilings.ts" });
  const seconds = ceilingSeconds(context);
  try {
    const cases: readonly { name: string; path: string; objects: number; records: number }[] = [
      { name: "ceiling: 1 ZoneAnalytics object, batches of 10 records", path: "/analytics", objects: 1, records: 10 },
      { name: "ceiling: 1 ZoneAnalytics object, batches of 500 records", path: "/analytics", objects: 1, records: 500 },
      { name: "ceiling: 4 ZoneAnalytics shards, batches of 10 records", path: "/analytics", objects: 4, records: 10 },
      { name: "ceiling: 4 ZoneAnalytics shards, batches of 500 records", path: "/analytics", objects: 4, records: 500 },
      { name: "ceiling: 1 TagStore (one account), tag writes", path: "/tags", objects: 1, records: 0 },
      { name: "ceiling: 1 ZoneWriter (one zone), edits", path: "/writer", objects: 1, records: 0 },
      { name: "ceiling: 1 RateLimiter, exact counter hits", path: "/rate", objects: 1, records: 0 },
    ];
    const rows: ResultRow[] = [];
    for (const c of cases) {
      const drive = (s: number): Promise<LoadResult[]> =>
        Promise.all(
          Array.from({ length: c.objects }, (_, i) =>
            load({
              url: new URL(`${c.path}?name=ceiling${i}.bench.example&records=${c.records}`, probe.url),
              connections: CEILING_SENDERS / c.objects,
              durationSeconds: s,
              serverCpu: probe.cpuSeconds,
            }),
          ),
        );
      await drive(1); // warm-up (and the writer's zone created)
      const cpuBefore = await probe.cpuSeconds();
      const runs = await drive(seconds);
      const cpuAfter = await probe.cpuSeconds();
      const calls = runs.reduce((sum, r) => sum + r.reqPerSec, 0);
      const answered = runs.reduce((sum, r) => sum + r.requests, 0);
      // The workerd process's CPU per call (the Worker's side of the RPC included): steadier than calls/s on a
      // shared machine, and 10⁶ ÷ it is what one object could take on a CPU of its own (docs/scale.md).
      const cpuUs =
        cpuBefore === null || cpuAfter === null || answered === 0
          ? undefined
          : ((cpuAfter - cpuBefore) * 1e6) / answered;
      const failures = runs.reduce((sum, r) => sum + r.failures, 0);
      const records = c.records * calls;
      context.log(
        `${c.name}: ${round(calls, 0)} calls/s${c.records > 0 ? `, ${round(records, 0)} records/s` : ""}, ` +
          `${cpuUs === undefined ? "?" : round(cpuUs, 0)} µs CPU per call`,
      );
      rows.push({
        name: c.records > 0 ? `${c.name} (${round(records, 0)} records/s)` : c.name,
        reqPerSec: round(calls, 0),
        ...(cpuUs === undefined ? {} : { serverCpuUs: round(cpuUs, 0) }),
        p50Ms: runs[0]?.p50Ms ?? 0,
        p99Ms: runs[0]?.p99Ms ?? 0,
        ratio: c.records > 0 ? round(records / 1000, 1) : 1,
        failures,
      });
    }
    return rows;
  } finally {
    await probe.dispose();
  }
}

async function droppedCount(served: Served, zone: string, since: number): Promise<number> {
  const until = Math.floor(Date.now() / 1000) + 60;
  const answer = await send(
    new URL(`/zones/${zone}/analytics/errors?since=${since}&until=${until}`, served.url),
    "GET",
    { host: "localhost", authorization: `Bearer ${ADMIN_TOKEN}` },
  );
  return (JSON.parse(answer.body) as { result: { dropped: number } }).result.dropped;
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
