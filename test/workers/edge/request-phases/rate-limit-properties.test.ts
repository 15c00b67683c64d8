/**
 * Approximate counting as several isolates do it (src/edge/request-phases/rate-limit/isolate-counters.ts: leases
 * sized by demand, refilled ahead, shared by concurrent requests, unspent parts returned) over the counting model
 * (src/state/rate-limiter/counter.ts `leaseRequests`), property-tested with fast-check over periods, mitigations,
 * limits, request times, concurrency and clock skew between isolates: never more than N admitted in any window of
 * `period` (of period − D with clocks apart by D), and every block ends when a request is admitted again. The model
 * stands in for the object here (same function, no RPC) so hundreds of random histories run in seconds; the real
 * object: rate-limit-period.test.ts and rate-limit-leases.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { retryAfterSeconds } from "../../../../src/edge/request-phases/rate-limit/check";
import { IsolateCounters, type Acquire } from "../../../../src/edge/request-phases/rate-limit/isolate-counters";
import {
  leaseMs,
  leaseRequests,
  type CounterLimits,
  type CounterState,
} from "../../../../src/state/rate-limiter/counter";
import { maxInWindow } from "../../support/sliding-window";

const rule = fc.record({
  period: fc.integer({ min: 1, max: 3600 }),
  mitigation: fc.integer({ min: 1, max: 3600 }),
  // Up to 400, so leases grow past 1 (they are 1 while fewer than 16 remain).
  limit: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 20, max: 400 })),
});

/**
 * One moment of traffic: `requests` at once on isolate `isolate`, `periods` periods and `ms` milliseconds after the
 * last moment (never before it): so moments fall around a lease's lifetime (≤ 1 s) and around a period's end.
 */
const event = fc.record({
  isolate: fc.integer({ min: 0, max: 3 }),
  gap: fc.oneof(
    { weight: 3, arbitrary: fc.constant({ periods: 0, ms: 0 }) },
    { weight: 3, arbitrary: fc.record({ periods: fc.constant(0), ms: fc.integer({ min: 1, max: 1100 }) }) },
    { weight: 2, arbitrary: fc.record({ periods: fc.constantFrom(1, 2), ms: fc.integer({ min: -1100, max: 1100 }) }) },
  ),
  requests: fc.oneof(
    { weight: 4, arbitrary: fc.constant(1) },
    { weight: 1, arbitrary: fc.integer({ min: 2, max: 8 }) },
    { weight: 1, arbitrary: fc.integer({ min: 8, max: 60 }) },
  ),
});
type Event = { readonly isolate: number; readonly gap: { periods: number; ms: number }; readonly requests: number };

interface Outcome {
  /** True times of the admitted requests, ascending. */
  readonly admitted: number[];
  /** Every refusal: the request's clock, the block's end and the state right after the block was decided. */
  readonly blocks: { now: number; until: number; state: CounterState | null }[];
}

/**
 * Plays `events` on `isolates` isolates whose clocks run `offsets[i]` ms ahead of true time, as check.ts does for an
 * approximate rule: a block the isolate knows answers locally, else the isolate admits from its leases or asks.
 */
async function play(limits: CounterLimits, events: readonly Event[], offsets: readonly number[]): Promise<Outcome> {
  let state: CounterState | null = null;
  const isolates = offsets.map(() => new IsolateCounters());
  const admitted: number[] = [];
  const blocks: Outcome["blocks"] = [];
  let t = 1_700_000_000_000;
  for (const e of events) {
    t += Math.max(0, e.gap.periods * limits.periodMs + e.gap.ms);
    const isolate = isolates[e.isolate % isolates.length]!;
    const now = t + offsets[e.isolate % offsets.length]!;
    const acquire: Acquire = (want, returned, ahead) => {
      const step = leaseRequests(state, limits, now, { want, returned, ahead });
      state = step.state;
      return Promise.resolve(step.decision);
    };
    const one = async (): Promise<void> => {
      const known = isolate.knownBlock("c", now);
      if (known !== undefined) {
        blocks.push({ now, until: known, state });
        return;
      }
      const a = await isolate.admit("c", now, acquire, 1000);
      if (a.kind === "admit") admitted.push(t);
      else if (a.kind === "block") blocks.push({ now, until: a.blockedUntil, state });
      else throw new Error("the model is always available");
    };
    await Promise.all(Array.from({ length: e.requests }, one));
  }
  return { admitted, blocks };
}

/**
 * A history random search finds rarely, kept as an example: an isolate spends the tail of a lease at the end of the
 * lease's lifetime (no later request counted in its bucket), and a period after the lease was granted another isolate
 * takes the whole allowance. Counting a lease as admitted when granted (not until it expires) passes N + 1 here.
 */
const LEASE_TAIL: [{ period: number; mitigation: number; limit: number }, number, Event[]] = [
  { period: 60, mitigation: 1, limit: 40 },
  2,
  [
    ...Array.from({ length: 20 }, () => ({ isolate: 0, gap: { periods: 0, ms: 0 }, requests: 1 })),
    { isolate: 0, gap: { periods: 0, ms: 999 }, requests: 1 },
    { isolate: 1, gap: { periods: 1, ms: -989 }, requests: 60 },
  ],
];

function limitsOf(r: { period: number; mitigation: number; limit: number }): CounterLimits {
  return { periodMs: r.period * 1000, limit: r.limit, timeoutMs: r.mitigation * 1000 };
}

describe("leases over several isolates", () => {
  it("never more than N in any window of period; a block ends when a request is admitted again", async () => {
    await fc.assert(
      fc.asyncProperty(
        rule,
        fc.integer({ min: 1, max: 4 }),
        fc.array(event, { minLength: 1, maxLength: 80 }),
        async (r, count, events) => {
          const limits = limitsOf(r);
          const { admitted, blocks } = await play(limits, events, new Array<number>(count).fill(0));
          expect(maxInWindow(admitted, limits.periodMs)).toBeLessThanOrEqual(r.limit);
          for (const b of blocks) {
            // At the block's end a request is admitted (no lease spent meanwhile: every isolate is refused).
            expect(leaseRequests(b.state, limits, b.until, { want: 1, returned: null }).decision.kind).toBe("lease");
            // Retry-After: the block's end in whole seconds, never early, never a rounding second late; at most the
            // mitigation, or the period and one lease's lifetime that the window may need.
            const retryAfter = retryAfterSeconds(b.until, b.now);
            expect(retryAfter * 1000).toBeGreaterThanOrEqual(b.until - b.now);
            expect(retryAfter * 1000 - (b.until - b.now)).toBeLessThan(1000);
            const most = Math.max(limits.timeoutMs, limits.periodMs + leaseMs(limits.periodMs));
            expect(retryAfter).toBeLessThanOrEqual(Math.ceil(most / 1000));
          }
        },
      ),
      { numRuns: 150, examples: [LEASE_TAIL] },
    );
  });

  it("with the isolates' clocks apart by up to D: never more than N in any window of period − D", async () => {
    await fc.assert(
      fc.asyncProperty(
        rule,
        fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 2, maxLength: 4 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.array(event, { minLength: 1, maxLength: 80 }),
        async (r, shares, spread, events) => {
          const limits = limitsOf(r);
          const d = Math.floor(((limits.periodMs - 1) * spread) / 1000);
          const offsets = shares.map((s) => Math.floor((d * s) / 1000));
          const { admitted } = await play(limits, events, offsets);
          expect(maxInWindow(admitted, limits.periodMs - d)).toBeLessThanOrEqual(r.limit);
        },
      ),
      { numRuns: 150 },
    );
  });
});
