/**
 * What one isolate knows of the rate limiter's counters (contract §4, §8: bounded per-isolate caches), so most
 * requests need no Durable Object round trip:
 *   - blocks: "this counter is blocked until T", answered 1015 locally until T (both counting modes);
 *   - leases (approximate counting, docs/producers.md "Approximate counting: leases"): a batch of requests the
 *     `RateLimiter` reserved for this isolate (src/state/rate-limiter/counter.ts `leaseRequests`), admitted here one
 *     by one without a round trip until spent or expired.
 *
 * Lease sizes follow this isolate's own demand: it first asks for 1; a lease spent before it expired makes it ask
 * for twice as many (up to `MAX_LEASE`); a lease that expired unspent makes it ask for what it did spend. The
 * object caps every lease by what is left (`LEASE_DIVISOR`), so near the limit leases are 1. The unspent part of a
 * lease goes back to the object with the next request that asks.
 *
 * Concurrent requests of one counter share one request to the object: while it is in flight the others wait for
 * it and then take from the lease it brought (or ask again when it is spent), so a spent lease costs one round trip,
 * not one per waiting request.
 *
 * Pure bookkeeping: the round trip itself is the caller's `acquire` (check.ts), so tests can run several instances
 * (several "isolates") against one real object.
 */
import { BoundedCache } from "../../../shared/bounded-cache";
import { TIMEOUT, within } from "../../../shared/timeout";
import { MAX_LEASE, type LeaseDecision, type LeaseReturn } from "../../../state/rate-limiter/counter";

/** Most counters with a known block, and most counters with a lease, per isolate (each least recently used out). */
export const BLOCKED_CACHE_SIZE = 10_000;
export const LEASE_CACHE_SIZE = 10_000;

/** What the object answered to a lease request, or that it could not be asked (the caller failed open and logged). */
export type Acquired = LeaseDecision | { readonly kind: "unavailable" };

export type Admission =
  | { readonly kind: "admit" }
  | { readonly kind: "block"; readonly blockedUntil: number }
  /** The object could not be asked: fail open (contract §3); `logged` false when the caller must log it. */
  | { readonly kind: "unavailable"; readonly logged: boolean };

/** Asks the object for a lease of `want`, giving back `returned`; never rejects. */
export type Acquire = (want: number, returned: LeaseReturn | null) => Promise<Acquired>;

interface HeldLease {
  readonly windowStart: number;
  readonly expiresAt: number;
  readonly size: number;
  /** Requests of it not yet admitted. */
  left: number;
}

interface Slot {
  lease: HeldLease | null;
  /** What to ask for when no lease is held (after a block, a failure or an eviction: 1). */
  want: number;
  inflight: Promise<Acquired> | null;
}

const ADMIT: Admission = { kind: "admit" };
const UNAVAILABLE: Admission = { kind: "unavailable", logged: true };
const WAIT_TIMED_OUT: Admission = { kind: "unavailable", logged: false };

export class IsolateCounters {
  private readonly blocked: BoundedCache<string, number>;
  private readonly slots: BoundedCache<string, Slot>;
  /** Lease requests sent to the objects by this isolate (what leases save is requests minus this). */
  roundTrips = 0;

  constructor(capacity: { readonly blocked?: number; readonly leases?: number } = {}) {
    this.blocked = new BoundedCache({ capacity: capacity.blocked ?? BLOCKED_CACHE_SIZE });
    this.slots = new BoundedCache({ capacity: capacity.leases ?? LEASE_CACHE_SIZE });
  }

  /** The end of a block of counter `name` known here, or undefined (an ended block is dropped when read). */
  knownBlock(name: string, now: number): number | undefined {
    const until = this.blocked.get(name);
    if (until === undefined || until > now) return until;
    this.blocked.delete(name);
    return undefined;
  }

  /** Remembers a block; a lease of the counter is void from now on (the object has forgotten it). */
  noteBlock(name: string, blockedUntil: number): void {
    this.blocked.set(name, blockedUntil);
    this.slots.delete(name);
  }

  /**
   * Admits one request of counter `name` from the lease held here, or asks the object (`acquire`) for a new one.
   * A request that waits for another's round trip and finds the lease it brought spent asks again itself.
   */
  async admit(name: string, now: number, acquire: Acquire, waitMs: number): Promise<Admission> {
    for (;;) {
      let slot = this.slots.get(name);
      if (slot === undefined) {
        slot = { lease: null, want: 1, inflight: null };
        this.slots.set(name, slot);
      }
      const lease = slot.lease;
      if (lease !== null && lease.left > 0 && now < lease.expiresAt) {
        lease.left--;
        return ADMIT;
      }
      if (slot.inflight !== null) {
        // Bounded by this request's own timer: the asking request's (in its own request context) does not guard a
        // waiter whose asker was cancelled (contract §3: fail open, never hang).
        const got = await within(slot.inflight, waitMs);
        if (got === TIMEOUT) return WAIT_TIMED_OUT;
        if (got.kind === "block") return got;
        if (got.kind === "unavailable") return UNAVAILABLE; // the asking request logged it
        continue;
      }
      const { want, returned } = nextAsk(slot, now);
      slot.lease = null;
      this.roundTrips++;
      const inflight = acquire(want, returned);
      slot.inflight = inflight;
      let got: Acquired;
      try {
        got = await inflight;
      } finally {
        slot.inflight = null;
      }
      if (got.kind === "lease") {
        // The asking request is the lease's first.
        slot.lease = { windowStart: got.windowStart, expiresAt: got.expiresAt, size: got.size, left: got.size - 1 };
        slot.want = got.size;
        return ADMIT;
      }
      slot.want = 1;
      if (got.kind === "unavailable") return UNAVAILABLE;
      this.noteBlock(name, got.blockedUntil);
      return got;
    }
  }

  /** The unspent requests of the lease held for `name` (tests). */
  unspent(name: string): number {
    return this.slots.peek(name)?.lease?.left ?? 0;
  }
}

/** What to ask for next, from how the last lease went (see the header), and what of it to give back. */
function nextAsk(slot: Slot, now: number): { want: number; returned: LeaseReturn | null } {
  const lease = slot.lease;
  if (lease === null) return { want: slot.want, returned: null };
  const spent = lease.size - lease.left;
  const want = lease.left === 0 && now < lease.expiresAt ? lease.size * 2 : spent;
  return {
    want: Math.max(1, Math.min(MAX_LEASE, want)),
    returned: lease.left > 0 ? { windowStart: lease.windowStart, unspent: lease.left } : null,
  };
}
