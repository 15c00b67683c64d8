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
 *
 * `BENCH_STARTUP_OTHER=<checkout>`: a fourth Worker, the real Worker of another checkout of the repository (its own
 * `src/index.ts` and `wrangler.toml`, e.g. the build before a change), interleaved with the others: two builds
 * compared in the same run.
 *
 * `--instructions`: each start runs under valgrind's callgrind (bench/lib/instructions.ts) and the rows give the
 * instructions of the workerd process from its start to the first answer, which do not move with the machine's
 * other work (3 starts per Worker, medians; a start takes ~10 s under callgrind).
 */
import { performance } from "node:perf_hooks";
import { send } from "../lib/http.ts";
import { serveWorker, type ServeOptions } from "../lib/serve.ts";
import { preciseCpuProbe } from "../lib/cpu.ts";
import { median, round } from "../lib/stats.ts";
import type { ResultRow, SuiteContext, SuiteResult } from "../lib/suite.ts";
import { bundleWorker } from "../lib/serve.ts";
import { sequentialRequests, serveCounted } from "../lib/instructions.ts";

export const description = "a fresh isolate's CPU and latency to its first answer vs a trivial Worker's";

const TRIVIAL = `import { DurableObject } from "cloudflare:workers";
export class TagStore extends DurableObject {}
export class ZoneWriter extends DurableObject {}
export class RateLimiter extends DurableObject {}
export class ZoneAnalytics extends DurableObject {}
export default { fetch() { return new Response("ok"); } };`;

type Kind = "trivial" | "real" | "noRe2" | "other";

interface Sample {
  readonly cpuToFirst: number;
  readonly firstCpu: number;
  readonly firstMs: number;
  readonly wallMs: number;
}

export async function run(context: SuiteContext): Promise<SuiteResult> {
  const { root } = context;
  const other = process.env.BENCH_STARTUP_OTHER;
  const options: Record<Kind, ServeOptions> = {
    trivial: { root, script: TRIVIAL },
    real: { root, entry: "src/index.ts", bindings: { API_HOSTS: "api.invalid" } },
    noRe2: {
      root,
      entry: "src/index.ts",
      bindings: { API_HOSTS: "api.invalid" },
      alias: { re2js: "bench/baseline/re2-stub.ts" },
    },
    other: { root: other ?? root, entry: "src/index.ts", bindings: { API_HOSTS: "api.invalid" } },
  };
  const order: Kind[] = ["trivial", "real", "noRe2", ...(other === undefined ? [] : ["other" as const])];
  const names: Record<Kind, string> = {
    trivial: "trivial Worker",
    real: "real Worker",
    noRe2: "real Worker without the RE2 engine (diagnostic)",
    other: `real Worker of ${other ?? ""} (same run)`,
  };
  const sizes = {
    real: (await bundleWorker(root, "src/index.ts")).length,
    noRe2: (await bundleWorker(root, "src/index.ts", false, { re2js: "bench/baseline/re2-stub.ts" })).length,
    other: other === undefined ? 0 : (await bundleWorker(other, "src/index.ts")).length,
  };
  const bundleNote =
    `bundle: real ${sizes.real} bytes, without RE2 ${sizes.noRe2} bytes` +
    `${other === undefined ? "" : `, ${other} ${sizes.other} bytes`} (esbuild, not minified, as served).`;
  if (context.instructions) return countStartups(context, options, order, names, bundleNote);
  const samples = context.quick ? 1 : 8;
  const results: Record<Kind, Sample[]> = { trivial: [], real: [], noRe2: [], other: [] };
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
      bundleNote,
    ],
  };
}

/** The request of a start: the service endpoint of the real Worker, `/` of the trivial one. */
const firstRequest = (kind: Kind): { readonly path: string; readonly status: number } =>
  kind === "trivial" ? { path: "/", status: 200 } : { path: "/cdn-cgi/error/522", status: 522 };

/**
 * `--instructions`: per Worker, the instructions of a fresh workerd process under callgrind from its start to its
 * first answer (the Worker's compile and top-level evaluation, the Durable Object namespaces, the one request).
 */
async function countStartups(
  context: SuiteContext,
  options: Record<Kind, ServeOptions>,
  order: readonly Kind[],
  names: Record<Kind, string>,
  bundleNote: string,
): Promise<SuiteResult> {
  const samples = context.quick ? 1 : 3;
  const counts: Record<Kind, number[]> = { trivial: [], real: [], noRe2: [], other: [] };
  for (let i = 0; i < samples; i++) {
    for (let j = 0; j < order.length; j++) {
      const kind = order[(i + j) % order.length] as Kind;
      const worker = await serveCounted(options[kind]);
      try {
        const { path, status } = firstRequest(kind);
        const sender = sequentialRequests(
          new URL(path, worker.served.url),
          { host: "localhost", accept: "application/json" },
          status,
        );
        try {
          await sender.send();
        } finally {
          sender.close();
        }
        const total = worker.sinceStart();
        counts[kind].push(total);
        context.log(`${kind}: ${total} instructions from start to first answer`);
      } finally {
        await worker.dispose();
      }
    }
    context.log(`sample ${i + 1}/${samples}`);
  }
  const of = (kind: Kind): number => median(counts[kind]);
  const rows: ResultRow[] = order.map((kind) => ({
    name: `${names[kind]}: instructions from process start to first answer`,
    baseline: kind === "trivial",
    instructionsPerRequest: round(of(kind), 0),
    ...(kind === "trivial" ? {} : { ratio: round(of("trivial") / of(kind)) }),
  }));
  return {
    rows,
    notes: [
      `${samples} start(s) per Worker under callgrind, each a new workerd process (Miniflare), interleaved; medians.`,
      `counts per start: ${order.map((kind) => `${kind} ${counts[kind].join(" / ")}`).join("; ")}.`,
      bundleNote,
    ],
  };
}
