/**
 * The three phases a zone's rulesets live in (docs/configuration.md), each with its one action and its field set
 * (docs/rules-language.md: the request phases lack the `http.response.*` / `edge.response.*` fields), and the plan limits of
 * docs/custom-errors.md / docs/producers.md.
 */
import { customErrorFields, requestFields, type FieldSet } from "../../../rules";
import { later, oneOf } from "../../../shared/schema";
import { isOneOf } from "../../../shared/validation";
import type { Plan } from "../schema";

export const PHASES = ["http_custom_errors", "http_request_firewall_custom", "http_ratelimit"] as const;
export type Phase = (typeof PHASES)[number];
/** A phase as a path or a body names it: the document's `Phase`. */
export const PHASE = later(() => oneOf(PHASES), { id: "Phase", example: "http_request_firewall_custom" });

/** The actions of the phases' rules (one per phase, `PhaseSpec.action`). */
export const RULE_ACTIONS = ["serve_error", "block"] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

export interface PhaseSpec {
  /** The only action a rule of the phase may take. */
  readonly action: RuleAction;
  readonly fields: FieldSet;
  /** Most rules per zone in this phase, by plan; 0 = the plan cannot use the phase (403, code 1100). */
  readonly maxRules: Readonly<Record<Plan, number>>;
}

/** Rules per zone on paid plans (docs/custom-errors.md: pro 25, business 50, enterprise 300). */
const PAID = { pro: 25, business: 50, enterprise: 300 } as const;

export const PHASE_SPECS: Readonly<Record<Phase, PhaseSpec>> = {
  // Custom error rules require a paid plan (docs/custom-errors.md).
  http_custom_errors: { action: "serve_error", fields: customErrorFields, maxRules: { free: 0, ...PAID } },
  // Request phases on free: at most 5 firewall rules and 1 rate-limiting rule (docs/custom-errors.md).
  http_request_firewall_custom: { action: "block", fields: requestFields, maxRules: { free: 5, ...PAID } },
  http_ratelimit: { action: "block", fields: requestFields, maxRules: { free: 1, ...PAID } },
};

export function isPhase(value: string): value is Phase {
  return isOneOf(PHASES, value);
}
