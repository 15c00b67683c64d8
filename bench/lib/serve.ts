/**
 * Serve a Worker entry on a 127.0.0.1 port for load tests: esbuild bundle → Miniflare with `port:`.
 * Not `wrangler dev`: its proxy layer costs ~4× Miniflare's throughput and adds 1–10 ms per request
 * (docs/development.md "Load testing"), which would drown what we measure. Every Worker a suite compares (the real one and
 * its baseline) goes through this same function, so both pay the same serving overhead.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { build, type BuildOptions } from "esbuild";
import { Miniflare } from "miniflare";
import { childPids, cpuProbe, type CpuProbe } from "./cpu.ts";

export interface ServeOptions {
  /** Worker entry, relative to `root` (e.g. "src/index.ts" or "bench/baseline/worker.ts"), bundled by esbuild. */
  readonly entry?: string;
  /** Or a ready ES module (JavaScript), e.g. a generated reference Worker; used as-is. */
  readonly script?: string;
  /** Repository root: `wrangler.toml` there gives the compatibility date and `[vars]`. */
  readonly root: string;
  /** Extra or overriding bindings (vars, secrets) on top of wrangler.toml's `[vars]`. */
  readonly bindings?: Readonly<Record<string, string>>;
  /** KV namespaces to create (in memory); defaults to the project's `CONFIG`. */
  readonly kvNamespaces?: readonly string[];
  /** SQLite Durable Object bindings → class names exported by the entry; defaults to the project's own (`TAG_STORE`, `ZONE_WRITER`, `RATE_LIMITER`, `ZONE_ANALYTICS`). */
  readonly durableObjects?: Readonly<Record<string, string>>;
  /**
   * Remove `console.*` calls at bundle time (esbuild `drop`): for profiling only, to see what the
   * Worker's own log lines cost. Default false: the Worker is measured as it ships.
   */
  readonly dropConsole?: boolean;
  /**
   * esbuild `alias`: module specifier → path relative to `root`, e.g. `{ re2js: "bench/baseline/re2-stub.ts" }` to
   * see what a dependency costs a fresh isolate (the startup suite). Default: none, the Worker as it ships.
   */
  readonly alias?: Readonly<Record<string, string>>;
  /** Forward workerd's stdout/stderr (the Worker's console lines, warnings) to ours; default: discard. */
  readonly showLogs?: boolean;
  /** Or hand each line workerd writes (stdout and stderr) to this function, e.g. to time V8's `--trace-gc` lines. */
  readonly onOutput?: (line: string) => void;
}

export interface Served {
  /** Base URL, e.g. `http://127.0.0.1:40123/`. */
  readonly url: URL;
  /** The Miniflare instance, e.g. to seed KV with `getKVNamespace("CONFIG")`. */
  readonly miniflare: Miniflare;
  /** CPU seconds used so far by this instance's workerd process (Linux), or null; pass it to `load()`. */
  readonly cpuSeconds: CpuProbe;
  /** This instance's workerd process id, when it could be told apart (Linux), else null (see `pin.ts`). */
  readonly pid: number | null;
  dispose(): Promise<void>;
}

/** The project's bindings (docs/architecture.md) that a Worker entry may need; unused ones cost nothing. */
const PROJECT_KV = ["CONFIG"];
const PROJECT_DOS: Readonly<Record<string, string>> = {
  TAG_STORE: "TagStore",
  ZONE_WRITER: "ZoneWriter",
  RATE_LIMITER: "RateLimiter",
  ZONE_ANALYTICS: "ZoneAnalytics",
};

/** esbuild's options for a Worker bundle, as wrangler builds one (docs/development.md "Tests inside workerd"). */
export const WORKER_BUILD_OPTIONS = {
  bundle: true,
  format: "esm",
  // wrangler's own platform (its default): packages that map their Node modules away with the `browser` field
  // (the OpenTelemetry packages, docs/telemetry.md) resolve as they do in a deployment.
  platform: "browser",
  conditions: ["workerd", "worker", "browser"],
  target: "es2022",
  external: ["cloudflare:*"],
  write: false,
  logLevel: "silent",
} as const satisfies BuildOptions;

