/**
 * The worst request a zone accepts, through the real Worker, on zones of 300 firewall custom rules of each shape
 * of docs/rules-language.md "How many rules a zone holds" (regexes on the User-Agent, on the path, two a rule,
 * `contains`), none matching, so every rule is evaluated and the request goes on to the origin. The worst
 * request: a `User-Agent` that fills the zone's header limit (`max_request_header_bytes`, 32 KiB by default) and a
 * 16 KB URL of `"`, which the runtime's URL parser writes as `%22`, so the path the rules read is 3 × as long (the
 * largest value the worst case assumes). Baseline: the same request on a zone without rules, same Worker, same run;
 * what the rules cost is the row's CPU minus the baseline's. Also the ordinary request (a browser's User-Agent,
 * `/hello`) on the 300 User-Agent regexes against the zone without rules.
 *
 * CPU per request is the Worker's workerd process's CPU time (`/proc`) over the requests of a round; the target is
 * at most 10 ms of CPU for the rules on the worst request. The origin is in this process, with a header limit
 * large enough for the request (Node's default of 16 KiB would refuse it, and the Worker would answer an error).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { api as apiCall, send } from "../lib/http.ts";
import { load, warmedRounds, type LoadResult } from "../lib/load.ts";
import { loadRows } from "../lib/rows.ts";
import { serveWorker, type Served } from "../lib/serve.ts";
import { median, round } from "../lib/stats.ts";
import type { ResultRow, SuiteContext, SuiteResult } from "../lib/suite.ts";

export const description =
  "the worst request a zone accepts (32 KiB of headers, 16 KB URL) on 300 firewall rules of each shape vs no rules";

const ADMIN_TOKEN = "bench-admin-token";
const CLIENT = "203.0.113.7";
const HEADER_LIMIT = 32 * 1024;
/** The most rules the rows use: the Enterprise plan's firewall custom rules. */
const RULES = 300;
/** What the rules may add to the worst request's CPU. */
const TARGET_MS = 10;

interface Shape {
  readonly name: string;
  readonly host: string;
  readonly rule: (k: number) => string;
}

const SHAPES: readonly Shape[] = [
  {
    name: 'http.user_agent matches "bot<k>[0-9]+"',
    host: "ua.rule-sets.bench.example",
    rule: (k) => `http.user_agent matches "bot${k}[0-9]+"`,
  },
  {
    name: 'http.request.uri.path matches "^/p<k>/[a-z]+$"',
    host: "path.rule-sets.bench.example",
    rule: (k) => `http.request.uri.path matches "^/p${k}/[a-z]+$"`,
  },
  {
    name: "two regexes a rule (User-Agent or path)",
    host: "two.rule-sets.bench.example",
    rule: (k) => `http.user_agent matches "crawl${k}[0-9]+" or http.request.uri.path matches "^/q${k}/[a-z]+$"`,
  },
  {
    name: 'http.user_agent contains "bot<k>"',
    host: "contains.rule-sets.bench.example",
    rule: (k) => `http.user_agent contains "bot${k}"`,
  },
];
const PLAIN = "plain.rule-sets.bench.example";

interface Scenario {
  readonly name: string;
  readonly host: string;
  readonly worst: boolean;
  readonly baseline: number;
}

const SCENARIOS: readonly Scenario[] = [
  { name: "zone without rules, the worst request", host: PLAIN, worst: true, baseline: 0 },
  ...SHAPES.map((s) => ({ name: `${RULES} × ${s.name}, the worst request`, host: s.host, worst: true, baseline: 0 })),
  { name: "zone without rules, an ordinary request", host: PLAIN, worst: false, baseline: SHAPES.length + 1 },
  {
    name: `${RULES} × ${SHAPES[0]?.name ?? ""}, an ordinary request`,
    host: SHAPES[0]?.host ?? "",
    worst: false,
    baseline: SHAPES.length + 1,
  },
];

/** A URL of 16 KB as sent: `"` is written `%22` by the runtime, so the path the rules read is ~48 KB. */
const WORST_PATH = `/${'"'.repeat(16 * 1024 - 64)}`;
/** What a browser sends. */
const ORDINARY_UA = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0";

