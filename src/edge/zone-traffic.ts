/**
 * Zone traffic: everything that is neither a service endpoint nor the management API (docs/architecture.md step 3).
 * Cheap refusals first, then the zone (per-isolate cache, KV behind it), then its request phases, then the origin:
 *   IP-literal host → 1003 · own CDN-Loop mark → 1000 · not a DNS hostname → 1001 (no KV read) ·
 *   CONFIG failing → 500 · no zone and no DEFAULT_ORIGIN → 1001 ·
 *   headers over the zone's limit → 1038 (a limit, checked before any rule runs, docs/configuration.md) ·
 *   IP access → 1006/1009 · firewall → 1020 · rate limiting → 1015 (docs/producers.md, src/edge/request-phases) ·
 *   origin failures → 52x/502/1016 (docs/origin.md).
 * Every error goes through the one pipeline with the zone's customisation, so custom rules and pages apply.
 */
import type { Settings } from "../shared/settings";
import type { RequestContext } from "../shared/request-context";
import { errorResponse } from "../errors/pipeline";
import { hostnameProblem, hostnameProblemMessage } from "../shared/host";
import { isIpLiteral } from "../shared/ip";
import { RuleUrl } from "../shared/rule-url";
import { DEFAULT_URL_NORMALIZATION, type UrlNormalization } from "../shared/url-normalise";
import { connectorFor } from "./origin/connector";
import { forwardToOrigin, type TimedOriginFailure } from "./origin/forward";
import { headerSectionBytes, scanRequestHeaders } from "./origin/headers";
import { applyToOriginError, assetsOf, customizationFor } from "./custom-errors/apply";
import { compiledZone, routeTo, type Route } from "./compiled-zone";
import { requestPhase } from "./request-phases/request-phase";
import { rateLimitFields, withRateLimitFields, type RateLimitFieldValues } from "./request-phases/rate-limit/fields";
import type { ErrorScope } from "../errors/pipeline";
import { countRequest, recordError, type PhaseProgress } from "./analytics/occurrence";
import type { CompiledRequestPhase } from "./request-phases/compile";
import type { RequestPhaseOutcome } from "./request-phases/request-phase";
import { formatOf } from "../state/analytics/record";
import type { OriginMark } from "../state/analytics/request-detail";
import { err, ok, type Result } from "../shared/result";
import { parseOriginUrl, pointsAtApi } from "../shared/origin-url";
import { ZONE_LIMITS } from "../state/zone/schema";
import { mcpExchangeOf, watchedResponse, type McpExchange } from "./agents/agent-answers";
import { startTrace, type RequestTrace } from "./telemetry/request-trace";
import { traceGenerated, traceOrigin, traceOriginError } from "./telemetry/traffic-spans";
import { tracePhases } from "./telemetry/phase-spans";

