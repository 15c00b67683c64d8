/**
 * Error synthesis under load: `GET /cdn-cgi/error/522` on the real Worker, negotiated as JSON
 * and as HTML, against a trivial Worker (`new Response("ok")`) served the same way. Target: ≥ 0.85× the
 * baseline's throughput.
 *
 * Two diagnostic rows (no target) say where a gap comes from:
 *   - "same bytes": a Worker that returns the real Worker's JSON answer (status, headers, body) from
 *     constants: the cost of the response itself, with no per-request work;
 *   - "console dropped": the real Worker bundled without `console.*`: the cost of its log line. The subject is a
 *     preview, so that line is an `error_preview` (docs/configuration.md "Log levels"), built, coalesced and written
 *     by the same code (src/errors/error-log.ts) as a traffic error's `edge_error`: the same cost.
 *
 * The zone `localhost` is configured first, as the error-path performance work (2026-11-22) asks, with the example zone's custom error rule
 * (fixtures/example-zone.json), scoped to another host so it does not answer, plus 20 rules of the shapes the
 * custom-errors suite uses: the error path evaluates them all and none answers. Two diagnostic rows
 * answer from a real Worker whose zone has the example zone's rule only (the error-path performance work (2026-11-22) own words: "the example zone's
 * custom error rules loaded, none matching"): what the 20 further rules cost, 5 of which read a request header each.
 * Another from the example rule as shipped, which answers the JSON error with its own content: a rule's answer.
 *
 * `--wrk`: the load comes from `wrk` (a native process) instead of autocannon in this Node process.
 * `--instructions`: no load; each Worker's workerd runs under callgrind and the rows give instructions per request
 * (bench/lib/instructions.ts), a measure that does not move with the machine's other work.
 *
 * All Workers run at once (one Miniflare each, idle while another is measured). The load generator shares
 * the 2 cores with workerd, so absolute req/s are noisy: scenarios are interleaved in many short rounds
 * (rotating the order), each round's ratio uses that round's baseline, and the row shows the median.
 *
 * Each Worker is served by PROCESSES workerd processes, used in turn from round to round: two processes of one
 * build were measured 8–55 µs of CPU per request apart in one run (docs/benchmarks.md, the error-path performance work (2026-11-22) third pass), so
 * with one process per Worker a run measured the luck of its processes as much as the Workers.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { api, send, type Answer } from "../lib/http.ts";
import { warmedRounds, load, type LoadResult } from "../lib/load.ts";
import { loadRows } from "../lib/rows.ts";
import { inTurn, serveWorker, type ServeOptions, type Served } from "../lib/serve.ts";
import { countRequests, retryReset, serveCounted } from "../lib/instructions.ts";
import type { SuiteContext, SuiteResult } from "../lib/suite.ts";
import { pinApart, type Pinning } from "../lib/pin.ts";
import { wrkLoad } from "../lib/wrk.ts";

export const description = "GET /cdn-cgi/error/522 (JSON, HTML) vs a trivial Worker, Miniflare on a port";

const PATH = "/cdn-cgi/error/522";
const TARGET = 0.85;
/** workerd processes per Worker, used in turn (see above). */
const PROCESSES = 2;

type Server = "baseline" | "real" | "exampleOnly" | "ruleAnswers" | "sameBytes" | "sameHtml" | "noConsole";

interface Scenario {
  readonly name: string;
  readonly server: Server;
  readonly accept: string;
  readonly expectStatus: number;
  /** Content-Type the answer must have (checked once before the load). */
  readonly expectContentType?: string;
  /** Rows with a target are the benchmark; the others explain it. */
  readonly target?: number;
}

const JSON_TYPE = "application/json; charset=utf-8";

