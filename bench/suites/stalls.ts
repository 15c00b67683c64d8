/**
 * Management calls against traffic (docs/custom-errors.md "Management calls take turns with traffic"): how much longer
 * another zone's plain GET takes while the worst replay, draft previews and traces the limits allow run on the same
 * Worker, against the same GET on the idle Worker, measured in the same run.
 *
 * One Worker (Miniflare). Zone `hot` (enterprise, its origin refuses: every request is a recorded 521) holds 1,000
 * recorded errors with 256-character paths; its saved custom error rules are the heavy ones below. Zone `cold` is the
 * bystander: its GET goes to a local origin that answers 200 at once. A probe sends the cold GET every 20 ms,
 * sequentially, and records its time; each scenario runs the management calls at once, as many as the bounds let
 * different tokens run (src/api/explain/bound.ts: one replay per token and zone, four previews per token and zone):
 *
 *   replay × 3   three tokens, each a replay of the 1,000 records against the saved heavy rules, then each against
 *                a new draft (compiled afresh) of 230 heavy rules (what a 1 MiB body holds of them)
 *   preview × 8  two tokens × four, each a new draft (compiled afresh) of 230 heavy rules, with 64 KiB of headers
 *   trace × 8    two tokens × four, the saved heavy rules on a described origin failure, with 64 KiB of headers
 *
 * A heavy rule is as costly as a custom error rule can be on a replayed or described request: a regular expression
 * over the path concatenated 144 times (concat() makes up to 1 MiB, docs/rules-language.md), so every request runs
 * into its budget. Each row gives the probe's p50/p99/max during the scenario; the baseline row is the idle probe.
 * "added" is the scenario's max minus the idle p50.
 */
import { createServer, type Server } from "node:http";
import { Worker } from "node:worker_threads";
import { tokenDigestHex } from "../../src/api/kit/auth.ts";
import { send } from "../lib/http.ts";
import { serveWorker, type Served } from "../lib/serve.ts";
import { median, quantile, round } from "../lib/stats.ts";
import type { ResultRow, SuiteContext, SuiteResult } from "../lib/suite.ts";

export const description =
  "another zone's GET while the worst replays, draft previews and traces run on the same Worker, vs the idle Worker";

const ADMIN_TOKEN = "bench-admin-token";
const HOT = "hot.stalls.example";
const COLD = "cold.stalls.example";
const TOKENS = ["stall-1", "stall-2", "stall-3"];
const RECORDS = 1000;

/** `concat(x, x, …)` of `n` copies. */
const concatOf = (x: string, n: number): string => `concat(${Array.from({ length: n }, () => x).join(", ")})`;

/** A custom error rule that spends its budget on any request: a regex over the path ~180 times over. */
export function heavyRule(k: number): Record<string, unknown> {
  const path = "http.request.uri.path";
  const subject = concatOf(concatOf(concatOf(path, 4), 6), 6);
  return {
    description: `heavy ${k}`,
    expression: `${subject} matches "(a|b|c)*[0-9]{3}q${k}$"`,
    action: "serve_error",
    action_parameters: { content: `{"k":${k}}`, content_type: "application/json" },
  };
}

const bigHeaders = (): Record<string, string> => {
  const headers: Record<string, string> = { Accept: "application/json" };
  for (let i = 0; i < 7; i++) headers[`X-Pad-${i}`] = "p".repeat(8000);
  return headers;
};

interface Probe {
  readonly times: number[];
  stop: () => Promise<void>;
}

/**
 * The probe's loop, in a thread of its own: the suite's own thread builds and sends the management calls' megabyte
 * bodies and reads their answers, and a probe timed on that thread would count that work as the Worker's.
 */
const PROBE_THREAD = `
const { parentPort, workerData } = require("node:worker_threads");
const { request } = require("node:http");
const times = [];
let running = true;
parentPort.on("message", () => { running = false; });
const once = () => new Promise((resolve, reject) => {
  const started = performance.now();
  const outgoing = request(workerData.url, { method: "GET", headers: { host: workerData.host } }, (response) => {
    let body = "";
    response.setEncoding("utf8");
    response.on("data", (chunk) => (body += chunk));
    response.on("end", () => {
      if (response.statusCode !== 200) reject(new Error("probe: " + response.statusCode + " " + body.slice(0, 200)));
      else resolve(performance.now() - started);
    });
  });
  outgoing.on("error", reject);
  outgoing.end();
});
(async () => {
  while (running) {
    times.push(await once());
    await new Promise((r) => setTimeout(r, 20));
  }
  parentPort.postMessage(times);
})().catch((e) => parentPort.postMessage(String(e)));
`;

function probe(served: Served): Probe {
  const times: number[] = [];
  const thread = new Worker(PROBE_THREAD, {
    eval: true,
    workerData: { url: new URL("/probe", served.url).href, host: COLD },
  });
  const done = new Promise<void>((resolve, reject) => {
    thread.once("message", (said: unknown) => {
      if (Array.isArray(said)) {
        times.push(...(said as number[]));
        resolve();
      } else reject(new Error(String(said)));
    });
    thread.once("error", reject);
  });
  return {
    times,
    stop: async () => {
      thread.postMessage("stop");
      await done;
      await thread.terminate();
    },
  };
}

