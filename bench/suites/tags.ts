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
 * - writes, interleaved in rounds of their own: PATCH (one key) and a bulk edit (100 merge edits per call) against
 *   PUT (replace 5 tags), all on the seeded resources and never growing the account; PUT while an enforced policy
 *   (every rule kind, all passing) governs the account against PUT without a policy;
 * - effective-tag listings (`effective=true`: filters on own-else-zone-else-account values, `inherited_tags` on
 *   every item) against the same plain listings, the zone's 50 rulesets inheriting from the zone and the account.
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
  "tagging API at 10,000 tags: keyset pages, 20-filter query, listings, PUT vs PATCH vs bulk, enforced policy, effective tags; Miniflare on a port";

const TOKEN = "bench-admin-token";
const ACCOUNT = "0123456789abcdef0123456789abcdef";
/**
 * 1,948 workers × 5 tags, the account's own `account` resource (its defaults) × 5, one zone × 5 and its 50 zone
 * rulesets × 5: 10,000 tags, 2,000 resources.
 */
const RESOURCES = 1_948;
const ZONE = "bench-tags.example";
const ZONE_RULESETS = 50;
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
  // A 204 (DELETE) has no body.
  const text = await res.text();
  const json = (text === "" ? { result: null } : JSON.parse(text)) as {
    result: unknown;
    result_info?: { cursor: string | null };
  };
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
    await seedZone(real);
    const base = `/accounts/${ACCOUNT}/tags`;
    const filtered = `${base}/resources?${TWENTY_FILTERS.join("&")}`;
    const filteredPages = (await listingPages(real, filtered)).length;
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
      {
        name: "20 filters page 1, effective=true",
        path: `${filtered}&effective=true`,
        served: "real",
        against: "20 filters page 1",
      },
      {
        name: "zone_ruleset resources (50)",
        path: `${base}/resources?type=zone_ruleset`,
        served: "real",
        against: "zone_ruleset resources (50)",
      },
      {
        name: "zone_ruleset resources (50), effective=true",
        path: `${base}/resources?type=zone_ruleset&effective=true`,
        served: "real",
        against: "zone_ruleset resources (50)",
      },
      {
        name: "team=payments on effective tags (inherited by 50)",
        path: `${base}/resources?tag=team%3Dpayments&effective=true`,
        served: "real",
        against: "zone_ruleset resources (50)",
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
    rows.push(...(await writeRows(real, context, rounds, duration)));
    for (const [name, path] of [
      ["GET /tags (one resource), 1 connection", `${base}?resource_type=worker&resource_id=w01000`],
      ["20 filters page 1, 1 connection (target p50 ≤ 10 ms)", filtered],
      ["20 filters page 1, effective=true, 1 connection", `${filtered}&effective=true`],
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
        "writes: 8 requests in flight, fetch from Node; PATCH and bulk ratios are against PUT of the same round; bulk rows count edits/s (100 per call); the enforced-policy ratio is against PUT without a policy in the same round",
      ],
    };
  } finally {
    await real.dispose();
    await baseline.dispose();
  }
}

