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
