/**
 * The isolate's side of leases (src/edge/request-phases/rate-limit/isolate-counters.ts) with a given `acquire`:
 * concurrent requests share one round trip, lease sizes follow demand, a waiter is bounded by its own timer.
 * Against the real object: rate-limit-leases.test.ts.
 */
import { describe, expect, it } from "vitest";
import { IsolateCounters, type Acquire } from "../../../../src/edge/request-phases/rate-limit/isolate-counters";
import type { LeaseReturn } from "../../../../src/state/rate-limiter/counter";

/** An object that grants what is asked (capped at `cap`), recording each ask. */
function granting(cap: number, delayMs = 0) {
  const asks: { want: number; returned: LeaseReturn | null }[] = [];
  const acquire: Acquire = async (want, returned) => {
    asks.push({ want, returned });
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    return { kind: "lease", size: Math.min(want, cap), windowStart: 0, expiresAt: 1000 };
  };
  return { asks, acquire };
}

describe("IsolateCounters", () => {
  it("concurrent requests share one round trip; each spent lease asks for twice as many", async () => {
    const isolate = new IsolateCounters();
    const { asks, acquire } = granting(128, 5);
    const admissions = await Promise.all(Array.from({ length: 10 }, () => isolate.admit("c", 0, acquire, 1000)));
    expect(admissions.every((a) => a.kind === "admit")).toBe(true);
    // 1, then 2, 4, 8: four round trips for ten concurrent requests, not ten.
    expect(asks.map((a) => a.want)).toEqual([1, 2, 4, 8]);
    expect(isolate.roundTrips).toBe(4);
    expect(isolate.unspent("c")).toBe(15 - 10);
  });

  it("an expired lease gives back its unspent part and asks for what it spent", async () => {
    const isolate = new IsolateCounters();
    const { asks, acquire } = granting(128);
    for (let i = 0; i < 4; i++) await isolate.admit("c", 0, acquire, 1000); // leases 1, 2, 4: 1 of the 4 spent
    expect(isolate.unspent("c")).toBe(3);
    await isolate.admit("c", 1000, acquire, 1000);
    expect(asks.at(-1)).toEqual({ want: 1, returned: { windowStart: 0, unspent: 3 } });
  });

  it("a request waiting for another's round trip gives up after its own timer (fail open, for the caller to log)", async () => {
    const isolate = new IsolateCounters();
    const { acquire } = granting(128, 300);
    const asker = isolate.admit("c", 0, acquire, 1000);
    const started = Date.now();
    expect(await isolate.admit("c", 0, acquire, 20)).toEqual({ kind: "unavailable", logged: false });
    expect(Date.now() - started).toBeLessThan(250);
    expect(await asker).toEqual({ kind: "admit" });
  });

  it("a block ends the lease and is answered locally until it ends; a failure admits (the asker logged it)", async () => {
    const isolate = new IsolateCounters();
    const blocking: Acquire = () => Promise.resolve({ kind: "block", blockedUntil: 5000 });
    expect(await isolate.admit("c", 0, blocking, 1000)).toEqual({ kind: "block", blockedUntil: 5000 });
    expect(isolate.knownBlock("c", 4999)).toBe(5000);
    expect(isolate.knownBlock("c", 5000)).toBeUndefined();
    const failing: Acquire = () => Promise.resolve({ kind: "unavailable" });
    expect(await isolate.admit("d", 0, failing, 1000)).toEqual({ kind: "unavailable", logged: true });
  });
});
