/**
 * Tagging API at its account limit: 2,000 resources × 5 tags = 10,000 tags in one account, served
 * by the real Worker with its SQLite TagStore (Miniflare on a port, bench/lib/serve.ts).
 *
 * Ratios, each against a baseline measured in the same run, interleaved in rounds:
 * - keyset pagination: page 50 of the keys listing and the last (20th) page of the resources listing against
 *   their first pages — deep pages must cost what the first one does (target: latency ratio ≤ 1.5, i.e.
 *   throughput ratio ≥ 0.67). (2,000 resources make only 20 resource pages; the keys listing has 60.)
 * - a 20-filter resources query (first and last page) against the unfiltered listing;
 * - keys and values listings, GET of one resource and PUT (replace 5 tags) against the trivial Worker.
 * Plus the latency of one filtered page with ONE connection (no queueing behind other requests): its p50 covers
 * HTTP, the Worker, auth, the RPC and the object, so it bounds the time spent inside the object from above
 * (the tagging work (2026-11-22) target: p50 ≤ 10 ms inside the object). RPC from Node straight to the stub is no better a probe:
 * Miniflare's Node↔workerd proxy alone costs ~10 ms per call here, and workerd's clock does not advance
 * during synchronous SQL, so the object cannot time itself.
 */
import { performance } from "node:perf_hooks";
import { load, type LoadResult } from "../lib/load.ts";
import { serveWorker, type Served } from "../lib/serve.ts";
import { median, quantile, round } from "../lib/stats.ts";
import type { ResultRow, SuiteContext, SuiteResult } from "../lib/suite.ts";

export const description =
  "tagging API at 10,000 tags: keyset pages, 20-filter query, listings, PUT; Miniflare on a port";

const TOKEN = "bench-admin-token";
const ACCOUNT = "0123456789abcdef0123456789abcdef";
const RESOURCES = 2_000;
const AUTH = { authorization: `Bearer ${TOKEN}` };
const pad = (i: number) => String(i).padStart(5, "0");

/** Resource i: two shared keys with few values, three keys of its own (so the keys listing has 60 pages). */
function tagsOf(i: number): Record<string, string> {
  return {
    env: ["prod", "staging", "dev"][i % 3] ?? "prod",
    team: `team-${i % 10}`,
    [`a${pad(i)}`]: "",
    [`b${pad(i)}`]: "x",
    [`c${pad(i)}`]: String(i),
  };
}

/** 20 filters, every kind: matches the prod and staging resources of teams 0–7 (≈ half the account). */
const TWENTY_FILTERS = [
  "env=prod,staging",
  "team=team-0,team-1,team-2,team-3,team-4,team-5,team-6,team-7",
  "env",
  "team",
  "!archived",
  "env!=dev",
  "team!=team-8,team-9",
  ...Array.from({ length: 13 }, (_, i) => (i % 2 === 0 ? `!missing-${i}` : `absent-${i}!=v`)),
].map((f) => `tag=${encodeURIComponent(f)}`);

interface Scenario {
  readonly name: string;
  readonly path: string;
  readonly served: "real" | "baseline";
  /** Name of the scenario this one's ratio is computed against. */
  readonly against: string;
  readonly target?: number;
}

