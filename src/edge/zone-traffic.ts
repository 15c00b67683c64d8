/**
 * Zone traffic: everything that is neither a service endpoint nor the management API (docs/architecture.md step 3).
 * Visible stages, each ending the request with an `Ending` or handing on; one `Progress` value says how far the
 * request went; `answer` is the one place that answers and records:
 *   admit:   IP-literal host → 1003 · own CDN-Loop mark → 1000 (one pass over the headers)
 *   zone:    not a DNS hostname → 1001 (no KV read) · CONFIG failing → 500 · no zone and no DEFAULT_ORIGIN → 1001
 *   limits:  headers over the zone's limit → 1038 (checked before any rule runs, docs/configuration.md)
 *   phases:  IP access → 1006/1009 · firewall → 1020 · rate limiting → 1015 (docs/producers.md, src/edge/request-phases)
 *   (maintenance mode, when on: a request its `allow` does not match → 1200 at once, docs/fewer-errors.md)
 *   origin:  the origin's answer, or its failure → 52x/502/1016 (docs/origin.md); a fallback origin and a circuit
 *            breaker when the zone has them (docs/fewer-errors.md)
 * Every error goes through the one pipeline with the zone's customisation, so custom rules and pages apply.
 */
import type { Settings } from "../shared/settings";
import type { RequestContext } from "../shared/request-context";
import { errorResponse, type ErrorEvent, type ErrorScope } from "../errors/pipeline";
import { hostnameProblem, hostnameProblemMessage } from "../shared/host";
import { isIpLiteral } from "../shared/ip";
import { RuleUrl } from "../shared/rule-url";
import { DEFAULT_URL_NORMALIZATION } from "../shared/url-normalise";
import { connectorFor } from "./origin/connector";
import { forwardToOrigin, type ForwardPlan, type TimedOriginFailure } from "./origin/forward";
import {
  fallbackAttempt,
  primaryAttempt,
  type Attempt,
  type FailoverConfig,
  type OriginObserver,
  type Sending,
} from "./origin/fail-over";
import { circuitFailure, circuitOpenMarked } from "./origin/circuit-open";
import { markedFallback } from "./origin/fallback";
import { allowedThrough, maintenanceMarked, MAINTENANCE_CODE } from "./origin/maintenance";
import { countAvoided, type Avoided } from "./analytics/avoided";
import { headerSectionBytes, scanRequestHeaders, type RequestHeaderScan } from "./origin/headers";
import { applyToOriginError, assetsOf, customizationFor } from "./custom-errors/apply";
import { compiledZone, routeTo, type CompiledZone, type Route, type ZoneLookup } from "./compiled-zone";
import { requestPhase, type RequestPhaseOutcome } from "./request-phases/request-phase";
import { rateLimitFields, withRateLimitFields, type RateLimitFieldValues } from "./request-phases/rate-limit/fields";
import { countRequest, recordError, type Occurrence } from "./analytics/occurrence";
import { formatOf } from "../state/analytics/record";
import type { OriginMark } from "../state/analytics/request-detail";
import { err, ok, type Result } from "../shared/result";
import { parseOriginUrl, pointsAtApi } from "../shared/origin-url";
import { ZONE_LIMITS } from "../state/zone/schema";
import { mcpExchangeOf, watchedKind, watchedResponse, type McpExchange } from "./agents/agent-answers";
import { startTrace, type RequestTrace } from "./telemetry/request-trace";
import { traceGenerated, traceOrigin, traceOriginError } from "./telemetry/traffic-spans";
import { tracePhases } from "./telemetry/phase-spans";
import { answerMayUseCopies, NO_STALE, optedIn, staleCopies, type StaleCopies } from "./stale/stale";

/**
 * A stage that needs no I/O (the zone cached, no request-phase rule, an answer that is not an error) returns its value
 * rather than a promise, and is awaited only when it did return one: every `async` layer and `await` of the happy
 * path is a promise and a microtask more per request (docs/benchmarks.md "Current numbers").
 */
export async function handleZoneTraffic(rc: RequestContext): Promise<Response> {
  const progress = startProgress();
  const ending = await throughStages(rc, progress);
  const answered = answer(rc, progress, ending);
  return answered instanceof Promise ? await answered : answered;
}

