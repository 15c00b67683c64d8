/**
 * Leases of the counting model (src/state/rate-limiter/counter.ts `leaseRequests`): sizes, reservation, lifetimes,
 * returns.
 */
import { describe, expect, it } from "vitest";
import {
  LEASE_DIVISOR,
  LEASE_MS,
  MAX_LEASE,
  countRequest,
  leaseMs,
  leaseRequests,
  type CounterLimits,
  type CounterState,
  type LeaseDecision,
} from "../../../../src/state/rate-limiter/counter";

const limits: CounterLimits = { periodMs: 10_000, limit: 1000, timeoutMs: 30_000 };

/** A counter with `count` requests counted in one bucket opened at `open` (latest request at `last`). */
function counted(count: number, open = 0, last = open): CounterState {
  return { buckets: [{ open, last, count }], blockedUntil: 0 };
}

function lease(decision: LeaseDecision): Extract<LeaseDecision, { kind: "lease" }> {
  if (decision.kind !== "lease") throw new Error(`expected a lease, got ${JSON.stringify(decision)}`);
  return decision;
}

describe("lease sizes", () => {
  it("what the caller wants, at most MAX_LEASE and at most 1/LEASE_DIVISOR of what is left; never 0", () => {
    expect(lease(leaseRequests(null, limits, 0, { want: 5, returned: null }).decision).size).toBe(5);
    expect(lease(leaseRequests(null, limits, 0, { want: MAX_LEASE, returned: null }).decision).size).toBe(
      Math.floor(1000 / LEASE_DIVISOR),
    );
    const big = { ...limits, limit: 1_000_000 };
    expect(lease(leaseRequests(null, big, 0, { want: 10_000, returned: null }).decision).size).toBe(MAX_LEASE);
    // Near the limit: small, and 1 once fewer than 2 × LEASE_DIVISOR remain (exact at the edge).
    const near = counted(1000 - 2 * LEASE_DIVISOR);
    expect(lease(leaseRequests(near, limits, 1, { want: MAX_LEASE, returned: null }).decision).size).toBe(2);
    const edge = counted(1000 - 2 * LEASE_DIVISOR + 1);
    expect(lease(leaseRequests(edge, limits, 1, { want: MAX_LEASE, returned: null }).decision).size).toBe(1);
    expect(lease(leaseRequests(null, limits, 0, { want: 0, returned: null }).decision).size).toBe(1);
  });

  it("reserves at once: leases never hand out more than the limit, and the one after blocks", () => {
    let state: CounterState | null = null;
    let granted = 0;
    for (let i = 0; ; i++) {
      const step = leaseRequests(state, limits, i, { want: MAX_LEASE, returned: null });
      state = step.state;
      if (step.decision.kind !== "lease") {
        expect(step.decision).toEqual({ kind: "block", blockedUntil: i + 30_000 });
        break;
      }
      granted += step.decision.size;
    }
    expect(granted).toBe(1000);
  });

  it("with want = 1 it is countRequest, step for step", () => {
    const small = { ...limits, limit: 5 };
    let a: CounterState | null = null;
    let b: CounterState | null = null;
    for (const now of [0, 1, 2, 3, 4, 5, 6, 9_000, 10_500, 40_000, 40_001]) {
      const x = countRequest(a, small, now);
      const y = leaseRequests(b, small, now, { want: 1, returned: null });
      a = x.state;
      b = y.state;
      expect(y.decision.kind === "lease" ? "allow" : y.decision.kind).toBe(x.decision.kind);
      expect(b).toEqual(a);
    }
  });

  it("lives min(LEASE_MS, a twentieth of the period); counted until a period after it expires", () => {
    expect(leaseMs(10_000)).toBe(500);
    expect(leaseMs(60_000)).toBe(LEASE_MS);
    const granted = leaseRequests(null, limits, 100, { want: 8, returned: null });
    expect(lease(granted.decision)).toMatchObject({ size: 8, bucket: 100, expiresAt: 600 });
    // Its last requests may be admitted at 599: it counts until 599 + period, not 100 + period.
    expect(granted.state.buckets).toEqual([{ open: 100, last: 600, count: 8 }]);
    expect(leaseRequests(granted.state, limits, 10_599, { want: 1, returned: null }).state.buckets).toEqual([
      { open: 100, last: 600, count: 8 },
      { open: 10_599, last: 10_599, count: 1 },
    ]);
    expect(leaseRequests(granted.state, limits, 10_600, { want: 1, returned: null }).state.buckets).toEqual([
      { open: 10_600, last: 10_600, count: 1 },
    ]);
  });

  it("a lease's tail spent at its end still counts a period later: N − tail fit then, not N", () => {
    const period = { periodMs: 60_000, limit: 40, timeoutMs: 1_000 };
    // Asked ahead at 0: 5 reserved (40 / 8), spendable until 1 s.
    const tail = leaseRequests(null, period, 0, { want: 8, returned: null, ahead: true });
    expect(lease(tail.decision)).toMatchObject({ size: 5, expiresAt: 1_000 });
    let state: CounterState | null = tail.state;
    let granted = 0;
    for (;;) {
      const step = leaseRequests(state, period, 60_010, { want: MAX_LEASE, returned: null });
      state = step.state;
      if (step.decision.kind !== "lease") break;
      granted += step.decision.size;
    }
    expect(granted).toBe(35);
  });

  it("leases fit under the sliding count: what is still in the window is taken off the allowance", () => {
    let s: CounterState | null = counted(800, 0, 4_000);
    let granted = 0;
    for (;;) {
      const step = leaseRequests(s, limits, 13_999, { want: MAX_LEASE, returned: null });
      s = step.state;
      if (step.decision.kind !== "lease") break;
      granted += step.decision.size;
    }
    expect(granted).toBe(200);
    expect(
      lease(leaseRequests(counted(800, 0, 4_000), limits, 14_000, { want: 128, returned: null }).decision).size,
    ).toBe(125);
  });
});

