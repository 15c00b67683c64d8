/**
 * The error of an origin skipped because its circuit is open (docs/fewer-errors.md "Circuit breaker"): the code of
 * the failure that opened it, generated at once with `Retry-After` = the seconds until a probe may go, marked so a
 * client that reads headers only knows the origin was not asked: `Proxy-Status` keeps the code's error type with
 * `details="circuit open"` (RFC 9209 §2.1.5), and `Server-Timing` gets `origin;dur=0;desc="circuit-open"`.
 */
import { PROXY_ERROR_TYPES, PROXY_NAME } from "../../errors/proxy-status";
import type { OriginFailureCode } from "./classify";

/** The skipped attempt, shaped as a failure (its code, why, no time spent on the origin). */
export interface CircuitFailure {
  readonly code: OriginFailureCode;
  readonly cause: string;
  readonly reason: "circuit-open";
  readonly elapsedMs: 0;
}

export function circuitFailure(skipped: {
  readonly code: OriginFailureCode;
  readonly retryAfter: number;
}): CircuitFailure {
  const cause = `circuit open after consecutive ${skipped.code} failures; origin not contacted (${skipped.retryAfter} s left)`;
  return { code: skipped.code, cause, reason: "circuit-open", elapsedMs: 0 };
}

/**
 * `Proxy-Status` of an origin skipped for its open circuit: the error type of the code that opened it, and why the
 * origin was not asked. The error carries it, and so does a stale copy answering instead (src/edge/stale/).
 */
export function circuitOpenProxyStatus(code: number): string {
  const type = PROXY_ERROR_TYPES[code] ?? "destination_unavailable";
  return `${PROXY_NAME}; error=${type}; details="circuit open"`;
}

/** The generated error's headers, marked (the response is the pipeline's own: its headers are writable). */
export function circuitOpenMarked(response: Response, code: number): Response {
  const marked = writable(response);
  marked.headers.set("Proxy-Status", circuitOpenProxyStatus(code));
  const timing = marked.headers.get("Server-Timing");
  const origin = 'origin;dur=0;desc="circuit-open"';
  marked.headers.set("Server-Timing", timing === null ? origin : `${timing}, ${origin}`);
  return marked;
}

/** A response whose headers can be set: itself, or a copy when its headers are immutable. */
function writable(response: Response): Response {
  try {
    response.headers.set("Proxy-Status", response.headers.get("Proxy-Status") ?? "");
    return response;
  } catch {
    return new Response(response.body, response);
  }
}
