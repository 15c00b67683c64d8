/**
 * The interface between `bench/run.ts` and a suite in `bench/suites/<name>.ts` (documented in bench/README.md).
 * A suite measures its subject AND a baseline in the same run, on the same machine, the same way, and
 * reports ratios: absolute numbers on a shared 2-core box move by ±20 % between runs, ratios much less.
 */

/** One measured line of a suite's table. */
export interface ResultRow {
  /** What was measured, e.g. "GET /cdn-cgi/error/522 (Accept: application/json)". */
  readonly name: string;
  /** True for the reference line(s) that ratios are computed against. */
  readonly baseline?: boolean;
  /** Load rows: median requests per second over the rounds. */
  readonly reqPerSec?: number;
  /** Load rows: latency percentiles in milliseconds (median over the rounds). */
  readonly p50Ms?: number;
  readonly p99Ms?: number;
  /** Load rows: median CPU µs the server process spent per request (Linux; steadier than req/s). */
  readonly serverCpuUs?: number;
  /** `--instructions` rows: median instructions of the server process per request (bench/lib/instructions.ts). */
  readonly instructionsPerRequest?: number;
  /**
   * `--instructions` rows with work done once per unit of time (proxy suite): the instructions per request with that
   * work's share taken at the request rate of a load run of the same Worker in the same run instead of callgrind's
   * (bench/lib/instructions.ts `timeDrivenShare`), and the ratio from it.
   */
  readonly instructionsAtLoadRate?: number;
  readonly ratioAtLoadRate?: number;
  /** Micro rows: median nanoseconds per operation. */
  readonly nsPerOp?: number;
  /** Subject throughput ÷ baseline throughput (higher is better; 1 = as fast as the baseline). */
  readonly ratio?: number;
  /** The ratio this row must reach (e.g. 0.85); the report marks rows below it. */
  readonly target?: number;
  /** Requests that failed (socket errors, timeouts, unexpected status): a non-zero value voids the row. */
  readonly failures?: number;
}

/** What a suite returns; `bench/run.ts` prints it and writes `bench/results/<suite>.json`. */
export interface SuiteResult {
  readonly rows: readonly ResultRow[];
  /** Free-form lines printed under the table (method, rounds, anything surprising). */
  readonly notes?: readonly string[];
}

/** Given to every suite by the runner. */
export interface SuiteContext {
  /** The suite's name (its file name without `.ts`). */
  readonly name: string;
  /** Absolute path of the repository root (entry points are resolved against it). */
  readonly root: string;
  /** `--quick`: fewer and shorter rounds, to check that a suite works, not to record numbers. */
  readonly quick: boolean;
  /**
   * `--wrk`: drive the load with `wrk` (a native process, bench/lib/wrk.ts) instead of autocannon in this process.
   * Suites that support it (errors, proxy) say so in their notes; the report is written as `<suite>-wrk.json`.
   */
  readonly wrk: boolean;
  /**
   * `--instructions`: count the instructions of the Worker's workerd process per request under valgrind's callgrind
   * (bench/lib/instructions.ts) instead of loading it; the report is written as `<suite>-instructions.json`.
   * Suites that support it (errors) say so in their notes.
   */
  readonly instructions: boolean;
  /** Progress output (stderr), so stdout stays the report. */
  log(line: string): void;
}

/** What every `bench/suites/<name>.ts` module exports. */
export interface SuiteModule {
  /** One line shown before the suite runs. */
  readonly description: string;
  run(context: SuiteContext): Promise<SuiteResult>;
}

/** Type guard for a dynamically imported suite module. */
export function isSuiteModule(value: unknown): value is SuiteModule {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as { description?: unknown; run?: unknown };
  return typeof candidate.description === "string" && typeof candidate.run === "function";
}
