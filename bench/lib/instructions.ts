/**
 * Instructions per request of a Worker's workerd process, counted by valgrind's callgrind (`--instructions`;
 * issue 12, fourth pass). On this machine req/s and CPU time per request move by ±10 % between runs with whatever
 * else the 2 shared cores do (other processes, hypervisor steal, and the VM exposes no hardware counters to
 * `perf`). An instruction count does not depend on that: repeated runs of one build agreed within ~1 % for a
 * constant Worker and within ~2–4 % for the real one, whose garbage collector and JIT compiler (other threads of
 * the process, counted too) run in different requests from run to run. It is not a time: it misses cache misses
 * and waits, which the load suites see. It tells which of two builds does less work, reproducibly.
 *
 * How: Miniflare starts `MINIFLARE_WORKERD_PATH` instead of its own workerd binary when that variable is set; here
 * it is a script that execs workerd under callgrind (same pid) with its output in a directory of ours. After a
 * warm-up (the JIT settles), `callgrind_control -z <pid>` zeroes the counters, `requests` requests go one after
 * the other on one keep-alive connection, `callgrind_control -d <pid>` writes a dump, and its total ÷ `requests` is
 * the count per request. Under valgrind a request takes ~10 ms: a run of 1,000 requests takes ~15 s per Worker.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveWorker, type ServeOptions, type Served } from "./serve.ts";

let checked = false;

/** Makes sure valgrind is on PATH, installing Debian's package when it is missing and we are root. */
export function ensureValgrind(): void {
  if (checked) return;
  try {
    execFileSync("valgrind", ["--version"], { stdio: "ignore" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    if (process.getuid?.() !== 0) throw new Error("valgrind is missing: run `sudo apt-get install -y valgrind`");
    execFileSync("apt-get", ["install", "-y", "valgrind"], { stdio: "inherit" });
  }
  checked = true;
}

/** The total instruction count of a callgrind dump (`summary:` in newer files, `totals:` in others), or null. */
export function callgrindTotal(dump: string): number | null {
  const match = /^(?:summary|totals):\s+(\d+)/m.exec(dump);
  return match === null ? null : Number(match[1]);
}

/** A Worker served by a workerd that runs under callgrind. */
export interface CountedWorker {
  readonly served: Served;
  /** Instructions per request over `requests` requests sent one after the other, after `warmup` of them. */
  perRequest(
    send: () => Promise<void>,
    options: { readonly warmup: number; readonly requests: number },
  ): Promise<number>;
  dispose(): Promise<void>;
}

/** The workerd binary Miniflare would start (its `workerd` dependency's default export). */
function workerdBinary(): string {
  const require = createRequire(import.meta.url);
  const miniflare = require.resolve("miniflare");
  const workerd = createRequire(miniflare)("workerd") as { default: string };
  return workerd.default;
}

/** Serves `options` like `serveWorker`, with workerd under callgrind. Start-ups must not overlap (they don't). */
export async function serveCounted(options: ServeOptions): Promise<CountedWorker> {
  ensureValgrind();
  const directory = mkdtempSync(join(tmpdir(), "bench-callgrind-"));
  const wrapper = join(directory, "workerd.sh");
  // `exec` keeps the pid: the script writes it, then becomes valgrind, which becomes workerd.
  writeFileSync(
    wrapper,
    [
      "#!/bin/sh",
      `echo $$ > '${directory}/pid'`,
      `exec valgrind --tool=callgrind --callgrind-out-file='${directory}/cg.%p.out' --smc-check=all-non-file ` +
        `--error-limit=no '${workerdBinary()}' "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(wrapper, 0o755);
  const previous = process.env.MINIFLARE_WORKERD_PATH;
  process.env.MINIFLARE_WORKERD_PATH = wrapper;
  let served: Served;
  try {
    served = await serveWorker(options);
  } finally {
    if (previous === undefined) delete process.env.MINIFLARE_WORKERD_PATH;
    else process.env.MINIFLARE_WORKERD_PATH = previous;
  }
  const pid = readFileSync(join(directory, "pid"), "utf8").trim();
  const dumps = (): string[] => readdirSync(directory).filter((name) => name.startsWith(`cg.${pid}.out.`));

  return {
    served,
    async perRequest(send, { warmup, requests }) {
      for (let i = 0; i < warmup; i++) await send();
      execFileSync("callgrind_control", ["-z", pid], { stdio: "ignore" });
      for (let i = 0; i < requests; i++) await send();
      const before = new Set(dumps());
      execFileSync("callgrind_control", ["-d", pid], { stdio: "ignore" });
      const fresh = dumps().find((name) => !before.has(name));
      const total = fresh === undefined ? null : callgrindTotal(readFileSync(join(directory, fresh), "utf8"));
      if (total === null) throw new Error(`no callgrind dump for workerd ${pid} in ${directory}`);
      return total / requests;
    },
    async dispose() {
      await served.dispose();
      if (existsSync(directory)) rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** A sender of one request at a time on one keep-alive connection; `close()` ends the connection. */
export function sequentialRequests(
  url: URL,
  headers: Readonly<Record<string, string>>,
  expectStatus: number,
): { readonly send: () => Promise<void>; readonly close: () => void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return {
    send: () =>
      new Promise<void>((resolve, reject) => {
        const request = http.request(
          { host: url.hostname, port: url.port, path: url.pathname + url.search, agent, headers },
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
        request.end();
      }),
    close: () => agent.destroy(),
  };
}
