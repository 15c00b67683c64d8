/**
 * The request phases of zone traffic (docs/producers.md), in the order, each short-circuiting:
 *   IP access (1006 / 1009) → firewall custom rules (1020) → rate limiting (1015 + Retry-After) → origin.
 * Runs after the loop check and the zone lookup; its `error` outcome goes to `errorResponse` (src/errors/
 * pipeline.ts) with `retryAfter`, so custom error rules and pages apply to these codes like to any other.
 * Returns values, never Responses (AGENTS.md).
 */
import { clientAddress } from "../../shared/client-address";
import { clientCountry } from "../../shared/country";
import { checkRateLimit, type AppliedLimit, type RateLimitEnv } from "./rate-limit/check";
import type { CompiledRequestPhase } from "./compile";
import { allMatches, firstMatch, requestContext, type RuleListTracer } from "../../rules/rule-list";
import type { AccessDecision } from "./ip-access";
import type { RuleUrl } from "../../shared/rule-url";

/**
 * `rateLimits`: the rate-limiting rules that counted the request (none: absent), for the `RateLimit-Policy` and
 * `RateLimit` fields of its answer (rate-limit/fields.ts); on a 1015, `ruleId` is the rule that refused it.
 */
export type RequestPhaseOutcome =
  | { readonly kind: "pass"; readonly rateLimits?: readonly AppliedLimit[] }
  | {
      readonly kind: "error";
      readonly code: 1006 | 1009 | 1015 | 1020;
      readonly retryAfter?: number;
      readonly cause: string;
      /** The rule that blocked (recorded with the error, docs/analytics.md "Request detail"). */
      readonly ruleId: string;
      readonly rateLimits?: readonly AppliedLimit[];
    };

export interface RequestPhaseScope {
  readonly env: RateLimitEnv;
  /** The zone (requested hostname, lower-case, no port). */
  readonly zone: string;
  /** Milliseconds since the epoch (injectable for tests). */
  readonly now: number;
  /** The URL as rules see it: zone host, normalised path (docs/rules-language.md); the defaults when absent. */
  readonly ruleUrl?: RuleUrl;
  /**
   * Set by the draft preview and the request tracer (src/api/preview, docs/custom-errors.md "Draft preview"): the
   * phases run as on traffic, each rule's outcome recorded by tracers in the same loops, and rate-limiting rules are
   * evaluated but never counted (a described request must not spend a real client's allowance).
   */
  readonly trace?: RequestPhaseTrace;
}

/** What a traced run of the request phases saw (filled in by `requestPhase`). */
export interface RequestPhaseTrace {
  /** The IP access decision; unset when the zone has no IP access rule. */
  access?: AccessDecision;
  readonly firewall: RuleListTracer;
  readonly rateLimits: RuleListTracer;
  /** The rate-limiting rules that matched: each would count the request on traffic; none was counted. */
  readonly rateLimitMatches: string[];
}

const PASS: RequestPhaseOutcome = { kind: "pass" };

export async function requestPhase(
  compiled: CompiledRequestPhase,
  request: Request,
  scope: RequestPhaseScope,
): Promise<RequestPhaseOutcome> {
  // 1. IP access rules: the client address only from CF-Connecting-IP, validated; the country from request.cf.
  if (compiled.access !== null) {
    const decision = compiled.access.decide({
      address: clientAddress(request)?.address,
      country: clientCountry(request),
    });
    if (scope.trace) scope.trace.access = decision;
    if (decision.kind === "block_ip")
      return {
        kind: "error",
        code: 1006,
        cause: `IP access rule ${decision.ruleId} blocks the client address`,
        ruleId: decision.ruleId,
      };
    if (decision.kind === "block_country")
      return {
        kind: "error",
        code: 1009,
        cause: `IP access rule ${decision.ruleId} blocks the client country`,
        ruleId: decision.ruleId,
      };
  }
  if (compiled.firewall === null && compiled.rateLimits === null) return PASS;

  // One lazy field context for both expression phases: a field read by both is computed once.
  const ctx = requestContext(request, scope.ruleUrl);
  // 2. Firewall custom rules.
  if (compiled.firewall !== null) {
    // The first enabled `block` rule that matches answers 1020; a rule over the evaluation budget blocks too (it
    // fails closed, logged by the rule list: src/rules/rule-list.ts `failsClosed`), so padding a header cannot turn
    // a rule off. The rules were refused when written unless their worst case fits (docs/rules-language.md).
    const matched = firstMatch(compiled.firewall, ctx, scope.zone, scope.trace?.firewall);
    if (matched !== null)
      return { kind: "error", code: 1020, cause: `firewall rule ${matched.id} blocks the request`, ruleId: matched.id };
  }
  // 3. Rate limiting (fails open, docs/origin.md). Traced: every rule evaluated in the loop traffic runs, none counted.
  if (compiled.rateLimits !== null && scope.trace !== undefined) {
    const { trace } = scope;
    for (const rule of allMatches(compiled.rateLimits, ctx, scope.zone, trace.rateLimits))
      trace.rateLimitMatches.push(rule.id);
  } else if (compiled.rateLimits !== null) {
    const applied: AppliedLimit[] = [];
    const decision = await checkRateLimit(compiled.rateLimits, request, {
      env: scope.env,
      zone: scope.zone,
      now: scope.now,
      ctx,
      applied,
    });
    if (decision.kind === "block") {
      return {
        kind: "error",
        code: 1015,
        retryAfter: decision.retryAfter,
        cause: `rate-limiting rule ${decision.ruleId} exceeded`,
        ruleId: decision.ruleId,
        rateLimits: applied,
      };
    }
    if (applied.length > 0) return { kind: "pass", rateLimits: applied };
  }
  return PASS;
}