export async function run(context: SuiteContext): Promise<SuiteResult> {
  const rounds = context.quick ? 1 : 6;
  const seconds = context.quick ? 1 : 2;
  const connections = 2;
  const origin = await startOrigin();
  let served: Served | undefined;
  try {
    served = await serveWorker({
      root: context.root,
      entry: "src/index.ts",
      bindings: { ADMIN_TOKEN, API_HOSTS: "localhost" },
    });
    const zone = { plan: "enterprise", origin: origin.url, max_request_header_bytes: HEADER_LIMIT };
    await api(served, "PUT", `/zones/${PLAIN}`, zone);
    // What a new zone version of each shape costs the Worker's process: the ruleset's PUT (validation, compile,
    // the worst case with the sets planned), then the zone's first request (the edge's compile of the version).
    const setup: ResultRow[] = [];
    for (const shape of SHAPES) {
      await api(served, "PUT", `/zones/${shape.host}`, zone);
      const rules = Array.from({ length: RULES }, (_, k) => ({ expression: shape.rule(k), action: "block" }));
      const cpu0 = await served.cpuSeconds();
      await api(served, "PUT", `/zones/${shape.host}/rulesets/phases/http_request_firewall_custom/entrypoint`, {
        rules,
      });
      const cpu1 = await served.cpuSeconds();
      await send(new URL("/hello", served.url), "GET", { host: shape.host, "cf-connecting-ip": CLIENT });
      const cpu2 = await served.cpuSeconds();
      if (cpu0 !== null && cpu1 !== null && cpu2 !== null)
        setup.push(
          {
            name: `new version, ${RULES} × ${shape.name}: the ruleset's PUT (µs of CPU)`,
            serverCpuUs: round((cpu1 - cpu0) * 1e6, 0),
          },
          {
            name: `new version, ${RULES} × ${shape.name}: the first request (µs of CPU)`,
            serverCpuUs: round((cpu2 - cpu1) * 1e6, 0),
          },
        );
    }
    const ua = await largestUserAgent(served, context);
    const headersOf = (scenario: Scenario): Record<string, string> => ({
      host: scenario.host,
      "cf-connecting-ip": CLIENT,
      "user-agent": scenario.worst ? ua : ORDINARY_UA,
    });
    // Every zone answers the worst request from the origin (no rule matches, no error).
    for (const scenario of SCENARIOS) {
      const answer = await send(
        new URL(scenario.worst ? WORST_PATH : "/hello", served.url),
        "GET",
        headersOf(scenario),
      );
      if (answer.status !== 200) throw new Error(`${scenario.name}: status ${answer.status}: ${answer.body}`);
    }
    const target = served;
    const drive = (scenario: Scenario, durationSeconds: number): Promise<LoadResult> =>
      load({
        url: new URL(scenario.worst ? WORST_PATH : "/hello", target.url),
        headers: headersOf(scenario),
        connections,
        durationSeconds,
        serverCpu: target.cpuSeconds,
      });
    const results = await warmedRounds(SCENARIOS, { rounds, seconds, drive, log: (line) => context.log(line) });
    const rows: ResultRow[] = loadRows(SCENARIOS, results, (index) => SCENARIOS[index]?.baseline ?? 0);
    // What the rules add to a request's CPU: the row's CPU minus the same round's baseline's, median over rounds.
    const added = SCENARIOS.map((scenario, index) => {
      const own = results[index] ?? [];
      const base = results[scenario.baseline] ?? [];
      return median(own.map((r, i) => (r.serverCpuUsPerRequest ?? NaN) - (base[i]?.serverCpuUsPerRequest ?? NaN)));
    });
    const addedRows: ResultRow[] = SCENARIOS.flatMap((scenario, index) =>
      scenario.baseline === index
        ? []
        : [
            {
              name: `CPU the rules add: ${scenario.name} (µs/request; target ≤ ${TARGET_MS} ms on the worst request)`,
              serverCpuUs: round(added[index] ?? NaN, 0),
              ...(scenario.worst ? { failures: (added[index] ?? Infinity) > TARGET_MS * 1000 ? 1 : 0 } : {}),
            },
          ],
    );
    return {
      rows: [...rows, ...addedRows, ...setup],
      notes: [
        `${rounds} round(s) × ${seconds} s per scenario, ${connections} connections; the worst request: a User-Agent of ` +
          `${ua.length} bytes (the zone's ${HEADER_LIMIT}-byte header limit, less the other headers), a path of ` +
          `${WORST_PATH.length} bytes as sent (${3 * (WORST_PATH.length - 1) + 1} as the rules read it);`,
        "server CPU = the Worker's workerd process (/proc) per request; 'the rules add' = the row's CPU minus the same " +
          "round's baseline's, median over rounds (a failure there: over the target);",
        "one Worker (Miniflare), enterprise zones, the origin in the bench's process (200, 2 bytes).",
      ],
    };
  } finally {
    await served?.dispose();
    await new Promise<void>((resolve) => origin.server.close(() => resolve()));
  }
}

/**
 * The longest User-Agent the zone accepts beside the bench's other headers (the Worker answers 1038 past its
 * header limit: docs/configuration.md), found by bisection on the zone without rules, less 64 bytes for what the
 * load generator's requests may carry that this probe's do not.
 */
async function largestUserAgent(served: Served, context: SuiteContext): Promise<string> {
  const agent = (n: number): string => `Mozilla/5.0 ${"bot".repeat(Math.ceil(n / 3))}`.slice(0, n);
  let low = 1024;
  let high = HEADER_LIMIT;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    const answer = await send(new URL(WORST_PATH, served.url), "GET", {
      host: PLAIN,
      "cf-connecting-ip": CLIENT,
      "user-agent": agent(mid),
    });
    if (answer.status === 200) low = mid;
    else high = mid;
  }
  context.log(`the longest User-Agent accepted: ${low} bytes`);
  return agent(low - 64);
}

async function startOrigin(): Promise<{ readonly url: string; readonly server: Server }> {
  const server = createServer({ maxHeaderSize: 256 * 1024 }, (_, res) => {
    res.writeHead(200, { "content-type": "text/plain", "cache-control": "no-store" });
    res.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server };
}

const api = (served: Served, method: string, path: string, body: unknown): Promise<void> =>
  apiCall(served.url, ADMIN_TOKEN, method, path, body);
