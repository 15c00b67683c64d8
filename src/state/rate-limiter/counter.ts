/**
 * The counting model of one counter (contract §4), pure so it is tested alone and the Durable Object only
 * stores its state.
 *
 * Accuracy model: a *sliding window approximated from two fixed windows* (the published platform's own model):
 *   estimate = previous window's count × (share of the period not yet elapsed in the current window) + current count
 * It smooths the burst a plain fixed window lets through at a window edge (2 × N in a moment), is exact while
 * the previous window is empty (so "N allowed, N+1 blocked" holds exactly for a burst), and costs O(1) state
 * (three numbers) and O(1) work per request (in the object's memory; rate-limiter.ts writes it behind).
 *
 * Blocking: the request that would make the estimate pass `requests_per_period` is blocked and starts a block of
 * `mitigation_timeout` from that moment. Requests during a block are not counted (contract §4). When the block
 * ends the counter starts afresh, so "Retry-After seconds from now you may send again" is true: the client is not
 * blocked again at once by what it sent before being blocked.
 */

/** One counter's state; times in milliseconds of the caller's clock. */
export interface CounterState {
  /** Start of the current window. */
  readonly windowStart: number;
  /** Requests counted in the current window. */
  readonly count: number;
  /** Requests counted in the window before it. */
  readonly previous: number;
  /** End of the current block (0 when not blocked). */
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
  /** True when `state` differs from the input (the object writes only then). */
  readonly changed: boolean;
}

export function countRequest(current: CounterState | null, limits: CounterLimits, now: number): CounterStep {
  if (current !== null && now < current.blockedUntil) {
    // Blocked: not counted, nothing written.
    return { state: current, decision: { kind: "block", blockedUntil: current.blockedUntil }, changed: false };
  }
  let state = current === null || current.blockedUntil > 0 ? fresh(now) : roll(current, limits.periodMs, now);
  // A clock behind the window start (another isolate's clock) counts as the window's first instant.
  const elapsed = Math.max(0, now - state.windowStart);
  const weight = Math.max(0, (limits.periodMs - elapsed) / limits.periodMs);
  const estimate = state.previous * weight + state.count;
  if (estimate + 1 > limits.limit) {
    const blockedUntil = now + limits.timeoutMs;
    state = { windowStart: blockedUntil, count: 0, previous: 0, blockedUntil };
    return { state, decision: { kind: "block", blockedUntil }, changed: true };
  }
  state = { ...state, count: state.count + 1 };
  return { state, decision: ALLOW, changed: true };
}

/** When the state stops mattering (equals a fresh counter) and may be deleted: the alarm's deadline. */
export function expiresAt(state: CounterState, periodMs: number): number {
  return state.blockedUntil > 0 ? state.blockedUntil : state.windowStart + 2 * periodMs;
}

function fresh(now: number): CounterState {
  return { windowStart: now, count: 0, previous: 0, blockedUntil: 0 };
}

/** Moves the windows forward to the one containing `now`. */
function roll(state: CounterState, periodMs: number, now: number): CounterState {
  const elapsed = now - state.windowStart;
  if (elapsed < periodMs) return state;
  if (elapsed < 2 * periodMs)
    return { windowStart: state.windowStart + periodMs, count: 0, previous: state.count, blockedUntil: 0 };
  return fresh(now);
}

const ALLOW: CounterDecision = { kind: "allow" };

