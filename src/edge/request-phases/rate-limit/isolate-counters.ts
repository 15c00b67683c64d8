/**
 * What one isolate knows of the rate limiter's counters (docs/producers.md, docs/configuration.md: bounded per-isolate caches), so most
 * requests need no Durable Object round trip:
 *   - blocks: "this counter is blocked until T", answered 1015 locally until T (both counting modes);
 *   - leases (approximate counting, docs/producers.md "Approximate counting: leases"): batches of requests the
 *     `RateLimiter` reserved for this isolate (src/state/rate-limiter/counter.ts `leaseRequests`), admitted here one
 *     by one without a round trip until spent or expired.
 *
 * Lease sizes follow this isolate's own demand: it first asks for 1; while leases are spent before they expire it
 * asks for twice the last one (up to `MAX_LEASE`); after one expired it asks for what it did spend of it. The object
 * caps every lease by what is left (`LEASE_DIVISOR`), so near the limit leases are 1. The unspent part of expired
 * leases goes back to the object with the next request that asks.
 *
 * No promise is shared between requests: in workerd a continuation runs in the context of the request that settled
 * the promise, so a request waiting on another's round trip would do its own I/O (the origin fetch, analytics) on
 * behalf of that other request, which the runtime refuses ("Cannot perform I/O on behalf of a different request";
 * measured: 521s and 500s under load when requests awaited one shared lease request). Requests share plain data
 * only (the leases held), and each round trip is awaited by the request that made it:
 *   - refill ahead: the request that finds the leases held down to half of the last one asks for the next lease
 *     itself (and waits for it), while the other requests keep spending what is left, so under steady traffic no
 *     request waits for a lease it needs;
 *   - when nothing is left and another request is already asking, a request polls the leases on its own timer
 *     (`POLL_MS`) for up to its wait budget, then asks itself.
 * At most one lease request per counter is in flight per isolate, except when the poll budget runs out (or the
 * asking request was cancelled: the "asking" mark is a deadline); so an isolate holds at most two leases of a
 * counter (the one being spent and the next), but for those cases.
 *
 * Pure bookkeeping: the round trip itself is the caller's `acquire` (check.ts), so tests can run several instances
 * (several "isolates") against one real object.
 */
import { BoundedCache } from "../../../shared/bounded-cache";
import {
  MAX_LEASE,
  type LeaseDecision,
  type LeaseReturn,
  type ServiceLimitState,
} from "../../../state/rate-limiter/counter";

/** Most counters with a known block, and most counters with leases, per isolate (each least recently used out). */
export const BLOCKED_CACHE_SIZE = 10_000;
export const LEASE_CACHE_SIZE = 10_000;
/** How often a request waiting for another's lease request looks at the leases again. */
export const POLL_MS = 1;

/**
 * What the object answered to a lease request (with its service limit after it, when it said), or that it could not
 * be asked (the caller failed open and logged).
 */
export type Acquired = (LeaseDecision & { readonly limit?: ServiceLimitState }) | { readonly kind: "unavailable" };

export type Admission =
  /**
   * `limit`: the quota left as this isolate knows it (docs/producers.md "RateLimit fields"): what the object had
   * left after its last lease here, plus what this isolate still holds of its leases. Other isolates' spending since
   * is not seen: an estimate, as approximate counting is. Absent when the object never said.
   */
  | { readonly kind: "admit"; readonly limit?: ServiceLimitState }
  | { readonly kind: "block"; readonly blockedUntil: number }
  /** The object could not be asked (the caller logged it): fail open (docs/origin.md). */
  | { readonly kind: "unavailable" };

/** Asks the object for a lease of `want`, giving back `returned` (`ahead`: still holding some); never rejects. */
export type Acquire = (want: number, returned: LeaseReturn | null, ahead: boolean) => Promise<Acquired>;

interface HeldLease {
  /** The object's bucket it was counted in (named in its return). */
  readonly bucket: number;
  readonly expiresAt: number;
  readonly size: number;
  /** Requests of it not yet admitted. */
  left: number;
}

interface Slot {
  /** Oldest first (at most two but for the poll budget running out). */
  leases: HeldLease[];
  /** The size of the last lease granted (0: none yet, or since a block). */
  last: number;
  /** What to ask for after a lease expired: what was spent of it. */
  spentOfExpired: number | null;
  /** Unspent parts of expired leases, to give back with the next request (one bucket's worth). */
  returned: LeaseReturn | null;
  /** The object's service limit after the last lease it granted here (null: none reported). */
  reported: ServiceLimitState | null;
  /**
   * Until when (on the asking request's clock) a lease request is in flight; 0 when none. A deadline, not a count:
   * a request cancelled mid-call (its client went away) never runs its continuation, and a count would stay up.
   */
  askingUntil: number;
}