const SCENARIOS: readonly Scenario[] = [
  { name: "trivial Worker, same URL and headers", server: "baseline", accept: "application/json", expectStatus: 200 },
  {
    name: `GET ${PATH} (Accept: application/json)`,
    server: "real",
    accept: "application/json",
    expectStatus: 522,
    expectContentType: JSON_TYPE,
    target: TARGET,
  },
  {
    name: `GET ${PATH} (Accept: text/html)`,
    server: "real",
    accept: "text/html",
    expectStatus: 522,
    expectContentType: "text/html; charset=utf-8",
    target: TARGET,
  },
  {
    name: "diagnostic: constant Worker, same JSON answer",
    server: "sameBytes",
    accept: "application/json",
    expectStatus: 522,
    expectContentType: JSON_TYPE,
  },
  {
    name: "diagnostic: constant Worker, same HTML answer",
    server: "sameHtml",
    accept: "text/html",
    expectStatus: 522,
    expectContentType: "text/html; charset=utf-8",
  },
  {
    name: "diagnostic: 522 as JSON, the example zone's rule only",
    server: "exampleOnly",
    accept: "application/json",
    expectStatus: 522,
    expectContentType: JSON_TYPE,
  },
  {
    name: "diagnostic: 522 as HTML, the example zone's rule only",
    server: "exampleOnly",
    accept: "text/html",
    expectStatus: 522,
    expectContentType: "text/html; charset=utf-8",
  },
  {
    // The example rule as shipped answers a JSON client's 5xx with its own content and status 503.
    name: "diagnostic: 522 answered by the example zone's rule (JSON, 503)",
    server: "ruleAnswers",
    accept: "application/json",
    expectStatus: 503,
    expectContentType: JSON_TYPE,
  },
  {
    name: "diagnostic: real Worker, console dropped (JSON)",
    server: "noConsole",
    accept: "application/json",
    expectStatus: 522,
    expectContentType: JSON_TYPE,
  },
];

