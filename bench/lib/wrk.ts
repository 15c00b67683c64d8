/**
 * The same measurement as load.ts with `wrk` (a native load generator, Debian package `wrk`) instead of
 * autocannon: the load generator then runs as its own C process, and the bench's Node process does not share the
 * Worker's cores with a JavaScript client (issue 12). Installed with apt-get when missing (as root), else an error
 * that says how.
 *
 * wrk reports req/s, latency percentiles (`--latency`), socket errors and the count of non-2xx/3xx answers; a run
 * expecting an error status (every answer non-2xx) counts the 2xx/3xx answers as failures instead.
 */
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import type { LoadOptions, LoadResult } from "./load.ts";
import { round } from "./stats.ts";

const run = promisify(execFile);

let checked = false;

/** Makes sure `wrk` is on PATH, installing Debian's package when it is missing and we are root. */
export function ensureWrk(): void {
  if (checked) return;
  try {
    execFileSync("wrk", ["--version"], { stdio: "ignore" });
  } catch (error) {
    // `wrk --version` exits 1 after printing its version: only "not found" means missing.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      if (process.getuid?.() !== 0) throw new Error("wrk is missing: run `sudo apt-get install -y wrk`");
      execFileSync("apt-get", ["install", "-y", "wrk"], { stdio: "inherit" });
    }
  }
  checked = true;
}

export async function wrkLoad(options: LoadOptions): Promise<LoadResult> {
  ensureWrk();
  const expectStatus = options.expectStatus ?? 200;
  const args = [
    "-t1",
    `-c${options.connections ?? 16}`,
    `-d${options.durationSeconds ?? 5}s`,
    "--latency",
    ...Object.entries(options.headers ?? {}).flatMap(([name, value]) => ["-H", `${name}: ${value}`]),
    String(options.url),
  ];
  const cpuBefore = (await options.serverCpu?.()) ?? null;
  const { stdout } = await run("wrk", args);
  const cpuAfter = (await options.serverCpu?.()) ?? null;
  return { ...parseWrk(stdout, expectStatus), ...cpu(cpuBefore, cpuAfter, stdout) };
}

function cpu(before: number | null, after: number | null, stdout: string): { serverCpuUsPerRequest?: number } {
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0);
  return before !== null && after !== null && requests > 0
    ? { serverCpuUsPerRequest: round(((after - before) * 1e6) / requests, 1) }
    : {};
}

/** Parses wrk 4's text report. */
export function parseWrk(stdout: string, expectStatus: number): LoadResult {
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0);
  const reqPerSec = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const errors = socket ? Number(socket[1]) + Number(socket[2]) + Number(socket[3]) : 0;
  const timeouts = socket ? Number(socket[4]) : 0;
  const unexpectedStatus = expectStatus >= 400 ? requests - non2xx : non2xx;
  return {
    requests,
    reqPerSec: round(reqPerSec, 1),
    p50Ms: percentile(stdout, "50%"),
    p99Ms: percentile(stdout, "99%"),
    meanMs: latency(/Latency\s+([\d.]+)(us|ms|s)\b/.exec(stdout)),
    errors,
    timeouts,
    unexpectedStatus,
    statusCounts: { [expectStatus >= 400 ? "non-2xx/3xx" : "2xx/3xx"]: requests - unexpectedStatus },
    failures: errors + timeouts + unexpectedStatus,
  };
}

function percentile(stdout: string, label: string): number {
  return latency(new RegExp(`^\\s+${label}\\s+([\\d.]+)(us|ms|s)\\s*$`, "m").exec(stdout));
}

function latency(match: RegExpExecArray | null): number {
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  const unit = match[2];
  return round(unit === "us" ? value / 1000 : unit === "s" ? value * 1000 : value);
}