export async function run(context: SuiteContext): Promise<SuiteResult> {
  const origin: Server = createServer((_, res) => res.writeHead(200, { "Content-Type": "text/plain" }).end("ok"));
  await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
  const address = origin.address();
  if (address === null || typeof address === "string") throw new Error("no origin port");
  const tokens = await Promise.all(
    TOKENS.map(async (name) => ({
      name,
      sha256: await tokenDigestHex(name),
      accounts: ["*"],
      zones: ["*"],
      permissions: ["zones:read"],
    })),
  );
  const served = await serveWorker({
    root: context.root,
    entry: "src/index.ts",
    bindings: { ADMIN_TOKEN, API_HOSTS: "localhost", API_TOKENS: JSON.stringify(tokens) },
  });
  /** A management call, its body already JSON: built before the probe starts (see PROBE_THREAD). */
  interface Call {
    readonly token: string;
    readonly path: string;
    readonly body: string;
  }
  const prepared = (token: string, path: string, body: unknown): Call => ({ token, path, body: JSON.stringify(body) });
  const call = async ({ token, path, body }: Call) => {
    const started = performance.now();
    const answer = await send(
      new URL(path, served.url),
      "POST",
      { host: "localhost", authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
    );
    return { ms: performance.now() - started, status: answer.status, body: answer.body };
  };
  const admin = async (method: string, path: string, body: unknown) => {
    const answer = await send(
      new URL(path, served.url),
      method,
      { host: "localhost", authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      JSON.stringify(body),
    );
    if (answer.status !== 200) throw new Error(`${method} ${path}: ${answer.status} ${answer.body.slice(0, 300)}`);
  };
  try {
    const account = "c".repeat(32);
    await admin("PUT", `/zones/${HOT}`, { plan: "enterprise", origin: "http://127.0.0.1:9", account: { id: account } });
    await admin("PUT", `/zones/${COLD}`, { plan: "enterprise", origin: `http://127.0.0.1:${address.port}` });
    const saved = Array.from({ length: 20 }, (_, k) => heavyRule(k));
    await admin("PUT", `/zones/${HOT}/rulesets/phases/http_custom_errors/entrypoint`, { rules: saved });
    context.log(`recording ${RECORDS} errors on ${HOT}`);
    const long = "/" + "seg-".repeat(63);
    for (let i = 0; i < RECORDS; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          send(new URL(`${long}${i + j}`, served.url), "GET", { host: HOT, accept: "application/json" }),
        ),
      );
    }
    await new Promise((r) => setTimeout(r, 3000));

    const rows: ResultRow[] = [];
    const notes: string[] = [];
    const measure = async (name: string, scenario: () => Promise<string[]>, baseline = false) => {
      const p = probe(served);
      await new Promise((r) => setTimeout(r, 300));
      const said = await scenario();
      await new Promise((r) => setTimeout(r, 300));
      await p.stop();
      const t = p.times;
      rows.push({
        name,
        ...(baseline ? { baseline: true } : {}),
        p50Ms: round(median(t), 1),
        p99Ms: round(quantile(t, 0.99), 1),
        failures: 0,
      });
      notes.push(`${name}: ${t.length} probes, max ${round(Math.max(...t), 1)} ms; ${said.join("; ")}`);
      context.log(`${name}: p50 ${round(median(t), 1)} max ${round(Math.max(...t), 1)}; ${said.join("; ")}`);
      return t;
    };
    const idle = await measure(
      "idle: the bystander's GET alone",
      async () => {
        await new Promise((r) => setTimeout(r, 3000));
        return [];
      },
      true,
    );
    const idleP50 = median(idle);
    const summary = (answers: { ms: number; status: number; body: string }[]): string[] =>
      answers.map((a) => {
        const truncated = /"truncated":true/.test(a.body) ? " truncated" : "";
        return `${a.status} in ${Math.round(a.ms)} ms${truncated}`;
      });
    const draft = (n: number, salt: string) => ({
      rules: Array.from({ length: n }, (_, k) => ({ ...heavyRule(k), description: `${salt} ${k}` })),
    });
    /** The calls of a scenario, sent at once. */
    const allOf = (calls: readonly Call[]) => async () => summary(await Promise.all(calls.map(call)));
    const replays = await measure(
      "replay × 3 (three tokens), 1,000 records, the 20 saved heavy rules (no draft to compile)",
      allOf(TOKENS.map((t) => prepared(t, `/zones/${HOT}/preview/replay`, {}))),
    );
    const draftReplays = await measure(
      "replay × 3 (three tokens), 1,000 records, each with a new draft of 230 heavy rules (compiled afresh)",
      allOf(TOKENS.map((t, i) => prepared(t, `/zones/${HOT}/preview/replay`, { draft: draft(230, `d${i}`) }))),
    );
    const previews = await measure(
      "draft preview × 8 (two tokens × 4), 230 heavy rules, 56 KB of headers",
      allOf(
        Array.from({ length: 8 }, (_, i) =>
          prepared(TOKENS[i % 2]!, `/zones/${HOT}/preview`, {
            draft: draft(230, `p${i}`),
            request: { path: long, headers: bigHeaders(), origin: { failure: "refused" } },
          }),
        ),
      ),
    );
    const traces = await measure(
      "request tracer × 8 (two tokens × 4), 20 saved heavy rules, 56 KB of headers",
      allOf(
        Array.from({ length: 8 }, (_, i) =>
          prepared(TOKENS[i % 2]!, `/accounts/${account}/request-tracer/trace`, {
            method: "GET",
            url: `http://${HOT}${long}`,
            headers: bigHeaders(),
            origin: { failure: "refused" },
          }),
        ),
      ),
    );
    for (const [name, t] of [
      ["replay", replays],
      ["replay with a new draft", draftReplays],
      ["preview", previews],
      ["trace", traces],
    ] as const)
      notes.push(
        `${name}: the bystander's slowest GET took ${round(Math.max(...t) - idleP50, 1)} ms more than the idle p50`,
      );
    return { rows, notes };
  } finally {
    await served.dispose();
    await new Promise<void>((r) => origin.close(() => r()));
  }
}
