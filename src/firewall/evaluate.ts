/**
 * Firewall custom rules on one request (contract §4): the first enabled `block` rule whose expression matches
 * answers 1020. An evaluation that throws or passes the budget is a non-match (contract §2.2), returned in
 * `problems` for the caller to log.
 */
import type { EvaluationContext } from "../rules";
import { guardedMatch, type RuleProblem } from "../rules/request-expressions";
import type { CompiledFirewall } from "./compile";

export type FirewallDecision =
  | { readonly kind: "pass"; readonly problems: readonly RuleProblem[] }
  | { readonly kind: "block"; readonly ruleId: string; readonly problems: readonly RuleProblem[] };

const NO_PROBLEMS: readonly RuleProblem[] = Object.freeze([]);

export function evaluateFirewall(firewall: CompiledFirewall, ctx: EvaluationContext): FirewallDecision {
  let problems: RuleProblem[] | undefined;
  for (const { id, rule } of firewall.rules) {
    const outcome = guardedMatch(rule, ctx);
    if (outcome.kind === "match") return { kind: "block", ruleId: id, problems: problems ?? NO_PROBLEMS };
    if (outcome.kind === "failed")
      (problems ??= []).push({ phase: "http_request_firewall_custom", ruleId: id, reason: outcome.reason });
  }
  return { kind: "pass", problems: problems ?? NO_PROBLEMS };
}
