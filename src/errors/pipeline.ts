/**
 * The error pipeline: the one place every producer of a service-generated error goes through
 * (origin failures, blocks, rate limits, the service's own faults, the preview endpoints).
 * Input: a catalog code + the request (+ an optional dynamic Retry-After). Output: a Response.
 *
 * PLACEHOLDER of the foundation skeleton: the foundation issue replaces the body of `errorResponse`.
 */
import type { Settings } from "../config/settings";

/** One occurrence of a service-generated error. */
export interface ErrorEvent {
  /** A code of the catalog (contract §1.7). */
  readonly code: number;
  /** The request being answered: its `Accept` negotiates the format, its fields feed custom rules. */
  readonly request: Request;
  /** Seconds set dynamically (rate limiting); wins over the catalog default in header and body (contract §1.4). */
  readonly retryAfter?: number;
  /** Why it happened, for the structured log line only; never sent to the client. */
  readonly cause?: string;
}

/** Where the error happens. */
export interface ErrorScope {
  readonly settings: Settings;
  /** Requested hostname, lower-case, no port. */
  readonly zone: string;
}

export async function errorResponse(event: ErrorEvent, scope: ErrorScope): Promise<Response> {
  return new Response(JSON.stringify({ error_code: event.code, zone: scope.zone }), {
    status: 500,
    headers: { "Content-Type": "application/json; charset=utf-8" },
  });
}
