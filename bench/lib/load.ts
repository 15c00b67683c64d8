/**
 * Drive a URL with autocannon and summarise what a report needs: req/s, p50/p99 and everything that
 * would make a run meaningless (socket errors, timeouts, an unexpected status), so a broken run shows.
 *
 * Latencies are collected from autocannon's per-response event (float milliseconds) rather than its
 * histogram, which stores whole milliseconds and cannot tell 0.4 ms from 0.9 ms on loopback.
 */
import autocannon from "autocannon";
import type { CpuProbe } from "./cpu.ts";
import { quantile, round } from "./stats.ts";

export interface LoadOptions {
  readonly url: string | URL;
  readonly method?: string;
  /** Request headers; `host` is sent as given (Miniflare lets /cdn-cgi through only for localhost hosts). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Concurrent keep-alive connections (default 16). */
  readonly connections?: number;
  /** Seconds of measured load (default 5). */
  readonly durationSeconds?: number;
  /** The status every response must have (default 200); others count as failures. */
  readonly expectStatus?: number;
  /** The server's CPU probe (`Served.cpuSeconds`): adds `serverCpuUsPerRequest` to the result. */
  readonly serverCpu?: CpuProbe;
}

export interface LoadResult {
  readonly requests: number;
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly errors: number;
  readonly timeouts: number;
  /** Responses whose status was not `expectStatus`. */
  readonly unexpectedStatus: number;
  readonly statusCounts: Readonly<Record<string, number>>;
  /** errors + timeouts + unexpectedStatus: non-zero means the numbers are not to be trusted. */
  readonly failures: number;
  /** Server CPU time (user + system) per response in µs, when a probe was given and readable. */
  readonly serverCpuUsPerRequest?: number;
}

/** Run one load test and summarise it. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const expectStatus = options.expectStatus ?? 200;
  const latencies: number[] = [];
  let unexpectedStatus = 0;
  const cpuBefore = (await options.serverCpu?.()) ?? null;
  const started = process.hrtime.bigint();
  const instance = autocannon({
    url: String(options.url),
    method: options.method ?? "GET",
    headers: { ...options.headers },
    connections: options.connections ?? 16,
    duration: options.durationSeconds ?? 5,
  });
  instance.on("response", (_client, statusCode, _bytes, responseTime) => {
    latencies.push(responseTime);
    if (Number(statusCode) !== expectStatus) unexpectedStatus++;
  });
  const result = await instance;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuAfter = (await options.serverCpu?.()) ?? null;
  const statusCounts = Object.fromEntries(
    Object.entries(result.statusCodeStats).map(([code, stats]) => [code, stats.count]),
  );
  const mean = latencies.reduce((sum, value) => sum + value, 0) / Math.max(1, latencies.length);
  return {
    requests: latencies.length,
    reqPerSec: round(latencies.length / seconds, 1),
    p50Ms: round(quantile(latencies, 0.5)),
    p99Ms: round(quantile(latencies, 0.99)),
    meanMs: round(mean),
    errors: result.errors,
    timeouts: result.timeouts,
    unexpectedStatus,
    statusCounts,
    failures: result.errors + result.timeouts + unexpectedStatus,
    ...(cpuBefore !== null && cpuAfter !== null && latencies.length > 0
      ? { serverCpuUsPerRequest: round(((cpuAfter - cpuBefore) * 1e6) / latencies.length, 1) }
      : {}),
  };
}

/**
 * Drives every scenario once per round for `rounds` rounds, rotating the order each round so no scenario always
 * follows the same one (a neighbour that starts halfway hits every scenario alike). Returns the runs per
 * scenario, in scenario order: `runs[i][r]` is scenario i in round r, so ratios can be taken round by round.
 */
export async function interleavedRounds<S extends { readonly name: string }>(
  scenarios: readonly S[],
  rounds: number,
  drive: (scenario: S) => Promise<LoadResult>,
  log: (line: string) => void,
): Promise<LoadResult[][]> {
  const runs = scenarios.map((): LoadResult[] => []);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < scenarios.length; k++) {
      const index = (k + r) % scenarios.length;
      const scenario = scenarios[index] as S;
      const result = await drive(scenario);
      (runs[index] as LoadResult[]).push(result);
      const why =
        result.failures === 0
          ? ""
          : ` (statuses ${JSON.stringify(result.statusCounts)}, errors ${result.errors}, timeouts ${result.timeouts})`;
      log(
        `round ${r + 1}/${rounds} ${scenario.name}: ${result.reqPerSec} req/s, p50 ${result.p50Ms} ms, ` +
          `p99 ${result.p99Ms} ms, failures ${result.failures}${why}`,
      );
    }
  }
  return runs;
}

/**
 * The load suites' common run: `passes` warm-up slices of 1 s per scenario (one per workerd process, so each
 * process's JIT settles), then `interleavedRounds` of `seconds` each. `drive(scenario, seconds)` sends the load.
 */
export async function warmedRounds<S extends { readonly name: string }>(
  scenarios: readonly S[],
  options: {
    readonly rounds: number;
    readonly seconds: number;
    readonly passes?: number;
    readonly drive: (scenario: S, durationSeconds: number) => Promise<LoadResult>;
    readonly log: (line: string) => void;
  },
): Promise<LoadResult[][]> {
  const { rounds, seconds, passes = 1, drive, log } = options;
  log("warm-up");
  for (let i = 0; i < passes; i++) for (const scenario of scenarios) await drive(scenario, 1);
  return interleavedRounds(scenarios, rounds, (scenario) => drive(scenario, seconds), log);
}
