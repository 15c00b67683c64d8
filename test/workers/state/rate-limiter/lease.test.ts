/** Leases of the counting model (src/state/rate-limiter/counter.ts `leaseRequests`): sizes, reservation, returns. */
import { describe, expect, it } from "vitest";
import {
  LEASE_DIVISOR,
  LEASE_MS,
  MAX_LEASE,
  countRequest,
  leaseRequests,
  type CounterLimits,
  type CounterState,
  type LeaseDecision,
} from "../../../../src/state/rate-limiter/counter";

const limits: CounterLimits = { periodMs: 10_000, limit: 1000, timeoutMs: 30_000 };

function lease(decision: LeaseDecision): Extract<LeaseDecision, { kind: "lease" }> {
  if (decision.kind !== "lease") throw new Error(`expected a lease, got ${JSON.stringify(decision)}`);
  return decision;
}

describe("lease sizes", () => {
  it("what the caller wants, at most MAX_LEASE and at most 1/LEASE_DIVISOR of what is left; never 0", () => {
    expect(lease(leaseRequests(null, limits, 0, 5, null).decision).size).toBe(5);
    expect(lease(leaseRequests(null, limits, 0, MAX_LEASE, null).decision).size).toBe(Math.floor(1000 / LEASE_DIVISOR));
    const big = { ...limits, limit: 1_000_000 };
    expect(lease(leaseRequests(null, big, 0, 10_000, null).decision).size).toBe(MAX_LEASE);
    // Near the limit: small, and 1 once fewer than 2 × LEASE_DIVISOR remain (exact at the edge).
    const near: CounterState = { windowStart: 0, count: 1000 - 2 * LEASE_DIVISOR, previous: 0, blockedUntil: 0 };
    expect(lease(leaseRequests(near, limits, 1, MAX_LEASE, null).decision).size).toBe(2);
    const edge: CounterState = { ...near, count: 1000 - 2 * LEASE_DIVISOR + 1 };
    expect(lease(leaseRequests(edge, limits, 1, MAX_LEASE, null).decision).size).toBe(1);
    expect(lease(leaseRequests(null, limits, 0, 0, null).decision).size).toBe(1);
  });

  it("reserves at once: leases never hand out more than the limit, and the one after blocks", () => {
    let state: CounterState | null = null;
    let granted = 0;
    for (let i = 0; ; i++) {
      const step = leaseRequests(state, limits, i, MAX_LEASE, null);
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
      const y = leaseRequests(b, small, now, 1, null);
      a = x.state;
      b = y.state;
      expect(y.decision.kind === "lease" ? "allow" : y.decision.kind).toBe(x.decision.kind);
      expect(b).toEqual(a);
    }
  });

  it("expires LEASE_MS after it was granted, or at the window's end if sooner: a lease never spans two windows", () => {
    expect(lease(leaseRequests(null, limits, 100, 8, null).decision).expiresAt).toBe(100 + LEASE_MS);
    const late: CounterState = { windowStart: 0, count: 10, previous: 0, blockedUntil: 0 };
    const d = lease(leaseRequests(late, limits, 9_700, 8, null).decision);
    expect(d).toMatchObject({ windowStart: 0, expiresAt: 10_000 });
  });

  it("weighs the previous window like countRequest: leases fit under the sliding estimate", () => {
    // 800 last window, half-way through this one: estimate 400, so 600 fit.
    const state: CounterState = { windowStart: 10_000, count: 0, previous: 800, blockedUntil: 0 };
    let s: CounterState | null = state;
    let granted = 0;
    for (;;) {
      const step = leaseRequests(s, limits, 15_000, MAX_LEASE, null);
      s = step.state;
      if (step.decision.kind !== "lease") break;
      granted += step.decision.size;
    }
    expect(granted).toBe(600);
  });
});

describe("asked ahead", () => {
  it("with nothing left: 'exhausted', no block (the holder spends what it holds); with some left: a lease", () => {
    const full: CounterState = { windowStart: 0, count: 1000, previous: 0, blockedUntil: 0 };
    expect(leaseRequests(full, limits, 5, 8, null, true).decision).toEqual({ kind: "exhausted" });
    expect(leaseRequests(full, limits, 5, 8, null, false).decision).toEqual({ kind: "block", blockedUntil: 30_005 });
    // A return asked ahead still counts.
    const back = leaseRequests(full, limits, 5, 8, { windowStart: 0, unspent: 10 }, true);
    expect(back.state.count).toBe(990 + 1);
    expect(back.decision).toMatchObject({ kind: "lease", size: 1 });
  });
});

describe("returns", () => {
  it("the unspent part of a lease goes back to the window it was counted in", () => {
    const first = leaseRequests(null, limits, 0, 100, null);
    expect(first.state.count).toBe(100);
    // 30 of it spent; the holder asks again and gives back 70.
    const again = leaseRequests(first.state, limits, 500, 1, { windowStart: 0, unspent: 70 });
    expect(again.state.count).toBe(30 + 1);
  });

  it("to the previous window after a roll; a return from before a block or older is ignored", () => {
    const counted: CounterState = { windowStart: 0, count: 100, previous: 0, blockedUntil: 0 };
    const rolled = leaseRequests(counted, limits, 12_000, 1, { windowStart: 0, unspent: 40 });
    expect(rolled.state).toMatchObject({ windowStart: 10_000, previous: 60, count: 1 });
    const old = leaseRequests(rolled.state, limits, 12_001, 1, { windowStart: -50_000, unspent: 40 });
    expect(old.state).toMatchObject({ previous: 60, count: 2 });
    const blocked: CounterState = { windowStart: 40_000, count: 0, previous: 0, blockedUntil: 40_000 };
    const during = leaseRequests(blocked, limits, 39_000, 1, { windowStart: 0, unspent: 40 });
    expect(during).toMatchObject({ decision: { kind: "block", blockedUntil: 40_000 }, changed: false });
    const after = leaseRequests(blocked, limits, 40_001, 1, { windowStart: 0, unspent: 40 });
    expect(after.state).toMatchObject({ windowStart: 40_001, count: 1, previous: 0 });
  });
});
