/**
 * Origin proxy pass-through: zone traffic through the real Worker (zone lookup in the per-isolate
 * cache, header rewriting, CDN-Loop, the connect-timeout race) against a minimal `fetch(origin)` Worker,
 * both served the same way (bench/lib/serve.ts) in front of the same origin (scripts/example-origin.mjs, in
 * its own process). Target: ≥ 0.95× the minimal Worker's throughput (the proxy work (2026-11-21) asked 0.9×).
 *
 * Scenarios: a tiny answer (`/hello`, 22 bytes: the per-request overhead) and a 64 KiB answer (streaming).
 * A diagnostic row (no target) serves the tiny answer from `DOCUMENTED_MINIMUM_PROXY`, the least a Worker must do
 * per request under docs/origin.md: how close any proxy can come to the bare Worker on this machine. Another
 * serves it from bench/baseline/forward-step.ts, the proxy's own header scan and `forwardToOrigin` with
 * nothing before them (no dispatch, no zone lookup): between the two, whether a gap lies in the forward step or in
 * what comes before it.
 * Rounds are interleaved with a rotating order; each round's ratio uses that round's baseline; the row
 * shows the median over rounds, and each Worker is served by PROCESSES workerd processes used in turn (the same
 * method as the errors suite).
 *
 * `--instructions`: no load; each Worker's workerd runs under callgrind, one after the
 * other, and the rows give instructions per request on `/hello` (bench/lib/instructions.ts), with the documented
 * minimum also built without some of its parts, to say what each part costs over the bare Worker, and the proxy
 * with telemetry on (docs/telemetry.md): every request's trace exported to an OTLP sink in this process (the export
 * after the response is in the count: callgrind counts the whole process), or traced but not sampled; and the proxy
 * with the fewer-errors fields (docs/fewer-errors.md): `stale_if_error` on, so every good answer is kept as the
 * last good copy (the tee and the Cache API write after the response are in the count), and a fallback origin with
 * a circuit breaker in front of a healthy origin (the guards' cost when nothing fails); and the proxy on a zone with one
 * rate-limiting rule counting every request (docs/producers.md), whose ratio is against the proxy row without it;
 * and a `POST` with a JSON body, plain and as an MCP client sends it (docs/agents.md: recognised, its body scanned).
 * The request counts go to the zone's analytics object once a second, whatever the rate: the rows that carry them are
 * also given at the request rate of an autocannon load in the same run (`timeDrivenShare`, docs/benchmarks.md
 * "Method").
 */
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { warmedRounds, load, type LoadResult } from "../lib/load.ts";
import { startExampleOrigin } from "../lib/origin.ts";
import { loadRows } from "../lib/rows.ts";
import { inTurn, serveWorker, type ServeOptions, type Served } from "../lib/serve.ts";
import type { SuiteContext, SuiteResult } from "../lib/suite.ts";
import { pinApart, type Pinning } from "../lib/pin.ts";
import { wrkLoad } from "../lib/wrk.ts";
import { median } from "../lib/stats.ts";
import {
  countRequestsTimed,
  retryReset,
  serveCounted,
  timeDrivenShare,
  type CountOptions,
} from "../lib/instructions.ts";

export const description = "zone traffic through the real Worker vs a minimal fetch(origin) Worker, same origin";

/** The performance-targets work (2026-11-24): ≥ 0.95× a bare `fetch(origin)` Worker (the proxy work (2026-11-21) asked 0.9×). */
const TARGET = 0.95;
/** workerd processes per Worker, used in turn from round to round (docs/benchmarks.md, Method). */
const PROCESSES = 2;
const ZONE = "bench-proxy.example";
const ADMIN_TOKEN = "bench-admin-token";

/** The whole baseline: forward to the origin, nothing else. */
const MINIMAL_PROXY = `export default {
  fetch(request, env) {
    const url = new URL(request.url);
    return fetch(env.ORIGIN + url.pathname + url.search, {
      method: request.method, headers: request.headers, body: request.body, redirect: "manual",
    });
  },
};`;

