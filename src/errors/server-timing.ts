/**
 * `Server-Timing` of a generated error (docs/errors.md "Server-Timing"; W3C Server Timing §3): `edge;dur=N`, the
 * edge's own time in milliseconds from the request's arrival to the error, the origin attempt left out; and when the
 * origin was tried, `origin;dur=N;desc="reason"`, the time from sending to the origin until the failure was
 * classified (the diagnostic probes included). `reason` is a constant token of src/edge/origin/classify.ts, never an
 * address.
 *
 * What the numbers mean: the runtime's clock (`Date.now()`) advances only when the Worker waits on I/O
 * (https://developers.cloudflare.com/workers/runtime-apis/performance), so `edge` counts the edge's waits (a KV read,
 * the rate limiter) and not its CPU time: it is often 0. Read once at the request's arrival and once per error.
 */

/** The origin attempt of a failed request: how long until it failed and why (a token of classify.ts). */
export interface OriginTiming {
  readonly ms: number;
  readonly reason: string;
}

/** The header value; durations are whole milliseconds, never negative. */
export function serverTiming(totalMs: number, origin: OriginTiming | undefined): string {
  if (origin === undefined) return `edge;dur=${whole(totalMs)}`;
  const originMs = whole(origin.ms);
  return `edge;dur=${whole(totalMs - originMs)}, origin;dur=${originMs};desc="${origin.reason}"`;
}

function whole(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms) : 0;
}
