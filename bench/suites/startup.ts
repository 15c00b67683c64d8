/**
 * Start-up: what a fresh isolate of the real Worker pays before its first answer, against a trivial
 * Worker's, both served the same way (bench/lib/serve.ts). Each sample starts a new workerd process (a new
 * Miniflare), which compiles the bundle and evaluates its top-level code, then sends ONE request:
 *
 *   - "CPU to first answer": the workerd process's CPU seconds from its start to the first response (process start,
 *     the script's compile and top-level evaluation, the Durable Object namespaces, the first request);
 *   - "first request": that request's own latency and CPU (the lazy work the first request does: the error
 *     templates, the catalog, the negotiation memo…);
 *   - "wall to first answer": from `new Miniflare()` to the first response.
 *
 * Three Workers, interleaved sample by sample: the trivial Worker (`new Response("ok")`, exporting empty Durable
 * Object classes under the project's names so both set up the same four SQLite namespaces), the real Worker, and
 * the real Worker with the RE2 engine stubbed out of its bundle (bench/baseline/re2-stub.ts): the difference between
 * the last two is what loading the engine costs a fresh isolate, which says whether it is worth loading lazily.
 * The request is `GET /cdn-cgi/error/522` with `Accept: application/json` (`/` for the trivial Worker).
 * Ratios are baseline ÷ subject (higher is better, as elsewhere): 1.00× means as cheap as the trivial Worker.
 */
import { performance } from "node:perf_hooks";
import { send } from "../lib/http.ts";
import { serveWorker, type ServeOptions } from "../lib/serve.ts";
import { preciseCpuProbe } from "../lib/cpu.ts";
import { median, round } from "../lib/stats.ts";
import type { ResultRow, SuiteContext, SuiteResult } from "../lib/suite.ts";
import { bundleWorker } from "../lib/serve.ts";

export const description = "a fresh isolate's CPU and latency to its first answer vs a trivial Worker's";

const TRIVIAL = `import { DurableObject } from "cloudflare:workers";
export class TagStore extends DurableObject {}
export class ZoneWriter extends DurableObject {}
export class RateLimiter extends DurableObject {}
export class ZoneAnalytics extends DurableObject {}
export default { fetch() { return new Response("ok"); } };`;

type Kind = "trivial" | "real" | "noRe2";

interface Sample {
  readonly cpuToFirst: number;
  readonly firstCpu: number;
  readonly firstMs: number;
  readonly wallMs: number;
}

export async function run(context: SuiteContext): Promise<SuiteResult> {
  const samples = context.quick ? 1 : 8;
  const { root } = context;
  const options: Record<Kind, ServeOptions> = {
    trivial: { root, script: TRIVIAL },
    real: { root, entry: "src/index.ts", bindings: { API_HOSTS: "api.invalid" } },
    noRe2: {
      root,
      entry: "src/index.ts",
      bindings: { API_HOSTS: "api.invalid" },
      alias: { re2js: "bench/baseline/re2-stub.ts" },
    },
  };
  const sizes = {
    real: (await bundleWorker(root, "src/index.ts")).length,
    noRe2: (await bundleWorker(root, "src/index.ts", false, { re2js: "bench/baseline/re2-stub.ts" })).length,
  };
  const results: Record<Kind, Sample[]> = { trivial: [], real: [], noRe2: [] };
  const order: Kind[] = ["trivial", "real", "noRe2"];
  context.log("warm-up (one start of each, discarded)");
  for (const kind of order) await sample(kind);
  for (let i = 0; i < samples; i++) {
    // Rotate which Worker starts first, so a slow moment of the machine does not always fall on one of them.
    for (let j = 0; j < order.length; j++) {
      const kind = order[(i + j) % order.length] as Kind;
      results[kind].push(await sample(kind));
    }
    context.log(`sample ${i + 1}/${samples}`);
  }

  async function sample(kind: Kind): Promise<Sample> {
    const started = performance.now();
    const served = await serveWorker(options[kind]);
    try {
      if (served.pid === null) throw new Error("the workerd process could not be told apart (Linux /proc needed)");
      const cpu = preciseCpuProbe(served.pid);
      const cpuAtReady = (await cpu()) ?? Number.NaN;
      const path = kind === "trivial" ? "/" : "/cdn-cgi/error/522";
      const sent = performance.now();
      const answer = await send(new URL(path, served.url), "GET", { host: "localhost", accept: "application/json" });
      const answered = performance.now();
      const expected = kind === "trivial" ? 200 : 522;
      if (answer.status !== expected) throw new Error(`${kind}: status ${answer.status}, expected ${expected}`);
      const cpuAtAnswer = (await cpu()) ?? Number.NaN;
      return {
        cpuToFirst: cpuAtAnswer,
        firstCpu: cpuAtAnswer - cpuAtReady,
        firstMs: answered - sent,
        wallMs: answered - started,
      };
    } finally {
      await served.dispose();
    }
  }

  const of = (kind: Kind, key: keyof Sample): number => median(results[kind].map((s) => s[key]));
  const rows: ResultRow[] = [];
  const names: Record<Kind, string> = {
    trivial: "trivial Worker",
    real: "real Worker",
    noRe2: "real Worker without the RE2 engine (diagnostic)",
  };
  for (const kind of order) {
    const baseline = kind === "trivial";
    rows.push({
      name: `${names[kind]}: CPU from process start to first answer (µs)`,
      baseline,
      serverCpuUs: round(of(kind, "cpuToFirst") * 1e6, 0),
      ...(baseline ? {} : { ratio: round(of("trivial", "cpuToFirst") / of(kind, "cpuToFirst")) }),
    });
    rows.push({
      name: `${names[kind]}: first request, latency (ms)`,
      baseline,
      p50Ms: round(of(kind, "firstMs"), 2),
      ...(baseline ? {} : { ratio: round(of("trivial", "firstMs") / of(kind, "firstMs")) }),
    });
    rows.push({
      name: `${names[kind]}: first request, server CPU (µs)`,
      baseline,
      serverCpuUs: round(of(kind, "firstCpu") * 1e6, 0),
      ...(baseline ? {} : { ratio: round(of("trivial", "firstCpu") / of(kind, "firstCpu")) }),
    });
    rows.push({ name: `${names[kind]}: wall to first answer (ms)`, baseline, p50Ms: round(of(kind, "wallMs"), 1) });
  }
  return {
    rows,
    notes: [
      `${samples} sample(s) per Worker, each a new workerd process (Miniflare), interleaved; medians.`,
      "CPU: the workerd process's threads' time on CPU (/proc/<pid>/task/*/schedstat, ns resolution).",
      `bundle: real ${sizes.real} bytes, without RE2 ${sizes.noRe2} bytes (esbuild, not minified, as served).`,
    ],
  };
}
