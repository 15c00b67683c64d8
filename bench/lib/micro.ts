/**
 * Micro-benchmarks of pure functions in Node: subject vs baseline, interleaved.
 *
 * Method: warm both up (so V8 has optimised them), then run `rounds` rounds; each round times a batch of
 * the subject and a batch of the baseline, in alternating order, so a noisy neighbour on the shared
 * 2-core box hits both alike. The result is the median ns/op of each and the median of the per-round
 * ratios baseline ÷ subject (higher is better: 1 = as fast as the baseline, 0.5 = twice as slow).
 */
import { median, round } from "./stats.ts";

export interface MicroOptions {
  /** Operations per timed batch; choose so a batch takes ≥ ~2 ms (timer noise). Default 10 000. */
  readonly batch?: number;
  /** Timed rounds (default 15). */
  readonly rounds?: number;
  /** Untimed warm-up batches of each (default 5). */
  readonly warmup?: number;
}

export interface MicroResult {
  readonly subjectNs: number;
  readonly baselineNs: number;
  /** Median per-round baseline ns ÷ subject ns: subject throughput relative to the baseline. */
  readonly ratio: number;
}

/**
 * One operation. It receives the iteration index (so inputs can vary) and returns a value that the
 * harness keeps, so V8 cannot optimise the call away.
 */
export type Operation = (iteration: number) => unknown;

let sink: unknown;

function timeBatch(operation: Operation, batch: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < batch; i++) sink = operation(i);
  return Number(process.hrtime.bigint() - start) / batch;
}

/** Compare `subject` with `baseline`; both run the same number of operations. */
export function compare(subject: Operation, baseline: Operation, options: MicroOptions = {}): MicroResult {
  const batch = options.batch ?? 10_000;
  const rounds = options.rounds ?? 15;
  for (let w = 0; w < (options.warmup ?? 5); w++) {
    timeBatch(subject, batch);
    timeBatch(baseline, batch);
  }
  const subjectNs: number[] = [];
  const baselineNs: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // Alternate which goes first, so neither always runs on a cache warmed by the other.
    let s: number;
    let b: number;
    if (r % 2 === 0) {
      s = timeBatch(subject, batch);
      b = timeBatch(baseline, batch);
    } else {
      b = timeBatch(baseline, batch);
      s = timeBatch(subject, batch);
    }
    subjectNs.push(s);
    baselineNs.push(b);
    ratios.push(b / s);
  }
  if (sink === Symbol.for("never")) console.log(sink); // keep `sink` observable
  return {
    subjectNs: round(median(subjectNs), 1),
    baselineNs: round(median(baselineNs), 1),
    ratio: round(median(ratios)),
  };
}