const ADMIT: Admission = { kind: "admit" };

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

  /** Remembers a block; the leases of the counter are void from now on (the object has forgotten them). */
  noteBlock(name: string, blockedUntil: number): void {
    this.blocked.set(name, blockedUntil);
    this.slots.delete(name);
  }

  /**
   * Admits one request of counter `name` from a lease held here, or asks the object (`acquire`) for one; `waitMs`
   * bounds how long it polls for another request's lease before asking itself.
   */
  async admit(name: string, now: number, acquire: Acquire, waitMs: number): Promise<Admission> {
    let slot = this.slots.get(name);
    if (slot === undefined) {
      slot = { leases: [], last: 0, spentOfExpired: null, returned: null, reported: null, askingUntil: 0 };
      this.slots.set(name, slot);
    }
    for (let waited = 0; ; waited += POLL_MS) {
      if (take(slot, now)) {
        // Refill ahead: this request fetches the next lease while the others spend what is left.
        if (slot.askingUntil <= now && slot.last > 1 && held(slot) <= slot.last / 2)
          await this.ask(name, slot, acquire, { now, waitMs, forThisRequest: false });
        return admitted(slot);
      }
      // Nothing left here: ask, unless another request is asking (then look again shortly, on this request's timer).
      if (slot.askingUntil <= now || waited >= waitMs)
        return this.ask(name, slot, acquire, { now, waitMs, forThisRequest: true });
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (this.slots.peek(name) !== slot) {
        // Voided meanwhile: by a block (which answers this request too), or evicted (start again).
        const until = this.knownBlock(name, now);
        return until === undefined
          ? this.admit(name, now, acquire, waitMs - waited)
          : { kind: "block", blockedUntil: until };
      }
    }
  }

  /** The unspent requests of the leases held for `name` (tests). */
  unspent(name: string): number {
    const slot = this.slots.peek(name);
    return slot === undefined ? 0 : held(slot);
  }

  /** One lease request; `forThisRequest`: the request has not been admitted yet and takes the lease's first. */
  private async ask(
    name: string,
    slot: Slot,
    acquire: Acquire,
    at: { readonly now: number; readonly waitMs: number; readonly forThisRequest: boolean },
  ): Promise<Admission> {
    const { now, waitMs, forThisRequest } = at;
    const want = slot.spentOfExpired ?? (slot.last === 0 ? 1 : slot.last * 2);
    const returned = slot.returned;
    slot.returned = null;
    slot.spentOfExpired = null;
    // A failed call loses `returned` (it stays counted: the object may have taken it back before the call failed).
    slot.askingUntil = now + waitMs;
    this.roundTrips++;
    let got: Acquired;
    try {
      got = await acquire(Math.max(1, Math.min(MAX_LEASE, want)), returned, !forThisRequest);
    } finally {
      slot.askingUntil = 0;
    }
    if (got.kind === "unavailable") return forThisRequest ? got : ADMIT;
    if (got.kind === "exhausted") return ADMIT; // only asked ahead: this request was admitted from a lease
    if (got.kind === "block") {
      this.noteBlock(name, got.blockedUntil);
      return forThisRequest ? got : ADMIT; // a request admitted before the block stays admitted
    }
    // Granted before any block: this request may pass; the rest is void if a block came in meanwhile.
    if (this.slots.peek(name) !== slot) return ADMIT;
    slot.leases.push({
      bucket: got.bucket,
      expiresAt: got.expiresAt,
      size: got.size,
      left: forThisRequest ? got.size - 1 : got.size,
    });
    slot.last = got.size;
    slot.reported = got.limit ?? null;
    return admitted(slot);
  }
}

/** Takes one request from the oldest usable lease; drops expired ones, keeping their unspent part to give back. */
function take(slot: Slot, now: number): boolean {
  while (slot.leases.length > 0) {
    const lease = slot.leases[0]!;
    if (now < lease.expiresAt && lease.left > 0) {
      lease.left--;
      return true;
    }
    slot.leases.shift();
    if (now >= lease.expiresAt) {
      slot.spentOfExpired = lease.size - lease.left;
      if (lease.left > 0) {
        const r = slot.returned;
        slot.returned =
          r !== null && r.bucket === lease.bucket
            ? { bucket: r.bucket, unspent: r.unspent + lease.left }
            : { bucket: lease.bucket, unspent: lease.left }; // an older bucket's return is lost: it stays counted
      }
    }
  }
  return false;
}

/** An admission with the quota left as this isolate knows it (see `Admission`). */
function admitted(slot: Slot): Admission {
  const reported = slot.reported;
  if (reported === null) return ADMIT;
  return { kind: "admit", limit: { remaining: reported.remaining + held(slot), resetAt: reported.resetAt } };
}

function held(slot: Slot): number {
  let sum = 0;
  for (const lease of slot.leases) sum += lease.left;
  return sum;
}
