/**
 * The table rows of an interleaved load suite: per scenario the medians over rounds, and the ratio taken round by
 * round against the same round's baseline (`baselineOf(index)` names the baseline scenario of each row).
 */
import type { LoadResult } from "./load.ts";
import { median, round } from "./stats.ts";
import type { ResultRow } from "./suite.ts";

export function loadRows(
  scenarios: readonly { readonly name: string; readonly target?: number }[],
  results: readonly (readonly LoadResult[])[],
  baselineOf: (index: number) => number,
): ResultRow[] {
  return scenarios.map((scenario, index) => {
    const runs = results[index] ?? [];
    const baselineRuns = results[baselineOf(index)] ?? [];
    const cpu = runs.flatMap((r) => (r.serverCpuUsPerRequest === undefined ? [] : [r.serverCpuUsPerRequest]));
    return {
      name: scenario.name,
      ...(baselineOf(index) === index ? { baseline: true } : {}),
      reqPerSec: round(median(runs.map((r) => r.reqPerSec)), 0),
      p50Ms: median(runs.map((r) => r.p50Ms)),
      p99Ms: median(runs.map((r) => r.p99Ms)),
      ...(cpu.length === 0 ? {} : { serverCpuUs: round(median(cpu), 0) }),
      ratio: round(median(runs.map((r, i) => r.reqPerSec / (baselineRuns[i] as LoadResult).reqPerSec))),
      ...(scenario.target === undefined ? {} : { target: scenario.target }),
      failures: runs.reduce((sum, r) => sum + r.failures, 0),
    };
  });
}
