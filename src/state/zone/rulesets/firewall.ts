/**
 * The stored `http_request_firewall_custom` ruleset as the request phase reads it (docs/producers.md, docs/configuration.md). Validation
 * (actions, expressions, limits) happens when it is written (validate.ts beside this file, through src/api/rulesets/); this is the subset evaluation needs.
 */
export interface FirewallRuleInput {
  readonly id: string;
  readonly expression: string;
  readonly action: string;
  /** Published default: enabled. */
  readonly enabled?: boolean;
}

export interface FirewallRulesetInput {
  readonly rules: readonly FirewallRuleInput[];
}
