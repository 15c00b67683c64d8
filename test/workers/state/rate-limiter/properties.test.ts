/**
 * Properties of the counting model (src/state/rate-limiter/counter.ts) over random periods, mitigations, limits and
 * request times (fast-check): never more than N admitted in any sliding window of `period`, whatever the
 * mitigation; a block lasts at least `mitigation_timeout` and ends exactly when a request is admitted again, so
 * `Retry-After` is never early and never a rounding second late; a request is refused only when N were admitted within
 * the last period + one bucket's span; with clocks apart by up to D, never more than N in any window of period − D.
 * Leases spent by several isolates: test/workers/edge/request-phases/rate-limit-properties.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { retryAfterSeconds } from "../../../../src/edge/request-phases/rate-limit/check";
import {
  BUCKETS_PER_PERIOD,
  MAX_BUCKETS,
  countRequest,
  type CounterLimits,
  type CounterState,
} from "../../../../src/state/rate-limiter/counter";
import { maxInWindow } from "../../support/sliding-window";

const rule = fc.record({
  period: fc.integer({ min: 1, max: 3600 }),
  mitigation: fc.integer({ min: 1, max: 3600 }),
  limit: fc.integer({ min: 1, max: 12 }),
});

/**
 * Gaps between requests in thousandths of the period's share of one request (period / limit): 0 (a burst), around
 * the limit's rate, or long pauses; so every period, limit and mitigation sees bursts, steady traffic and idling.
 */
const gaps = fc.array(
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 4, arbitrary: fc.integer({ min: 1, max: 1500 }) },
    { weight: 1, arbitrary: fc.integer({ min: 1500, max: 40_000 }) },
  ),
  { minLength: 1, maxLength: 150 },
);

function limitsOf(r: { period: number; mitigation: number; limit: number }): CounterLimits {
  return { periodMs: r.period * 1000, limit: r.limit, timeoutMs: r.mitigation * 1000 };
}

function timesOf(limits: CounterLimits, steps: readonly number[], start = 1_700_000_000_000): number[] {
  const unit = limits.periodMs / limits.limit / 1000;
  let t = start;
  return steps.map((g) => (t += Math.round(g * unit)));
}

interface Decided {
  readonly now: number;
  readonly before: CounterState | null;
  readonly after: CounterState;
  readonly blockedUntil: number | null;
}

function run(limits: CounterLimits, times: readonly number[]): Decided[] {
  let state: CounterState | null = null;
  return times.map((now) => {
    const step = countRequest(state, limits, now);
    const decided = {
      now,
      before: state,
      after: step.state,
      blockedUntil: step.decision.kind === "block" ? step.decision.blockedUntil : null,
    };
    state = step.state;
    return decided;
  });
}

describe("never more than N in any window of period, whatever the mitigation", () => {
  it("over random rules and request times (clocks in order)", () => {
    fc.assert(
      fc.property(rule, gaps, (r, steps) => {
        const limits = limitsOf(r);
        const decided = run(limits, timesOf(limits, steps));
        const admitted = decided.filter((d) => d.blockedUntil === null).map((d) => d.now);
        expect(maxInWindow(admitted, limits.periodMs)).toBeLessThanOrEqual(r.limit);
        // O(1) state: with clocks in order, at most a period and a bucket's span of buckets.
        for (const d of decided) expect(d.after.buckets.length).toBeLessThanOrEqual(BUCKETS_PER_PERIOD + 1);
      }),
      { numRuns: 400 },
    );
  });

  it("with clocks apart by up to D (isolates' clocks), in any window of period − D", () => {
    fc.assert(
      fc.property(
        rule,
        gaps,
        fc.integer({ min: 0, max: 1000 }),
        fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 150, maxLength: 150 }),
        (r, steps, spread, offsets) => {
          const limits = limitsOf(r);
          // D in thousandths of the period, below it; each request's clock is ahead of true time by 0..D.
          const d = Math.floor(((limits.periodMs - 1) * spread) / 1000);
          const truth = timesOf(limits, steps);
          const seen = truth.map((t, i) => t + Math.floor((d * offsets[i]!) / 1000));
          const decided = run(limits, seen);
          const admitted = truth.filter((_, i) => decided[i]!.blockedUntil === null);
          expect(maxInWindow(admitted, limits.periodMs - d)).toBeLessThanOrEqual(r.limit);
          for (const x of decided) expect(x.after.buckets.length).toBeLessThanOrEqual(MAX_BUCKETS);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("blocks: a floor of mitigation_timeout, ending when the window admits again", () => {
  it("the block lasts ≥ mitigation; at its end a request is admitted, a millisecond before it is not; Retry-After agrees", () => {
    fc.assert(
      fc.property(rule, gaps, (r, steps) => {
        const limits = limitsOf(r);
        let blockStart: number | null = null;
        for (const d of run(limits, timesOf(limits, steps))) {
          if (d.blockedUntil === null) {
            // Admitted: never within mitigation_timeout of the start of the last block.
            if (blockStart !== null) expect(d.now).toBeGreaterThanOrEqual(blockStart + limits.timeoutMs);
            continue;
          }
          const until = d.blockedUntil;
          const starts = d.before === null || d.now >= d.before.blockedUntil;
          if (starts) {
            blockStart = d.now;
            expect(until).toBeGreaterThanOrEqual(d.now + limits.timeoutMs);
          }
          // The block's end is exactly when the client may send again (nothing is counted during the block)...
          expect(countRequest(d.after, limits, until).decision.kind).toBe("allow");
          // ...and no later than it must: past mitigation_timeout, only because the window would still refuse.
          if (blockStart !== null && until > blockStart + limits.timeoutMs) {
            const windowOnly = { ...d.after, blockedUntil: 0 };
            expect(countRequest(windowOnly, limits, until - 1).decision.kind).toBe("block");
          }
          // Retry-After: whole seconds, never early, never a whole second late.
          const retryAfter = retryAfterSeconds(until, d.now);
          expect(retryAfter * 1000).toBeGreaterThanOrEqual(until - d.now);
          expect(retryAfter * 1000 - (until - d.now)).toBeLessThan(1000);
          // The request that starts a block the window does not outlast is told exactly mitigation_timeout.
          if (starts && until === d.now + limits.timeoutMs) expect(retryAfter).toBe(r.mitigation);
          expect(retryAfter).toBeLessThanOrEqual(Math.max(r.mitigation, r.period));
        }
      }),
      { numRuns: 400 },
    );
  });

  it("a request is refused only when N were admitted within the last period + one bucket's span", () => {
    fc.assert(
      fc.property(rule, gaps, (r, steps) => {
        const limits = limitsOf(r);
        const span = limits.periodMs + limits.periodMs / BUCKETS_PER_PERIOD;
        const admitted: number[] = [];
        for (const d of run(limits, timesOf(limits, steps))) {
          if (d.blockedUntil === null) {
            admitted.push(d.now);
            continue;
          }
          if (d.before !== null && d.now < d.before.blockedUntil) continue; // inside a block
          expect(admitted.filter((a) => a > d.now - span).length).toBeGreaterThanOrEqual(r.limit);
        }
      }),
      { numRuns: 300 },
    );
  });
});
