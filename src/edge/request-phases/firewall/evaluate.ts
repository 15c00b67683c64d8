/**
 * Firewall custom rules on one request (contract §4): the first enabled `block` rule whose expression matches
 * answers 1020. A rule over the evaluation budget is a non-match (contract §2.2; src/rules/budget.ts), returned in
 * `problems` for the caller to log; later rules still run, on what is left of the request's budget.
 */
import type { EvaluationContext } from "../../../rules";
import type { RuleProblem } from "../../../rules/request-expressions";
import type { CompiledFirewall } from "./compile";

export type FirewallDecision =
  | { readonly kind: "pass"; readonly problems: readonly RuleProblem[] }
  | { readonly kind: "block"; readonly ruleId: string; readonly problems: readonly RuleProblem[] };

const NO_PROBLEMS: readonly RuleProblem[] = Object.freeze([]);

export function evaluateFirewall(firewall: CompiledFirewall, ctx: EvaluationContext): FirewallDecision {
  let problems: RuleProblem[] | undefined;
  for (const { id, rule } of firewall.rules) {
    const outcome = rule.evaluate(ctx);
    switch (outcome.kind) {
      case "match":
        return { kind: "block", ruleId: id, problems: problems ?? NO_PROBLEMS };
      case "over-budget":
        (problems ??= []).push({ phase: "http_request_firewall_custom", ruleId: id, reason: outcome.reason });
        break;
      case "no-match":
        break;
    }
  }
  return { kind: "pass", problems: problems ?? NO_PROBLEMS };
}