/** The parts of `DOCUMENTED_MINIMUM_PROXY`, each of which can be left out (`--instructions` splits its cost). */
export interface MinimumParts {
  /** The one pass over the request headers: the 1038 size and the 1000 loop mark. */
  readonly scan: boolean;
  /**
   * The headers without the hop-by-hop ones, plus `X-Forwarded-Proto`/`-Host` and `CDN-Loop`: as a copy of the
   * incoming `Headers` with `set`s (`copy`), or as a record filled by the scan (`record`, what the proxy does since
   * the second pass of the performance-targets work (2026-11-24), src/edge/origin/headers.ts; needs `scan`), or not at all (`none`).
   */
  readonly edit: "copy" | "record" | "none";
  /** The fetch raced against a timer (522/524). */
  readonly timer: boolean;
}

/**
 * Diagnostic (fourth pass): the least a Worker must do per request to proxy as docs/origin.md says, inline
 * and without structure: measure the header section (1038) and look for the loop mark (1000) in one pass, copy the
 * headers without the hop-by-hop ones, add `X-Forwarded-Proto`/`-Host` and the `CDN-Loop` mark, and race the fetch
 * against a timer (522/524). No zone lookup, no request phases, no failure classification. How close the proxy can
 * get to the bare `fetch(origin)` Worker, on this machine, whatever its code. With parts left out (second
 * pass: `--instructions` only), what each part costs.
 */
export function minimumProxy(parts: MinimumParts): string {
  const lines = [
    `const HOP = new Set(["connection", "proxy-connection", "keep-alive", "te", "transfer-encoding",
  "upgrade", "trailer", "proxy-authorization", "proxy-authenticate", "host"]);
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    let bytes = 0;
    let loop = null;
    const drop = [];
    const fields = {};`,
    parts.scan && parts.edit === "record"
      ? `    for (const [name, value] of request.headers) {
      bytes += name.length + value.length + 4;
      if (HOP.has(name)) continue;
      if (name === "cdn-loop") loop = value;
      fields[name] = value;
    }`
      : "",
    parts.scan && parts.edit !== "record"
      ? `    for (const [name, value] of request.headers) {
      bytes += name.length + value.length + 4;
      if (name === "cdn-loop") loop = value;
      if (HOP.has(name)) drop.push(name);
    }`
      : "",
    parts.scan
      ? `
    if (bytes > 16384) return new Response("1038", { status: 400 });
    if (loop !== null && loop.includes("edge-errors")) return new Response("1000", { status: 403 });`
      : "",
    parts.edit === "copy"
      ? `    const headers = new Headers(request.headers);
    for (const name of drop) headers.delete(name);
    headers.set("x-forwarded-proto", url.protocol.slice(0, -1));
    headers.set("x-forwarded-host", url.host);
    headers.set("cdn-loop", loop ? loop + ", edge-errors" : "edge-errors");`
      : parts.edit === "record"
        ? `    const headers = fields;
    headers["x-forwarded-proto"] = url.protocol.slice(0, -1);
    headers["x-forwarded-host"] = url.host;
    headers["cdn-loop"] = loop ? loop + ", edge-errors" : "edge-errors";`
        : "    const headers = request.headers;",
    `    const hasBody = request.method !== "GET" && request.method !== "HEAD";`,
    parts.timer
      ? `    let timer;
    const response = await new Promise((resolve, reject) => {
      timer = setTimeout(() => resolve(new Response("timeout", { status: 524 })), 15000);
      fetch(env.ORIGIN + url.pathname + url.search, {
        method: request.method, headers, body: hasBody ? request.body : null, redirect: "manual",
      }).then(resolve, reject);
    });
    clearTimeout(timer);
    return response;`
      : `    return fetch(env.ORIGIN + url.pathname + url.search, {
      method: request.method, headers, body: hasBody ? request.body : null, redirect: "manual",
    });`,
    `  },
};`,
  ];
  return lines.filter((line) => line !== "").join("\n");
}

const DOCUMENTED_MINIMUM_PROXY = minimumProxy({ scan: true, edit: "copy", timer: true });

interface Scenario {
  readonly name: string;
  readonly server: "baseline" | "real" | "minimum" | "forward";
  readonly path: string;
  readonly target?: number;
}

const SCENARIOS: readonly Scenario[] = [
  { name: "minimal fetch(origin) Worker, GET /hello (22 B)", server: "baseline", path: "/hello" },
  { name: "proxy, GET /hello (22 B)", server: "real", path: "/hello", target: TARGET },
  {
    name: "diagnostic: the minimum proxy Worker, GET /hello (22 B)",
    server: "minimum",
    path: "/hello",
  },
  {
    name: "diagnostic: the proxy's forward step alone (bench/baseline/forward-step.ts), GET /hello (22 B)",
    server: "forward",
    path: "/hello",
  },
  { name: "minimal fetch(origin) Worker, GET 64 KiB", server: "baseline", path: "/bytes?n=65536" },
  { name: "proxy, GET 64 KiB", server: "real", path: "/bytes?n=65536", target: TARGET },
];

