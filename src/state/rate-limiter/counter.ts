/**
 * The counting model of one counter (docs/producers.md "Rate limiting"), pure so it is tested alone and the Durable
 * Object only stores its state.
 *
 * The promise: never more than N (`requests_per_period`) requests admitted in any window of `period`, whatever the
 * mitigation. Windows are sliding and half-open: for every instant s, the requests admitted at times in
 * [s, s + period) number at most N, where a request's time is the `now` it is counted at (the edge's clock, read once
 * per request) and the counter sees those times in order. Times that reach it out of order by up to D (clocks of
 * isolates apart by D, or a request overtaken on its way to the object) weaken this to any window of period − D.
 *
 * Why not the published platform's two fixed windows (previous count × share of the period not yet elapsed + current
 * count): that estimate assumes the previous window's requests were spread evenly, so N sent at the end of one window
 * weigh only half of N half-way through the next, and N / 2 more pass within one period. No estimate of the kind can
 * promise "any window": deciding exactly whether one more request fits in (t − period, t] needs the times of the last
 * N admitted requests, O(N) state (N is up to 1,000,000). So the counter keeps those times rounded *up*, in at most
 * `MAX_BUCKETS` buckets: a bucket holds the requests counted from its `open` until `open + period / BUCKETS_PER_PERIOD`
 * and remembers the latest of their times (`last`); it counts, whole, until `last` is a period old. Every request is
 * therefore counted at least until it is a period old (the promise); the price is that a bucket's older requests
 * are counted up to period / `BUCKETS_PER_PERIOD` (5 %) longer than an exact log would: a request is refused only
 * when at least N were admitted within the last period + period / 20 (+ one lease lifetime with leases, below).
 * Cost: O(1) state (≤ 23 buckets of three numbers), O(buckets) work per counted request in the object's memory.
 *
 * Blocking: the request that finds N already counted in its window is refused and starts a block, during which
 * requests are refused without being counted. The block lasts `mitigation_timeout` from that moment, or until the
 * window admits again if that is later (the earliest instant the count falls below N: `admitsAt`): a block only adds
 * a floor, it never resets the count. So the block's end is exactly when a request of the client is admitted again,
 * and `Retry-After` (check.ts) is that end in whole seconds, rounded up: `mitigation_timeout` itself on the request
 * that started a block the window does not outlast.
 */

/** Requests counted together; times in milliseconds of the callers' clocks. */
export interface Bucket {
  /** When the bucket was opened (the first request counted in it): also its name in a lease and its return. */
  readonly open: number;
  /** The latest time any of its requests is admitted at (a lease's expiry, for a lease). */
  readonly last: number;
  readonly count: number;
}

/** One counter's state. */
export interface CounterState {
  /** Oldest first; only buckets whose `last` is less than a period old count. */
  readonly buckets: readonly Bucket[];
  /** End of the current or last block (0: never blocked). */
  readonly blockedUntil: number;
}

export interface CounterLimits {
  readonly periodMs: number;
  readonly limit: number;
  readonly timeoutMs: number;
}

export type CounterDecision = { readonly kind: "allow" } | { readonly kind: "block"; readonly blockedUntil: number };

export interface CounterStep {
  readonly state: CounterState;
  readonly decision: CounterDecision;
  /** True when the counts or the block changed (the object writes only then). */
  readonly changed: boolean;
}

/** Buckets per period: the share of a period by which a request may be counted too long (see the header). */
export const BUCKETS_PER_PERIOD = 20;
/**
 * The most buckets a counter keeps. With clocks in order, buckets open at least a bucket's span apart and one counts
 * until `last` + period < open + span + period (+ a lease's lifetime ≤ a span, with leases), so at most
 * BUCKETS_PER_PERIOD + 1 count at once (+ 2 with leases); past this bound, reached only with callers' clocks out of
 * order, the two oldest are merged (which only counts their requests longer).
 */
export const MAX_BUCKETS = BUCKETS_PER_PERIOD + 3;

/** How long a bucket stays open to more requests. */
export function bucketMs(periodMs: number): number {
  return periodMs / BUCKETS_PER_PERIOD;
}

export function countRequest(current: CounterState | null, limits: CounterLimits, now: number): CounterStep {
  if (current !== null && now < current.blockedUntil) {
    // Blocked: not counted, nothing written.
    return { state: current, decision: { kind: "block", blockedUntil: current.blockedUntil }, changed: false };
  }
  const { buckets, count } = alive(current?.buckets ?? NONE, limits.periodMs, now);
  if (count + 1 > limits.limit) return block(buckets, count, limits, now);
  const state = { buckets: record(buckets, limits.periodMs, now, now, 1).buckets, blockedUntil: blockedOf(current) };
  return { state, decision: ALLOW, changed: true };
}

