/**
 * The stored `http_ratelimit` ruleset as the request phase reads it (contract §4, §6: the published shape
 * `ratelimit: {characteristics, period, requests_per_period, mitigation_timeout}`). Validation happens when it is
 * written (validate.ts beside this file, through src/api/rulesets/); `parseCharacteristic` (characteristics.ts) and `RATE_LIMIT_BOUNDS` are shared with it.
 */
export interface RateLimitParameters {
  readonly characteristics: readonly string[];
  /** Seconds, 1–3600. */
  readonly period: number;
  readonly requests_per_period: number;
  /** Seconds, 1–3600: how long a client that exceeded stays blocked. */
  readonly mitigation_timeout: number;
}

export interface RateLimitRuleInput {
  readonly id: string;
  readonly expression: string;
  readonly action: string;
  readonly enabled?: boolean;
  readonly ratelimit: RateLimitParameters;
}

export interface RateLimitRulesetInput {
  readonly rules: readonly RateLimitRuleInput[];
}

/** Contract §4: `period` and `mitigation_timeout` 1–3600 s. `requests_per_period` is ours: 1 to 1,000,000. */
export const RATE_LIMIT_BOUNDS = {
  period: { min: 1, max: 3600 },
  mitigationTimeout: { min: 1, max: 3600 },
  requestsPerPeriod: { min: 1, max: 1_000_000 },
  /** Characteristics per rule (the published API's dashboard offers a handful). */
  characteristics: { min: 1, max: 8 },
} as const;
