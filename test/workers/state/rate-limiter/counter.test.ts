/**
 * The counting model (src/state/rate-limiter/counter.ts): a sliding window of `period` kept in buckets, blocks that
 * add a floor without resetting the count, expiry. Random histories: properties.test.ts beside this file.
 */
import { describe, expect, it } from "vitest";
import { retryAfterSeconds } from "../../../../src/edge/request-phases/rate-limit/check";
import {
  BUCKETS_PER_PERIOD,
  MAX_BUCKETS,
  countRequest,
  expiresAt,
  serviceLimit,
  type CounterLimits,
  type CounterState,
} from "../../../../src/state/rate-limiter/counter";
import { maxInWindow } from "../../support/sliding-window";

const limits: CounterLimits = { periodMs: 10_000, limit: 3, timeoutMs: 30_000 };

/** Sends `times` requests at `now` and returns the decisions' kinds and the final state. */
function send(state: CounterState | null, times: number, now: number, l = limits) {
  const kinds: string[] = [];
  for (let i = 0; i < times; i++) {
    const step = countRequest(state, l, now);
    state = step.state;
    kinds.push(step.decision.kind);
  }
  return { kinds, state };
}

/** A client sending one request every `everyMs` for `forMs`: the times of those admitted. */
function flood(l: CounterLimits, everyMs: number, forMs: number): number[] {
  let state: CounterState | null = null;
  const admitted: number[] = [];
  for (let now = 0; now < forMs; now += everyMs) {
    const step = countRequest(state, l, now);
    state = step.state;
    if (step.decision.kind === "allow") admitted.push(now);
  }
  return admitted;
}

