/**
 * Expressions of the request phases (contract §2.2, §4): firewall and rate-limiting rules see the request fields
 * only. One bounded compile cache per isolate (keyed by source text, shared by every zone). Evaluation is
 * `Rule.evaluate`, whose outcome (match, no-match, over-budget) the loops consume: over budget is a non-match,
 * logged (over-budget-log.ts), never an error page and never a crash of the request.
 */
import { RuleCache } from "./cache";
import type { EvaluationContext } from "./context";
import type { RuleError } from "./errors";
import { requestFields } from "./fields/request";
import type { RulePhase } from "./over-budget-log";
import type { Rule } from "./rule";
import type { Result } from "../shared/result";
import type { RuleUrl } from "../shared/rule-url";

const cache = new RuleCache(requestFields.scheme);

/** The compiled expression (from the isolate's cache). */
export function compileRequestExpression(source: string): Result<Rule, RuleError> {
  return cache.get(source);
}

/**
 * The lazy field context of one request, shared by every rule of every request phase (fields computed once); its
 * budget is the request's (budget.ts), which custom error rules on the same request's error path draw on too.
 * `ruleUrl` carries the zone host and the zone's URL normalisation (contract §2.2); without it, the host is
 * `zoneOf(request.url)` and the path is normalised with the published defaults.
 */
export function requestContext(request: Request, ruleUrl?: RuleUrl): EvaluationContext {
  return requestFields.context(ruleUrl === undefined ? { request } : { request, ruleUrl });
}

/** A rule that could not be used (failed to compile when read back, or went over budget): logged. */
export interface RuleProblem {
  readonly phase: Exclude<RulePhase, "http_custom_errors">;
  readonly ruleId: string;
  readonly reason: string;
}
