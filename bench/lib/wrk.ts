/**
 * The same measurement as load.ts with `wrk` (a native load generator, Debian package `wrk`) instead of
 * autocannon: the load generator then runs as its own C process, and the bench's Node process does not share the
 * Worker's cores with a JavaScript client. Installed with apt-get when missing (as root), else an error
 * that says how.
 *
 * wrk reports req/s, latency percentiles (`--latency`) and socket errors; a small Lua script counts the answers
 * whose status is not the expected one (wrk's own "non-2xx" count cannot check an expected 522).
 *
 * Pitfall met: wrk 4.1 replaces its own `Host` header only when the name is spelled `Host`; `host: x` is sent as a
 * second Host header, which the runtime answers 400 before any Worker runs. Names are sent as `Host` here.
 */
import { execFile } from "node:child_process";
import { ensureDebianTool } from "./debian-tool.ts";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { LoadOptions, LoadResult } from "./load.ts";
import { round } from "./stats.ts";

const run = promisify(execFile);

/** Makes sure `wrk` is on PATH (bench/lib/debian-tool.ts). */
export function ensureWrk(): void {
  ensureDebianTool("wrk", ["--version"]);
}

export async function wrkLoad(options: LoadOptions): Promise<LoadResult> {
  ensureWrk();
  const expectStatus = options.expectStatus ?? 200;
  const args = [
    "-s",
    statusScript(),
    "-t1",
    `-c${options.connections ?? 16}`,
    `-d${options.durationSeconds ?? 5}s`,
    "--latency",
    ...Object.entries(options.headers ?? {}).flatMap(([name, value]) => [
      "-H",
      `${name.toLowerCase() === "host" ? "Host" : name}: ${value}`,
    ]),
    String(options.url),
    "--",
    String(expectStatus),
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
  const unexpectedStatus = Number(/^unexpected status: (\d+)$/m.exec(stdout)?.[1] ?? Number.NaN);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const errors = socket ? Number(socket[1]) + Number(socket[2]) + Number(socket[3]) : 0;
  const timeouts = socket ? Number(socket[4]) : 0;
  return {
    requests,
    reqPerSec: round(reqPerSec, 1),
    p50Ms: percentile(stdout, "50%"),
    p99Ms: percentile(stdout, "99%"),
    meanMs: latency(/Latency\s+([\d.]+)(us|ms|s)\b/.exec(stdout)),
    errors,
    timeouts,
    unexpectedStatus,
    statusCounts: { [String(expectStatus)]: requests - unexpectedStatus, other: unexpectedStatus },
    // A report without the script's line (NaN) is a failure too: the statuses were not checked.
    failures: errors + timeouts + (Number.isNaN(unexpectedStatus) ? requests : unexpectedStatus),
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

/** Counts, per thread, the answers whose status is not the expected one (argument after `--`), printed at the end. */
const STATUS_SCRIPT = `
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) expected = tonumber(args[1]); other = 0 end
function response(status, headers, body) if status ~= expected then other = other + 1 end end
function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do total = total + t:get("other") end
  io.write("unexpected status: " .. total .. "\\n")
end
`;

let scriptPath: string | null = null;
function statusScript(): string {
  if (scriptPath === null) {
    scriptPath = join(mkdtempSync(join(tmpdir(), "bench-wrk-")), "status.lua");
    writeFileSync(scriptPath, STATUS_SCRIPT);
  }
  return scriptPath;
}