export async function run(context: SuiteContext): Promise<SuiteResult> {
  if (context.instructions) return countInstructions(context);
  const rounds = context.quick ? 1 : 16;
  const seconds = 1;
  const connections = 8;
  const origin = await startExampleOrigin(context.root);
  const started: Served[] = [];
  let pinning: Pinning | null = null;
  try {
    const { root } = context;
    // The example origin listens on 127.0.0.1, which an origin may not be while it is an API host (docs/origin.md).
    const processes = context.quick ? 1 : PROCESSES;
    const servers: Record<Scenario["server"], Served[]> = { real: [], baseline: [], minimum: [], forward: [] };
    // A Worker of its own served once more, remembered with its scenario kind and stopped at the end.
    const serve = async (server: Scenario["server"], options: ServeOptions): Promise<Served> => {
      const served = await serveWorker(options);
      started.push(served);
      servers[server].push(served);
      return served;
    };
    const forwarding = (script: string): ServeOptions => ({
      root,
      script,
      bindings: { ORIGIN: origin.url },
      durableObjects: {},
    });
    for (let i = 0; i < processes; i++) {
      const real = await serve("real", {
        root,
        entry: "src/index.ts",
        bindings: { ADMIN_TOKEN, API_HOSTS: "localhost" },
      });
      await serve("baseline", forwarding(MINIMAL_PROXY));
      await serve("minimum", forwarding(DOCUMENTED_MINIMUM_PROXY));
      await serve("forward", {
        root,
        entry: "bench/baseline/forward-step.ts",
        bindings: { ORIGIN: origin.url },
        durableObjects: {},
      });
      await configureZone(real.url, origin.url);
    }

    for (const scenario of SCENARIOS) {
      for (const served of servers[scenario.server]) {
        const status = await statusOf(new URL(scenario.path, served.url));
        if (status !== 200) throw new Error(`${scenario.name}: status ${status} before the load`);
      }
    }
    if (context.wrk) {
      pinning = pinApart(
        started.map((served) => served.pid),
        origin.process.pid === undefined ? [] : [origin.process.pid],
      );
    }
    const generator = context.wrk ? wrkLoad : load;
    // Each scenario's slices go to its Worker's processes in turn.
    const next = inTurn((scenario: Scenario) => servers[scenario.server]);
    const drive = (scenario: Scenario, durationSeconds: number): Promise<LoadResult> => {
      const served = next(scenario);
      return generator({
        url: new URL(scenario.path, served.url),
        headers: { host: ZONE },
        connections,
        durationSeconds,
        serverCpu: served.cpuSeconds,
      });
    };

    const results = await warmedRounds(SCENARIOS, {
      rounds,
      seconds,
      drive,
      passes: processes,
      log: (line) => context.log(line),
    });

    // Each subject row is compared with the baseline row of the same payload, round by round.
    const rows = loadRows(SCENARIOS, results, (i) =>
      SCENARIOS.findIndex((scenario) => scenario.server === "baseline" && scenario.path === SCENARIOS[i]?.path),
    );
    return {
      rows,
      notes: [
        `${rounds} round(s) × ${seconds} s per scenario, ${connections} connections, Host ${ZONE}, ` +
          `${processes} workerd process(es) per Worker used in turn, ` +
          (context.wrk ? "wrk (a native process);" : "autocannon in this process;"),
        "origin: scripts/example-origin.mjs in its own process; every Worker on Miniflare (127.0.0.1);",
        "ratio = that round's req/s ÷ the same round's baseline for the same payload, median over rounds.",
        ...(pinning === null ? [] : [pinning.note]),
      ],
    };
  } finally {
    pinning?.restore();
    await Promise.all(started.map((served) => served.dispose()));
    origin.process.kill("SIGTERM");
  }
}

/** `PUT /zones/{ZONE}` through the real Worker's API (Host localhost), with `extra` zone fields. */
async function configureZone(workerUrl: URL, origin: string, extra: Record<string, unknown> = {}): Promise<void> {
  await apiPut(workerUrl, `/zones/${ZONE}`, { plan: "pro", origin, ...extra });
}

