/**
 * A zone's rate-limiting rules as a rule list (src/rules/rule-list.ts), compiled once per zone version: enabled
 * `block` rules only, at most the plan's limit (docs/custom-errors.md: 1 on `free`), expression and characteristics parsed
 * here so a request only evaluates (`allMatches`, check.ts).
 */
import { admitAction, compileRuleList, type RuleList, type RuleListEntry } from "../../../rules/rule-list";
import { err, ok, type Result } from "../../../shared/result";
import { parseCharacteristic, type Characteristic } from "../../../state/zone/rulesets/characteristics";
import {
  DEFAULT_COUNTING,
  type RateLimitCounting,
  type RateLimitRuleInput,
  type RateLimitRulesetInput,
} from "../../../state/zone/rulesets/ratelimit";

/** What counting needs of a rule besides its expression. */
export interface RateLimitParameters {
  readonly characteristics: readonly Characteristic[];
  readonly period: number;
  readonly requestsPerPeriod: number;
  readonly mitigationTimeout: number;
  /** How the counter is kept (docs/producers.md): absent in a stored rule means `DEFAULT_COUNTING`. */
  readonly counting: RateLimitCounting;
  /**
   * The zone's incarnation (schema.ts `Zone.incarnation`), part of every counter's name (check.ts `counterOf`):
   * counters cannot be listed, so a deleted zone's are never found again by a zone re-created under its name.
   */
  readonly incarnation: number;
  /**
   * The rule's members of the `RateLimit-Policy` and `RateLimit` fields (fields.ts), made here once per zone version:
   * `name` the rule id as an sf-string, `policy` its whole policy member. Every counted request sends them.
   */
  readonly members: { readonly name: string; readonly policy: string };
}

export type CompiledRateLimitRule = RuleListEntry<RateLimitParameters>;
export type CompiledRateLimits = RuleList<RateLimitParameters>;

export function compileRateLimits(
  ruleset: RateLimitRulesetInput,
  maxRules: number,
  /** The zone's incarnation; 0 (a zone created before incarnations) keeps the counters' earlier names. */
  incarnation = 0,
): CompiledRateLimits {
  return compileRuleList("http_ratelimit", ruleset.rules, {
    maxRules,
    admit: admitAction("block"),
    prepare: (stored) => parameters(stored, incarnation),
  });
}

function parameters(stored: RateLimitRuleInput, incarnation: number): Result<RateLimitParameters, string> {
  const characteristics: Characteristic[] = [];
  let bad: string | null = null;
  for (const text of stored.ratelimit.characteristics) {
    const parsed = parseCharacteristic(text);
    if (parsed.ok) characteristics.push(parsed.value);
    else bad = parsed.error;
  }
  if (bad !== null) return err(bad);
  const r = stored.ratelimit;
  const name = sfString(stored.id);
  return ok({
    characteristics,
    period: r.period,
    requestsPerPeriod: r.requests_per_period,
    mitigationTimeout: r.mitigation_timeout,
    counting: r.counting ?? DEFAULT_COUNTING,
    incarnation,
    members: { name, policy: `${name};q=${r.requests_per_period};w=${r.period}` },
  });
}

/** An sf-string (RFC 9651 §3.3.3): printable ASCII, `"` and `\` escaped; anything else replaced by `?`. */
export function sfString(text: string): string {
  return `"${text.replace(/[^\x20-\x7e]/g, "?").replace(/["\\]/g, "\\$&")}"`;
}
