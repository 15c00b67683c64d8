/**
 * A zone's request phases compiled (docs/producers.md): the IP access matcher and the firewall and rate-limiting rule
 * lists (src/rules/rule-list.ts), with the plan's limits of docs/custom-errors.md applied (on `free`, at most 5 firewall
 * rules and 1 rate-limiting rule are evaluated: the first enabled ones, in order; rules stored before a downgrade are
 * kept, not evaluated). Built once per zone version as part of the compiled zone (src/edge/compiled-zone.ts).
 */
import { AccessMatcher } from "./ip-access";
import { storedAccessRules } from "../../state/zone/access-rules/stored";
import type { AccessRules } from "../../state/zone/access-rules/types";
import { compileRateLimits, type CompiledRateLimits } from "./rate-limit/compile";
import type { FirewallRulesetInput } from "../../state/zone/rulesets/firewall";
import type { RateLimitRulesetInput } from "../../state/zone/rulesets/ratelimit";
import { admitAction, compileRuleList, type RuleList, type RuleProblem } from "../../rules/rule-list";
import { ok } from "../../shared/result";
import { storedRuleset } from "../../state/zone/rulesets/stored";
import type { StoredRule } from "../../state/zone/rulesets/validate";
import type { Plan, Zone } from "../../state/zone/schema";

/** Rules evaluated per request phase (docs/custom-errors.md). Paid plans are bounded by the write-time limits instead. */
export const PLAN_REQUEST_LIMITS: Readonly<Record<Plan, { readonly firewall: number; readonly rateLimits: number }>> = {
  free: { firewall: 5, rateLimits: 1 },
  pro: { firewall: Infinity, rateLimits: Infinity },
  business: { firewall: Infinity, rateLimits: Infinity },
  enterprise: { firewall: Infinity, rateLimits: Infinity },
};

/** The sections of the zone document the request phases read (each absent when never written). */
export interface RequestPhaseConfig {
  readonly plan: Plan;
  readonly accessRules?: AccessRules;
  readonly firewall?: FirewallRulesetInput;
  readonly rateLimits?: RateLimitRulesetInput;
  /** The zone's incarnation (schema.ts `Zone.incarnation`): names its rate-limit counters; 0 when absent. */
  readonly incarnation?: number;
}

/** Enabled `block` firewall rules, in order, at most the plan's limit. */
export type CompiledFirewall = RuleList;

export interface CompiledRequestPhase {
  /** null when the zone has no rule of that kind: the phase costs nothing. */
  readonly access: AccessMatcher | null;
  readonly firewall: CompiledFirewall | null;
  readonly rateLimits: CompiledRateLimits | null;
  /** Stored rules that cannot run (logged once, when compiled). */
  readonly problems: readonly RuleProblem[];
}

/** The sections of the zone document the request phases read (written by src/state/zone/rulesets and src/state/zone/access-rules). */
export function requestPhaseConfig(zone: Zone): RequestPhaseConfig {
  const accessRules = storedAccessRules(zone.document);
  const firewall = storedRuleset(zone.document, "http_request_firewall_custom");
  const rateLimits = storedRuleset(zone.document, "http_ratelimit");
  return {
    plan: zone.settings.plan,
    incarnation: zone.incarnation,
    ...(accessRules ? { accessRules } : {}),
    ...(firewall ? { firewall } : {}),
    // Every stored http_ratelimit rule has its `ratelimit` (validated when written); the filter only narrows the type.
    ...(rateLimits ? { rateLimits: { rules: rateLimits.rules.filter(hasRateLimit) } } : {}),
  };
}

function hasRateLimit(
  rule: StoredRule,
): rule is StoredRule & { readonly ratelimit: NonNullable<StoredRule["ratelimit"]> } {
  return rule.ratelimit !== undefined;
}

/** Compiles a zone's request phases (once per version: src/edge/compiled-zone.ts). */
export function compileRequestPhase(config: RequestPhaseConfig): CompiledRequestPhase {
  const limits = PLAN_REQUEST_LIMITS[config.plan];
  const access =
    config.accessRules && config.accessRules.rules.length > 0 ? new AccessMatcher(config.accessRules) : null;
  const firewall = config.firewall ? compileFirewall(config.firewall, limits.firewall) : null;
  const rateLimits = config.rateLimits
    ? compileRateLimits(config.rateLimits, limits.rateLimits, config.incarnation ?? 0)
    : null;
  return {
    access: access && !access.empty ? access : null,
    firewall: firewall && firewall.rules.length > 0 ? firewall : null,
    rateLimits: rateLimits && rateLimits.rules.length > 0 ? rateLimits : null,
    problems: [...(firewall?.problems ?? []), ...(rateLimits?.problems ?? [])],
  };
}

/** Firewall custom rules (docs/producers.md): enabled `block` rules, at most `maxRules`; evaluation is `firstMatch`. */
export function compileFirewall(ruleset: FirewallRulesetInput, maxRules: number): CompiledFirewall {
  return compileRuleList("http_request_firewall_custom", ruleset.rules, {
    maxRules,
    admit: admitAction("block"),
    prepare: () => ok({}),
  });
}