/** A `PUT` through the real Worker's API (Host localhost) that must answer 200. */
async function apiPut(workerUrl: URL, path: string, value: unknown): Promise<void> {
  const body = JSON.stringify(value);
  const status = await new Promise<number>((resolvePromise, reject) => {
    const outgoing = request(
      new URL(path, workerUrl),
      {
        method: "PUT",
        headers: { host: "localhost", authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      },
      (response) => {
        response.resume();
        response.on("end", () => resolvePromise(response.statusCode ?? 0));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
  if (status !== 200) throw new Error(`PUT ${path} answered ${status}`);
}

/** One GET with Host = the zone (node:http sends the Host we give it, fetch would not: docs/development.md "wrangler dev and /cdn-cgi"). */
function statusOf(url: URL): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const outgoing = request(url, { headers: { host: ZONE } }, (response) => {
      response.resume();
      response.on("end", () => resolvePromise(response.statusCode ?? 0));
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

interface CountedScenario {
  readonly name: string;
  /** `null`: the real Worker (src/index.ts); else a generated Worker's module. */
  readonly script: string | null;
  /** The real Worker's zone with telemetry (docs/telemetry.md) at this `sample.requests`, exported to a sink. */
  readonly telemetry?: { readonly requests: number; readonly protocol: "http/json" | "http/protobuf" };
  /** The real Worker's zone with these fields too (docs/fewer-errors.md). */
  readonly zone?: Readonly<Record<string, unknown>>;
  /** The real Worker's zone with this one rate-limiting rule (docs/producers.md). */
  readonly rateLimit?: Readonly<Record<string, unknown>>;
  /** The real Worker without the `ZONE_ANALYTICS` binding: no request counts, so no tally delivery (below). */
  readonly noAnalytics?: true;
  /** A `POST /hello` with these headers and this body instead of a `GET` (the MCP rows). */
  readonly post?: { readonly headers: Readonly<Record<string, string>>; readonly body: string };
  /** The row whose instructions this one's ratio is taken against (default: the baseline, row 0). */
  readonly against?: number;
}

/** An MCP client's JSON-RPC request (docs/agents.md "MCP answers"): what the MCP rows post, with Content-Length. */
const RPC_BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
const POST_HEADERS = { "content-type": "application/json", "content-length": String(RPC_BODY.length) };

/**
 * A rate-limiting rule that counts every request of the row (approximate counting, the default: leases) and never
 * blocks: 1,000,000 per hour. No `CF-Connecting-IP` is sent, so `ip.src` is the one missing value: one counter.
 */
const COUNTING_RULE = {
  expression: 'http.request.method ne "PURGE"',
  action: "block",
  ratelimit: { characteristics: ["ip.src"], period: 3600, requests_per_period: 1_000_000, mitigation_timeout: 60 },
};

const COUNTED: readonly CountedScenario[] = [
  { name: "minimal fetch(origin) Worker, GET /hello (22 B)", script: MINIMAL_PROXY },
  { name: "proxy, GET /hello (22 B)", script: null },
  {
    name: "proxy, telemetry on, every request exported (sample.requests 1, protobuf), GET /hello",
    script: null,
    telemetry: { requests: 1, protocol: "http/protobuf" },
  },
  {
    name: "proxy, telemetry on, every request exported (sample.requests 1, JSON), GET /hello",
    script: null,
    telemetry: { requests: 1, protocol: "http/json" },
  },
  {
    name: "proxy, telemetry on, no request sampled (sample.requests 0: only errors exported), GET /hello",
    script: null,
    telemetry: { requests: 0, protocol: "http/protobuf" },
  },
  {
    name: "proxy, stale_if_error 600 (every answer kept as the last good copy), GET /hello",
    script: null,
    zone: { stale_if_error: 600 },
  },
  {
    name: "proxy, fallback_origin + circuit_breaker (the origin healthy: neither used), GET /hello",
    script: null,
    // The fallback is the same origin: it is never asked while the origin answers.
    zone: { fallback_origin: "ORIGIN", circuit_breaker: { failures: 5, open_seconds: 30 } },
  },
  { name: "diagnostic: the minimum proxy Worker", script: DOCUMENTED_MINIMUM_PROXY },
  {
    name: "diagnostic: the minimum with the header scan only",
    script: minimumProxy({ scan: true, edit: "none", timer: false }),
  },
  {
    name: "diagnostic: the minimum with the scan and the header edits (no timer)",
    script: minimumProxy({ scan: true, edit: "copy", timer: false }),
  },
  {
    name: "diagnostic: the minimum, fields as a record (as the proxy now)",
    script: minimumProxy({ scan: true, edit: "record", timer: true }),
  },
  {
    name: "proxy, one rate-limiting rule counting every request (vs the proxy row without it), GET /hello",
    script: null,
    rateLimit: COUNTING_RULE,
    against: 1,
  },
  {
    // The zone's request counts go to its analytics object once a second (docs/analytics.md "Requests and drops"):
    // under callgrind ~60 requests share that call, under load thousands. Without the binding nothing is counted.
    name: "diagnostic: proxy without the ZONE_ANALYTICS binding (no request counts, no tally delivery), GET /hello",
    script: null,
    noAnalytics: true,
  },
  {
    // Rows 11 against 1 weigh the tally unequally: the slower rule row shares each second's delivery among fewer
    // requests. Without the binding on both sides (against row 12) the rule's own cost is left.
    name: "diagnostic: one rate-limiting rule, without the ZONE_ANALYTICS binding (vs row 12), GET /hello",
    script: null,
    rateLimit: COUNTING_RULE,
    noAnalytics: true,
    against: 12,
  },
  {
    name: "proxy, POST /hello with a JSON body, not MCP (Accept: application/json)",
    script: null,
    post: { headers: { ...POST_HEADERS, accept: "application/json" }, body: RPC_BODY },
  },
  {
    // Recognised as MCP (docs/agents.md): its body scanned on the way to the origin (rpc-scan.ts), against row 14.
    name: "proxy, the same POST as an MCP client sends it (Accept: application/json, text/event-stream; vs row 14)",
    script: null,
    post: { headers: { ...POST_HEADERS, accept: "application/json, text/event-stream" }, body: RPC_BODY },
    against: 14,
  },
];

/** The rows whose instructions are also given at a load run's request rate (`timeDrivenShare`): row → without the tally. */
const AT_LOAD_RATE: ReadonlyMap<number, number> = new Map([
  [1, 12],
  [11, 13],
]);

/** The project's Durable Objects but the analytics one (bench/lib/serve.ts serves all four by default). */
const WITHOUT_ANALYTICS = { TAG_STORE: "TagStore", ZONE_WRITER: "ZoneWriter", RATE_LIMITER: "RateLimiter" };

/**
 * `--instructions`: instructions per request of each Worker's workerd process under callgrind, one fresh process
 * per scenario and `processes` processes each (the windows of one process agree, processes may not: compare over
 * several). `BENCH_PROXY_ROWS` (a comma-separated list of row numbers, 0 = the baseline) runs only some rows while
 * developing. Each window follows 10.5 s of idle, so the zone's refresh every 10 s (docs/configuration.md) stays out of it.
 */
async function countInstructions(context: SuiteContext): Promise<SuiteResult> {
  const count: CountOptions = context.quick
    ? { warmup: 300, requests: 200, windows: 1, idleMs: 10_500 }
    : { warmup: 1000, requests: 300, windows: 3, idleMs: 10_500 };
  const processes = context.quick ? 1 : 2;
  const only = process.env.BENCH_PROXY_ROWS?.split(",").map(Number);
  const origin = await startExampleOrigin(context.root);
  const sink = await startOtlpSink();
  /** Requests per second of a load run on the row's Worker, not under callgrind (`AT_LOAD_RATE`). */
  const loadRates = new Map<number, number>();
  const counts: number[][] = COUNTED.map(() => []);
  /** Requests per second of wall clock each row's windows ran at under callgrind. */
  const rates: number[][] = COUNTED.map(() => []);
  /** The stale_if_error row's copy of /hello as the cache holds it: what each request writes again. */
  let copyBytes: { readonly fields: number; readonly body: number } | null = null;
  try {
    for (let p = 0; p < processes; p++) {
      for (const [i, scenario] of COUNTED.entries()) {
        if (only !== undefined && !only.includes(i)) continue;
        const real = scenario.script === null;
        const worker = await serveCounted(
          scenario.script === null
            ? {
                root: context.root,
                entry: "src/index.ts",
                // Loopback telemetry endpoints (the sink) are allowed only under the dev switch (docs/telemetry.md).
                bindings: { ADMIN_TOKEN, API_HOSTS: "localhost", WEBHOOK_LOOPBACK: "allow" },
                ...(scenario.noAnalytics === true ? { durableObjects: WITHOUT_ANALYTICS } : {}),
              }
            : { root: context.root, script: scenario.script, bindings: { ORIGIN: origin.url }, durableObjects: {} },
        );
        try {
          const extra = Object.fromEntries(
            Object.entries(scenario.zone ?? {}).map(([k, v]) => [k, v === "ORIGIN" ? origin.url : v]),
          );
          if (real) await retryReset(() => configureZone(worker.served.url, origin.url, extra));
          if (scenario.rateLimit !== undefined) {
            const rules = { rules: [scenario.rateLimit] };
            const path = `/zones/${ZONE}/rulesets/phases/http_ratelimit/entrypoint`;
            await retryReset(() => apiPut(worker.served.url, path, rules));
          }
          const telemetry = scenario.telemetry;
          if (telemetry !== undefined) {
            const body = {
              otlp: { endpoint: `${sink.url}/v1/traces`, protocol: telemetry.protocol },
              sample: { errors: 1, requests: telemetry.requests },
            };
            await retryReset(() => apiPut(worker.served.url, `/zones/${ZONE}/telemetry`, body));
          }
          const status = await retryReset(() => statusOf(new URL("/hello", worker.served.url)));
          if (status !== 200) throw new Error(`${scenario.name}: status ${status} before counting`);
          const url = new URL("/hello", worker.served.url);
          const { post } = scenario;
          const request =
            post === undefined
              ? { url, headers: { host: ZONE }, expectStatus: 200 }
              : { url, headers: { host: ZONE, ...post.headers }, expectStatus: 200, post: post.body };
          const { perRequest, perSecond } = await countRequestsTimed(worker, request, count, (text) =>
            context.log(`${scenario.name}: ${text}`),
          );
          counts[i]?.push(perRequest);
          rates[i]?.push(perSecond);
          if (scenario.zone?.stale_if_error !== undefined) copyBytes = await keptCopyBytes(worker.served);
        } finally {
          await worker.dispose();
        }
      }
    }
    for (const [i, without] of AT_LOAD_RATE) {
      if (counts[i]?.length === 0 || counts[without]?.length === 0) continue;
      loadRates.set(i, await loadRate(context, origin.url, COUNTED[i]?.rateLimit));
    }
  } finally {
    origin.process.kill("SIGTERM");
    await sink.close();
  }
  const perRow = counts.map((all) => (all.length === 0 ? Number.NaN : median(all)));
  const perSecondOf = (i: number): number => median(rates[i] ?? []);
  const atLoadRate = new Map(
    [...loadRates].map(([i, real]) => {
      const without = AT_LOAD_RATE.get(i) ?? i;
      const at = timeDrivenShare(perRow[i] ?? Number.NaN, perRow[without] ?? Number.NaN, perSecondOf(i), real);
      return [i, at] as const;
    }),
  );
  const baseline = perRow[0] ?? Number.NaN;
  const rows = COUNTED.map((scenario, i) => {
    const against = scenario.against ?? 0;
    const at = atLoadRate.get(i);
    // The rate-limited zone's ratio at the load's rate is against the zone without the rule at its own.
    const atAgainst = against === 0 ? baseline : (atLoadRate.get(against) ?? Number.NaN);
    return {
      name: scenario.name,
      ...(i === 0 ? { baseline: true } : {}),
      instructionsPerRequest: perRow[i] ?? Number.NaN,
      ratio: (perRow[against] ?? Number.NaN) / (perRow[i] ?? Number.NaN),
      // The targets: zone traffic against the bare Worker, one rate-limiting rule against the same zone without it.
      ...(i === 1 || i === 11 ? { target: TARGET } : {}),
      ...(at === undefined ? {} : { instructionsAtLoadRate: at, ratioAtLoadRate: atAgainst / at }),
    };
  });
  return {
    rows,
    notes: [
      `instructions of the Worker's workerd process (all threads) under valgrind's callgrind, per request on /hello: ` +
        `${count.warmup} requests of warm-up, then ${count.windows} window(s) of ${count.requests} requests one after ` +
        `the other on one connection, each after ${count.idleMs / 1000} s of idle and one request; median over the ` +
        `windows, then over ${processes} fresh process(es) per row (counts per process: ` +
        counts.map((all) => all.map((n) => Math.round(n)).join("/")).join("; ") +
        ");",
      "ratio = baseline instructions ÷ the row's (higher is better, like a throughput ratio); a row that names " +
        "another row is against that one.",
      "requests per second under callgrind (median window) per row: " +
        COUNTED.map((_, i) => (rates[i]?.length ? `${i}: ${perSecondOf(i).toFixed(1)}` : ""))
          .filter(Boolean)
          .join(", ") +
        ";",
      ...(loadRates.size === 0
        ? []
        : [
            "at the load's rate: the request counts' delivery to the analytics object is made once a second per " +
              "isolate, so its share of a request is its cost per second ÷ the requests a second; the row's " +
              "instructions minus the same row without the ZONE_ANALYTICS binding, times the rate under callgrind ÷ " +
              "the rate of an autocannon load on the same Worker, not under callgrind, in this run (" +
              [...loadRates].map(([i, real]) => `row ${i}: ${Math.round(real)} req/s`).join(", ") +
              '), plus the row without the binding (docs/benchmarks.md "Method").',
          ]),
      `telemetry rows: the OTLP sink (this process, 200 to every POST) received ${sink.received()} export request(s).`,
      ...(copyBytes === null
        ? []
        : [
            `stale_if_error row: each request writes the copy of /hello again: ${copyBytes.fields + copyBytes.body} B ` +
              `(${copyBytes.fields} B of fields, name + value + 4 each, and the ${copyBytes.body} B body) to the ` +
              "Cache API, Miniflare's local implementation here (in the same workerd process, so in the count).",
          ]),
    ],
  };
}

/**
 * The requests per second one process of the real Worker serves on `GET /hello` under autocannon (8 connections, 3 s
 * after 2 s of warm-up), not under callgrind: the rate its once-a-second work is shared by under load. The zone as
 * the counted row has it (with `rateLimit`, that rule). Moves with the machine's load like any wall-clock number.
 */
async function loadRate(
  context: SuiteContext,
  origin: string,
  rateLimit: Readonly<Record<string, unknown>> | undefined,
): Promise<number> {
  const served = await serveWorker({
    root: context.root,
    entry: "src/index.ts",
    bindings: { ADMIN_TOKEN, API_HOSTS: "localhost" },
  });
  try {
    await configureZone(served.url, origin);
    if (rateLimit !== undefined) {
      const path = `/zones/${ZONE}/rulesets/phases/http_ratelimit/entrypoint`;
      await apiPut(served.url, path, { rules: [rateLimit] });
    }
    const options = { url: new URL("/hello", served.url), headers: { host: ZONE }, connections: 8 };
    await load({ ...options, durationSeconds: context.quick ? 1 : 2 });
    const measured = await load({ ...options, durationSeconds: context.quick ? 1 : 3 });
    if (measured.failures > 0) throw new Error(`load rate: ${measured.failures} failure(s)`);
    context.log(
      `load rate${rateLimit === undefined ? "" : " (one rate-limiting rule)"}: ${Math.round(measured.reqPerSec)} req/s`,
    );
    return measured.reqPerSec;
  } finally {
    await served.dispose();
  }
}

/**
 * The copy of `/hello` the stale_if_error row kept, read back from the Worker's Cache API (its key as
 * src/edge/stale/copies.ts writes it): the bytes of its fields and body.
 */
async function keptCopyBytes(served: Served): Promise<{ readonly fields: number; readonly body: number }> {
  const cache = await served.miniflare.getCaches();
  const kept = await (
    await cache.open("stale-copies")
  ).match(`https://${ZONE}/cdn-cgi/stale-copy/${encodeURIComponent("http:/hello")}`);
  if (kept === undefined) throw new Error("stale_if_error row: no copy of /hello was kept");
  let fields = 0;
  // The runtime's own cache status field is added on the way out, never stored.
  for (const [name, value] of kept.headers) if (name !== "cf-cache-status") fields += name.length + value.length + 4;
  return { fields, body: (await kept.arrayBuffer()).byteLength };
}

/** An OTLP/HTTP receiver that accepts and discards: the telemetry rows' endpoint. */
async function startOtlpSink(): Promise<{ url: string; received(): number; close(): Promise<void> }> {
  let received = 0;
  const server: Server = createServer((incoming, outgoing) => {
    incoming.resume();
    incoming.on("end", () => {
      received++;
      outgoing.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolvePromise) => server.listen(0, "127.0.0.1", resolvePromise));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => received,
    close: () => new Promise((resolvePromise) => server.close(() => resolvePromise())),
  };
}