/** The stages in order; the first that ends the request says how. */
async function throughStages(rc: RequestContext, p: Progress): Promise<Ending> {
  const admitted = admit(rc, p);
  if (admitted.kind === "error") return admitted;
  const zoned = zoneStage(rc, p);
  const routed = zoned instanceof Promise ? await zoned : zoned;
  if (routed.kind === "error") return routed;
  const { headers } = admitted;
  const { route } = routed;
  const limited = limitStage(rc, p, route, headers);
  if (limited !== null) return limited;
  const phased = phaseStage(rc, p);
  const refused = phased instanceof Promise ? await phased : phased;
  return refused ?? maintenanceStage(rc, p) ?? (await originStage(rc, p, route, headers));
}

/** The stages' five steps, in order: how far a request went is the last one it entered. */
type Stage = "admit" | "zone" | "limits" | "phases" | "origin";

/**
 * How far one request went, and what the stages learnt on the way (docs/analytics.md "Request detail"): the one
 * value the stages advance and `answer` reads. Plain fields: nothing is allocated for it unless an error is recorded.
 */
interface Progress {
  stage: Stage;
  /**
   * Errors before the zone's config is known have no customisation; after it, the zone's rules and pages apply. Made
   * on first use (`scopeOf`): an answer that is no error and no stream never needs it.
   */
  scope: ErrorScope | null;
  /**
   * The zone's compiled config, once known. Only a configured zone's errors are recorded (docs/analytics.md): a host
   * without zone config is not (a Host header must not create analytics storage).
   */
  config: CompiledZone | null;
  /** An MCP request's generated errors are JSON-RPC answers (docs/agents.md); known once the headers are scanned. */
  mcp: McpExchange | null;
  /**
   * The URL as rules see it (docs/rules-language.md: zone host, path normalised per the zone's setting), made once the
   * zone is known and only if something reads it; its path is normalised at most once, on first read.
   */
  view: RuleUrl | undefined;
  /** How the request phases ended; null when they did not run. */
  phaseOutcome: RequestPhaseOutcome | null;
  /** The phases' clock (`Date.now()` when they ran): the RateLimit fields' `now`. */
  now: number;
  /**
   * An error the visitor did not see, or an origin that was not asked (docs/fewer-errors.md): a stale copy served,
   * the fallback's answer, or an open circuit's error at once. `answer` hands it to `countAvoided`.
   */
  avoided: Avoided | null;
  /** The request's trace, only on a zone with telemetry (docs/telemetry.md): every other request pays `=== null`. */
  trace: RequestTrace | null;
}

/** How the stages ended a request: an error to generate, or the origin's answer. */
type Ending =
  | {
      readonly kind: "error";
      readonly code: number;
      readonly cause: string;
      /** A rate limit's Retry-After. */
      readonly retryAfter?: number;
      /** The origin attempt that failed. */
      readonly origin?: TimedOriginFailure;
      /** The origin was skipped: its circuit is open (docs/fewer-errors.md "Circuit breaker"). */
      readonly circuit?: boolean;
      /** The zone is in maintenance: the origin was not asked (docs/fewer-errors.md "Maintenance mode"). */
      readonly maintenance?: boolean;
    }
  /**
   * The origin's answer, with its status and headers read once (each read is a call into the runtime); `idleMs`: how
   * long its event stream may stay silent (the zone's read timeout).
   */
  | {
      readonly kind: "origin";
      readonly response: Response;
      readonly status: number;
      readonly headers: Headers;
      readonly idleMs: number;
    };

type ErrorEnding = Extract<Ending, { kind: "error" }>;
type OriginEnding = Extract<Ending, { kind: "origin" }>;

function startProgress(): Progress {
  return {
    stage: "admit",
    scope: null,
    config: null,
    mcp: null,
    view: undefined,
    phaseOutcome: null,
    now: 0,
    avoided: null,
    trace: null,
  };
}

/** An error ending. Every error before the origin is tried is the edge's own refusal (docs/errors.md). */
function refusal(code: number, cause: string, retryAfter?: number): ErrorEnding {
  return retryAfter === undefined ? { kind: "error", code, cause } : { kind: "error", code, cause, retryAfter };
}