async function api(
  served: Served,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: { result: unknown; result_info?: { cursor: string | null } } }> {
  const res = await fetch(new URL(path, served.url), {
    method,
    headers: { ...AUTH, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { result: unknown; result_info?: { cursor: string | null } };
  return { status: res.status, json };
}

/** Seeds the account through the API (8 PUTs in flight) and returns the PUT latencies and throughput. */
async function seed(served: Served): Promise<{ reqPerSec: number; p50Ms: number; p99Ms: number; failures: number }> {
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next++; i < RESOURCES; i = next++) {
        const t = performance.now();
        const res = await api(served, "PUT", `/accounts/${ACCOUNT}/tags`, {
          resource_type: "worker",
          resource_id: `w${pad(i)}`,
          tags: tagsOf(i),
        });
        latencies.push(performance.now() - t);
        if (res.status !== 200) failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    reqPerSec: RESOURCES / seconds,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    failures,
  };
}

/** The path of page `n` (1-based) of a listing, found by walking its cursors. */
async function pagePath(served: Served, path: string, n: number): Promise<string> {
  let current = path;
  for (let page = 1; page < n; page++) {
    const res = await api(served, "GET", current);
    const cursor = res.json.result_info?.cursor;
    if (res.status !== 200 || !cursor) throw new Error(`${path} has fewer than ${n} pages (stopped at ${page})`);
    current = `${path}${path.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(cursor)}`;
  }
  return current;
}

export async function run(context: SuiteContext): Promise<SuiteResult> {
  const rounds = context.quick ? 1 : 6;
  const duration = context.quick ? 1 : 1.5;
  const real = await serveWorker({ root: context.root, entry: "src/index.ts", bindings: { ADMIN_TOKEN: TOKEN } });
  const baseline = await serveWorker({ root: context.root, entry: "bench/baseline/worker.ts" });
  try {
    context.log(`seeding ${RESOURCES} resources × 5 tags through PUT`);
    const put = await seed(real);
    const base = `/accounts/${ACCOUNT}/tags`;
    const filtered = `${base}/resources?${TWENTY_FILTERS.join("&")}`;
    const filteredPages = Math.ceil((RESOURCES * (2 / 3) * 0.8) / 100);
    const scenarios: Scenario[] = [
      { name: "trivial Worker", path: "/", served: "baseline", against: "trivial Worker" },
      { name: "GET /tags/keys page 1", path: `${base}/keys`, served: "real", against: "trivial Worker" },
      {
        name: "GET /tags/keys page 50",
        path: await pagePath(real, `${base}/keys`, 50),
        served: "real",
        against: "GET /tags/keys page 1",
        target: 0.67,
      },
      { name: "GET /tags/resources page 1", path: `${base}/resources`, served: "real", against: "trivial Worker" },
      {
        name: "GET /tags/resources page 20",
        path: await pagePath(real, `${base}/resources`, 20),
        served: "real",
        against: "GET /tags/resources page 1",
        target: 0.67,
      },
      { name: "20 filters page 1", path: filtered, served: "real", against: "GET /tags/resources page 1" },
      {
        name: `20 filters page ${filteredPages}`,
        path: await pagePath(real, filtered, filteredPages),
        served: "real",
        against: "20 filters page 1",
        target: 0.67,
      },
      { name: "GET /tags/values/team", path: `${base}/values/team`, served: "real", against: "trivial Worker" },
      {
        name: "GET /tags/values/env?type=worker",
        path: `${base}/values/env?type=worker`,
        served: "real",
        against: "trivial Worker",
      },
      {
        name: "GET /tags (one resource)",
        path: `${base}?resource_type=worker&resource_id=w01000`,
        served: "real",
        against: "trivial Worker",
      },
    ];
    const results = new Map<string, LoadResult[]>(scenarios.map((s) => [s.name, []]));
    for (let round = 0; round < rounds; round++) {
      // Rotate the order each round so drift (thermal, other processes) spreads over every scenario.
      const order = scenarios.map((_, i) => scenarios[(i + round) % scenarios.length] as Scenario);
      for (const scenario of order) {
        context.log(`round ${round + 1}/${rounds}: ${scenario.name}`);
        const served = scenario.served === "real" ? real : baseline;
        results.get(scenario.name)?.push(
          await load({
            url: new URL(scenario.path, served.url),
            headers: AUTH,
            connections: 8,
            durationSeconds: duration,
          }),
        );
      }
    }
    const summary = (name: string) => {
      const list = results.get(name) ?? [];
      return {
        reqPerSec: median(list.map((r) => r.reqPerSec)),
        p50Ms: median(list.map((r) => r.p50Ms)),
        p99Ms: median(list.map((r) => r.p99Ms)),
        failures: list.reduce((n, r) => n + r.failures, 0),
      };
    };
    // Each round's ratio uses that round's reference (docs/benchmarks.md "Interleaved rounds"); the median is shown.
    const ratioOf = (name: string, against: string) => {
      const own = results.get(name) ?? [];
      const reference = results.get(against) ?? [];
      return median(own.map((r, i) => r.reqPerSec / (reference[i]?.reqPerSec ?? Number.NaN)));
    };
    const rows: ResultRow[] = scenarios.map((s) => {
      const own = summary(s.name);
      return {
        name: s.name,
        ...(s.against === s.name ? { baseline: true } : { ratio: round(ratioOf(s.name, s.against)) }),
        reqPerSec: round(own.reqPerSec, 0),
        p50Ms: round(own.p50Ms),
        p99Ms: round(own.p99Ms),
        failures: own.failures,
        ...(s.target === undefined ? {} : { target: s.target }),
      };
    });
    rows.push({
      name: "PUT /tags (5 tags, 8 in flight, while seeding)",
      reqPerSec: round(put.reqPerSec, 0),
      p50Ms: round(put.p50Ms),
      p99Ms: round(put.p99Ms),
      ratio: round(put.reqPerSec / summary("trivial Worker").reqPerSec),
      failures: put.failures,
    });
    for (const [name, path] of [
      ["GET /tags (one resource), 1 connection", `${base}?resource_type=worker&resource_id=w01000`],
      ["20 filters page 1, 1 connection (target p50 ≤ 10 ms)", filtered],
    ] as const) {
      const single = await load({
        url: new URL(path, real.url),
        headers: AUTH,
        connections: 1,
        durationSeconds: duration * rounds,
      });
      rows.push({
        name,
        reqPerSec: round(single.reqPerSec, 0),
        p50Ms: round(single.p50Ms),
        p99Ms: round(single.p99Ms),
        failures: single.failures,
      });
    }
    return {
      rows,
      notes: [
        `${RESOURCES} resources × 5 tags = 10,000 tags (the account limit); ${rounds} round(s) of ${duration} s per scenario, 8 connections`,
        "ratio = median over rounds of req/s ÷ that round's req/s of the reference row: deep pages vs first pages, the 20-filter page vs the unfiltered one, listings vs the trivial Worker",
        "a throughput ratio ≥ 0.67 is a latency ratio ≤ 1.5 (keyset pagination)",
        "1-connection rows: end-to-end latency without queueing, an upper bound of the time inside the object",
      ],
    };
  } finally {
    await real.dispose();
    await baseline.dispose();
  }
}