export async function handleZoneTraffic(rc: RequestContext): Promise<Response> {
  const { request, url, zone, env, ctx, settings } = rc;
  // Errors before the zone's config is known have no customisation; after it, the zone's rules and pages apply.
  let scope: ErrorScope = rc;
  // The URL as rules see it (docs/rules-language.md: zone host, path normalised per the zone's setting), made once the
  // zone is known and only if something reads it; its path is normalised at most once, on first read.
  let normalization: UrlNormalization = DEFAULT_URL_NORMALIZATION;
  let view: RuleUrl | undefined;
  const ruleUrl = (): RuleUrl => (view ??= new RuleUrl(url, zone, normalization));
  // Errors of a configured zone are recorded (docs/analytics.md); a host without zone config is not
  // (a Host header must not create analytics storage), so this is set once the zone's config is known.
  let recorded = false;
  // How far the request went, for its record (docs/analytics.md "Request detail"): plain values, no allocation
  // unless an error is recorded.
  let phases: CompiledRequestPhase | null = null;
  let phaseOutcome: RequestPhaseOutcome | null = null;
  let originTried = false;
  let customRules = false;
  let shards = 1;
  // An MCP request's generated errors are JSON-RPC answers (docs/agents.md); known once the headers are scanned.
  let mcp: McpExchange | null = null;
  // The request's trace, only on a zone with telemetry (docs/telemetry.md): every other request pays `=== null`.
  let trace: RequestTrace | null = null;
  // Every error before the origin is tried is the edge's own refusal: the request never left the edge
  // (docs/errors.md "Did the request reach the origin?"); an origin failure says what happened (`failure`).
  const fail = async (code: number, cause: string, more: FailureDetail = {}): Promise<Response> => {
    const base = {
      code,
      request,
      url,
      cause,
      reachedOrigin: more.origin === undefined ? false : more.origin.reached,
      ...(scope.customization ? { ruleUrl: ruleUrl() } : {}),
    };
    const { retryAfter, origin } = more;
    const timing = origin === undefined ? {} : { origin: { ms: origin.elapsedMs, reason: origin.reason } };
    const event = retryAfter === undefined ? { ...base, ...timing } : { ...base, ...timing, retryAfter };
    // A traced error names its trace (`trace_id`, docs/errors.md).
    const errorScope = trace !== null && trace.tracesError() ? { ...scope, traceId: trace.traceId } : scope;
    const { response, answeredBy } =
      (mcp !== null ? await mcp.answer(event, errorScope) : null) ?? (await errorResponse(event, errorScope));
    if (recorded) {
      const occurrence = { zone, shards, source: "edge", code, cause, request, url, response, answeredBy } as const;
      const seen = progressOf(phases, phaseOutcome, { kind: originTried ? "failed" : "not-reached" }, customRules);
      recordError({ ...occurrence, phases: seen }, env, ctx);
    }
    return trace === null ? response : traceGenerated(trace, { event, response, answeredBy }, ctx);
  };

  // docs/producers.md: an IP literal is never a zone (API hosts never reach this function).
  if (isIpLiteral(zone)) return fail(1003, `direct IP access to ${zone}`);
  // RFC 8586: our own mark means this request already went through this service once.
  const headers = scanRequestHeaders(request.headers); // one pass: loop mark, size, fields to forward
  mcp = mcpExchangeOf(request, headers);
  if (headers.loop) return fail(1000, "CDN-Loop already carries this service's mark");

  // The one zone lookup: a value on a hit, one KV read on a miss (compiled-zone.ts).
  const lookup = compiledZone(env, zone);
  const found = lookup instanceof Promise ? await lookup : lookup;
  if (!found.ok) return fail(500, found.error.cause);
  const config = found.value;
  if (config === null) {
    // docs/producers.md 1001: a Host that is not a DNS hostname is never a zone, whatever DEFAULT_ORIGIN (docs/producers.md);
    // the lookup never read KV for it.
    const problem = hostnameProblem(zone);
    if (problem !== null) return fail(1001, `host is not a hostname: ${hostnameProblemMessage(problem)}`);
  } else {
    normalization = config.normalization;
    const customization = customizationFor(config.customErrors, env.CONFIG);
    if (customization !== undefined) scope = { ...rc, customization };
    if (config.retryHints !== "published") scope = { ...scope, retryHints: config.retryHints };
    recorded = true;
    customRules = config.customErrors.active && config.customErrors.rules.rules.length > 0;
    shards = config.analyticsShards;
    trace = startTrace(config.telemetry, request, url, rc.started);
    // Every request of a configured zone is counted, errors included: the error rates' denominator
    // (docs/analytics.md "Requests and drops"), batched with the records after the response.
    countRequest({ zone, shards }, env, ctx);
  }
  let route: Route;
  if (config !== null) route = config.route;
  else {
    const fallback = defaultRoute(settings);
    if (fallback === null) return fail(1001, "no zone config and no DEFAULT_ORIGIN");
    if (!fallback.ok) return fail(500, fallback.error);
    route = fallback.value;
  }

  // The limit is in bytes as rules see them (UTF-8), and the scan counts characters: at most 3 bytes each, so the
  // exact count is needed only past a third of the limit (headers.ts `headerSectionBytes`). The request phases'
  // worst case is computed from this limit (docs/rules-language.md "Evaluation budget").
  const limit = route.maxRequestHeaderBytes;
  const headerBytes = headers.bytes * 3 > limit ? headerSectionBytes(request.headers) : headers.bytes;
  if (headerBytes > limit) return fail(1038, `request headers are ${headerBytes} bytes, limit ${limit}`);

  // docs/producers.md: IP access → firewall → rate limiting, each short-circuiting. The clock is `Date.now()` here;
  // `requestPhase` takes it as a value so tests can move it (docs/producers.md). A zone without request-phase rules
  // pays one boolean, no promise (the proxy's own cost).
  if (config !== null) phases = config.phases;
  let limitFields: RateLimitFieldValues | undefined;
  if (config?.hasPhases === true) {
    const now = Date.now();
    const phase = await requestPhase(config.phases, request, { env, zone, now, ruleUrl: ruleUrl() });
    phaseOutcome = phase;
    if (trace !== null) tracePhases(trace, config.phases, phase, now, Date.now());
    if (phase.kind === "error") {
      const answer = await fail(
        phase.code,
        phase.cause,
        phase.retryAfter === undefined ? {} : { retryAfter: phase.retryAfter },
      );
      if (phase.rateLimits === undefined) return answer;
      // The block's t is the answer's own Retry-After, so the two agree whatever set it (docs/producers.md).
      const retryAfter = Number(answer.headers.get("Retry-After") ?? phase.retryAfter);
      const blocked = { ruleId: phase.ruleId, retryAfter: Number.isInteger(retryAfter) ? retryAfter : 1 };
      return withRateLimitFields(answer, rateLimitFields(phase.rateLimits, now, blocked));
    }
    // A request some rate-limiting rule counted: every answer tells the client its quota (docs/producers.md
    // "RateLimit fields"), the origin's own included.
    if (phase.rateLimits !== undefined) limitFields = rateLimitFields(phase.rateLimits, now);
  } else phaseOutcome = PASSED;

  // The origin gets the original path unless the zone's scope is `both` (docs/rules-language.md; docs/origin.md).
  const path = normalization.scope === "both" ? ruleUrl().originPath : url.pathname + url.search;
  originTried = true;
  const connector = connectorFor(env);
  const forwarded = mcp === null ? { connector, path } : { connector, path, body: mcp.forwardBody() };
  const originStart = trace === null ? 0 : Date.now();
  const result = await forwardToOrigin(
    request,
    url,
    headers,
    route.plan,
    trace === null ? forwarded : { ...forwarded, trace: trace.originHeaders() },
  );
  if (trace !== null)
    traceOrigin(trace, { start: originStart, target: route.plan.target.origin, path, request, result });
  if (!result.ok) {
    return withFields(await fail(result.error.code, result.error.cause, { origin: result.error }), limitFields);
  }
  // An event stream or NDJSON that breaks after its headers ends with an error frame (docs/agents.md "Streams").
  if (result.value.status < 400) {
    const watch = { event: { request, url }, scope, idleMs: route.plan.readTimeoutMs, mcp };
    const passed = withFields(watchedResponse(result.value, watch), limitFields);
    return trace === null ? passed : trace.end(passed, ctx);
  }
  // Custom error rules also see the origin's own errors (docs/custom-errors.md); pages and defaults never replace them.
  const custom = config
    ? applyToOriginError(config.customErrors, request, result.value, {
        url,
        ruleUrl: ruleUrl(),
        assets: assetsOf(config.customErrors, env.CONFIG),
      })
    : null;
  // Synchronous unless a rule's asset is read from KV (once per zone version on this isolate).
  const byRule = custom instanceof Promise ? await custom : custom;
  const answered = withFields(byRule?.response ?? result.value, limitFields);
  if (trace !== null) traceOriginError(trace, byRule?.answeredBy ?? null, answered, ctx);
  if (!recorded) return answered;
  // An origin error passed through is recorded too. It passes through unchanged (docs/custom-errors.md), so
  // without a rule it carries no Ray-ID: the record gets one of its own (docs/analytics.md "Records").
  const code = result.value.status;
  const answeredBy = byRule?.answeredBy;
  const format = formatOf(result.value.headers.get("Content-Type"));
  const phasesSeen = progressOf(phases, phaseOutcome, { kind: "responded", format }, customRules);
  recordError(
    { zone, shards, source: "origin", code, request, url, response: answered, answeredBy, phases: phasesSeen },
    env,
    ctx,
  );
  return answered;
}

function progressOf(
  compiled: CompiledRequestPhase | null,
  outcome: RequestPhaseOutcome | null,
  origin: OriginMark,
  customRules: boolean,
): PhaseProgress {
  return { compiled, outcome, origin, customRules };
}

/** `response` with the RateLimit fields of the rules that counted its request, when any did. */
function withFields(response: Response, fields: RateLimitFieldValues | undefined): Response {
  return fields === undefined ? response : withRateLimitFields(response, fields);
}

/** The outcome of request phases that had no rule to run. */
const PASSED: RequestPhaseOutcome = { kind: "pass" };

/** What an error may carry besides its code and cause: a rate limit's Retry-After, the origin attempt that failed. */
interface FailureDetail {
  readonly retryAfter?: number;
  readonly origin?: TimedOriginFailure;
}

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
