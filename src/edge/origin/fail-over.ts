/**
 * The origin attempt of a zone with a fallback origin or a circuit breaker (docs/fewer-errors.md): the zone's
 * origin, skipped while its circuit is open; then, when it failed, the fallback once. A zone with neither never
 * comes here (its compiled `failover` is null: one check on the proxy's path).
 *
 * Order on a failure (src/edge/zone-traffic.ts `originStage`): the origin (or its open circuit) → a stale copy
 * when one may be served → the fallback → the error. Each step is a function here so the stages stay readable.
 */
import { parseOriginUrl } from "../../shared/origin-url";
import type { ZoneSettings } from "../../state/zone/schema";
import { circuitBreakers, circuitKey, countsAsConnectionFailure, type BreakerSettings } from "./circuit-breaker";
import { mayFailOver } from "./fallback";
import { forwardToOrigin, type ForwardPlan, type TimedOriginFailure } from "./forward";
import type { Result } from "../../shared/result";
import type { RequestHeaderScan, TraceFields } from "./headers";
import type { Connector } from "./network";
import { contentLength, replayable, type ReplayableBody } from "./replay-body";
import type { OriginFailureCode } from "./classify";

/** A zone's fallback and circuit breaker, compiled once per zone version; null when it has neither. */
export interface FailoverConfig {
  readonly zone: string;
  /** Where a failed request goes once; null: no fallback. */
  readonly fallback: ForwardPlan | null;
  readonly breaker: BreakerSettings | null;
}

export function failoverConfig(zone: string, settings: ZoneSettings, primary: ForwardPlan): FailoverConfig | null {
  const fallbackTarget = settings.fallback_origin === undefined ? null : parseOriginUrl(settings.fallback_origin);
  const fallback = fallbackTarget?.ok === true ? { ...primary, target: fallbackTarget.value } : null;
  const b = settings.circuit_breaker;
  const breaker = b === undefined ? null : { failures: b.failures, openMs: b.open_seconds * 1000 };
  return fallback === null && breaker === null ? null : { zone, fallback, breaker };
}

/** One request as it is sent (to the origin, then maybe to the fallback). */
export interface Sending {
  readonly request: Request;
  readonly url: URL;
  readonly scan: RequestHeaderScan;
  readonly connector: Connector;
  readonly path: string;
  /** The body to send instead of `request.body` (an MCP request's tee branch); undefined: the request's own. */
  readonly body?: ReadableStream<Uint8Array> | null;
  /** The trace context each origin gets (docs/telemetry.md), on a zone with telemetry. */
  readonly trace?: TraceFields;
  /** Told of each attempt that was sent (its span, on a traced request). */
  readonly observe?: OriginObserver;
}

/** One sent attempt: when it started, to which origin, what came of it. */
export type OriginObserver = (attempt: {
  readonly start: number;
  readonly target: string;
  readonly result: Result<Response, TimedOriginFailure>;
}) => void;

/** What an attempt came to. */
export type Attempt =
  | { readonly kind: "answer"; readonly response: Response; readonly ms: number }
  | { readonly kind: "failed"; readonly failure: TimedOriginFailure }
  /** Not sent: the origin's circuit is open (`retryAfter` whole seconds until a probe, `code` what opened it). */
  | { readonly kind: "skipped"; readonly code: OriginFailureCode; readonly retryAfter: number };

/** The zone's origin, through its circuit; the body kept for a second sending when a fallback may need it. */
export async function primaryAttempt(
  config: FailoverConfig,
  plan: ForwardPlan,
  sending: Sending,
): Promise<{ readonly attempt: Attempt; readonly body: ReplayableBody | null }> {
  const method = sending.request.method;
  const source: ReadableStream<Uint8Array> | null =
    sending.body === undefined ? (sending.request.body as ReadableStream<Uint8Array> | null) : sending.body;
  const body =
    config.fallback !== null && method !== "GET" && method !== "HEAD" && source !== null
      ? replayable(source, contentLength(sending.request.headers.get("Content-Length")))
      : null;
  const attempt = await attemptOn(config, plan, body === null ? sending : { ...sending, body: body.first });
  return { attempt, body };
}

/**
 * The fallback, once, when the origin's failure allows it (fallback.ts `mayFailOver`) and the body can be sent
 * again; null when it is not tried.
 */
export async function fallbackAttempt(
  config: FailoverConfig,
  sending: Sending,
  failed: { readonly code: OriginFailureCode; readonly reason: string },
  body: ReplayableBody | null,
): Promise<Attempt | null> {
  const plan = config.fallback;
  if (plan === null) return null;
  // An origin skipped for its open circuit never received the request: any method may go, as after a 521.
  const skipped = failed.reason === "circuit-open";
  if (!skipped && !mayFailOver(failed.code, sending.request.method, sending.request.headers)) return null;
  if (body === null) return attemptOn(config, plan, sending);
  const again = body.again();
  return again === null ? null : attemptOn(config, plan, { ...sending, body: again });
}

/** One origin, through its circuit breaker when the zone has one. */
async function attemptOn(config: FailoverConfig, plan: ForwardPlan, sending: Sending): Promise<Attempt> {
  const breaker = config.breaker;
  const key = breaker === null ? "" : circuitKey(config.zone, plan.target.origin);
  if (breaker !== null) {
    const gate = circuitBreakers.admit(key, circuitBreakers.now(), plan.connectTimeoutMs + plan.readTimeoutMs);
    if (gate.kind === "open") return { kind: "skipped", code: gate.code, retryAfter: gate.retryAfter };
  }
  const started = Date.now();
  const { request, url, scan, connector, path, body, trace } = sending;
  const options = {
    connector,
    path,
    ...(body === undefined ? {} : { body }),
    ...(trace === undefined ? {} : { trace }),
  };
  const result = await forwardToOrigin(request, url, scan, plan, options);
  sending.observe?.({ start: started, target: plan.target.origin, result });
  if (breaker !== null) {
    if (result.ok || !countsAsConnectionFailure(result.error.code)) circuitBreakers.succeeded(key);
    else circuitBreakers.failed(key, result.error.code, circuitBreakers.now(), breaker);
  }
  return result.ok
    ? { kind: "answer", response: result.value, ms: Date.now() - started }
    : { kind: "failed", failure: result.error };
}
