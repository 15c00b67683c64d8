/**
 * The isolate's side of leases (src/edge/request-phases/rate-limit/isolate-counters.ts) with a given `acquire`:
 * lease sizes follow demand, the next lease is fetched ahead, concurrent requests share leases (never a promise),
 * a waiting request is bounded by its own budget. Against the real object: rate-limit-leases.test.ts.
 */
import { describe, expect, it } from "vitest";
import {
  IsolateCounters,
  type Acquire,
  type Acquired,
} from "../../../../src/edge/request-phases/rate-limit/isolate-counters";
import type { LeaseReturn } from "../../../../src/state/rate-limiter/counter";

/** An object that grants what is asked (capped at `cap`), recording each ask. */
function granting(cap: number, delayMs = 0, answer?: (ahead: boolean) => Acquired | undefined) {
  const asks: { want: number; returned: LeaseReturn | null; ahead: boolean }[] = [];
  const acquire: Acquire = async (want, returned, ahead) => {
    asks.push({ want, returned, ahead });
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    return answer?.(ahead) ?? { kind: "lease", size: Math.min(want, cap), bucket: 0, expiresAt: 1000 };
  };
  return { asks, acquire };
}

describe("IsolateCounters", () => {
  it("leases double while spent; the request that brings them to half of the last fetches the next ahead", async () => {
    const isolate = new IsolateCounters();
    const { asks, acquire } = granting(128);
    for (let i = 0; i < 20; i++) expect(await isolate.admit("c", 0, acquire, 1000)).toEqual({ kind: "admit" });
    expect(asks.map((a) => [a.want, a.ahead])).toEqual([
      [1, false], // nothing held: asked for this request
      [2, false], // the lease of 1 was spent before it expired
      [4, true], // the lease of 2 down to 0 ≤ 1: next lease fetched ahead
      [8, true],
      [16, true],
    ]);
    expect(isolate.roundTrips).toBe(5);
    expect(isolate.unspent("c")).toBe(1 + 2 + 4 + 8 + 16 - 20);
  });

  it("concurrent requests share the leases: one asks, the others look again on their own timers", async () => {
    const isolate = new IsolateCounters();
    const { asks, acquire } = granting(128, 5);
    const admissions = await Promise.all(Array.from({ length: 10 }, () => isolate.admit("c", 0, acquire, 1000)));
    expect(admissions.every((a) => a.kind === "admit")).toBe(true);
    // Never two requests asking at once: each lease request waited for by its own request only.
    expect(asks.length).toBeLessThan(10);
    expect(asks[0]).toEqual({ want: 1, returned: null, ahead: false });
  });

  it("an expired lease's unspent part goes back with the next request; it then asks for what it spent", async () => {
    const isolate = new IsolateCounters();
    const { asks, acquire } = granting(128);
    for (let i = 0; i < 4; i++) await isolate.admit("c", 0, acquire, 1000); // leases 1, 2, then 4 ahead
    expect(isolate.unspent("c")).toBe(1 + 2 + 4 - 4);
    await isolate.admit("c", 1000, acquire, 1000);
    // The lease of 4 expired with 1 spent: 3 go back, and it asks for 1.
    expect(asks.at(-1)).toEqual({ want: 1, returned: { bucket: 0, unspent: 3 }, ahead: false });
  });

  it("a request waiting for another's lease request asks itself when its budget runs out", async () => {
    const isolate = new IsolateCounters();
    const { asks, acquire } = granting(128, 100);
    const first = isolate.admit("c", 0, acquire, 1000);
    expect(await isolate.admit("c", 0, acquire, 5)).toEqual({ kind: "admit" });
    expect(asks).toHaveLength(2);
    expect(await first).toEqual({ kind: "admit" });
  });

  it("a lease request that never settles (its request cancelled) holds nobody up past its deadline", async () => {
    const isolate = new IsolateCounters();
    const asks: number[] = [];
    const acquire: Acquire = (want) => {
      asks.push(want);
      return asks.length === 1
        ? new Promise<Acquired>(() => {}) // never settles, like the call of a cancelled request
        : Promise.resolve({ kind: "lease", size: want, bucket: 0, expiresAt: 10_000 });
    };
    void isolate.admit("c", 0, acquire, 10_000);
    // A request whose clock is past the first one's deadline (0 + 10,000) asks at once, without polling: its answer
    // comes before a timer of 0 ms set first, which any poll (a timer of POLL_MS) would come after. Counted in turns,
    // not timed: a loaded machine slows both alike.
    const timer = new Promise<"polled">((resolve) => setTimeout(() => resolve("polled"), 0));
    expect(await Promise.race([isolate.admit("c", 10_000, acquire, 10_000), timer])).toEqual({ kind: "admit" });
    expect(asks).toEqual([1, 1]);
  });

  it("asked ahead with nothing left: 'exhausted', the leases held are still spent; a block voids them", async () => {
    const isolate = new IsolateCounters();
    let blockNow = false;
    const { acquire } = granting(128, 0, (ahead) =>
      blockNow ? { kind: "block", blockedUntil: 5000 } : ahead ? { kind: "exhausted" } : undefined,
    );
    for (let i = 0; i < 3; i++) await isolate.admit("c", 0, acquire, 1000); // 1, then 2; the third asks ahead
    expect(isolate.unspent("c")).toBe(0);
    blockNow = true;
    expect(await isolate.admit("c", 0, acquire, 1000)).toEqual({ kind: "block", blockedUntil: 5000 });
    expect(isolate.knownBlock("c", 4999)).toBe(5000);
    expect(isolate.knownBlock("c", 5000)).toBeUndefined();
    const failing: Acquire = () => Promise.resolve({ kind: "unavailable" });
    expect(await isolate.admit("d", 0, failing, 1000)).toEqual({ kind: "unavailable" });
  });
});
