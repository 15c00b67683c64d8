/**
 * The write-time half of failing closed (docs/rules-language.md "Evaluation budget"; docs/rulesets-api.md): the
 * rules of the request phases are refused when written unless, on the largest request the zone accepts, every rule's
 * worst case fits one rule's budget (`MAX_RULE_UNITS`) and all of them together, firewall then rate limiting, fit
 * the request phases' (`MAX_REQUEST_PHASE_UNITS`). At run time an evaluation that cannot finish within the budget
 * counts as a match (src/rules/rule-list.ts `failsClosed`); with this check, no request the zone accepts gets there.
 *
 * The largest request depends on the zone's header limit, so raising `max_request_header_bytes` is checked too
 * (`headerLimitFits`, used by the zone's writer). Custom error rules are not checked: they fail open, and their
 * response fields have no bound the zone sets. Pure: no bindings. What the rules already stored in a zone document
 * cost (the scope of a write, the header limit check) is stored-cost.ts, which reads the document through stored.ts:
 * this module reads no document, so that the ruleset validator can use it.
 */
import { MAX_REQUEST_PHASE_UNITS, MAX_RULE_UNITS } from "../../../rules/budget";
import { URL_BYTES, type RequestLimits, type WorstCase } from "../../../rules/worst-case";
import { IssueList, type Issues } from "../../../shared/validation";
import type { Phase } from "./phases";

/** The phases whose rules fail closed, in the order a request meets them. */
export const REQUEST_PHASES = ["http_request_firewall_custom", "http_ratelimit"] as const;
export type RequestPhase = (typeof REQUEST_PHASES)[number];

export function isRequestPhase(phase: Phase): phase is RequestPhase {
  return phase !== "http_custom_errors";
}

/** What a ruleset of a request phase is checked against (stored-cost.ts `budgetScope` fills it from the document). */
export interface BudgetScope {
  readonly limits: RequestLimits;
  /** The worst case of the zone's other request phase as stored (`Infinity` when one of its rules is unbounded). */
  readonly otherPhaseUnits: number;
  /** The worst case of this phase as stored before the write (a write that adds nothing is never refused for the sum). */
  readonly previousUnits: number;
}

/** The rule fields this check reads. */
export interface CostedRule {
  readonly id: string;
  readonly enabled: boolean;
  readonly description: string;
}

/** The units of a worst case (`Infinity` when unbounded). */
export function unitsOf(cost: WorstCase): number {
  return cost.kind === "bounded" ? cost.units : Infinity;
}

/**
 * The budget issues of a request phase's rules (each with its compiled expression, as written): every enabled rule
 * over one rule's budget, and, when the phase and the other one together pass the request phases' budget and the
 * write adds to it, the first rule with which they do. `null` when it fits.
 */
export function budgetIssues(
  phase: RequestPhase,
  rules: readonly (CostedRule & {
    /** What the rule may spend alone (src/rules/worst-case.ts `RuleInPhase.alone`). */
    readonly cost: WorstCase;
    /** What it adds to its phase (`RuleInPhase.share`: a set's pass counts once); `cost` when absent. */
    readonly share?: WorstCase;
  })[],
  scope: BudgetScope,
): Issues | null {
  const issues = new IssueList();
  const largest = describeLimits(scope.limits);
  let total = 0;
  let first = -1;
  for (const [index, rule] of rules.entries()) {
    if (!rule.enabled) continue;
    const cost = rule.cost;
    if (cost.kind === "unbounded") {
      issues.add(
        "out-of-range",
        `rules[${index}].expression`,
        `${name(rule)} has no worst case the budget can hold: ${cost.reason} (docs/rules-language.md "Evaluation budget")`,
      );
    } else if (cost.units > MAX_RULE_UNITS) {
      issues.add(
        "out-of-range",
        `rules[${index}].expression`,
        `${name(rule)} costs up to ${cost.units} units on ${largest}, over one rule's budget of ${MAX_RULE_UNITS} ` +
          `units; an evaluation that cannot finish counts as a match in ${phase}, so it is refused: make the ` +
          `expression cheaper or lower the zone's max_request_header_bytes (docs/rules-language.md "Evaluation budget")`,
      );
    }
    total += unitsOf(rule.share ?? cost);
    if (first === -1 && total + scope.otherPhaseUnits > MAX_REQUEST_PHASE_UNITS) first = index;
  }
  if (issues.count === 0 && first !== -1 && total > scope.previousUnits) {
    const rule = rules[first] as CostedRule;
    const other = REQUEST_PHASES.find((p) => p !== phase) ?? phase;
    const others = scope.otherPhaseUnits;
    issues.add(
      "out-of-range",
      `rules[${first}].expression`,
      others === Infinity
        ? `${name(rule)} adds to the request phases, whose ${other} rules already have no worst case the budget ` +
            `can hold: change those first (docs/rules-language.md "Evaluation budget")`
        : `with ${name(rule)} the request phases' rules cost up to ${total + others} units on ${largest} ` +
            `(${total} in ${phase}, ${others} in ${other}), over their budget of ${MAX_REQUEST_PHASE_UNITS} ` +
            `units per request (docs/rules-language.md "Evaluation budget")`,
    );
  }
  return issues.count === 0 ? null : issues.issues;
}

/** "the largest request the zone accepts (headers of N bytes, a URL of M bytes)". */
function describeLimits(limits: RequestLimits): string {
  return `the largest request the zone accepts (headers of ${limits.headerBytes} bytes, a URL of ${URL_BYTES} bytes)`;
}

/** `rule 0123… ("scanners")`. */
function name(rule: CostedRule): string {
  return `rule ${rule.id}${rule.description === "" ? "" : ` (${JSON.stringify(rule.description)})`}`;
}
