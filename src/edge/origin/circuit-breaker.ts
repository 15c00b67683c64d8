/**
 * A circuit breaker per zone and origin (docs/fewer-errors.md "Circuit breaker"), per isolate: after `failures`
 * consecutive connection-level failures the origin is skipped for `openMs`; then one request at a time is let
 * through as a probe (half-open); a probe that gets an answer closes the circuit, one that fails opens it again.
 *
 * Keyed by zone and origin, not by origin alone: one zone's traffic must never open another zone's circuit (a zone
 * may name any origin, another tenant's included). Per isolate: each isolate learns on its own, so across N isolates
 * a dead origin sees up to N × `failures` failed requests before every isolate skips it, and up to N probes per
 * `openMs` (docs/fewer-errors.md says so). The clock is the caller's `now`, so tests move it (as the rate limiter's).
 * Pure state; bounded like every per-isolate cache.
 */
import { BoundedCache } from "../../shared/bounded-cache";
import type { OriginFailureCode } from "./classify";

/** A zone's `circuit_breaker`, in milliseconds. */
export interface BreakerSettings {
  readonly failures: number;
  readonly openMs: number;
}

/** What the breaker says of one request. */
export type Gate =
  /** Send it (closed, or counting failures). */
  | { readonly kind: "pass" }
  /** Send it: it is the one probe of a half-open circuit. */
  | { readonly kind: "probe" }
  /** Skip the origin: `retryAfter` whole seconds until a probe may go (≥ 1), `code` the failure that opened it. */
  | { readonly kind: "open"; readonly retryAfter: number; readonly code: OriginFailureCode };

interface Circuit {
  /** Consecutive connection-level failures while closed. */
  failures: number;
  /** Until when it is open (0: closed). */
  openUntil: number;
  /** Until when the probe in flight holds the half-open circuit (0: none); a probe whose request vanished expires. */
  probeUntil: number;
  /** The failure that opened it: the code answered while it is open. */
  code: OriginFailureCode;
}

/**
 * The failures that count: the edge's own classification of an origin that could not be reached or did not answer
 * (520–526, 1016). An answer the origin sent, whatever its status (a 502 for malformed bytes included), means the
 * origin is up.
 */
export function countsAsConnectionFailure(code: number): boolean {
  return code === 1016 || (code >= 520 && code <= 526);
}

/** Circuits tracked per isolate; the least recently used goes first (a closed circuit holds nothing worth keeping). */
export const MAX_CIRCUITS = 4096;

const PASS: Gate = { kind: "pass" };
const PROBE: Gate = { kind: "probe" };

export class CircuitBreakers {
  private readonly circuits = new BoundedCache<string, Circuit>({ capacity: MAX_CIRCUITS });

  /** The breakers' clock: `Date.now()`; tests replace it to open and close circuits without waiting. */
  now: () => number = () => Date.now();

  /** Whether a request to `key` may go; `probeLeaseMs`: how long a probe holds the half-open circuit at most. */
  admit(key: string, now: number, probeLeaseMs: number): Gate {
    const c = this.circuits.get(key);
    if (c === undefined || c.openUntil === 0) return PASS;
    if (now < c.openUntil) return open(c, c.openUntil - now);
    // Half-open: one probe at a time; the others are skipped as if open, told to come back in a second.
    if (now < c.probeUntil) return open(c, 1000);
    c.probeUntil = now + probeLeaseMs;
    return PROBE;
  }

  /** The origin answered (any status): the circuit closes and the count starts again. */
  succeeded(key: string): void {
    const c = this.circuits.get(key);
    if (c === undefined) return;
    c.failures = 0;
    c.openUntil = 0;
    c.probeUntil = 0;
  }

  /** A connection-level failure: counted; the `settings.failures`-th in a row (or a failed probe) opens the circuit. */
  failed(key: string, code: OriginFailureCode, now: number, settings: BreakerSettings): void {
    let c = this.circuits.get(key);
    if (c === undefined) {
      c = { failures: 0, openUntil: 0, probeUntil: 0, code };
      this.circuits.set(key, c);
    }
    c.failures += 1;
    const probing = c.openUntil !== 0;
    if (probing || c.failures >= settings.failures) {
      c.openUntil = now + settings.openMs;
      c.probeUntil = 0;
      c.code = code;
    }
  }

  /** Forgets every circuit (tests). */
  clear(): void {
    this.circuits.clear();
  }
}

function open(c: Circuit, leftMs: number): Gate {
  return { kind: "open", retryAfter: Math.max(1, Math.ceil(leftMs / 1000)), code: c.code };
}

/** The isolate's circuits. */
export const circuitBreakers = new CircuitBreakers();

/** The key of a zone's origin. */
export function circuitKey(zone: string, origin: string): string {
  return `${zone}\u0000${origin}`;
}