/** The URL as rules see it, made on first read. */
function ruleUrlOf(rc: RequestContext, p: Progress): RuleUrl {
  return (p.view ??= new RuleUrl(rc.url, rc.zone, p.config?.normalization ?? DEFAULT_URL_NORMALIZATION));
}

/** Cheap refusals before anything is read: an IP literal, a loop; else the one pass over the request headers. */
function admit(
  rc: RequestContext,
  p: Progress,
): ErrorEnding | { readonly kind: "admitted"; readonly headers: RequestHeaderScan } {
  // docs/producers.md: an IP literal is never a zone (API hosts never reach this function).
  if (isIpLiteral(rc.zone)) return refusal(1003, `direct IP access to ${rc.zone}`);
  // RFC 8586: our own mark means this request already went through this service once.
  const headers = scanRequestHeaders(rc.request.headers); // one pass: loop mark, size, fields to forward
  p.mcp = mcpExchangeOf(rc.request, headers);
  if (headers.loop) return refusal(1000, "CDN-Loop already carries this service's mark");
  return { kind: "admitted", headers };
}

type Routed = ErrorEnding | { readonly kind: "routed"; readonly route: Route };

/** The zone and its route: the one zone lookup (a value on a hit, one KV read on a miss: compiled-zone.ts). */
function zoneStage(rc: RequestContext, p: Progress): Routed | Promise<Routed> {
  p.stage = "zone";
  const lookup = compiledZone(rc.env, rc.zone);
  return lookup instanceof Promise ? lookup.then((found) => zoneFound(rc, p, found)) : zoneFound(rc, p, lookup);
}

function zoneFound(rc: RequestContext, p: Progress, found: ZoneLookup): Routed {
  if (!found.ok) return refusal(500, found.error.cause);
  const config = found.value;
  if (config === null) {
    // docs/producers.md 1001: a Host that is not a DNS hostname is never a zone, whatever DEFAULT_ORIGIN; the lookup
    // never read KV for it.
    const problem = hostnameProblem(rc.zone);
    if (problem !== null) return refusal(1001, `host is not a hostname: ${hostnameProblemMessage(problem)}`);
    const fallback = defaultRoute(rc.settings);
    if (fallback === null) return refusal(1001, "no zone config and no DEFAULT_ORIGIN");
    if (!fallback.ok) return refusal(500, fallback.error);
    return { kind: "routed", route: fallback.value };
  }
  p.config = config;
  p.trace = startTrace(config.telemetry, rc.request, rc.url, rc.started);
  // Every request of a configured zone is counted, errors included: the error rates' denominator
  // (docs/analytics.md "Requests and drops"), batched with the records after the response.
  countRequest({ zone: rc.zone, shards: config.analyticsShards }, rc.env, rc.ctx);
  return { kind: "routed", route: config.route };
}

/** The request's error scope, made on first use: the request context, or once the zone is known the zone's. */
function scopeOf(rc: RequestContext, p: Progress): ErrorScope {
  return (p.scope ??= p.config === null ? rc : zoneScope(rc, p.config));
}

/** The error scope of a configured zone: its custom rules and pages, its retry-hint profile, its read timeout. */
function zoneScope(rc: RequestContext, config: CompiledZone): ErrorScope {
  const customization = customizationFor(config.customErrors, rc.env.CONFIG);
  const { retryHints, readTimeout, languages } = config;
  return { ...rc, customization, retryHints, readTimeout, languages };
}

/**
 * The zone's header limit, in bytes as rules see them (UTF-8). The scan counts characters: at most 3 bytes each, so
 * the exact count is needed only past a third of the limit (headers.ts `headerSectionBytes`). The request phases'
 * worst case is computed from this limit (docs/rules-language.md "Evaluation budget").
 */
function limitStage(rc: RequestContext, p: Progress, route: Route, headers: RequestHeaderScan): ErrorEnding | null {
  p.stage = "limits";
  const limit = route.maxRequestHeaderBytes;
  const headerBytes = headers.bytes * 3 > limit ? headerSectionBytes(rc.request.headers) : headers.bytes;
  if (headerBytes > limit) return refusal(1038, `request headers are ${headerBytes} bytes, limit ${limit}`);
  return null;
}

/**
 * docs/producers.md: IP access → firewall → rate limiting, each short-circuiting. The clock is `Date.now()` here;
 * `requestPhase` takes it as a value so tests can move it (docs/producers.md). A zone without request-phase rules
 * pays one boolean, no promise (the proxy's own cost).
 */