/**
 * What a counter tells a client about its quota at `now` (the `RateLimit` field, docs/producers.md "RateLimit
 * fields"): the requests still admitted in the window (`remaining`) and when more become available (`resetAt`: the
 * end of a block, else the instant the oldest counting bucket leaves the window; null when nothing counts).
 */
export interface ServiceLimitState {
  readonly remaining: number;
  readonly resetAt: number | null;
}

export function serviceLimit(state: CounterState, limits: CounterLimits, now: number): ServiceLimitState {
  if (now < state.blockedUntil) return { remaining: 0, resetAt: state.blockedUntil };
  const since = now - limits.periodMs;
  let count = 0;
  let resetAt: number | null = null;
  for (const b of state.buckets) {
    if (b.last <= since) continue;
    count += b.count;
    const end = b.last + limits.periodMs;
    if (resetAt === null || end < resetAt) resetAt = end;
  }
  return { remaining: Math.max(0, limits.limit - count), resetAt };
}

/** When the state stops mattering (equals a fresh counter) and may be deleted: the alarm's deadline. */
export function expiresAt(state: CounterState, periodMs: number): number {
  let end = state.blockedUntil;
  for (const b of state.buckets) end = Math.max(end, b.last + periodMs);
  return end;
}

/**
 * The earliest instant at which the buckets count fewer than `limit`, with nothing more counted: the moment each
 * bucket stops counting is `last + period`, so the oldest-ending buckets are taken off until fewer than `limit` are
 * left. `count` (their total) is at least `limit`.
 */
export function admitsAt(buckets: readonly Bucket[], count: number, limits: CounterLimits): number {
  const byEnd = [...buckets].sort((a, b) => a.last - b.last);
  let left = count;
  for (const b of byEnd) {
    left -= b.count;
    if (left < limits.limit) return b.last + limits.periodMs;
  }
  return -Infinity; // fewer than `limit` already
}

const NONE: readonly Bucket[] = [];
const ALLOW: CounterDecision = { kind: "allow" };

function blockedOf(state: CounterState | null): number {
  return state === null ? 0 : state.blockedUntil;
}

/** The buckets still counting at `now` (the same array when none ended) and their total. */
function alive(
  buckets: readonly Bucket[],
  periodMs: number,
  now: number,
): { buckets: readonly Bucket[]; count: number } {
  const since = now - periodMs;
  let count = 0;
  let ended = false;
  for (const b of buckets) {
    if (b.last > since) count += b.count;
    else ended = true;
  }
  return { buckets: ended ? buckets.filter((b) => b.last > since) : buckets, count };
}

/** Refuses the request at `now` and starts a block: `mitigation_timeout`, or until the window admits again. */
function block(
  buckets: readonly Bucket[],
  count: number,
  limits: CounterLimits,
  now: number,
): { state: CounterState; decision: { readonly kind: "block"; readonly blockedUntil: number }; changed: true } {
  const blockedUntil = Math.max(now + limits.timeoutMs, admitsAt(buckets, count, limits));
  return { state: { buckets, blockedUntil }, decision: { kind: "block", blockedUntil }, changed: true };
}

/**
 * Counts `n` requests at `now`, the latest of them admitted at `last` (≥ now): in the newest bucket while it is open
 * (a clock behind its opening counts as its first instant), else in a new one.
 */
function record(
  buckets: readonly Bucket[],
  periodMs: number,
  now: number,
  last: number,
  n: number,
): { buckets: readonly Bucket[]; open: number } {
  const newest = buckets.at(-1);
  let next: Bucket[];
  let open = now;
  if (newest !== undefined && now < newest.open + bucketMs(periodMs)) {
    open = newest.open;
    next = buckets.slice(0, -1);
    next.push({ open, last: Math.max(newest.last, last), count: newest.count + n });
  } else {
    next = [...buckets, { open, last, count: n }];
  }
  while (next.length > MAX_BUCKETS) {
    const [a, b] = next as [Bucket, Bucket];
    next.splice(0, 2, { open: a.open, last: Math.max(a.last, b.last), count: a.count + b.count });
  }
  return { buckets: next, open };
}

