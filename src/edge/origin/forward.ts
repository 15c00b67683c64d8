/**
 * The proxy (docs/origin.md): forward one request to the zone's origin and stream the answer back, or say
 * precisely why no answer could be had.
 *
 * Timeline of one request (connect and read timeouts are per zone):
 *   t=0          fetch starts; the body streams from the client to the origin, nothing is buffered.
 *   response     any status, streamed back unchanged (redirects are not followed).
 *   fetch fails  → a TCP probe, then (https) a TLS probe, classify.ts picks the code.
 *   t=connect    still pending → a TCP probe (racing the fetch): no connection → 522 (or 521/523/1016);
 *                connected → the origin is just slow, keep waiting;
 *   t=read       still pending → 524 (the invocation then ends, which cancels the upstream request).
 * The happy path costs one timer; the probes run only after a failure or a stall.
 */
import { messageOf, err, ok, type Result } from "../../shared/result";
import type { OriginTarget } from "../../shared/origin-url";
import {
  classifyReachedOrigin,
  classifyTls,
  fetchErrorKind,
  responseTimeout,
  unreachedOrigin,
  type OriginFailure,
} from "./classify";
import type { Connector } from "./network";
import { upstreamHeaders, type RequestHeaderScan, type TraceFields } from "./headers";
import { TIMEOUT, within } from "../../shared/timeout";

/** Where and how patiently to forward. */
export interface ForwardPlan {
  readonly target: OriginTarget;
  readonly connectTimeoutMs: number;
  readonly readTimeoutMs: number;
}

type Settled =
  { readonly kind: "response"; readonly response: Response } | { readonly kind: "error"; readonly message: string };

/**
 * The upstream request's init: a fresh one, never the incoming Request object (docs/development.md "itty-router's request proxy").
 * No AbortSignal: when the proxy gives up (522, 524) it returns the error and the invocation ends, which
 * cancels the pending subrequest and closes its connection (tested: "a 524 leaves no upstream connection
 * open"); a signal on every request measured ~20 µs of CPU per request (docs/benchmarks.md).
 */
export function upstreamInit(
  request: Request,
  url: URL,
  scan: RequestHeaderScan,
  body?: ReadableStream<Uint8Array> | null,
  trace?: TraceFields,
): RequestInit {
  const method = request.method; // one read: each is a call into the runtime
  const hasBody = method !== "GET" && method !== "HEAD";
  return {
    method,
    headers: upstreamHeaders(
      request.headers,
      scan,
      trace === undefined
        ? { proto: url.protocol.slice(0, -1), host: url.host }
        : { proto: url.protocol.slice(0, -1), host: url.host, trace },
    ),
    body: hasBody ? (body === undefined ? request.body : body) : null,
    redirect: "manual",
  };
}

/** How to reach the origin, and the path and query it gets. */
export interface ForwardOptions {
  readonly connector: Connector;
  /**
   * The request's own `url.pathname + url.search` unless the zone's URL normalisation has scope `both`
   * (docs/rules-language.md; docs/origin.md).
   */
  readonly path?: string;
  /**
   * The body to send instead of `request.body`: the same bytes, scanned on their way for an MCP error answer
   * (src/edge/agents/body-copy.ts, docs/agents.md "Reading the id").
   */
  readonly body?: ReadableStream<Uint8Array> | null;
  /** The trace context the origin gets (docs/telemetry.md), on a zone with telemetry. */
  readonly trace?: TraceFields;
}

/** An origin failure and how long the attempt took until it was classified (`Server-Timing`, docs/errors.md). */
export interface TimedOriginFailure extends OriginFailure {
  readonly elapsedMs: number;
}

export async function forwardToOrigin(
  request: Request,
  url: URL,
  scan: RequestHeaderScan,
  plan: ForwardPlan,
  options: ForwardOptions,
): Promise<Result<Response, TimedOriginFailure>> {
  const { connector, path = url.pathname + url.search, body, trace } = options;
  const started = Date.now();
  const fetching = connector.fetch(plan.target.origin + path, upstreamInit(request, url, scan, body, trace));
  let settled = await raced(fetching, Math.min(plan.connectTimeoutMs, plan.readTimeoutMs));
  if (settled === TIMEOUT) {
    // Only a stall pays for the settled value as a promise of its own (the race below and the second wait).
    const fetched = fetching.then(responded, failed);
    // Still nothing at the connect timeout: is the origin reachable at all (522) or merely slow (524)?
    const probe = connector.probeTcp(plan.target, plan.connectTimeoutMs);
    const first = await Promise.race([fetched, probe.then((p) => ({ kind: "probe" as const, probe: p }))]);
    if (first.kind === "probe") {
      if (first.probe.kind !== "open") {
        return err(timed(unreachedOrigin(first.probe, "no response headers yet"), started));
      }
      settled = await within(fetched, plan.readTimeoutMs - (Date.now() - started));
      if (settled === TIMEOUT) return err(timed(responseTimeout(plan.readTimeoutMs), started));
    } else {
      settled = first;
    }
  }
  if (settled.kind === "response") return ok(settled.response);
  return err(timed(await diagnose(settled.message, plan, connector), started));
}

/**
 * The fetch against the first timer, as `within` races it, but settled straight into a `Settled`: the happy path makes
 * one promise and one timer, where a `Settled` promise mapped from the fetch and raced by `within` was a promise and a
 * microtask more per request (docs/benchmarks.md "Current numbers"). The fetch's rejection is handled here.
 */
function raced(fetching: Promise<Response>, ms: number): Promise<Settled | typeof TIMEOUT> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(TIMEOUT), ms);
    fetching.then(
      (response) => {
        clearTimeout(timer);
        resolve({ kind: "response", response });
      },
      (e: unknown) => {
        clearTimeout(timer);
        resolve(failed(e));
      },
    );
  });
}

function responded(response: Response): Settled {
  return { kind: "response", response };
}

/** Only failures read the clock a second time. */
function timed(failure: OriginFailure, started: number): TimedOriginFailure {
  return { ...failure, elapsedMs: Date.now() - started };
}

function failed(e: unknown): Settled {
  return { kind: "error", message: messageOf(e) };
}

/** After a failed fetch: probe, then classify (only failures pay for this). */
async function diagnose(message: string, plan: ForwardPlan, connector: Connector): Promise<OriginFailure> {
  const tcp = await connector.probeTcp(plan.target, plan.connectTimeoutMs);
  if (tcp.kind !== "open") return unreachedOrigin(tcp, `fetch failed: ${message}`);
  const verdict = classifyReachedOrigin(fetchErrorKind(message), plan.target.scheme, message);
  if (verdict.kind === "final") return verdict.failure;
  return classifyTls(await connector.probeTls(plan.target, plan.connectTimeoutMs), message);
}