function phaseStage(rc: RequestContext, p: Progress): ErrorEnding | null | Promise<ErrorEnding | null> {
  p.stage = "phases";
  const config = p.config;
  if (config?.hasPhases !== true) {
    p.phaseOutcome = PASSED;
    return null;
  }
  return phasesRun(rc, p, config);
}

async function phasesRun(rc: RequestContext, p: Progress, config: CompiledZone): Promise<ErrorEnding | null> {
  p.now = Date.now();
  const scope = { env: rc.env, zone: rc.zone, now: p.now, ruleUrl: ruleUrlOf(rc, p) };
  const phase = await requestPhase(config.phases, rc.request, scope);
  p.phaseOutcome = phase;
  if (p.trace !== null) tracePhases(p.trace, config.phases, phase, p.now, Date.now());
  return phase.kind === "error" ? refusal(phase.code, phase.cause, phase.retryAfter) : null;
}

/**
 * Maintenance mode (docs/fewer-errors.md "Maintenance mode"): a request its `allow` does not match gets the
 * maintenance error with the zone's `Retry-After`, and the origin is not asked. One check when it is off.
 */
function maintenanceStage(rc: RequestContext, p: Progress): ErrorEnding | null {
  const m = p.config?.maintenance ?? null;
  if (m === null || allowedThrough(m, rc.request, ruleUrlOf(rc, p))) return null;
  return {
    ...refusal(MAINTENANCE_CODE, "maintenance mode: the origin was not contacted", m.retryAfter),
    maintenance: true,
  };
}

/** The origin: its answer, whatever its status, or why none could be had (docs/origin.md). */
async function originStage(rc: RequestContext, p: Progress, route: Route, headers: RequestHeaderScan): Promise<Ending> {
  p.stage = "origin";
  const { request, url } = rc;
  // The origin gets the original path unless the zone's scope is `both` (docs/rules-language.md; docs/origin.md).
  const both = p.config?.normalization.scope === "both";
  const path = both ? ruleUrlOf(rc, p).originPath : url.pathname + url.search;
  const connector = connectorFor(rc.env);
  const forwarded = p.mcp === null ? { connector, path } : { connector, path, body: p.mcp.forwardBody() };
  const trace = p.trace;
  const sent = trace === null ? forwarded : { ...forwarded, trace: trace.originHeaders() };
  // A fallback origin, a circuit breaker, or stale copies the zone opted into (docs/fewer-errors.md): every request
  // goes through the guarded stage. A zone with none of them pays these two checks and forwards once.
  const failover = p.config?.failover ?? null;
  const settings = p.config?.stale ?? null;
  if (failover !== null || (settings !== null && optedIn(settings))) {
    const stale = staleCopies(rc, settings);
    const observe = trace === null ? undefined : originObserver(trace, path, request);
    const sending = { request, url, scan: headers, ...sent, observe };
    return guardedStage(p, { failover: failover ?? noFailover(rc.zone), stale, plan: route.plan }, sending);
  }
  let result: Result<Response, TimedOriginFailure>;
  if (trace === null) result = await forwardToOrigin(request, url, headers, route.plan, forwarded);
  else {
    const start = Date.now();
    result = await forwardToOrigin(request, url, headers, route.plan, sent);
    traceOrigin(trace, { start, target: route.plan.target.origin, path, request, result });
  }
  // A host without zone config keeps no copies; a configured zone's answer may still ask for one, or a failure find one.
  if (result.ok) {
    const response = result.value;
    const { status, headers } = response;
    if (settings === null || !answerMayUseCopies(status, headers)) {
      return { kind: "origin", response, status, headers, idleMs: route.plan.readTimeoutMs };
    }
  } else if (settings === null) return originEnding(result, route);
  return copiesOnDemand(rc, p, result, route);
}

/**
 * A configured zone that has not opted into copies (docs/fewer-errors.md "What is kept"): an answer that carries its own
 * `stale-if-error` is kept, and a failure or a 502/503/504 is answered from a copy when one may answer, as the guarded
 * stage would do for a zone without fallback or breaker.
 */
