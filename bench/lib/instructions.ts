/**
 * Instructions per request of a Worker's workerd process, counted by valgrind's callgrind (`--instructions`;
 * the error-path performance work (2026-11-22), fourth pass). On this machine req/s and CPU time per request move by ±10 % between runs with whatever
 * else the 2 shared cores do (other processes, hypervisor steal, and the VM exposes no hardware counters to
 * `perf`). An instruction count does not depend on that. It is not a time: it misses cache misses and waits, which
 * the load suites see; it tells which of two builds does less work. A window moves with what V8 does in it, at
 * nearly the same request counts in every process (docs/benchmarks-history.md, "The performance-targets work (2026-11-24): the two instruction levels"):
 * a young-generation GC of the trivial Worker's isolate (every ~1,200 requests) lifts its window ~10 %, an
 * optimizing compile of the real Worker's rules evaluator (around 3,300 and 4,800 requests) 10–16 %. With
 * `traceV8` each window says which it held, and `replaceCompiling` runs another window in place of one during
 * which V8 compiled. Compare builds over several processes.
 *
 * How: Miniflare starts `MINIFLARE_WORKERD_PATH` instead of its own workerd binary when that variable is set; here
 * it is a script that execs workerd under callgrind (same pid) with its output in a directory of ours. After a
 * warm-up (the JIT settles), in each window `callgrind_control -z <pid>` zeroes the counters, `requests` requests
 * go one after the other on one keep-alive connection, `callgrind_control -d <pid>` writes a dump, and its total ÷
 * `requests` is the window's count per request (`CountOptions.idleMs` says what a window must avoid). Under
 * valgrind a request takes ~15 ms. `v8Flags` reach V8 through the same script: it rewrites the binary config
 * Miniflare writes to its stdin (bench/lib/workerd-config.ts) before it execs workerd.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ensureDebianTool } from "./debian-tool.ts";
import { serveWorker, type ServeOptions, type Served } from "./serve.ts";
import { median } from "./stats.ts";
import { isV8Flag } from "./workerd-config.ts";

/** The total instruction count of a callgrind dump (`summary:` in newer files, `totals:` in others), or null. */
export function callgrindTotal(dump: string): number | null {
  const match = /^(?:summary|totals):\s+(\d+)/m.exec(dump);
  return match === null ? null : Number(match[1]);
}

export interface CountOptions {
  /** Requests before any window (the JIT settles). */
  readonly warmup: number;
  /** Requests counted per window, sent one after the other. */
  readonly requests: number;
  /** Windows; the count is their median. */
  readonly windows: number;
  /**
   * With `traceV8`: a window during which V8 compiled or deoptimised (`V8Events`) is reported but not counted, and
   * another window is run in its place, up to this many times (then the median takes what there is). The JIT of
   * the real Worker and of Miniflare's entry Worker still compiles after thousands of requests (docs/benchmarks-history.md,
   * "The performance-targets work (2026-11-24): the two instruction levels"): one TurboFan compile of the rules' `evaluate` lifts its window by
   * 10–16 %. Default 0: every window counts.
   */
  readonly replaceCompiling?: number;
  /**
   * Idle time before each window, then one uncounted request. Work a Worker does per period of time, not per
   * request, must stay out of the windows: under callgrind ~60 requests go by per second instead of thousands, so
   * such work would weigh ~50 times its share under load. The real Worker reads its zone from KV again every 10 s
   * (docs/configuration.md), a KV read costing Miniflare millions of instructions: after more than 10 s of idle, the request
   * before the window refreshes the zone, and a window of a few seconds holds no refresh.
   */
  readonly idleMs: number;
  /**
   * Called with each window's count per request (progress, and to see a process's windows agree), what V8 did
   * during the window when the worker was served with `traceV8` (else null), whether the window counts (false:
   * replaced, `replaceCompiling`), and the window's requests per second of wall clock under callgrind (what work
   * done once per unit of time is shared by: `timeDrivenShare`).
   */
  readonly onWindow?: (perRequest: number, events: V8Events | null, counted: boolean, perSecond: number) => void;
}

