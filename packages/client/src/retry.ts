/**
 * The retry policy (docs/client.md): obey what the error says. Decisions, in order:
 * 1. not an edge error (`parse` gave null): an explicit `x-should-retry` verdict decides; without one,
 *    `retryStatuses` (default: none); the wait is `retry-after-ms`, else `Retry-After`, else `fallbackDelayMs`;
 * 2. `owner_action_required` and not retryable: **escalate** (a person must act; retrying cannot help);
 * 3. not retryable (`x-should-retry: false`, `retryable: false`, or a code with no retry default): **give up**;
 * 4. a non-idempotent method (RFC 9110 §9.2.2): **give up**, unless the request never reached the origin
 *    (`request_reached_origin: false`), carried an `Idempotency-Key`, or `retryNonIdempotent` is set;
 * 5. attempts used up: give up (or escalate when the owner must act);
 * 6. the wait (the hint: `retry-after-ms`, else `Retry-After`, else `retry_after`; at least the reset of an
 *    exhausted `RateLimit` (r=0); at least `minDelayMs`) over `maxDelayMs`: never a shorter wait than the hint (the
 *    service says it would fail sooner) and never a longer one than the cap, so **give up** (escalate when the owner
 *    must act) and say so in `reason`;
 * 7. otherwise **retry** after the hint plus jitter (0..`jitter` × hint, itself capped by `maxDelayMs`): positive
 *    only, so never earlier than the hint, and a crowd of clients told the same hint does not come back together.
 */
import type { RetryHints } from "./hints.js";
import type { EdgeError, RateLimitInfo } from "./types.js";

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

/** What the caller knows of the attempt besides the error. */
export interface RetryContext {
  /** 1 = the first request. */
  readonly attempt: number;
  readonly method: string;
  /** The response's status. */
  readonly status: number;
  /** The request carried an `Idempotency-Key` header: the origin can tell a repeat, so a retry is safe. */
  readonly idempotencyKey?: boolean;
  /** The response's retry headers (`readHints`): read when `error` is null (a response that is not an edge error). */
  readonly hints?: RetryHints;
}

/**
 * What to do after attempt number `attempt` (1 = the first request) failed with `error` (`null`: not an edge error,
 * `status` and `hints` then say what came back).
 */
export function decideRetry(error: EdgeError | null, context: RetryContext, options: RetryOptions = {}): RetryDecision {
  const maxAttempts = options.maxAttempts ?? RETRY_DEFAULTS_OPTIONS.maxAttempts;
  const maxDelay = options.maxDelayMs ?? RETRY_DEFAULTS_OPTIONS.maxDelayMs;
  const minDelay = Math.min(options.minDelayMs ?? RETRY_DEFAULTS_OPTIONS.minDelayMs, maxDelay);
  const given = options.jitter ?? RETRY_DEFAULTS_OPTIONS.jitter;
  const jitter = Number.isNaN(given) ? RETRY_DEFAULTS_OPTIONS.jitter : Math.min(Math.max(given, 0), 1);
  const random = options.random ?? Math.random;
  const owner = error?.ownerActionRequired === true;
  const stop = (reason: string): RetryDecision => (owner ? { kind: "escalate", reason } : { kind: "give-up", reason });

  let hintMs: number;
  let rateLimit: RateLimitInfo | null;
  if (error === null) {
    const hints = context.hints;
    // An explicit verdict wins over the status list (docs/client.md "Headers read").
    const verdict = hints?.shouldRetry ?? null;
    if (verdict === false) return { kind: "give-up", reason: "x-should-retry: false" };
    if (verdict !== true && !(options.retryStatuses ?? []).includes(context.status))
      return { kind: "give-up", reason: "not an edge error" };
    // The same order as for an edge error: `retry-after-ms`, then `Retry-After`, then the caller's fallback.
    const seconds = hints?.retryAfter ?? null;
    hintMs = hints?.retryAfterMs ?? (seconds === null ? null : seconds * 1000) ?? options.fallbackDelayMs ?? 1000;
    rateLimit = hints?.rateLimit ?? null;
  } else {
    if (!error.retryable) {
      return stop(owner ? "the website's owner must act; retrying will not help" : "the error is not retryable");
    }
    // Retryable by an explicit verdict with no wait given at all: the caller's fallback.
    hintMs =
      error.retryAfterMs ??
      (error.retryAfter === null ? null : error.retryAfter * 1000) ??
      options.fallbackDelayMs ??
      1000;
    rateLimit = error.rateLimit;
  }
  if (!options.retryNonIdempotent && !IDEMPOTENT.has(context.method.toUpperCase())) {
    // RFC 9110 §9.2.2: a repeat may have an effect twice, unless the first never reached the origin or the origin
    // can tell a repeat (an Idempotency-Key).
    if (error?.requestReachedOrigin !== false && context.idempotencyKey !== true) {
      const why = error?.requestReachedOrigin === true ? "; the request reached the origin" : "";
      return stop(`${context.method} is not idempotent${why}`);
    }
  }
  // An exhausted quota (RateLimit r=0): no sooner than its reset.
  if (rateLimit !== null && rateLimit.remaining === 0 && rateLimit.reset !== null) {
    hintMs = Math.max(hintMs, rateLimit.reset * 1000);
  }
  if (context.attempt >= maxAttempts) return stop(`${maxAttempts} attempts used`);
  const base = Math.max(hintMs, minDelay);
  if (base > maxDelay) return stop(`the error asks for ${Math.ceil(base / 1000)} s, over the ${maxDelay} ms cap`);
  // Rounded up: a fraction of a millisecond must not bring the wait under the hint.
  const delayMs = Math.min(Math.ceil(base + random() * jitter * base), maxDelay);
  return { kind: "retry", delayMs, reason: error === null ? `status ${context.status}` : `${error.code}` };
}