export async function run(context: SuiteContext): Promise<SuiteResult> {
  if (context.instructions) return countInstructions(context);
  // Many short slices rather than a few long ones: other processes come and go on this machine, and a
  // baseline slice taken seconds apart from its subject slice sees the same neighbours.
  const rounds = context.quick ? 1 : 12;
  const seconds = 1;
  const connections = 8; // enough to keep workerd busy; more only queues on 2 cores (docs/development.md "Load testing")
  const notes: string[] = [];
  const started: Served[] = [];
  let pinning: Pinning | null = null;
  const start = async (served: Promise<Served>): Promise<Served> => {
    const value = await served;
    started.push(value);
    return value;
  };
  try {
    const { root } = context;
    const processes = context.quick ? 1 : PROCESSES;
    const serve = async (options: Parameters<typeof serveWorker>[0]): Promise<Served[]> => {
      const all: Served[] = [];
      for (let i = 0; i < processes; i++) all.push(await start(serveWorker(options)));
      return all;
    };
    const real = await serve({ root, entry: "src/index.ts", bindings: REAL_BINDINGS });
    const first = real[0] as Served;
    // Workers without the TagStore class get no Durable Object binding (workerd would warn); they keep the
    // same KV namespace, vars and serving path as the real Worker.
    const servers: Record<Server, Served[]> = {
      real,
      exampleOnly: await serve({ root, entry: "src/index.ts", bindings: REAL_BINDINGS }),
      ruleAnswers: await serve({ root, entry: "src/index.ts", bindings: REAL_BINDINGS }),
      baseline: await serve({ root, entry: "bench/baseline/worker.ts", durableObjects: {} }),
      sameBytes: await serve({ root, script: await constantWorker(first, "application/json"), durableObjects: {} }),
      sameHtml: await serve({ root, script: await constantWorker(first, "text/html"), durableObjects: {} }),
      noConsole: await serve({ root, entry: "src/index.ts", dropConsole: true, bindings: REAL_BINDINGS }),
    };
    for (const served of [...servers.real, ...servers.noConsole]) await configureLocalhost(root, served);
    for (const served of servers.exampleOnly) await configureLocalhost(root, served, 0);
    for (const served of servers.ruleAnswers) await configureLocalhost(root, served, 0, true);
    for (const scenario of SCENARIOS) {
      for (const served of servers[scenario.server]) {
        const problem = await checkOnce(served, scenario);
        if (problem !== null) notes.push(`WARNING ${scenario.name}: ${problem}`);
      }
    }
    // --wrk: the Workers on their own core, wrk and this process on the other(s) (bench/lib/pin.ts).
    if (context.wrk) pinning = pinApart(Object.values(servers).flatMap((all) => all.map((served) => served.pid)));
    const generator = context.wrk ? wrkLoad : load;
    // Each scenario's slices go to its Worker's processes in turn.
    const next = inTurn((scenario: Scenario) => servers[scenario.server]);
    const drive = (scenario: Scenario, durationSeconds: number): Promise<LoadResult> => {
      const served = next(scenario);
      return generator({
        url: new URL(PATH, served.url),
        headers: { host: "localhost", accept: scenario.accept },
        connections,
        durationSeconds,
        expectStatus: scenario.expectStatus,
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

    const rows = loadRows(SCENARIOS, results, () => 0);
    notes.push(
      `${rounds} round(s) × ${seconds} s per scenario, ${connections} connections, ` +
        `${processes} workerd process(es) per Worker used in turn, ` +
        (context.wrk ? "wrk (a native process, one thread);" : "autocannon in this process;"),
      "zone localhost configured with the example zone's rule (scoped away) and 20 more custom error rules, none matching;",
      "Miniflare (workerd) on 127.0.0.1; ratio = that round's req/s ÷ the same round's baseline, median over rounds;",
      "server CPU = user + system time of the Worker's workerd process per response (/proc), median over rounds.",
      ...(pinning === null ? [] : [pinning.note]),
    );
    return { rows, notes };
  } finally {
    pinning?.restore();
    await Promise.all(started.map((served) => served.dispose()));
  }
}

export const ADMIN_TOKEN = "bench-admin-token";
/**
 * The real Workers serve the management API on 127.0.0.1 only, so that `localhost` is a zone like any other: the
 * subject is `/cdn-cgi/error/522` on `Host: localhost` (Miniflare lets `/cdn-cgi/*` reach a Worker only for
 * localhost hosts), and a zone may not be named after an API host (docs/configuration.md "Zone names").
 */
export const API_HOST = "127.0.0.1";
/** Bindings of every real Worker of this suite and of the probes that configure `localhost` like it. */
export const REAL_BINDINGS = { ADMIN_TOKEN, API_HOSTS: API_HOST };

/**
 * `--instructions`: the same Workers and answers, each request's cost as the instructions its workerd process
 * executes (bench/lib/instructions.ts), requests one after the other. Each scenario gets a fresh process, served
 * alone: an instruction count does not depend on neighbours, but it does on time (below and `CountOptions.idleMs`).
 *
 * Under callgrind a request takes ~15 ms instead of ~0.3 ms, so the real Workers run with the longest log window
 * (ERROR_LOG_COALESCE_MS=1000, the maximum): with the default 50 ms, a log write would come every ~3 requests here
 * against every ~150 under the load suites' 3,000 req/s, and the count would over-weigh it 50 times.
 */
async function countInstructions(context: SuiteContext): Promise<SuiteResult> {
  const { root } = context;
  const count = context.quick
    ? { warmup: 200, requests: 100, windows: 1, idleMs: 10_500, replaceCompiling: 0 }
    : { warmup: 1500, requests: 300, windows: 3, idleMs: 10_500, replaceCompiling: 3 };
  // The constant Workers answer what the real Worker answers: taken from one served the usual way.
  const reference = await serveWorker({ root, entry: "src/index.ts", bindings: REAL_BINDINGS });
  let sameJson: string;
  let sameHtml: string;
  try {
    sameJson = await constantWorker(reference, "application/json");
    sameHtml = await constantWorker(reference, "text/html");
  } finally {
    await reference.dispose();
  }
  const realBindings = { ...REAL_BINDINGS, ERROR_LOG_COALESCE_MS: "1000" };
  const options: Record<Server, ServeOptions> = {
    real: { root, entry: "src/index.ts", bindings: realBindings },
    exampleOnly: { root, entry: "src/index.ts", bindings: realBindings },
    ruleAnswers: { root, entry: "src/index.ts", bindings: realBindings },
    baseline: { root, entry: "bench/baseline/worker.ts", durableObjects: {} },
    sameBytes: { root, script: sameJson, durableObjects: {} },
    sameHtml: { root, script: sameHtml, durableObjects: {} },
    noConsole: { root, entry: "src/index.ts", dropConsole: true, bindings: realBindings },
  };
  const counts: number[] = [];
  const notes: string[] = [];
  // `BENCH_ERRORS_ROWS` (comma-separated row numbers, 0 = the baseline) counts only some rows while developing.
  const only = process.env.BENCH_ERRORS_ROWS?.split(",").map(Number);
  for (const [index, scenario] of SCENARIOS.entries()) {
    if (only !== undefined && !only.includes(index)) {
      counts.push(Number.NaN);
      continue;
    }
    // V8's traces say which windows held a GC or a compile (docs/benchmarks-history.md, "The performance-targets work (2026-11-24): the two instruction
    // levels"): a window during which V8 compiled is shown and replaced (`replaceCompiling`).
    const worker = await serveCounted(options[scenario.server], { traceV8: true });
    try {
      // Under valgrind the first requests (the bundle's compile, the zone writer's Durable Object) are slow
      // enough that a connection is sometimes reset: the set-up is retried; the counted requests are not.
      const served = worker.served;
      if (scenario.server === "real" || scenario.server === "noConsole") {
        await retryReset(() => configureLocalhost(root, served));
      } else if (scenario.server === "exampleOnly" || scenario.server === "ruleAnswers") {
        await retryReset(() => configureLocalhost(root, served, 0, scenario.server === "ruleAnswers"));
      }
      const problem = await retryReset(() => checkOnce(served, scenario));
      if (problem !== null) notes.push(`WARNING ${scenario.name}: ${problem}`);
      const headers = { host: "localhost", accept: scenario.accept };
      const request = { url: new URL(PATH, served.url), headers, expectStatus: scenario.expectStatus };
      counts.push(await countRequests(worker, request, count, (text) => context.log(`${scenario.name}: ${text}`)));
    } finally {
      await worker.dispose();
    }
  }
  const baseline = counts[0] ?? Number.NaN;
  const rows = SCENARIOS.map((scenario, i) => {
    const perRequest = counts[i] ?? Number.NaN;
    return {
      name: scenario.name,
      ...(scenario.server === "baseline" ? { baseline: true } : {}),
      instructionsPerRequest: perRequest,
      ratio: baseline / perRequest,
      ...(scenario.target === undefined ? {} : { target: scenario.target }),
    };
  });
  notes.push(
    `instructions of the Worker's workerd process (all threads) under valgrind's callgrind, per request: ` +
      `${count.warmup} requests of warm-up, then ${count.windows} window(s) of ${count.requests} requests one after ` +
      `the other on one connection, each after ${count.idleMs / 1000} s of idle and one request (the zone cache's ` +
      `10 s refresh stays out of the windows: bench/lib/instructions.ts); a window during which V8 compiled ` +
      `(its traces) is replaced, up to ${count.replaceCompiling} times; median over the windows; one fresh process ` +
      `per scenario. A window moves with the GCs it holds: the trivial Worker's own young-generation GC, every ` +
      `~1,200 requests, lifts its window ~10 % and the median leaves it out (docs/benchmarks.md, the two ` +
      `instruction levels); compare builds over several runs;`,
    "ratio = baseline instructions ÷ the row's (higher is better, like a throughput ratio); real Workers with " +
      "ERROR_LOG_COALESCE_MS=1000 (one log write per ~60 requests; bench/suites/errors.ts).",
  );
  return { rows, notes };
}

/**
 * The error-path performance work (2026-11-22): "a zone whose config is cached, with the example zone's custom error rules loaded, none matching".
 * The example rule answers JSON clients on every 5xx, so as shipped it would answer the JSON scenario; here its
 * expression is kept and scoped to another host, which the engine still evaluates (`and` short-circuits after the
 * host comparison, as a real zone's non-matching rule would). Then `more` (20 by default) non-matching rules of four
 * shapes, a quarter of which the rule index cannot skip (`any(http.request.headers["x-bench-N"][*] eq "yes")`).
 * `answering`: the example rule as shipped, which answers the JSON scenario (a rule-answered error's cost).
 */
export async function configureLocalhost(root: string, served: Served, more = 20, answering = false): Promise<void> {
  const example = JSON.parse(readFileSync(resolve(root, "fixtures/example-zone.json"), "utf8")) as {
    rulesets: { http_custom_errors: { rules: { expression: string }[] } };
  };
  const scoped = example.rulesets.http_custom_errors.rules.map((rule) =>
    answering ? rule : { ...rule, expression: `http.host eq "shop.example" and (${rule.expression})` },
  );
  const further = Array.from({ length: more }, (_, i) => ({
    expression: [
      `http.request.uri.path eq "/never/${i}" and edge.response.error_type eq "5xx"`,
      `any(http.request.headers["x-bench-${i}"][*] eq "yes")`,
      `http.response.code eq ${400 + (i % 100)} and starts_with(http.request.uri.path, "/api/${i}/")`,
      `http.user_agent matches "^NeverBot/${i}\\b" and ssl`,
    ][i % 4],
    action: "serve_error",
    action_parameters: { content: `{"rule":${i}}`, content_type: "application/json" },
  }));
  const zone = { plan: "enterprise", origin: "http://origin.bench.example" };
  await api(served.url, ADMIN_TOKEN, "PUT", "/zones/localhost", zone, API_HOST);
  const path = "/zones/localhost/rulesets/phases/http_custom_errors/entrypoint";
  await api(served.url, ADMIN_TOKEN, "PUT", path, { rules: [...scoped, ...further] }, API_HOST);
}

/** A Worker answering, from constants, exactly what the real Worker answers to `accept` (before any rule is set). */
export async function constantWorker(real: Served, accept: string): Promise<string> {
  const answer = await get(new URL(PATH, real.url), { host: "localhost", accept });
  // Hop-by-hop and per-connection fields are the server's own, not the Worker's.
  const skip = new Set(["content-length", "date", "connection", "keep-alive", "transfer-encoding"]);
  const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !skip.has(name)));
  return [
    `const BODY = ${JSON.stringify(answer.body)};`,
    `const HEADERS = ${JSON.stringify(headers)};`,
    `export default { fetch() { return new Response(BODY, { status: ${answer.status}, headers: HEADERS }); } };`,
  ].join("\n");
}

/** One request with the scenario's headers; a description of what is wrong, or null. */
async function checkOnce(served: Served, scenario: Scenario): Promise<string | null> {
  const answer = await get(new URL(PATH, served.url), { host: "localhost", accept: scenario.accept });
  if (answer.status !== scenario.expectStatus) return `status ${answer.status}, expected ${scenario.expectStatus}`;
  const contentType = answer.headers["content-type"] ?? "";
  if (scenario.expectContentType !== undefined && contentType !== scenario.expectContentType) {
    return `Content-Type ${contentType}, expected ${scenario.expectContentType}`;
  }
  return null;
}

/** A GET with the scenario's headers (node:http sends the Host given: docs/development.md "wrangler dev and /cdn-cgi"). */
const get = (url: URL, headers: Record<string, string>): Promise<Answer> => send(url, "GET", headers);