describe("counter", () => {
  it("N allowed, N+1 blocked, from the moment it exceeded for mitigation_timeout (the window admits before)", () => {
    const { kinds, state } = send(null, 5, 1000);
    expect(kinds).toEqual(["allow", "allow", "allow", "block", "block"]);
    expect(state?.blockedUntil).toBe(1000 + 30_000);
  });

  it("blocked requests are not counted and change nothing", () => {
    const blocked = send(null, 4, 0).state!;
    const step = countRequest(blocked, limits, 5000);
    expect(step).toEqual({ state: blocked, decision: { kind: "block", blockedUntil: 30_000 }, changed: false });
  });

  it("after a block longer than the period, the client has its full allowance again", () => {
    const blocked = send(null, 4, 0).state!;
    expect(send(blocked, 1, 29_999).kinds).toEqual(["block"]);
    expect(send(blocked, 4, 30_000).kinds).toEqual(["allow", "allow", "allow", "block"]);
  });

  it("a mitigation shorter than the period only adds a floor: the block lasts until the window admits again", () => {
    const short = { periodMs: 60_000, limit: 3, timeoutMs: 2_000 };
    const first = send(null, 1, 0, short).state!;
    const full = send(first, 2, 10_000, short).state!; // 0, 10 s, 10 s
    const step = countRequest(full, short, 11_000);
    // The request at 0 leaves the window at 60 s: that, not 11 s + 2 s, is when one more may pass.
    expect(step.decision).toEqual({ kind: "block", blockedUntil: 60_000 });
    expect(send(step.state, 1, 59_999, short).kinds).toEqual(["block"]);
    expect(send(step.state, 2, 60_000, short).kinds).toEqual(["allow", "block"]);
    // That second refusal starts a block of its own: 2 s, then the window (10 s requests leave at 70 s).
    expect(countRequest(send(step.state, 1, 60_000, short).state, short, 60_001).decision).toEqual({
      kind: "block",
      blockedUntil: 70_000,
    });
  });

  it("the example of docs/producers.md: 3 per 60 s, mitigation 2 s", () => {
    const l = { periodMs: 60_000, limit: 3, timeoutMs: 2_000 };
    let state: CounterState | null = null;
    for (const at of [0, 10_000, 50_000]) {
      const step = countRequest(state, l, at);
      expect(step.decision.kind).toBe("allow");
      state = step.state;
    }
    const refused = countRequest(state, l, 51_000);
    expect(refused.decision).toEqual({ kind: "block", blockedUntil: 60_000 });
    expect(retryAfterSeconds(60_000, 51_000)).toBe(9);
    const again = countRequest(refused.state, l, 60_000);
    expect(again.decision.kind).toBe("allow");
    expect(countRequest(again.state, l, 61_000).decision).toEqual({ kind: "block", blockedUntil: 70_000 });
  });

  it("5 per 3,600 s with a 2 s mitigation: a client flooding for an hour gets 5 through, not 5 per block", () => {
    const l = { periodMs: 3_600_000, limit: 5, timeoutMs: 2_000 };
    const admitted = flood(l, 100, 3_600_000);
    expect(admitted).toEqual([0, 100, 200, 300, 400]);
    // They share a bucket (a twentieth of the period), which leaves the window an hour after its latest request.
    const next = [3_600_400, 3_600_500, 3_600_600, 3_600_700, 3_600_800];
    expect(flood(l, 100, 3_601_000)).toEqual([...admitted, ...next]);
  });

  it("10 per 60 s with a 1 s mitigation: an hour's flood passes at most 10 in any 60 s, and about 10 per minute", () => {
    const l = { periodMs: 60_000, limit: 10, timeoutMs: 1_000 };
    const admitted = flood(l, 50, 3_600_000);
    expect(maxInWindow(admitted, l.periodMs)).toBe(10);
    // Counted up to one bucket (3 s) too long: at least 10 per 63 s over the hour; at most 10 per 60 s.
    expect(admitted.length).toBeLessThanOrEqual(600);
    expect(admitted.length).toBeGreaterThanOrEqual(Math.floor(3_600_000 / 63_000) * 10);
  });

  it("a sliding window, not two fixed ones: N at the end of one period leave no room half-way through the next", () => {
    const full = send(null, 3, 9_999).state!;
    expect(send(full, 1, 15_000).kinds).toEqual(["block"]); // the two-window estimate let 1 (N / 2) through here
    expect(send(send(null, 3, 9_999).state, 1, 19_999).kinds).toEqual(["allow"]);
  });

  it("a request is counted at most one bucket's span too long: N evenly over period + span are never refused", () => {
    const span = limits.periodMs / BUCKETS_PER_PERIOD;
    const every = Math.ceil((limits.periodMs + span) / limits.limit);
    let state: CounterState | null = null;
    for (let now = 0; now < 200_000; now += every) {
      const step = countRequest(state, limits, now);
      expect(step.decision.kind).toBe("allow");
      state = step.state;
    }
  });

  it("a clock behind the newest bucket counts in it, until a period after that bucket's latest request", () => {
    const state = send(null, 2, 10_000).state!;
    const behind = send(state, 2, 9_000);
    expect(behind.kinds).toEqual(["allow", "block"]);
    expect(behind.state?.buckets).toEqual([{ open: 10_000, last: 10_000, count: 3 }]);
  });

  it("at most MAX_BUCKETS buckets, whatever clocks the callers send", () => {
    let state: CounterState | null = null;
    const wide = { ...limits, limit: 1_000_000 };
    for (let i = 0; i < 500; i++) state = countRequest(state, wide, (i * 7_919) % 10_000).state;
    for (let i = 0; i < 500; i++) state = countRequest(state, wide, i * 499).state;
    expect(state!.buckets.length).toBeLessThanOrEqual(MAX_BUCKETS);
    expect(state!.buckets.reduce((sum, b) => sum + b.count, 0)).toBeGreaterThan(0);
  });

  it("state expires when it equals a fresh counter: a period after the latest request, or the block's end", () => {
    const counting = send(null, 1, 1000).state!;
    expect(expiresAt(counting, limits.periodMs)).toBe(11_000);
    const blocked = send(null, 4, 1000).state!;
    expect(expiresAt(blocked, limits.periodMs)).toBe(31_000);
    const short = { ...limits, timeoutMs: 1_000 };
    expect(expiresAt(send(null, 4, 1000, short).state!, limits.periodMs)).toBe(11_000);
  });
});

describe('serviceLimit: what the RateLimit field says (docs/producers.md "RateLimit fields")', () => {
  it("counts down within the window, resets when the oldest bucket leaves it, and says the block's end", () => {
    const t0 = 1_000_000;
    const one = send(null, 1, t0).state!;
    expect(serviceLimit(one, limits, t0)).toEqual({ remaining: 2, resetAt: t0 + 10_000 });
    const two = send(one, 1, t0 + 4_000).state!;
    // The first bucket (t0) still counts: the reset is when it leaves.
    expect(serviceLimit(two, limits, t0 + 4_000)).toEqual({ remaining: 1, resetAt: t0 + 10_000 });
    // After it left, only the second counts.
    expect(serviceLimit(two, limits, t0 + 10_000)).toEqual({ remaining: 2, resetAt: t0 + 14_000 });
    const full = send(two, 2, t0 + 5_000);
    expect(full.kinds).toEqual(["allow", "block"]);
    expect(serviceLimit(full.state!, limits, t0 + 5_000)).toEqual({ remaining: 0, resetAt: t0 + 5_000 + 30_000 });
    expect(serviceLimit({ buckets: [], blockedUntil: 0 }, limits, t0)).toEqual({ remaining: 3, resetAt: null });
  });
});
