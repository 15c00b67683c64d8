/**
 * Compiles a zone's rate-limiting rules once per config version (memoised by the caller, src/edge/request-phases/compile.ts):
 * enabled `block` rules only, at most the plan's limit (contract §2.1: 1 on `free`), expression and
 * characteristics parsed here so a request only evaluates.
 */
import type { Rule } from "../../../rules";
import { compileRequestExpression, type RuleProblem } from "../../../rules/request-expressions";
import { parseCharacteristic, type Characteristic } from "../../../state/zone/rulesets/characteristics";
import type { RateLimitRulesetInput } from "../../../state/zone/rulesets/ratelimit";

export interface CompiledRateLimitRule {
  readonly id: string;
  readonly rule: Rule;
  readonly characteristics: readonly Characteristic[];
  readonly period: number;
  readonly requestsPerPeriod: number;
  readonly mitigationTimeout: number;
}

export interface CompiledRateLimits {
  readonly rules: readonly CompiledRateLimitRule[];
  readonly problems: readonly RuleProblem[];
}

export function compileRateLimits(ruleset: RateLimitRulesetInput, maxRules: number): CompiledRateLimits {
  const rules: CompiledRateLimitRule[] = [];
  const problems: RuleProblem[] = [];
  const problem = (ruleId: string, reason: string) => problems.push({ phase: "http_ratelimit", ruleId, reason });
  for (const stored of ruleset.rules) {
    if (rules.length >= maxRules) break;
    if (stored.enabled === false) continue;
    if (stored.action !== "block") {
      problem(stored.id, `unsupported action ${stored.action}`);
      continue;
    }
    const compiled = compileRequestExpression(stored.expression);
    if (!compiled.ok) {
      problem(stored.id, `expression does not compile: ${compiled.error.message}`);
      continue;
    }
    const characteristics: Characteristic[] = [];
    let bad: string | null = null;
    for (const text of stored.ratelimit.characteristics) {
      const parsed = parseCharacteristic(text);
      if (parsed.ok) characteristics.push(parsed.value);
      else bad = parsed.error;
    }
    if (bad !== null) {
      problem(stored.id, bad);
      continue;
    }
    const r = stored.ratelimit;
    rules.push({
      id: stored.id,
      rule: compiled.value,
      characteristics,
      period: r.period,
      requestsPerPeriod: r.requests_per_period,
      mitigationTimeout: r.mitigation_timeout,
    });
  }
  return { rules, problems };
}