/** Bundle `entry` to one ES module, as wrangler would (docs/development.md "Tests inside workerd"). */
export async function bundleWorker(
  root: string,
  entry: string,
  dropConsole = false,
  alias: Readonly<Record<string, string>> = {},
): Promise<string> {
  const result = await build({
    ...WORKER_BUILD_OPTIONS,
    entryPoints: [resolve(root, entry)],
    ...(dropConsole ? { drop: ["console" as const] } : {}),
    alias: Object.fromEntries(Object.entries(alias).map(([name, path]) => [name, resolve(root, path)])),
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error(`esbuild produced no output for ${entry}`);
  return output.text;
}

async function scriptOf(options: ServeOptions): Promise<string> {
  if (options.script !== undefined) return options.script;
  if (options.entry === undefined) throw new Error("serveWorker needs `entry` or `script`");
  return bundleWorker(options.root, options.entry, options.dropConsole, options.alias);
}

/**
 * Start-ups run one at a time, so the workerd process that appears during a start-up is that instance's
 * (its CPU probe is found by comparing this process's children before and after).
 */
let startups: Promise<unknown> = Promise.resolve();

/** Start Miniflare on 127.0.0.1 (an OS-chosen port) serving `entry`; `dispose()` stops it. */
export function serveWorker(options: ServeOptions): Promise<Served> {
  const started = startups.then(() => startWorker(options));
  startups = started.catch(() => undefined);
  return started;
}

async function startWorker(options: ServeOptions): Promise<Served> {
  const before = await childPids("workerd");
  const script = await scriptOf(options);
  const wrangler = parseWranglerToml(await readFile(resolve(options.root, "wrangler.toml"), "utf8"));
  const durableObjects = Object.fromEntries(
    Object.entries(options.durableObjects ?? PROJECT_DOS).map(([binding, className]) => [
      binding,
      { className, useSQLite: true },
    ]),
  );
  const miniflare = new Miniflare({
    modules: true,
    script,
    compatibilityDate: wrangler.compatibilityDate,
    host: "127.0.0.1",
    port: 0,
    cf: false, // no fetch of Request.cf from the internet (docs/development.md "wrangler dev offline")
    kvNamespaces: [...(options.kvNamespaces ?? PROJECT_KV)],
    durableObjects,
    bindings: { ...wrangler.vars, ...options.bindings },
    // workerd writes the Worker's console output (log → stdout, error → stderr) to pipes. Under load that
    // is thousands of lines per second: keep reading them (a full pipe would stall workerd) but do not
    // print them unless asked.
    // Typed here: miniflare's option types are written against zod 3, and this project's zod is 4.
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      const { onOutput } = options;
      if (onOutput !== undefined) {
        for (const stream of [stdout, stderr]) createInterface({ input: stream }).on("line", onOutput);
      } else if (options.showLogs === true) {
        stdout.pipe(process.stdout);
        stderr.pipe(process.stderr);
      } else {
        stdout.resume();
        stderr.resume();
      }
    },
  });
  const url = await miniflare.ready;
  const added = [...(await childPids("workerd"))].filter((pid) => !before.has(pid));
  const pid = added.length === 1 ? (added[0] as number) : null;
  const cpuSeconds: CpuProbe = pid !== null ? cpuProbe(pid) : async () => null;
  return { url, miniflare, cpuSeconds, pid, dispose: () => miniflare.dispose() };
}

/** What the harness needs from wrangler.toml: the compatibility date and the flat string `[vars]`. */
export interface WranglerBasics {
  readonly compatibilityDate: string;
  readonly vars: Readonly<Record<string, string>>;
}

/**
 * A deliberately tiny reader for the two things above (no TOML dependency for the harness): top-level
 * `compatibility_date = "…"` and `KEY = "value"` lines of the `[vars]` table. Anything else is ignored.
 */
export function parseWranglerToml(text: string): WranglerBasics {
  let compatibilityDate: string | null = null;
  const vars: Record<string, string> = {};
  let table = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const header = /^\[\[?([^\]]+)\]\]?$/.exec(line);
    if (header !== null) {
      table = header[1] ?? "";
      continue;
    }
    const pair = /^([A-Za-z0-9_]+)\s*=\s*"((?:[^"\\]|\\.)*)"/.exec(line);
    if (pair === null) continue;
    const [, key = "", value = ""] = pair;
    if (table === "" && key === "compatibility_date") compatibilityDate = value;
    if (table === "vars") vars[key] = value;
  }
  if (compatibilityDate === null) throw new Error("wrangler.toml has no top-level compatibility_date");
  return { compatibilityDate, vars };
}

/**
 * The same Worker served by several processes, used in turn: each call for a key answers that key's next process
 * (docs/benchmarks.md, Method: two processes of one build can differ by tens of µs per request).
 */
export function inTurn<K>(processesOf: (key: K) => readonly Served[]): (key: K) => Served {
  const turns = new Map<K, number>();
  return (key) => {
    const turn = turns.get(key) ?? 0;
    turns.set(key, turn + 1);
    const all = processesOf(key);
    const served = all[turn % all.length];
    if (served === undefined) throw new Error("inTurn: no process to serve");
    return served;
  };
}
