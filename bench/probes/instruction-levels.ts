/**
 * The probe of docs/benchmarks-history.md "The performance-targets work (2026-11-24): the two instruction levels": fresh workerd processes under callgrind,
 * each counted in many windows with chosen idle times, printing every window's instructions per request and (with
 * `--trace`) the GCs and compiles V8 reported during it.
 *
 *   npx tsx bench/probes/instruction-levels.ts <worker> [--processes N] [--idles 0,0,500,5000,10500] [--trace]
 *     [--warmup 1500] [--requests 300] [-- V8FLAG…]
 *
 * `<worker>`: `trivial` (bench/baseline/worker.ts through Miniflare, as the suites serve it), `direct` (the same
 * Worker in a workerd started without Miniflare: no Miniflare entry Worker in front), or `real` (src/index.ts with
 * the errors suite's zone, `GET /cdn-cgi/error/522` as JSON). One JSON line per process.
 */
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { configureLocalhost, REAL_BINDINGS } from "../suites/errors.ts";
import { sequentialRequests, serveCounted, type V8Events } from "../lib/instructions.ts";
import { parseWranglerToml } from "../lib/serve.ts";
import { serveDirect } from "../lib/workerd-direct.ts";
import { readFileSync } from "node:fs";

const root = resolve(import.meta.dirname, "../..");
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    processes: { type: "string", default: "1" },
    idles: { type: "string", default: "0,0,500,500,5000,10500,0,10500" },
    trace: { type: "boolean", default: false },
    warmup: { type: "string", default: "1500" },
    requests: { type: "string", default: "300" },
  },
});
const [worker, ...v8Flags] = positionals;
if (worker !== "trivial" && worker !== "direct" && worker !== "real") {
  throw new Error("usage: instruction-levels.ts <trivial|direct|real> [options] [-- V8FLAG…]");
}
const idles = values.idles.split(",").map(Number);
const warmup = Number(values.warmup);
const requests = Number(values.requests);
const { compatibilityDate } = parseWranglerToml(readFileSync(resolve(root, "wrangler.toml"), "utf8"));

interface Counted {
  readonly url: URL;
  readonly perRequest: Awaited<ReturnType<typeof serveCounted>>["perRequest"];
  dispose(): Promise<void>;
}

async function start(): Promise<Counted> {
  if (worker === "direct") {
    const direct = await serveDirect({
      root,
      entry: "bench/baseline/worker.ts",
      compatibilityDate,
      v8Flags,
      callgrind: true,
      traceV8: values.trace,
    });
    return { url: direct.url, perRequest: direct.perRequest, dispose: () => direct.dispose() };
  }
  const options =
    worker === "real"
      ? { root, entry: "src/index.ts", bindings: { ...REAL_BINDINGS, ERROR_LOG_COALESCE_MS: "1000" } }
      : { root, entry: "bench/baseline/worker.ts", durableObjects: {} };
  const counted = await serveCounted(options, { v8Flags, traceV8: values.trace });
  if (worker === "real") await configureLocalhost(root, counted.served);
  return {
    url: counted.served.url,
    perRequest: (send, options) => counted.perRequest(send, options),
    dispose: () => counted.dispose(),
  };
}

for (let index = 0; index < Number(values.processes); index++) {
  const counted = await start();
  try {
    const headers = { host: "localhost", accept: "application/json" };
    const sender = sequentialRequests(
      new URL("/cdn-cgi/error/522", counted.url),
      headers,
      worker === "real" ? 522 : 200,
    );
    const windows: { count: number; events: V8Events | null }[] = [];
    try {
      for (let i = 0; i < warmup; i++) await sender.send();
      for (const idleMs of idles) {
        await counted.perRequest(sender.send, {
          warmup: 0,
          requests,
          windows: 1,
          idleMs,
          onWindow: (count, events) => windows.push({ count: Math.round(count), events }),
        });
      }
    } finally {
      sender.close();
    }
    console.log(JSON.stringify({ worker, v8Flags, process: index, warmup, requests, idles, windows }));
  } finally {
    await counted.dispose();
  }
}
