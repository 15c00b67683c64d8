/**
 * One Worker served by workerd started directly, without Miniflare (the two instruction levels). Every
 * request to a Miniflare instance first runs Miniflare's own entry Worker (JavaScript: routing, the `cf` object,
 * error pretty-printing), which then calls ours; a workerd started with a config of our own runs only ours. Counting
 * both ways tells what is workerd and V8 from what is Miniflare's JavaScript. Only Workers without bindings: the
 * trivial one (bench/baseline/worker.ts) and constant ones. The config is workerd's text format
 * (workerd/server/workerd.capnp: `Config`, `Worker.Module.esModule`, `Socket.http`, `v8Flags`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ensureDebianTool } from "./debian-tool.ts";
import { V8_TRACE_FLAGS, v8EventCounter, windowCounter, type CountedWorker } from "./instructions.ts";
import { bundleWorker } from "./serve.ts";
import { isV8Flag } from "./workerd-config.ts";

export interface DirectOptions {
  /** Worker entry relative to `root` (bundled by esbuild, as `serveWorker` does) or a ready ES module. */
  readonly entry?: string;
  readonly script?: string;
  readonly root: string;
  readonly compatibilityDate: string;
  readonly v8Flags?: readonly string[];
  /** Run workerd under callgrind (the counts of `perRequest`); default false. */
  readonly callgrind?: boolean;
  /** Each line workerd writes to stdout or stderr (e.g. what `--trace-gc` prints); default: discarded. */
  readonly onOutput?: (line: string) => void;
  /** Count V8's GCs and compiles per window (bench/lib/instructions.ts `V8Events`); default false. */
  readonly traceV8?: boolean;
}

/** workerd's text config: one Worker `worker.js` (a file next to the config) on 127.0.0.1, an OS-chosen port. */
export function directConfig(compatibilityDate: string, v8Flags: readonly string[] = []): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(compatibilityDate)) throw new Error(`not a compatibility date: ${compatibilityDate}`);
  for (const flag of v8Flags) if (!isV8Flag(flag)) throw new Error(`not a V8 flag: ${JSON.stringify(flag)}`);
  return [
    'using Workerd = import "/workerd/workerd.capnp";',
    "const config :Workerd.Config = (",
    '  services = [(name = "main", worker = .worker)],',
    '  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],',
    `  v8Flags = [${v8Flags.map((flag) => JSON.stringify(flag)).join(", ")}],`,
    ");",
    "const worker :Workerd.Worker = (",
    '  modules = [(name = "worker.js", esModule = embed "worker.js")],',
    `  compatibilityDate = "${compatibilityDate}",`,
    ");",
    "",
  ].join("\n");
}

export interface DirectWorker {
  readonly url: URL;
  readonly pid: number;
  /** Instructions per request as `serveCounted` gives them; only with `callgrind: true`. */
  readonly perRequest: CountedWorker["perRequest"];
  dispose(): Promise<void>;
}

/** The port workerd reports on its control descriptor (`--control-fd`: `{"event":"listen","port":N}` lines). */
function listeningPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const control = child.stdio[3];
    if (control === null || control === undefined || !("on" in control)) {
      reject(new Error("workerd has no control pipe"));
      return;
    }
    const lines = createInterface({ input: control as NodeJS.ReadableStream });
    lines.on("line", (line) => {
      const message = JSON.parse(line) as { event?: string; socket?: string; port?: number };
      if (message.event === "listen" && message.socket === "http" && typeof message.port === "number") {
        resolve(message.port);
      }
    });
    child.once("exit", (code) => reject(new Error(`workerd exited (${code}) before listening`)));
  });
}

/** Starts workerd on `options` (see `DirectOptions`); `dispose()` stops it and removes its files. */
export async function serveDirect(given: DirectOptions): Promise<DirectWorker> {
  const events = given.traceV8 === true ? v8EventCounter() : null;
  const options: DirectOptions =
    events === null
      ? given
      : {
          ...given,
          v8Flags: [...(given.v8Flags ?? []), ...V8_TRACE_FLAGS],
          onOutput: (line) => {
            events.onLine(line);
            given.onOutput?.(line);
          },
        };
  const script = options.script ?? (await bundleWorker(options.root, options.entry ?? ""));
  const directory = mkdtempSync(join(tmpdir(), "bench-direct-"));
  writeFileSync(join(directory, "worker.js"), script);
  writeFileSync(join(directory, "config.capnp"), directConfig(options.compatibilityDate, options.v8Flags));
  const require = createRequire(import.meta.url);
  const workerd = (createRequire(require.resolve("miniflare"))("workerd") as { default: string }).default;
  const serve = [workerd, "serve", "--control-fd=3", join(directory, "config.capnp")];
  if (options.callgrind === true) ensureDebianTool("valgrind", ["--version"]);
  const counted =
    options.callgrind === true
      ? [
          "valgrind",
          "--tool=callgrind",
          `--callgrind-out-file=${directory}/cg.%p.out`,
          "--smc-check=all-non-file",
          "--error-limit=no",
          ...serve,
        ]
      : serve;
  // V8's traces (`--trace-gc`) go through stdio's buffers, which a pipe fills before anything shows: line-buffered
  // (coreutils' stdbuf, which execs, so the pid stays workerd's) when the lines are wanted as they come.
  const [command = workerd, ...args] = options.onOutput === undefined ? counted : ["stdbuf", "-oL", "-eL", ...counted];
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe", "pipe"] });
  const errors: string[] = [];
  child.stderr?.on("data", (chunk: Buffer) => errors.push(chunk.toString()));
  const { onOutput } = options;
  for (const stream of [child.stdout, child.stderr]) {
    if (stream === null) continue;
    if (onOutput === undefined) stream.resume();
    else createInterface({ input: stream }).on("line", onOutput);
  }
  let port: number;
  try {
    port = await listeningPort(child);
  } catch (error) {
    child.kill();
    rmSync(directory, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}: ${errors.join("").slice(-2000)}`);
  }
  const pid = child.pid ?? 0;
  return {
    url: new URL(`http://127.0.0.1:${port}/`),
    pid,
    perRequest:
      options.callgrind === true
        ? windowCounter(String(pid), directory, events)
        : () => Promise.reject(new Error("serveDirect: counting needs callgrind: true")),
    async dispose() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