async function copiesOnDemand(
  rc: RequestContext,
  p: Progress,
  result: Result<Response, TimedOriginFailure>,
  route: Route,
): Promise<Ending> {
  const stale = staleCopies(rc, NO_STALE);
  if (stale === null) return originEnding(result, route);
  const idleMs = route.plan.readTimeoutMs;
  if (result.ok) {
    const answered = await stale.onAnswer(result.value);
    if (answered instanceof Response) return originAnswer(answered, idleMs);
    if (answered.failure !== null) p.avoided = { kind: "stale", code: answered.failure };
    return originAnswer(answered.stale, idleMs);
  }
  const copy = await stale.onFailure(result.error.code, false);
  if (copy === null) return originEnding(result, route);
  p.avoided = { kind: "stale", code: result.error.code };
  return originAnswer(copy.stale, idleMs);
}

/** Each origin attempt of a traced request as its own CLIENT span (the fallback's included). */
function originObserver(trace: RequestTrace, path: string, request: Request): OriginObserver {
  return ({ start, target, result }) => traceOrigin(trace, { start, target, path, request, result });
}

function originEnding(result: Result<Response, TimedOriginFailure>, route: Route): Ending {
  if (!result.ok) return { kind: "error", code: result.error.code, cause: result.error.cause, origin: result.error };
  return originAnswer(result.value, route.plan.readTimeoutMs);
}

function originAnswer(response: Response, idleMs: number): OriginEnding {
  return { kind: "origin", response, status: response.status, headers: response.headers, idleMs };
}

/** A zone with stale copies but neither fallback nor breaker: the origin alone, once. */
function noFailover(zone: string): FailoverConfig {
  return { zone, fallback: null, breaker: null };
}

/** What guards one request's origin: its fallback and circuit (none: both null), its copies (null: none). */
interface Guards {
  readonly failover: FailoverConfig;
  readonly stale: StaleCopies | null;
  readonly plan: ForwardPlan;
}

/**
 * The origin through its circuit (src/edge/origin/fail-over.ts), raced against `stale_after_ms` when a copy may
 * answer; on a failure, in order (docs/fewer-errors.md "Order on an origin failure"): the stale copy, the fallback
 * once, the error. What was avoided is noted (`Progress.avoided`).
 */
async function guardedStage(p: Progress, g: Guards, sending: Sending): Promise<Ending> {
  const { failover: config, stale, plan } = g;
  const idleMs = plan.readTimeoutMs;
  const primary = primaryAttempt(config, plan, sending);
  const first = stale === null ? await primary : await stale.orSlow(primary, answerOf);
  if ("stale" in first) return originAnswer(first.stale, idleMs);
  const { attempt, body } = first;
  if (attempt.kind === "answer") {
    if (stale === null) return originAnswer(attempt.response, idleMs);
    const answered = await stale.onAnswer(attempt.response);
    if (answered instanceof Response) return originAnswer(answered, idleMs);
    if (answered.failure !== null) p.avoided = { kind: "stale", code: answered.failure };
    return originAnswer(answered.stale, idleMs);
  }
  const failed = attempt.kind === "failed" ? attempt.failure : circuitFailure(attempt);
  const copy = stale === null ? null : await stale.onFailure(failed.code, attempt.kind === "skipped");
  if (copy !== null) {
    p.avoided = { kind: "stale", code: failed.code };
    return originAnswer(copy.stale, idleMs);
  }
  const second = await fallbackAttempt(config, sending, failed, body);
  if (second?.kind === "answer") {
    p.avoided = { kind: "failover", code: failed.code };
    return originAnswer(markedFallback(second.response, failed, second.ms), idleMs);
  }
  if (second?.kind === "failed") {
    const f = second.failure;
    return { kind: "error", code: f.code, cause: `fallback origin: ${f.cause}`, origin: f };
  }
  if (attempt.kind === "failed")
    return { kind: "error", code: failed.code, cause: failed.cause, origin: attempt.failure };
  p.avoided = { kind: "circuit_open", code: attempt.code };
  return { kind: "error", code: attempt.code, cause: failed.cause, retryAfter: attempt.retryAfter, circuit: true };
}

/** The origin's answer in a primary attempt that came after a stale-if-slow copy answered (null: none). */
function answerOf(late: { readonly attempt: Attempt }): Response | null {
  return late.attempt.kind === "answer" ? late.attempt.response : null;
}