/**
 * What V8 did during a window, from its traces (`--trace-gc`, `--trace-opt`, `--trace-deopt`; docs/benchmarks-history.md,
 * "The performance-targets work (2026-11-24): the two instruction levels"). A window's count moves with these, not with the Worker's code: one
 * young-generation GC of the trivial Worker's isolate is ~25 million instructions (+10 % on a window of 300 of its
 * requests), one optimizing compile of a large function tens of millions; both come at fixed request counts.
 */
export interface V8Events {
  /** Young-generation collections (`Scavenge`, `Minor Mark-Sweep`), every isolate of the process. */
  scavenges: number;
  /** Full collections (`Mark-Compact`, `Mark-Sweep`). */
  fullGcs: number;
  /** Optimizing compiles started or finished (Maglev, TurboFan). */
  compiles: number;
  /** Deoptimizations. */
  deopts: number;
}

/** The V8 event a trace line reports (see `V8Events`), or null for any other line. */
export function v8EventOf(line: string): keyof V8Events | null {
  if (/ ms: (?:Scavenge|Minor Mark-Sweep)\b/.test(line)) return "scavenges";
  if (/ ms: (?:Mark-Compact|Mark-Sweep)\b/.test(line)) return "fullGcs";
  if (/^\[(?:compiling method|completed compiling|completed optimizing) /.test(line)) return "compiles";
  if (/^\[(?:bailout|deoptimizing)\b/.test(line)) return "deopts";
  return null;
}

/** V8 flags that print what `V8Events` counts, one line per event. */
export const V8_TRACE_FLAGS: readonly string[] = ["--trace-gc", "--trace-opt", "--trace-deopt"];

/** A Worker served by a workerd that runs under callgrind. */
export interface CountedWorker {
  readonly served: Served;
  /** Instructions per request: the median over `options.windows` windows (`CountOptions`). */
  perRequest(send: () => Promise<void>, options: CountOptions): Promise<number>;
  /**
   * The instructions the process ran since it started (or since the last count): a dump without zeroing first. The
   * startup suite's count of a fresh process from its start to its first answer.
   */
  sinceStart(): number;
  dispose(): Promise<void>;
}

/** The workerd binary Miniflare would start (its `workerd` dependency's default export). */
function workerdBinary(): string {
  const require = createRequire(import.meta.url);
  const miniflare = require.resolve("miniflare");
  const workerd = createRequire(miniflare)("workerd") as { default: string };
  return workerd.default;
}

/** How the wrapper starts workerd: under callgrind or not, and with which V8 flags (`Config.v8Flags`). */
export interface WorkerdLaunch {
  readonly callgrind: boolean;
  /**
   * V8 flags, e.g. `["--no-flush-bytecode"]`: Miniflare's binary config on stdin is rewritten with them
   * (bench/lib/workerd-config.ts) before workerd starts. Empty or absent: the config goes through untouched.
   */
  readonly v8Flags?: readonly string[];
  /**
   * Line-buffered stdout and stderr (coreutils' stdbuf, which execs): V8's traces (`--trace-gc`) go through stdio's
   * buffers, which a pipe holds until they fill; with this, Miniflare's `handleRuntimeStdio` sees them as they come.
   */
  readonly lineBuffered?: boolean;
}

/**
 * Writes `directory/workerd.sh`, a `MINIFLARE_WORKERD_PATH` for `launch`, and returns its path. `exec` keeps the
 * pid: the script writes it to `directory/pid`, then becomes valgrind (or workerd), which becomes workerd.
 */
export function writeWorkerdWrapper(directory: string, launch: WorkerdLaunch): string {
  const flags = launch.v8Flags ?? [];
  for (const flag of flags) if (!isV8Flag(flag)) throw new Error(`not a V8 flag: ${JSON.stringify(flag)}`);
  const require = createRequire(import.meta.url);
  const lines = ["#!/bin/sh", `echo $$ > '${directory}/pid'`];
  let stdin = "";
  if (flags.length > 0) {
    // Miniflare writes the config to stdin and closes it (`serve --binary … -`): rewrite it into a file first.
    const tsx = pathToFileURL(require.resolve("tsx")).href;
    const rewrite = fileURLToPath(new URL("with-v8-flags.ts", import.meta.url));
    lines.push(
      `'${process.execPath}' --import '${tsx}' '${rewrite}' ${flags.join(" ")} > '${directory}/config.bin' || exit 1`,
    );
    stdin = ` < '${directory}/config.bin'`;
  }
  const tool = launch.callgrind
    ? `valgrind --tool=callgrind --callgrind-out-file='${directory}/cg.%p.out' --smc-check=all-non-file ` +
      "--error-limit=no "
    : "";
  const buffering = launch.lineBuffered === true ? "stdbuf -oL -eL " : "";
  lines.push(`exec ${buffering}${tool}'${workerdBinary()}' "$@"${stdin}`, "");
  const wrapper = join(directory, "workerd.sh");
  writeFileSync(wrapper, lines.join("\n"));
  chmodSync(wrapper, 0o755);
  return wrapper;
}

/** `serveWorker(options)` with Miniflare starting `wrapper` instead of its workerd. Start-ups do not overlap. */
export async function serveWrapped(options: ServeOptions, wrapper: string): Promise<Served> {
  const previous = process.env.MINIFLARE_WORKERD_PATH;
  process.env.MINIFLARE_WORKERD_PATH = wrapper;
  try {
    return await serveWorker(options);
  } finally {
    if (previous === undefined) delete process.env.MINIFLARE_WORKERD_PATH;
    else process.env.MINIFLARE_WORKERD_PATH = previous;
  }
}

/** A Worker served with V8 flags, not counted (e.g. to check a flag takes effect). `dispose()` cleans up. */
export async function serveWithV8Flags(options: ServeOptions, v8Flags: readonly string[]): Promise<Served> {
  const directory = mkdtempSync(join(tmpdir(), "bench-v8flags-"));
  try {
    const served = await serveWrapped(options, writeWorkerdWrapper(directory, { callgrind: false, v8Flags }));
    return {
      ...served,
      async dispose() {
        await served.dispose();
        rmSync(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}

/** Counts `V8Events` from trace lines; `take()` returns those since the last `take()`. */
export function v8EventCounter(): { readonly onLine: (line: string) => void; take(): V8Events } {
  let events: V8Events = { scavenges: 0, fullGcs: 0, compiles: 0, deopts: 0 };
  return {
    onLine(line) {
      const kind = v8EventOf(line);
      if (kind !== null) events[kind] += 1;
    },
    take() {
      const taken = events;
      events = { scavenges: 0, fullGcs: 0, compiles: 0, deopts: 0 };
      return taken;
    },
  };
}

/** Time for trace lines already in workerd's pipes to reach their reader (`execFileSync` blocked the event loop). */
const PIPE_SETTLE_MS = 50;

/**
 * The count of `CountOptions` for the callgrind process `pid` whose dumps (`cg.<pid>.out.N`) land in `directory`:
 * the median over the windows of instructions per request. With `events` (workerd's V8 trace lines counted), each
 * window also reports what V8 did during it.
 */
/** Dumps callgrind process `pid`'s counts into `directory` (`callgrind_control -d`) and returns the dump's total. */
function dumpTotal(pid: string, directory: string): number {
  const dumps = (): string[] => readdirSync(directory).filter((name) => name.startsWith(`cg.${pid}.out.`));
  const before = new Set(dumps());
  execFileSync("callgrind_control", ["-d", pid], { stdio: "ignore" });
  const fresh = dumps().find((name) => !before.has(name));
  const total = fresh === undefined ? null : callgrindTotal(readFileSync(join(directory, fresh), "utf8"));
  if (total === null) throw new Error(`no callgrind dump for workerd ${pid} in ${directory}`);
  return total;
}

export function windowCounter(
  pid: string,
  directory: string,
  events: ReturnType<typeof v8EventCounter> | null = null,
): CountedWorker["perRequest"] {
  const dumps = (): string[] => readdirSync(directory).filter((name) => name.startsWith(`cg.${pid}.out.`));
  const settle = (): Promise<unknown> =>
    events === null ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, PIPE_SETTLE_MS));
  return async (send, { warmup, requests, windows, idleMs, onWindow, replaceCompiling = 0 }) => {
    for (let i = 0; i < warmup; i++) await send();
    const counts: number[] = [];
    let replaced = 0;
    while (counts.length < windows) {
      await new Promise((resolve) => setTimeout(resolve, idleMs));
      await send();
      await settle();
      events?.take();
      execFileSync("callgrind_control", ["-z", pid], { stdio: "ignore" });
      const started = performance.now();
      for (let i = 0; i < requests; i++) await send();
      const perSecond = requests / ((performance.now() - started) / 1000);
      const before = new Set(dumps());
      execFileSync("callgrind_control", ["-d", pid], { stdio: "ignore" });
      await settle();
      const seen = events?.take() ?? null;
      const fresh = dumps().find((name) => !before.has(name));
      const total = fresh === undefined ? null : callgrindTotal(readFileSync(join(directory, fresh), "utf8"));
      if (total === null) throw new Error(`no callgrind dump for workerd ${pid} in ${directory}`);
      keepDump(join(directory, fresh as string), `${pid}.${counts.length + replaced}`);
      const replace = seen !== null && seen.compiles + seen.deopts > 0 && replaced < replaceCompiling;
      onWindow?.(total / requests, seen, !replace, perSecond);
      if (replace) replaced += 1;
      else counts.push(total / requests);
    }
    return median(counts);
  };
}

/**
 * With `BENCH_CALLGRIND_KEEP=<directory>`, each window's dump is copied there as `cg.<pid>.<window>.out` before the
 * temporary directory goes: `callgrind_annotate --inclusive=yes` then says which of the runtime's functions (the
 * binary is not stripped: `Headers::get`, the Cache API, a Durable Object call) a request's instructions went to.
 * V8's generated code has no symbols, so the Worker's own JavaScript shows as its calls into the runtime.
 */
function keepDump(dump: string, name: string): void {
  const keep = process.env.BENCH_CALLGRIND_KEEP;
  if (keep === undefined || keep === "") return;
  mkdirSync(keep, { recursive: true });
  copyFileSync(dump, join(keep, `cg.${name}.out`));
}

/**
 * Serves `options` like `serveWorker`, with workerd under callgrind, given `launch.v8Flags` (none by default).
 * Start-ups must not overlap (they don't).
 */
export async function serveCounted(
  options: ServeOptions,
  launch: Omit<WorkerdLaunch, "callgrind"> & {
    /** Count V8's GCs and compiles per window (`V8_TRACE_FLAGS`; `CountOptions.onWindow`). Default false. */
    readonly traceV8?: boolean;
  } = {},
): Promise<CountedWorker> {
  ensureDebianTool("valgrind", ["--version"]);
  const directory = mkdtempSync(join(tmpdir(), "bench-callgrind-"));
  const events = launch.traceV8 === true ? v8EventCounter() : null;
  const flags = [...(launch.v8Flags ?? []), ...(events === null ? [] : V8_TRACE_FLAGS)];
  const wrapper = writeWorkerdWrapper(directory, {
    callgrind: true,
    v8Flags: flags,
    lineBuffered: launch.lineBuffered === true || events !== null,
  });
  const onOutput =
    events === null
      ? options.onOutput
      : (line: string): void => {
          events.onLine(line);
          options.onOutput?.(line);
        };
  const served = await serveWrapped({ ...options, ...(onOutput === undefined ? {} : { onOutput }) }, wrapper);
  const pid = readFileSync(join(directory, "pid"), "utf8").trim();
  return {
    served,
    perRequest: windowCounter(pid, directory, events),
    sinceStart: () => dumpTotal(pid, directory),
    async dispose() {
      await served.dispose();
      if (existsSync(directory)) rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * A sender of one request at a time on one keep-alive connection; `close()` ends the connection. A request whose
 * reused connection was reset before any answer (the server closed it as the request went out, which node:http does
 * not retry) is sent once more on a new connection; any other failure, or a wrong status, rejects.
 */
export function sequentialRequests(
  url: URL,
  headers: Readonly<Record<string, string>>,
  expectStatus: number,
  sent: { readonly method: string; readonly body: string } = { method: "GET", body: "" },
): { readonly send: () => Promise<void>; readonly close: () => void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const { method, body } = sent;
  const once = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const request = http.request(
        { host: url.hostname, port: url.port, path: url.pathname + url.search, agent, headers, method },
        (response) => {
          response.resume();
          response.on("end", () =>
            response.statusCode === expectStatus
              ? resolve()
              : reject(new Error(`expected ${expectStatus}, got ${response.statusCode} from ${url.href}`)),
          );
        },
      );
      request.on("error", reject);
      request.end(body);
    });
  return {
    send: () =>
      once().catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== "ECONNRESET") throw error;
        return once();
      }),
    close: () => agent.destroy(),
  };
}

/** A window's V8 events for the log, e.g. `[6 GC, 3 compile lines; replaced]`. */
export function describeEvents(events: V8Events, counted: boolean): string {
  const parts = [`${events.scavenges + events.fullGcs} GC`];
  if (events.compiles > 0) parts.push(`${events.compiles} compile lines`);
  if (events.deopts > 0) parts.push(`${events.deopts} deopts`);
  return `[${parts.join(", ")}${counted ? "" : "; replaced"}]`;
}

/** What one counted row sends: one request after the other to `url`, each answered with `expectStatus`. */
export interface CountedRequest {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly expectStatus: number;
  /** A `POST` and its body instead of a `GET` (the proxy suite's MCP rows). */
  readonly post?: string;
}

/**
 * One counted row of a suite (`--instructions`): the requests sent one after the other on one connection, counted
 * in `worker` with `count`, and a log line with the row's count and each window's (with what V8 did in it, when
 * traced). Returns instructions per request.
 */
export async function countRequests(
  worker: CountedWorker,
  request: CountedRequest,
  count: Omit<CountOptions, "onWindow">,
  logRow: (countsText: string) => void,
): Promise<number> {
  return (await countRequestsTimed(worker, request, count, logRow)).perRequest;
}

/**
 * `countRequests`, with the requests per second of wall clock the counted windows ran at (their median): under
 * callgrind ~50 instead of thousands, which is what work done once per unit of time is shared by (`timeDrivenShare`).
 */
export async function countRequestsTimed(
  worker: CountedWorker,
  request: CountedRequest,
  count: Omit<CountOptions, "onWindow">,
  logRow: (countsText: string) => void,
): Promise<{ readonly perRequest: number; readonly perSecond: number }> {
  const sent = request.post === undefined ? undefined : { method: "POST", body: request.post };
  const sender = sequentialRequests(request.url, request.headers, request.expectStatus, sent);
  try {
    const windows: string[] = [];
    const rates: number[] = [];
    const onWindow = (perWindow: number, events: V8Events | null, counted: boolean, perSecond: number): void => {
      windows.push(`${Math.round(perWindow)}${events === null ? "" : ` ${describeEvents(events, counted)}`}`);
      if (counted) rates.push(perSecond);
    };
    const perRequest = await worker.perRequest(sender.send, { ...count, onWindow });
    const perSecond = median(rates);
    logRow(
      `${Math.round(perRequest)} instructions/request at ${perSecond.toFixed(1)} requests/s ` +
        `(windows: ${windows.join(", ")})`,
    );
    return { perRequest, perSecond };
  } finally {
    sender.close();
  }
}

/**
 * The instructions per request a row would count at `realPerSecond` requests a second instead of the
 * `countedPerSecond` it ran at under callgrind, when `withWork` and `withoutWork` are the same row with and without
 * some work done once per unit of time (the request counts' delivery to the analytics object, once a second per
 * isolate: docs/analytics.md "Requests and drops"). That work costs the same per second at any rate, so its share of
 * a request is inversely proportional to the rate: `withoutWork + (withWork - withoutWork) * counted / real`
 * (docs/benchmarks.md "Method": time-driven work).
 */
export function timeDrivenShare(
  withWork: number,
  withoutWork: number,
  countedPerSecond: number,
  realPerSecond: number,
): number {
  return withoutWork + ((withWork - withoutWork) * countedPerSecond) / realPerSecond;
}

/**
 * `work()`, again (up to 3 times in all) while it fails with a reset connection: under valgrind the first requests
 * (the bundle's compile, a Durable Object's start) are slow enough that a connection is sometimes reset. For a
 * suite's set-up only; counted requests are never retried this way.
 */
export async function retryReset<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= 3 || (error as NodeJS.ErrnoException).code !== "ECONNRESET") throw error;
    }
  }
}
