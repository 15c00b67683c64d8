/**
 * The probe of docs/benchmarks-history.md "The performance-targets work (2026-11-24): where the last gaps are": where a workerd process spends its CPU per
 * request, native code included, for the errors suite's `GET /cdn-cgi/error/522` on the real Worker and on the
 * constant Worker that answers the same bytes and headers. Complements `--instructions` (user-space instructions of
 * JavaScript and runtime alike) with time: a sampling profile of the whole process (`perf record -e cpu-clock`, a
 * software clock, which works where hardware counters are "not supported"), V8's JIT frames named through
 * `--perf-basic-prof` (the flag goes in through bench/lib/instructions.ts's workerd wrapper).
 *
 *   npx tsx bench/probes/cpu-profile.ts [--seconds 10] [--accept application/json] [--rules 20]
 *
 * One fresh process per Worker, load from wrk (16 connections, 3 s of warm-up, then `--seconds` recorded). Prints,
 * per Worker, the µs of CPU per request in each part of the process (V8's collector and workerd's wrapper handling,
 * JavaScript, the runtime's C++, malloc, the kernel), then the symbols whose cost differs most from the constant
 * Worker's. One process per Worker: processes of one build differ by up to ~10 % (docs/benchmarks.md, "the two
 * instruction levels"), so a difference of a few µs between two runs says nothing; compare parts, not totals.
 * `--rules` is the number of non-matching rules after the example zone's (bench/suites/errors.ts `configureLocalhost`).
 */
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs, promisify } from "node:util";
import { ensureDebianTool } from "../lib/debian-tool.ts";
import { serveWrapped, writeWorkerdWrapper } from "../lib/instructions.ts";
import { serveWorker, type ServeOptions } from "../lib/serve.ts";
import { ensureWrk } from "../lib/wrk.ts";
import { REAL_BINDINGS, configureLocalhost, constantWorker } from "../suites/errors.ts";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../..");
const PATH = "/cdn-cgi/error/522";
const HZ = 4000;
const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    accept: { type: "string", default: "application/json" },
    rules: { type: "string", default: "20" },
  },
});
const seconds = Number(values.seconds);
const accept = values.accept;
const rules = Number(values.rules);

ensureWrk();
ensureDebianTool("perf", ["--version"], "linux-perf");

/** Symbol → samples, from `perf report` (self time, no call graph). */
type Samples = Map<string, number>;

interface Profile {
  readonly name: string;
  readonly requests: number;
  readonly samples: Samples;
}

/** The constant Worker of bench/suites/errors.ts, built from one answer of the real Worker. */
async function constantScript(): Promise<string> {
  const real = await serveWorker({ root, entry: "src/index.ts", bindings: REAL_BINDINGS });
  try {
    return await constantWorker(real, accept);
  } finally {
    await real.dispose();
  }
}

async function profile(name: string, options: ServeOptions, configure: boolean): Promise<Profile> {
  const directory = mkdtempSync(join(tmpdir(), "bench-perf-"));
  const wrapper = writeWorkerdWrapper(directory, { callgrind: false, v8Flags: ["--perf-basic-prof"] });
  const served = await serveWrapped(options, wrapper);
  const pid = readFileSync(join(directory, "pid"), "utf8").trim();
  const data = join(directory, "perf.data");
  try {
    if (configure) await configureLocalhost(root, served, rules);
    const args = ["-t1", "-c16", "-H", "Host: localhost", "-H", `Accept: ${accept}`, new URL(PATH, served.url).href];
    // Asynchronous on purpose: this process must keep reading workerd's stdout (its log lines) meanwhile.
    await run("wrk", ["-d3s", ...args]);
    const recorder = spawn("perf", ["record", "-e", "cpu-clock", "-F", String(HZ), "-p", pid, "-o", data], {
      stdio: "ignore",
    });
    const { stdout } = await run("wrk", [`-d${seconds}s`, ...args]);
    recorder.kill("SIGINT");
    await new Promise((done) => recorder.on("exit", done));
    const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? Number.NaN);
    const report = await run(
      "perf",
      ["report", "-i", data, "--stdio", "--no-children", "--sort", "sym", "-F", "sample,sym"],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    return { name, requests, samples: parseReport(report.stdout) };
  } finally {
    await served.dispose();
    rmSync(directory, { recursive: true, force: true });
    rmSync(`/tmp/perf-${pid}.map`, { force: true });
  }
}

