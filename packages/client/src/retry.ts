/**
 * The retry policy (docs/client.md): obey what the error says. Decisions, in order:
 * 1. not an edge error (`parse` gave null): the caller's own rules; here `retryStatuses` (default: none) decide;
 * 2. `owner_action_required` and not retryable: **escalate** (a person must act; retrying cannot help);
 * 3. not retryable (`retryable: false`, or a code with no retry default): **give up**;
 * 4. a non-idempotent method (RFC 9110 §9.2.2) without `retryNonIdempotent`: **give up**;
 * 5. attempts used up: give up (or escalate when the owner must act);
 * 6. the wait (the hint: `Retry-After`, else `retry_after`; at least `minDelayMs`) over `maxDelayMs`: never a
 *    shorter wait than the hint (the service says it would fail sooner) and never a longer one than the cap, so
 *    **give up** (escalate when the owner must act) and say so in `reason`;
 * 7. otherwise **retry** after the hint plus jitter (0..`jitter` × hint, itself capped by `maxDelayMs`): a crowd of
 *    clients told the same `Retry-After` does not come back in the same second.
 */
import type { EdgeError } from "./types.js";

export interface RetryOptions {
  /** Total attempts, the first included (default 3). */
  readonly maxAttempts?: number;
  /** Longest wait before one retry, in ms (default 130 000: the catalog's longest hint, 120 s, plus jitter). */
  readonly maxDelayMs?: number;
  /** Shortest wait, ms (default 250): a `Retry-After: 0` does not become a busy loop. */
  readonly minDelayMs?: number;
  /** Extra random wait as a fraction of the hint, 0–1 (default 0.1). */
  readonly jitter?: number;
  /** Retry POST, PATCH, … too (default false: they may have had an effect). */
  readonly retryNonIdempotent?: boolean;
  /** Statuses to retry when the response is not an edge error (default none), with `fallbackDelayMs`. */
  readonly retryStatuses?: readonly number[];
  /** Wait for those, ms (default 1000). */
  readonly fallbackDelayMs?: number;
  /** Random number in [0, 1) (default Math.random); injectable for tests. */
  readonly random?: () => number;
}

export type RetryDecision =
  | { readonly kind: "retry"; readonly delayMs: number; readonly reason: string }
  | { readonly kind: "give-up"; readonly reason: string }
  | { readonly kind: "escalate"; readonly reason: string };

const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);

export const RETRY_DEFAULTS_OPTIONS = {
  maxAttempts: 3,
  maxDelayMs: 130_000,
  minDelayMs: 250,
  jitter: 0.1,
} as const;

/**
 * What to do after attempt number `attempt` (1 = the first request) failed with `error` (`null`: not an edge error,
 * `status` then says what came back).
 */
export function decideRetry(
  error: EdgeError | null,
  context: { readonly attempt: number; readonly method: string; readonly status: number },
  options: RetryOptions = {},
): RetryDecision {
  const maxAttempts = options.maxAttempts ?? RETRY_DEFAULTS_OPTIONS.maxAttempts;
  const maxDelay = options.maxDelayMs ?? RETRY_DEFAULTS_OPTIONS.maxDelayMs;
  const minDelay = Math.min(options.minDelayMs ?? RETRY_DEFAULTS_OPTIONS.minDelayMs, maxDelay);
  const jitter = Math.min(Math.max(options.jitter ?? RETRY_DEFAULTS_OPTIONS.jitter, 0), 1);
  const random = options.random ?? Math.random;
  const owner = error?.ownerActionRequired === true;
  const stop = (reason: string): RetryDecision => (owner ? { kind: "escalate", reason } : { kind: "give-up", reason });

  let hintMs: number;
  if (error === null) {
    if (!(options.retryStatuses ?? []).includes(context.status))
      return { kind: "give-up", reason: "not an edge error" };
    hintMs = options.fallbackDelayMs ?? 1000;
  } else {
    if (!error.retryable || error.retryAfter === null) {
      return stop(owner ? "the website's owner must act; retrying will not help" : "the error is not retryable");
    }
    hintMs = error.retryAfter * 1000;
  }
  if (!options.retryNonIdempotent && !IDEMPOTENT.has(context.method.toUpperCase())) {
    return stop(`${context.method} is not idempotent`);
  }
  if (context.attempt >= maxAttempts) return stop(`${maxAttempts} attempts used`);
  const base = Math.max(hintMs, minDelay);
  if (base > maxDelay) return stop(`the error asks for ${Math.ceil(base / 1000)} s, over the ${maxDelay} ms cap`);
  const delayMs = Math.min(Math.round(base + random() * jitter * base), maxDelay);
  return { kind: "retry", delayMs, reason: error === null ? `status ${context.status}` : `${error.code}` };
}
