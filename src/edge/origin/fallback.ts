/**
 * Fail over (docs/fewer-errors.md "Fail over"): when may a request the zone's origin failed be sent to the fallback
 * origin, and how the answer says which origin gave it.
 *
 * A request the origin never received (521, 522, 523, 525, 526, 1016: no connection, or TLS failed before a byte of
 * HTTP) is sent again whatever its method: nothing happened there. One the origin may have received and acted on
 * (520: the connection broke after the request was sent; 524: no answer in time) only when sending it twice is
 * harmless: an idempotent method (RFC 9110 §9.2.2) or an `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header)
 * the origin deduplicates by. Anything else (502: the origin answered, badly) is answered as it is.
 */
import { PROXY_NAME } from "../../errors/proxy-status";
import type { OriginFailureCode } from "./classify";

/** RFC 9110 §9.2.2. */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);

/** Whether a request whose origin failed with `code` may go to the fallback. */
export function mayFailOver(code: OriginFailureCode, method: string, headers: Headers): boolean {
  switch (code) {
    case 521:
    case 522:
    case 523:
    case 525:
    case 526:
    case 1016:
      return true;
    case 520:
    case 524:
      return IDEMPOTENT.has(method) || headers.has("Idempotency-Key");
    case 502:
      return false;
  }
}

/**
 * The fallback's answer, marked (docs/fewer-errors.md "Which origin answered"): `Proxy-Status` names this service
 * with `next-hop=fallback` and the origin's failure (or its open circuit) in `details` (RFC 9209 §2.1.2, §2.1.5:
 * a code, never a host),
 * and `Server-Timing` gets the origin's failed attempt and the fallback's.
 */
export function markedFallback(response: Response, primary: FailedAttempt, fallbackMs: number): Response {
  const marked = new Response(response.body, response);
  // An origin skipped for its open circuit says so: it was not asked this time.
  const why = primary.reason === "circuit-open" ? "circuit open" : "origin failed";
  marked.headers.append("Proxy-Status", `${PROXY_NAME}; next-hop=fallback; details="${why}: ${primary.code}"`);
  marked.headers.append("Server-Timing", attemptTimings(primary, fallbackMs));
  return marked;
}

/** The origin's failed attempt, for the headers. */
export interface FailedAttempt {
  readonly code: number;
  readonly reason: string;
  readonly elapsedMs: number;
}

/** `origin;dur=N;desc="reason", fallback;dur=M` (W3C Server Timing; the reason a constant token of classify.ts). */
export function attemptTimings(primary: FailedAttempt, fallbackMs: number): string {
  return `origin;dur=${whole(primary.elapsedMs)};desc="${primary.reason}", fallback;dur=${whole(fallbackMs)}`;
}

function whole(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms) : 0;
}