/**
 * Leases (approximate counting, docs/producers.md "Approximate counting: leases"): instead of one request, a caller
 * (an isolate) reserves up to `want` requests of the counter's allowance at once and admits them locally, without a
 * round trip, until they are spent or the lease expires. The reservation is counted at once, so the sum of what is
 * admitted, spent or not, never exceeds what `countRequest` would allow at the instants the leases were granted
 * (the sliding estimate only falls as the window goes on): leases never let more than the limit through.
 *
 * A lease is:
 *   - at most `floor(available / LEASE_DIVISOR)` (1 when fewer than 2 × LEASE_DIVISOR remain: exact at the edge of
 *     the limit) and at most `MAX_LEASE`, so the capacity reserved but unspent elsewhere, which may block a client
 *     early, stays a bounded share of what was left;
 *   - valid until `min(now + LEASE_MS, window end)`: it never spans two windows (a request admitted in window W+1
 *     on W's reservation would be weighted as W's "previous" and under-counted), and since LEASE_MS ≤ the smallest
 *     `mitigation_timeout` (1 s), no lease granted before a block is usable after that block ends;
 *   - returned when its holder next asks: its unspent part is taken off the window it was counted in;
 *   - asked for ahead (`ahead`) by a holder that still has some: then nothing left means "exhausted", not a block
 *     (the holder may still admit what it holds; the block comes when it asks with nothing left).
 */
export const LEASE_MS = 1000;
export const LEASE_DIVISOR = 8;
export const MAX_LEASE = 128;

/** What a holder gives back of its previous lease when it asks again. */
export interface LeaseReturn {
  /** The window the lease was counted in (its `windowStart` as granted). */
  readonly windowStart: number;
  /** Requests of it not admitted. */
  readonly unspent: number;
}

export type LeaseDecision =
  /** `size` requests reserved (≥ 1), usable until `expiresAt`. */
  | { readonly kind: "lease"; readonly size: number; readonly windowStart: number; readonly expiresAt: number }
  /** Asked ahead (the caller still holds some): nothing left, but no block either, the caller spends what it holds. */
  | { readonly kind: "exhausted" }
  | { readonly kind: "block"; readonly blockedUntil: number };

export interface LeaseStep {
  readonly state: CounterState;
  readonly decision: LeaseDecision;
  readonly changed: boolean;
}

export function leaseRequests(
  current: CounterState | null,
  limits: CounterLimits,
  now: number,
  want: number,
  returned: LeaseReturn | null,
  /** The caller asks ahead, still holding some of the counter (it is not a request to admit now). */
  ahead = false,
): LeaseStep {
  if (current !== null && now < current.blockedUntil) {
    // Blocked: not counted; a return is moot (the counter starts afresh when the block ends).
    return { state: current, decision: { kind: "block", blockedUntil: current.blockedUntil }, changed: false };
  }
  let state = current === null || current.blockedUntil > 0 ? fresh(now) : roll(current, limits.periodMs, now);
  if (returned !== null && returned.unspent > 0) state = giveBack(state, returned, limits.periodMs);
  const elapsed = Math.max(0, now - state.windowStart);
  const weight = Math.max(0, (limits.periodMs - elapsed) / limits.periodMs);
  // The most requests that fit: estimate + size ≤ limit (countRequest's test, size times over).
  const available = Math.floor(limits.limit - (state.previous * weight + state.count));
  if (available < 1) {
    // Only a request to admit now exceeds; one asking ahead is told to spend what it holds first.
    if (ahead) return { state, decision: EXHAUSTED, changed: state !== current };
    const blockedUntil = now + limits.timeoutMs;
    state = { windowStart: blockedUntil, count: 0, previous: 0, blockedUntil };
    return { state, decision: { kind: "block", blockedUntil }, changed: true };
  }
  const size = Math.max(1, Math.min(Math.floor(want), MAX_LEASE, Math.floor(available / LEASE_DIVISOR)));
  state = { ...state, count: state.count + size };
  const expiresAt = Math.min(now + LEASE_MS, state.windowStart + limits.periodMs);
  return { state, decision: { kind: "lease", size, windowStart: state.windowStart, expiresAt }, changed: true };
}

const EXHAUSTED: LeaseDecision = { kind: "exhausted" };

/** Takes a lease's unspent part off the window it was counted in (the current one, or the one before). */
function giveBack(state: CounterState, returned: LeaseReturn, periodMs: number): CounterState {
  if (returned.windowStart === state.windowStart)
    return { ...state, count: Math.max(0, state.count - returned.unspent) };
  if (returned.windowStart === state.windowStart - periodMs)
    return { ...state, previous: Math.max(0, state.previous - returned.unspent) };
  return state; // older, or from before a block: already forgotten
}