/** The zone (with the account), the account's defaults, the zone's tags and its 50 zone rulesets' tags. */
async function seedZone(served: Served): Promise<void> {
  const zone = await api(served, "PUT", `/zones/${ZONE}`, {
    plan: "free",
    origin: "http://origin.bench.example",
    account: { id: ACCOUNT },
  });
  if (zone.status !== 200) throw new Error(`zone: ${zone.status} ${JSON.stringify(zone.json)}`);
  const writes: [string, unknown][] = [
    [
      `/accounts/${ACCOUNT}/tags`,
      {
        resource_type: "account",
        resource_id: ACCOUNT,
        tags: { owner: "platform", tier: "1", region: "eu", cost: "c1", policy: "" },
      },
    ],
    [
      `/zones/${ZONE}/tags`,
      {
        resource_type: "zone",
        resource_id: ZONE,
        tags: { team: "payments", env: "prod", oncall: "p", sla: "99.9", zone: "" },
      },
    ],
    ...Array.from({ length: ZONE_RULESETS }, (_, i): [string, unknown] => [
      `/zones/${ZONE}/tags`,
      {
        resource_type: "zone_ruleset",
        resource_id: `rs${pad(i)}`,
        tags: {
          rule: `r${i % 7}`,
          phase: "http_request_firewall_custom",
          [`x${pad(i)}`]: "",
          [`y${pad(i)}`]: "y",
          ...(i % 2 ? { env: "staging" } : { kind: "k" }),
        },
      },
    ]),
  ];
  for (const [path, body] of writes) {
    const res = await api(served, "PUT", path, body);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.json)}`);
  }
}

/** Every page of a listing (its result arrays), following the cursors. */
async function listingPages(served: Served, path: string): Promise<unknown[][]> {
  const pages: unknown[][] = [];
  let current = path;
  for (;;) {
    const res = await api(served, "GET", current);
    if (res.status !== 200) throw new Error(`${current}: ${res.status}`);
    pages.push(res.json.result as unknown[]);
    const cursor = res.json.result_info?.cursor;
    if (!cursor) return pages;
    current = `${path}${path.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(cursor)}`;
  }
}

interface WriteResult {
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly failures: number;
}

/** `connections` writers for `seconds`, each sending `make(n)` for its next n; counts req/s and latencies. */
async function writeLoad(
  served: Served,
  make: (n: number) => { method: string; path: string; body: unknown },
  seconds: number,
): Promise<WriteResult> {
  const latencies: number[] = [];
  let failures = 0;
  let n = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (performance.now() < end) {
        const { method, path, body } = make(n++);
        const t = performance.now();
        const res = await api(served, method, path, body);
        latencies.push(performance.now() - t);
        if (res.status !== 200) failures++;
      }
    }),
  );
  return {
    reqPerSec: latencies.length / ((performance.now() - started) / 1000),
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    failures,
  };
}

/** A policy with every rule kind that the seeded workers' writes all pass. */
const PASSING_POLICY = {
  mode: "enforced",
  key_case: "lower",
  allowed_values: { env: { values: ["prod", "staging", "dev"] }, team: { pattern: "team-[0-9]+" } },
  required_keys: { worker: ["env", "team"] },
};

/**
 * PUT vs PATCH vs bulk, and PUT under an enforced policy vs without, in interleaved rounds (the order rotates).
 * Every write keeps each resource's key set, so the account stays at exactly 10,000 tags.
 */
async function writeRows(served: Served, context: SuiteContext, rounds: number, seconds: number): Promise<ResultRow[]> {
  const base = `/accounts/${ACCOUNT}/tags`;
  let stamp = 0;
  const worker = (n: number) => n % RESOURCES;
  const putOne = (n: number) => {
    const i = worker(n);
    return {
      method: "PUT",
      path: base,
      body: {
        resource_type: "worker",
        resource_id: `w${pad(i)}`,
        tags: { ...tagsOf(i), [`c${pad(i)}`]: `${stamp++}` },
      },
    };
  };
  const kinds = {
    PUT: putOne,
    PATCH: (n: number) => {
      const i = worker(n);
      return {
        method: "PATCH",
        path: base,
        body: { resource_type: "worker", resource_id: `w${pad(i)}`, tags: { [`b${pad(i)}`]: `${stamp++}` } },
      };
    },
    bulk: (n: number) => ({
      method: "POST",
      path: `${base}/bulk`,
      body: {
        edits: Array.from({ length: 100 }, (_, k) => {
          const i = worker(n * 100 + k);
          return {
            op: "merge",
            resource_type: "worker",
            resource_id: `w${pad(i)}`,
            tags: { [`b${pad(i)}`]: `${stamp++}` },
          };
        }),
      },
    }),
    "PUT, enforced policy": putOne,
  } as const;
  type Kind = keyof typeof kinds;
  const names = Object.keys(kinds) as Kind[];
  const results = new Map<Kind, WriteResult[]>(names.map((k) => [k, []]));
  for (let round = 0; round < rounds; round++) {
    for (let j = 0; j < names.length; j++) {
      const kind = names[(j + round) % names.length] as Kind;
      context.log(`round ${round + 1}/${rounds}: ${kind}`);
      const enforced = kind === "PUT, enforced policy";
      const policy = enforced
        ? await api(served, "PUT", `${base}/policy`, PASSING_POLICY)
        : await api(served, "DELETE", `${base}/policy`);
      if (policy.status !== (enforced ? 200 : 204)) throw new Error(`policy: ${policy.status}`);
      results.get(kind)?.push(await writeLoad(served, kinds[kind], seconds));
    }
  }
  await api(served, "DELETE", `${base}/policy`);
  const ratio = (kind: Kind, factor = 1) => {
    const own = results.get(kind) ?? [];
    const put = results.get("PUT") ?? [];
    return median(own.map((r, i) => (r.reqPerSec * factor) / (put[i]?.reqPerSec ?? Number.NaN)));
  };
  const row = (kind: Kind, name: string, factor = 1): ResultRow => {
    const list = results.get(kind) ?? [];
    return {
      name,
      ...(kind === "PUT" ? { baseline: true } : { ratio: round(ratio(kind, factor)) }),
      reqPerSec: round(median(list.map((r) => r.reqPerSec * factor)), 0),
      p50Ms: round(median(list.map((r) => r.p50Ms))),
      p99Ms: round(median(list.map((r) => r.p99Ms))),
      failures: list.reduce((sum, r) => sum + r.failures, 0),
    };
  };
  return [
    row("PUT", "PUT /tags (replace 5 tags), 8 in flight"),
    row("PATCH", "PATCH /tags (one key), 8 in flight"),
    row("bulk", "POST /tags/bulk, 100 merges per call: calls/s"),
    row("bulk", "POST /tags/bulk, 100 merges per call: edits/s", 100),
    row("PUT, enforced policy", "PUT /tags under an enforced policy (4 rule kinds)"),
  ];
}