/** What one ending answered, and how it is recorded (null: not an error, nothing to record). */
interface Answered {
  readonly response: Response;
  readonly record: Pick<Occurrence, "source" | "code" | "cause" | "answeredBy"> | null;
  readonly origin: OriginMark;
}

/**
 * The one place a request is answered and recorded: the error generated (or the origin's answer, custom error rules
 * applied to its errors), the RateLimit fields of the rules that counted the request, and the record of an error of
 * a configured zone (docs/analytics.md "Records").
 */
function answer(rc: RequestContext, p: Progress, ending: Ending): Response | Promise<Response> {
  if (ending.kind === "error")
    return generated(rc, p, ending).then((answered) => answeredWith(rc, p, ending, answered));
  const fromIt = fromOrigin(rc, p, ending);
  return fromIt instanceof Promise
    ? fromIt.then((answered) => answeredWith(rc, p, ending, answered))
    : answeredWith(rc, p, ending, fromIt);
}

/** The answer given, its RateLimit fields added and its error recorded. */
function answeredWith(rc: RequestContext, p: Progress, ending: Ending, answered: Answered): Response {
  const fields = rateLimitFieldsOf(p, answered.response);
  const response =
    fields === undefined ? answered.response : withRateLimitFields(answered.response, fields, ending.kind === "origin");
  const config = p.config;
  if (p.avoided !== null && config !== null) {
    countAvoided({ zone: rc.zone, shards: config.analyticsShards }, p.avoided, rc.env, rc.ctx);
  }
  if (answered.record !== null && config !== null) {
    const { request, url, zone } = rc;
    const phases = {
      compiled: p.stage === "phases" || p.stage === "origin" ? config.phases : null,
      outcome: p.phaseOutcome,
      origin: answered.origin,
      customRules: config.customErrors.active && config.customErrors.rules.rules.length > 0,
    };
    const occurrence = { zone, shards: config.analyticsShards, request, url, response, phases };
    recordError({ ...occurrence, ...answered.record }, rc.env, rc.ctx);
  }
  return p.trace === null ? response : p.trace.end(response, rc.ctx);
}

/** A generated error, through the one pipeline (or as a JSON-RPC answer to an MCP request, docs/agents.md). */
async function generated(rc: RequestContext, p: Progress, ending: ErrorEnding): Promise<Answered> {
  const { code, cause, retryAfter, origin } = ending;
  const event: ErrorEvent = {
    code,
    request: rc.request,
    url: rc.url,
    cause,
    // docs/errors.md "Did the request reach the origin?": an origin failure says what happened.
    reachedOrigin: origin === undefined ? false : origin.reached,
    ...(scopeOf(rc, p).customization ? { ruleUrl: ruleUrlOf(rc, p) } : {}),
    ...(origin === undefined ? {} : { origin: { ms: origin.elapsedMs, reason: origin.reason } }),
    ...(retryAfter === undefined ? {} : { retryAfter }),
  };
  // A traced error names its trace (`trace_id`, docs/errors.md).
  const trace = p.trace;
  const zoneScope = scopeOf(rc, p);
  const scope = trace !== null && trace.tracesError() ? { ...zoneScope, traceId: trace.traceId } : zoneScope;
  const { response, answeredBy } =
    (p.mcp !== null ? await p.mcp.answer(event, scope) : null) ?? (await errorResponse(event, scope));
  if (trace !== null) traceGenerated(trace, { event, response, answeredBy });
  const mark: OriginMark = p.stage === "origin" && ending.circuit !== true ? FAILED : NOT_REACHED;
  const marked =
    ending.circuit === true
      ? circuitOpenMarked(response, code)
      : ending.maintenance === true
        ? maintenanceMarked(response)
        : response;
  return { response: marked, record: { source: "edge", code, cause, answeredBy }, origin: mark };
}

/**
 * The origin's answer. An event stream or NDJSON that breaks after its headers ends with an error frame
 * (docs/agents.md "Streams"). Custom error rules also see the origin's own errors (docs/custom-errors.md); pages and
 * defaults never replace them. An origin error passed through unchanged carries no Ray-ID: its record gets one of
 * its own (docs/analytics.md "Records").
 */
