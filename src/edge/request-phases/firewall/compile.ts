/**
 * Compiles a zone's firewall custom rules once per config version (the caller memoises by version,
 * src/edge/request-phases/compile.ts): disabled rules and rules past the plan's limit (contract §2.1: 5 on `free`) are
 * dropped here, so evaluation walks only what can match.
 */
import type { Rule } from "../../../rules";
import { compileRequestExpression, type RuleProblem } from "../../../rules/request-expressions";
import type { FirewallRulesetInput } from "../../../state/zone/rulesets/firewall";

export interface CompiledFirewallRule {
  readonly id: string;
  readonly rule: Rule;
}

export interface CompiledFirewall {
  /** Enabled `block` rules, in order, at most the plan's limit. */
  readonly rules: readonly CompiledFirewallRule[];
  /** Rules that were stored but cannot run (should not happen: they are checked when written); logged. */
  readonly problems: readonly RuleProblem[];
}

export function compileFirewall(ruleset: FirewallRulesetInput, maxRules: number): CompiledFirewall {
  const rules: CompiledFirewallRule[] = [];
  const problems: RuleProblem[] = [];
  for (const stored of ruleset.rules) {
    if (rules.length >= maxRules) break;
    if (stored.enabled === false) continue;
    if (stored.action !== "block") {
      problems.push({
        phase: "http_request_firewall_custom",
        ruleId: stored.id,
        reason: `unsupported action ${stored.action}`,
      });
      continue;
    }
    const compiled = compileRequestExpression(stored.expression);
    if (!compiled.ok) {
      problems.push({
        phase: "http_request_firewall_custom",
        ruleId: stored.id,
        reason: `expression does not compile: ${compiled.error.message}`,
      });
      continue;
    }
    rules.push({ id: stored.id, rule: compiled.value });
  }
  return { rules, problems };
}