/** `perf report -F sample,sym` lines: `  1234  [.] symbol`; script positions and thread ids dropped from JIT names. */
function parseReport(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split("\n")) {
    const match = /^\s*(\d+)\s+\[(.)\]\s+(.*)$/.exec(line);
    if (match === null) continue;
    const kernel = match[2] === "k";
    const symbol =
      (kernel ? "[kernel] " : "") + (match[3] ?? "").replace(/ (script-0|entry\.worker\.js):\d+:\d+| tid \d+/g, "");
    samples.set(symbol, (samples.get(symbol) ?? 0) + Number(match[1]));
  }
  return samples;
}

/** The part of the process a symbol belongs to (coarse, by name). */
function partOf(symbol: string): string {
  if (symbol.startsWith("[kernel]")) return "kernel";
  if (/^(JS:|RegExp|Builtins_|\[JIT\])/.test(symbol)) return "JavaScript and V8 builtins";
  if (/Scaveng|GlobalHandles|Heap::|HeapTracer|Marking|Sweep|Evacuat|IsUnscavenged|Traced|CppHeap|cppgc/.test(symbol)) {
    return "V8 collector and wrapper handling";
  }
  if (/tcmalloc|TCMalloc|malloc/.test(symbol)) return "malloc";
  if (symbol.startsWith("v8::")) return "V8, other";
  if (symbol.startsWith("workerd::")) return "workerd";
  if (symbol.startsWith("kj::") || symbol.startsWith("capnp::")) return "kj (I/O, promises, strings)";
  return "other";
}

const microseconds = (samples: number, requests: number): number => (samples / requests / HZ) * 1e6;

function byPart(p: Profile): Map<string, number> {
  const parts = new Map<string, number>();
  for (const [symbol, count] of p.samples) {
    parts.set(partOf(symbol), (parts.get(partOf(symbol)) ?? 0) + microseconds(count, p.requests));
  }
  return parts;
}

const constant = await profile("constant Worker", { root, script: await constantScript(), durableObjects: {} }, false);
const real = await profile(
  `real Worker, the example rule + ${rules} rules`,
  { root, entry: "src/index.ts", bindings: REAL_BINDINGS },
  true,
);
const profiles = [constant, real];
const parts = profiles.map(byPart);
const names = [...new Set(parts.flatMap((p) => [...p.keys()]))];
console.log(`GET ${PATH}, Accept: ${accept}; µs of CPU per request (perf cpu-clock at ${HZ} Hz)`);
console.log(["part", ...profiles.map((p) => `${p.name} (${p.requests} requests)`)].join(" | "));
for (const part of names) {
  console.log([part, ...parts.map((p) => (p.get(part) ?? 0).toFixed(1))].join(" | "));
}
console.log(["total", ...parts.map((p) => [...p.values()].reduce((a, b) => a + b, 0).toFixed(1))].join(" | "));
console.log("\nsymbols costing the real Worker most over the constant one (µs per request):");
const symbols = new Set([...real.samples.keys(), ...constant.samples.keys()]);
const differences = [...symbols].map((symbol) => ({
  symbol,
  more:
    microseconds(real.samples.get(symbol) ?? 0, real.requests) -
    microseconds(constant.samples.get(symbol) ?? 0, constant.requests),
}));
differences.sort((a, b) => b.more - a.more);
for (const { symbol, more } of differences.slice(0, 15))
  console.log(`${more.toFixed(2).padStart(6)}  ${symbol.slice(0, 110)}`);
