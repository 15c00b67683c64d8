/**
 * Origin proxy pass-through (issue 4): zone traffic through the real Worker (zone lookup in the per-isolate
 * cache, header rewriting, CDN-Loop, the connect-timeout race) against a minimal `fetch(origin)` Worker,
 * both served the same way (bench/lib/serve.ts) in front of the same origin (scripts/example-origin.mjs, in
 * its own process). Target: ≥ 0.9× the minimal Worker's throughput.
 *
 * Scenarios: a tiny answer (`/hello`, 22 bytes: the per-request overhead) and a 64 KiB answer (streaming).
 * Rounds are interleaved with a rotating order; each round's ratio uses that round's baseline; the row
 * shows the median over rounds, and each Worker is served by PROCESSES workerd processes used in turn (the same
 * method as the errors suite).
 */
import { request } from "node:http";
import { interleavedRounds, load, type LoadResult } from "../lib/load.ts";
import { startExampleOrigin } from "../lib/origin.ts";
import { loadRows } from "../lib/rows.ts";
import { inTurn, serveWorker, type Served } from "../lib/serve.ts";
import type { SuiteContext, SuiteResult } from "../lib/suite.ts";
import { pinApart, type Pinning } from "../lib/pin.ts";
import { wrkLoad } from "../lib/wrk.ts";

export const description = "zone traffic through the real Worker vs a minimal fetch(origin) Worker, same origin";

const TARGET = 0.9;
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

interface Scenario {
  readonly name: string;
  readonly server: "baseline" | "real";
  readonly path: string;
  readonly target?: number;
}

const SCENARIOS: readonly Scenario[] = [
  { name: "minimal fetch(origin) Worker, GET /hello (22 B)", server: "baseline", path: "/hello" },
  { name: "proxy, GET /hello (22 B)", server: "real", path: "/hello", target: TARGET },
  { name: "minimal fetch(origin) Worker, GET 64 KiB", server: "baseline", path: "/bytes?n=65536" },
  { name: "proxy, GET 64 KiB", server: "real", path: "/bytes?n=65536", target: TARGET },
];

export async function run(context: SuiteContext): Promise<SuiteResult> {
  const rounds = context.quick ? 1 : 16;
  const seconds = 1;
  const connections = 8;
  const origin = await startExampleOrigin(context.root);
  const started: Served[] = [];
  let pinning: Pinning | null = null;
  try {
    const { root } = context;
    // The example origin listens on 127.0.0.1, which an origin may not be while it is an API host (contract §3).
    const processes = context.quick ? 1 : PROCESSES;
    const servers: Record<Scenario["server"], Served[]> = { real: [], baseline: [] };
    for (let i = 0; i < processes; i++) {
      const real = await serveWorker({
        root,
        entry: "src/index.ts",
        bindings: { ADMIN_TOKEN, API_HOSTS: "localhost" },
      });
      started.push(real);
      servers.real.push(real);
      const baseline = await serveWorker({
        root,
        script: MINIMAL_PROXY,
        bindings: { ORIGIN: origin.url },
        durableObjects: {},
      });
      started.push(baseline);
      servers.baseline.push(baseline);
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

    context.log("warm-up");
    for (let i = 0; i < processes; i++) for (const scenario of SCENARIOS) await drive(scenario, 1);

    const results = await interleavedRounds(
      SCENARIOS,
      rounds,
      (scenario) => drive(scenario, seconds),
      (line) => context.log(line),
    );

    // Each subject row is compared with the baseline row of the same payload, round by round.
    const rows = loadRows(SCENARIOS, results, (i) => (SCENARIOS[i]?.server === "baseline" ? i : i - 1));
    return {
      rows,
      notes: [
        `${rounds} round(s) × ${seconds} s per scenario, ${connections} connections, Host ${ZONE}, ` +
          `${processes} workerd process(es) per Worker used in turn, ` +
          (context.wrk ? "wrk (a native process);" : "autocannon in this process;"),
        "origin: scripts/example-origin.mjs in its own process; both Workers on Miniflare (127.0.0.1);",
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

/** `PUT /zones/{ZONE}` through the real Worker's API (Host localhost). */
async function configureZone(workerUrl: URL, origin: string): Promise<void> {
  const body = JSON.stringify({ plan: "pro", origin });
  const status = await new Promise<number>((resolvePromise, reject) => {
    const outgoing = request(
      new URL(`/zones/${ZONE}`, workerUrl),
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
  if (status !== 200) throw new Error(`PUT /zones/${ZONE} answered ${status}`);
}

/** One GET with Host = the zone (node:http sends the Host we give it, fetch would not: toolchain.md §9). */
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
