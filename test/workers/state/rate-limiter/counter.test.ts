/** The counting model (src/state/rate-limiter/counter.ts): sliding window from two fixed windows, blocks, expiry. */
import { describe, expect, it } from "vitest";
import {
  countRequest,
  expiresAt,
  type CounterLimits,
  type CounterState,
} from "../../../../src/state/rate-limiter/counter";

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

describe("counter", () => {
  it("N allowed, N+1 blocked, from the moment it exceeded for mitigation_timeout", () => {
    const { kinds, state } = send(null, 5, 1000);
    expect(kinds).toEqual(["allow", "allow", "allow", "block", "block"]);
    expect(state?.blockedUntil).toBe(1000 + 30_000);
  });

  it("blocked requests are not counted and change nothing", () => {
    const blocked = send(null, 4, 0).state!;
    const step = countRequest(blocked, limits, 5000);
    expect(step).toEqual({ state: blocked, decision: { kind: "block", blockedUntil: 30_000 }, changed: false });
  });

  it("after the block, the client starts afresh (it may send again when Retry-After says)", () => {
    const blocked = send(null, 4, 0).state!;
    expect(send(blocked, 1, 29_999).kinds).toEqual(["block"]);
    expect(send(blocked, 4, 30_000).kinds).toEqual(["allow", "allow", "allow", "block"]);
  });

  it("the previous window weighs in proportionally (no 2×N burst at a window edge)", () => {
    const full = send(null, 3, 0).state!; // window [0, 10 s) full
    // At 10 s the previous window counts fully: 3 × 1.0 → blocked.
    expect(send(full, 1, 10_000).kinds).toEqual(["block"]);
    // At 15 s it weighs 3 × 0.5 = 1.5: one more request (2.5 ≤ 3) passes, the next (3.5) does not.
    expect(send(full, 2, 15_000).kinds).toEqual(["allow", "block"]);
    // Two periods later the history is gone.
    expect(send(full, 4, 20_000).kinds).toEqual(["allow", "allow", "allow", "block"]);
  });

  it("a clock slightly behind the window start counts as the window's first instant", () => {
    const state = send(null, 2, 10_000).state!;
    expect(send(state, 2, 9_000).kinds).toEqual(["allow", "block"]);
  });

  it("state expires when it equals a fresh counter", () => {
    const counting = send(null, 1, 1000).state!;
    expect(expiresAt(counting, limits.periodMs)).toBe(21_000);
    const blocked = send(null, 4, 1000).state!;
    expect(expiresAt(blocked, limits.periodMs)).toBe(31_000);
  });
});