describe("asked ahead", () => {
  it("with nothing left: 'exhausted', no block (the holder spends what it holds); with some left: a lease", () => {
    const full = counted(1000);
    expect(leaseRequests(full, limits, 5, { want: 8, returned: null, ahead: true }).decision).toEqual({
      kind: "exhausted",
    });
    expect(leaseRequests(full, limits, 5, { want: 8, returned: null, ahead: false }).decision).toEqual({
      kind: "block",
      blockedUntil: 30_005,
    });
    // A return asked ahead still counts.
    const back = leaseRequests(full, limits, 5, { want: 8, returned: { bucket: 0, unspent: 10 }, ahead: true });
    expect(back.state.buckets).toEqual([{ open: 0, last: 500 + 5, count: 990 + 1 }]);
    expect(back.decision).toMatchObject({ kind: "lease", size: 1 });
  });
});

describe("returns", () => {
  it("the unspent part of a lease goes back to the bucket it was counted in", () => {
    const first = leaseRequests(null, limits, 0, { want: 100, returned: null });
    expect(first.state.buckets).toEqual([{ open: 0, last: 500, count: 100 }]);
    // 30 of it spent; the holder asks again (a bucket later) and gives back 70.
    const again = leaseRequests(first.state, limits, 600, { want: 1, returned: { bucket: 0, unspent: 70 } });
    expect(again.state.buckets).toEqual([
      { open: 0, last: 500, count: 30 },
      { open: 600, last: 600, count: 1 },
    ]);
  });

  it("a return to a bucket that no longer counts is ignored; during a block it still goes back", () => {
    const old = leaseRequests(counted(100), limits, 12_000, { want: 1, returned: { bucket: 0, unspent: 40 } });
    expect(old.state.buckets).toEqual([{ open: 12_000, last: 12_000, count: 1 }]);
    const unknown = leaseRequests(counted(100), limits, 1, { want: 1, returned: { bucket: -50_000, unspent: 40 } });
    expect(unknown.state.buckets).toEqual([{ open: 0, last: 1, count: 101 }]);
    const blocked: CounterState = { buckets: [{ open: 0, last: 0, count: 1000 }], blockedUntil: 40_000 };
    const during = leaseRequests(blocked, limits, 39_000, { want: 1, returned: { bucket: 0, unspent: 40 } });
    expect(during).toEqual({
      state: { buckets: [{ open: 0, last: 0, count: 960 }], blockedUntil: 40_000 },
      decision: { kind: "block", blockedUntil: 40_000 },
      changed: true,
    });
    expect(leaseRequests(blocked, limits, 39_000, { want: 1, returned: null })).toMatchObject({
      state: blocked,
      changed: false,
    });
  });
});
