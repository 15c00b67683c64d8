/**
 * IP access rules of a zone (docs/producers.md, docs/configuration.md): the stored shape (normalised, what the zone document holds) and
 * the presented shape (what `GET /zones/{zone}/access_rules` answers, the published API's rule object:
 * `{id, mode, configuration: {target, value}, notes}`). Presented rules can be PUT back unchanged.
 */

export const ACCESS_RULE_TARGETS = ["ip", "ip_range", "country"] as const;
export type AccessRuleTarget = (typeof ACCESS_RULE_TARGETS)[number];

/** Only `block` produces an error (1006 / 1009); the published `challenge`, `whitelist`… modes are refused. */
export const ACCESS_RULE_MODES = ["block"] as const;
export type AccessRuleMode = (typeof ACCESS_RULE_MODES)[number];

/** One stored rule; `value` is canonical (RFC 5952 addresses, network address of a range, upper-case country). */
export interface AccessRule {
  /** 32 lower-case hex characters, like the published API's ids. */
  readonly id: string;
  readonly mode: AccessRuleMode;
  readonly target: AccessRuleTarget;
  readonly value: string;
  readonly notes: string;
}

export interface AccessRules {
  readonly rules: readonly AccessRule[];
}

/** The published rule object. */
export interface PresentedAccessRule {
  readonly id: string;
  readonly mode: AccessRuleMode;
  readonly configuration: { readonly target: AccessRuleTarget; readonly value: string };
  readonly notes: string;
}

export function presentAccessRules(stored: AccessRules): { rules: PresentedAccessRule[] } {
  return {
    rules: stored.rules.map((r) => ({
      id: r.id,
      mode: r.mode,
      configuration: { target: r.target, value: r.value },
      notes: r.notes,
    })),
  };
}
