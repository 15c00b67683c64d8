/**
 * The stored `http_ratelimit` ruleset as the request phase reads it (docs/producers.md, docs/configuration.md: the published shape
 * `ratelimit: {characteristics, period, requests_per_period, mitigation_timeout}`). Validation happens when it is
 * written (validate.ts beside this file, through src/api/rulesets/), with `RATE_LIMIT`, its schema: the request phase's own
 * `parseCharacteristic` (characteristics.ts) and `RATE_LIMIT_BOUNDS`, so what is accepted is exactly what counts.
 */
import * as z from "zod/mini";
import { described, fields, int, later, named, oneOf, type Output } from "../../../shared/schema";
import { parseCharacteristic } from "./characteristics";

/** `ratelimit.counting`, our addition: its description below (docs/producers.md "Exact or approximate counting"). */
const RATE_LIMIT_COUNTINGS = ["approximate", "exact"] as const;
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

const { min: fewest, max: most } = RATE_LIMIT_BOUNDS.characteristics;
const CHARACTERISTICS_MESSAGE = `must be a list of ${fewest} to ${most} characteristics, e.g. ["ip.src"]`;

/** `ratelimit` of a rule of `http_ratelimit`, as written (docs/producers.md). */
export const RATE_LIMIT = later(() =>
  named(
    fields(
      {
        characteristics: described(
          z
            .array(
              z.string({ error: "must be a string" }).check(
                z.superRefine((name, context) => {
                  const parsed = parseCharacteristic(name);
                  if (!parsed.ok) context.issues.push({ code: "custom", message: parsed.error, input: name });
                }),
              ),
              { error: CHARACTERISTICS_MESSAGE },
            )
            .check(
              z.minLength(fewest, { error: CHARACTERISTICS_MESSAGE }),
              z.maxLength(most, { error: CHARACTERISTICS_MESSAGE }),
              // After the items, whatever they are: a repeated name is its own refusal.
              z.refine((names) => new Set(names).size === names.length, {
                error: "must not repeat a characteristic",
                when: (payload) => Array.isArray(payload.value) && payload.value.length >= fewest,
              }),
              // The refinement's bound, as the document states it.
              z.meta({ uniqueItems: true }),
            ),
          "What names one counter: `ip.src` (from CF-Connecting-IP only), `ip.src.country`, `ip.src.asnum`, " +
            '`http.host`, `http.request.uri.path`, `http.request.headers["name"]` (lower-case), ' +
            '`http.request.uri.args["name"]`, `http.request.cookies["name"]`, `cf.colo.id`.',
        ),
        /** Seconds. */
        period: int(RATE_LIMIT_BOUNDS.period.min, RATE_LIMIT_BOUNDS.period.max),
        requests_per_period: int(RATE_LIMIT_BOUNDS.requestsPerPeriod.min, RATE_LIMIT_BOUNDS.requestsPerPeriod.max),
        /** Seconds: how long a client that exceeded stays blocked. */
        mitigation_timeout: int(RATE_LIMIT_BOUNDS.mitigationTimeout.min, RATE_LIMIT_BOUNDS.mitigationTimeout.max),
        /** Our addition (absent: `DEFAULT_COUNTING`); stored only when the operator sent it. */
        counting: z.optional(
          described(oneOf(RATE_LIMIT_COUNTINGS), {
            description:
              "Our addition (not in the published shape; stored and shown only when sent). `approximate`: each " +
              "isolate admits from a lease of the allowance, one counter round trip per lease; never more than " +
              "`requests_per_period` pass per window, but a block reaches other isolates up to 1 s late and may " +
              "start early by what other isolates hold unspent. `exact`: one round trip per counted request; N " +
              "allowed, N+1 blocked at once everywhere. docs/producers.md.",
            default: DEFAULT_COUNTING,
          }),
        ),
      },
      "is not a rate-limiting field",
      "must be an object {characteristics, period, requests_per_period, mitigation_timeout}",
    ),
    { id: "RateLimit" },
  ),
);

export type RateLimitParameters = Output<typeof RATE_LIMIT>;
