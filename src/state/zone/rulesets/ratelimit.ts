/**
 * The stored `http_ratelimit` ruleset as the request phase reads it (docs/producers.md, docs/configuration.md: the published shape
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
  /** Our addition (absent: `DEFAULT_COUNTING`); stored only when the operator sent it. */
  readonly counting?: RateLimitCounting;
}

/**
 * `ratelimit.counting`, a deliberate addition to the published shape (docs/producers.md "Exact or approximate
 * counting"): `exact` asks the counter object on every counted request (N allowed, N+1 blocked, at once, on every
 * isolate; one round trip per request); `approximate` counts on leases the object grants each isolate (never more
 * than N pass per window either, but a block reaches other isolates up to `LEASE_MS` late and may start early by
 * what other isolates hold unspent; one round trip per lease).
 */
export const RATE_LIMIT_COUNTINGS = ["approximate", "exact"] as const;
export type RateLimitCounting = (typeof RATE_LIMIT_COUNTINGS)[number];
/** Approximate, as the published platform counts (per location, eventually consistent). */
export const DEFAULT_COUNTING: RateLimitCounting = "approximate";

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

/** docs/producers.md: `period` and `mitigation_timeout` 1–3600 s. `requests_per_period` is ours: 1 to 1,000,000. */
export const RATE_LIMIT_BOUNDS = {
  period: { min: 1, max: 3600 },
  mitigationTimeout: { min: 1, max: 3600 },
  requestsPerPeriod: { min: 1, max: 1_000_000 },
  /** Characteristics per rule (the published API's dashboard offers a handful). */
  characteristics: { min: 1, max: 8 },
} as const;