/**
 * Leases (approximate counting, docs/producers.md "Approximate counting: leases"): instead of one request, a caller
 * (an isolate) reserves up to `want` requests of the counter's allowance at once and admits them locally, without a
 * round trip, until they are spent or the lease expires. The reservation is counted at once, as requests admitted
 * until the lease's expiry (its bucket's `last` is at least the expiry), so every request admitted on a lease is
 * counted for a full period after it, and the sum of what is admitted, spent or not, never exceeds what
 * `countRequest` would let through at those instants: leases never let more than the limit through in any window.
 *
 * A lease is:
 *   - at most `floor(available / LEASE_DIVISOR)` (1 when fewer than 2 × LEASE_DIVISOR remain: exact at the edge of
 *     the limit) and at most `MAX_LEASE`, so the capacity reserved but unspent elsewhere, which may block a client
 *     early, stays a bounded share of what was left;
 *   - valid for `leaseMs(period)` = min(LEASE_MS, one bucket's span): a lease counts until its expiry + period, so
 *     a longer one would count its requests longer than a bucket; since LEASE_MS ≤ the smallest `mitigation_timeout`
 *     (1 s), no lease granted before a block is usable after that block ends;
 *   - returned when its holder next asks: its unspent part is taken off the bucket it was counted in (if that still
 *     counts);
 *   - asked for ahead (`ahead`) by a holder that still has some: then nothing left means "exhausted", not a block
 *     (the holder may still admit what it holds; the block comes when it asks with nothing left).
 * The asking request takes the lease's first request at once (unless it asked ahead), so a lease of 1 not asked ahead
 * is exactly `countRequest`, step for step.
 */
export const LEASE_MS = 1000;
export const LEASE_DIVISOR = 8;
export const MAX_LEASE = 128;

/** A lease's lifetime for a counter of `periodMs`. */
export function leaseMs(periodMs: number): number {
  return Math.min(LEASE_MS, bucketMs(periodMs));
}

/** What a holder gives back of its previous leases when it asks again. */
export interface LeaseReturn {
  /** The bucket the leases were counted in (their `bucket` as granted). */
  readonly bucket: number;
  /** Requests of them not admitted. */
  readonly unspent: number;
}

export type LeaseDecision =
  /** `size` requests reserved (≥ 1) in bucket `bucket`, usable until `expiresAt`. */
  | { readonly kind: "lease"; readonly size: number; readonly bucket: number; readonly expiresAt: number }
  /** Asked ahead (the caller still holds some): nothing left, but no block either, the caller spends what it holds. */
  | { readonly kind: "exhausted" }
  | { readonly kind: "block"; readonly blockedUntil: number };

export interface LeaseStep {
  readonly state: CounterState;
  readonly decision: LeaseDecision;
  readonly changed: boolean;
}

/** What a holder asks for: how many requests, what it gives back of its previous leases. */
export interface LeaseAsk {
  readonly want: number;
  readonly returned: LeaseReturn | null;
  /** The caller asks ahead, still holding some of the counter (it is not a request to admit now). */
  readonly ahead?: boolean;
}

export function leaseRequests(
  current: CounterState | null,
  limits: CounterLimits,
  now: number,
  ask: LeaseAsk,
): LeaseStep {
  const { want, returned, ahead = false } = ask;
  const blockedUntil = blockedOf(current);
  let buckets = current?.buckets ?? NONE;
  // A return is taken back even during a block: the requests it stood for were never admitted.
  const back = returned === null || returned.unspent <= 0 ? buckets : giveBack(buckets, returned);
  const changed = back !== buckets;
  buckets = back;
  if (current !== null && now < blockedUntil) {
    const state = changed ? { buckets, blockedUntil } : current;
    return { state, decision: { kind: "block", blockedUntil }, changed };
  }
  const live = alive(buckets, limits.periodMs, now);
  // The most requests that fit: count + size ≤ limit (countRequest's test, size times over).
  const available = limits.limit - live.count;
  if (available < 1) {
    // Only a request to admit now exceeds; one asking ahead is told to spend what it holds first.
    if (ahead) return { state: { buckets: live.buckets, blockedUntil }, decision: EXHAUSTED, changed };
    return block(live.buckets, live.count, limits, now);
  }
  const size = Math.max(1, Math.min(Math.floor(want), MAX_LEASE, Math.floor(available / LEASE_DIVISOR)));
  const expiresAt = now + leaseMs(limits.periodMs);
  // Requests the holder may admit after this instant: all of it when asked ahead, else all but the asker's.
  const later = ahead ? size : size - 1;
  const counted = record(live.buckets, limits.periodMs, now, later > 0 ? expiresAt : now, size);
  return {
    state: { buckets: counted.buckets, blockedUntil },
    decision: { kind: "lease", size, bucket: counted.open, expiresAt },
    changed: true,
  };
}

const EXHAUSTED: LeaseDecision = { kind: "exhausted" };

/** Takes a lease's unspent part off the bucket it was counted in; a bucket that no longer counts is left alone. */
function giveBack(buckets: readonly Bucket[], returned: LeaseReturn): readonly Bucket[] {
  const i = buckets.findIndex((b) => b.open === returned.bucket);
  if (i < 0) return buckets; // ended, or merged into an older one: it stays counted until then
  const b = buckets[i]!;
  const count = Math.max(0, b.count - returned.unspent);
  const next = [...buckets];
  if (count === 0) next.splice(i, 1);
  else next[i] = { ...b, count };
  return next;
}