function fromOrigin(rc: RequestContext, p: Progress, ending: OriginEnding): Answered | Promise<Answered> {
  const { request, url } = rc;
  const { response, status, headers, idleMs } = ending;
  if (status < 400) {
    const kind = watchedKind(headers);
    if (kind === null) return { response, record: null, origin: NOT_REACHED };
    const watch = { event: { request, url }, scope: scopeOf(rc, p), idleMs, mcp: p.mcp };
    return { response: watchedResponse(response, kind, watch), record: null, origin: NOT_REACHED };
  }
  const config = p.config;
  if (config === null) return { response, record: null, origin: NOT_REACHED };
  return originError(rc, p, ending, config);
}

/** An origin's error (status 400 or more) of a configured zone: its custom error rules, and its record. */
async function originError(
  rc: RequestContext,
  p: Progress,
  ending: OriginEnding,
  config: CompiledZone,
): Promise<Answered> {
  const { request, url } = rc;
  const { response, status, headers } = ending;
  const assets = assetsOf(config.customErrors, rc.env.CONFIG);
  const custom = applyToOriginError(config.customErrors, request, response, { url, ruleUrl: ruleUrlOf(rc, p), assets });
  // Synchronous unless a rule's asset is read from KV (once per zone version on this isolate).
  const byRule = custom instanceof Promise ? await custom : custom;
  if (p.trace !== null && byRule !== null) traceOriginError(p.trace, byRule.answeredBy);
  const format = formatOf(headers.get("Content-Type"));
  const record = { source: "origin", code: status, answeredBy: byRule?.answeredBy } as const;
  return { response: byRule?.response ?? response, record, origin: { kind: "responded", format } };
}

/**
 * The RateLimit fields (docs/producers.md "RateLimit fields") of a request some rate-limiting rule counted: every
 * answer tells the client its quota, the origin's own included. On a 1015 the block's t is the answer's own
 * Retry-After, so the two agree whatever set it.
 */
function rateLimitFieldsOf(p: Progress, response: Response): RateLimitFieldValues | undefined {
  const phase = p.phaseOutcome;
  if (phase?.rateLimits === undefined) return undefined;
  if (phase.kind === "pass") return rateLimitFields(phase.rateLimits, p.now);
  const retryAfter = Number(response.headers.get("Retry-After") ?? phase.retryAfter);
  const blocked = { ruleId: phase.ruleId, retryAfter: Number.isInteger(retryAfter) ? retryAfter : 1 };
  return rateLimitFields(phase.rateLimits, p.now, blocked);
}

/** The outcome of request phases that had no rule to run. */
const PASSED: RequestPhaseOutcome = { kind: "pass" };
const FAILED: OriginMark = { kind: "failed" };
const NOT_REACHED: OriginMark = { kind: "not-reached" };

const DEFAULT_LIMITS = {
  connect_timeout: ZONE_LIMITS.connectTimeout.default,
  read_timeout: ZONE_LIMITS.readTimeout.default,
  max_request_header_bytes: ZONE_LIMITS.maxRequestHeaderBytes.default,
} as const;

/**
 * The route of a host without zone config. DEFAULT_ORIGIN is an origin like any other (docs/origin.md): never a host
 * of API_HOSTS on any port, so a misconfigured value answers a structured 500 instead of handing zone traffic to
 * the management API.
 */
function defaultRoute(settings: Settings): Result<Route, string> | null {
  const route = parsedDefaultRoute(settings.defaultOrigin);
  if (route?.ok && pointsAtApi(route.value.plan.target, settings.apiHosts)) {
    return err("DEFAULT_ORIGIN must not be a host of API_HOSTS (docs/origin.md)");
  }
  return route;
}

// DEFAULT_ORIGIN is parsed once per distinct value per isolate.
let defaultKey: string | null = null;
let defaultValue: Result<Route, string> | null = null;

function parsedDefaultRoute(origin: string | null): Result<Route, string> | null {
  if (origin === null) return null;
  if (origin !== defaultKey) {
    defaultKey = origin;
    const target = parseOriginUrl(origin);
    defaultValue = target.ok ? ok(routeTo(target.value, DEFAULT_LIMITS)) : err(`DEFAULT_ORIGIN ${target.error}`);
  }
  return defaultValue;
}
