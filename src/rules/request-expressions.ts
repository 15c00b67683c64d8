/**
 * Expressions of the request phases (contract §2.2, §4): firewall and rate-limiting rules see the request fields
 * only. One bounded compile cache per isolate (keyed by source text, shared by every zone) and one guarded
 * evaluation: an expression that throws or passes the evaluation budget is a non-match (contract §2.2), reported
 * back so the caller logs it, never an error page and never a crash of the request.
 */
import { RuleCache } from "./cache";
import type { EvaluationContext } from "./context";
import type { RuleError } from "./errors";
import { requestFields } from "./fields/request";
import type { Rule } from "./rule";
import type { Result } from "../result";
import type { RuleUrl } from "../http/rule-url";

const cache = new RuleCache(requestFields.scheme);

/** The compiled expression (from the isolate's cache). */
export function compileRequestExpression(source: string): Result<Rule, RuleError> {
  return cache.get(source);
}

/**
 * The lazy field context of one request, shared by every rule of every request phase (fields computed once).
 * `ruleUrl` carries the zone host and the zone's URL normalisation (contract §2.2); without it, the host is
 * `zoneOf(request.url)` and the path is normalised with the published defaults.
 */
export function requestContext(request: Request, ruleUrl?: RuleUrl): EvaluationContext {
  return requestFields.context(ruleUrl === undefined ? { request } : { request, ruleUrl });
}

export type MatchOutcome =
  { readonly kind: "match" } | { readonly kind: "no_match" } | { readonly kind: "failed"; readonly reason: string };

const MATCH: MatchOutcome = { kind: "match" };
const NO_MATCH: MatchOutcome = { kind: "no_match" };

export function guardedMatch(rule: Rule, ctx: EvaluationContext): MatchOutcome {
  try {
    return rule.matches(ctx) ? MATCH : NO_MATCH;
  } catch (error) {
    return { kind: "failed", reason: error instanceof Error ? error.message : String(error) };
  }
}

/** A rule that could not be used (failed to compile when read back, or failed while evaluating): logged. */
export interface RuleProblem {
  readonly phase: "http_request_firewall_custom" | "http_ratelimit";
  readonly ruleId: string;
  readonly reason: string;
}
