/**
 * Rate limiting on one request (docs/producers.md): each enabled rule whose expression matches counts the request
 * under its counting key in a `RateLimiter` object; the first rule that says "blocked" answers 1015 with
 * `Retry-After` = whole seconds until the client may send again (rounded up, ≥ 1).
 *
 * A rule counts as its `counting` says (docs/producers.md): `exact` asks the object on every request (`hit`);
 * `approximate` (the default) admits from a lease the object granted this isolate and asks only when it is spent or
 * expired (`lease`, isolate-counters.ts).
 *
 * Fail open (docs/origin.md): a missing binding, a counter that throws, or one that does not answer within the
 * deployment's `RATE_LIMIT_TIMEOUT_MS` (default 1 s) never blocks traffic; the request goes on and the failure is
 * logged.
 */
import type { EvaluationContext } from "../../../rules";
import { logEvent } from "../../../shared/log";
import { settingsFor, type SettingsVars } from "../../../shared/settings";
import { sha256Hex } from "../../../shared/crypto";
import { TIMEOUT, within } from "../../../shared/timeout";
import { allMatches, requestContext } from "../../../rules/rule-list";
import { IsolateCounters, type Acquired } from "./isolate-counters";
import { BoundedCache } from "../../../shared/bounded-cache";
import { countingKey } from "../../../state/zone/rulesets/characteristics";
import type { CompiledRateLimitRule, CompiledRateLimits } from "./compile";
import type { CounterDecision, ServiceLimitState } from "../../../state/rate-limiter/counter";
import type { RateLimiter } from "../../../state/rate-limiter/rate-limiter";

/**
 * The bindings this needs; the binding may be absent (a deployment without it fails open). The counter's budget is
 * the deployment's `RATE_LIMIT_TIMEOUT_MS` (docs/configuration.md), read through the one settings parser.
 */
export interface RateLimitEnv extends Pick<SettingsVars, "RATE_LIMIT_TIMEOUT_MS"> {
  readonly RATE_LIMITER?: DurableObjectNamespace<RateLimiter>;
}

/**
 * A rule that counted the request and what its counter said of the quota left (the `RateLimit-Policy` and
 * `RateLimit` fields, fields.ts): `limit` is null when the counter could not be asked (fail open).
 */
export interface AppliedLimit {
  readonly rule: CompiledRateLimitRule;
  readonly limit: ServiceLimitState | null;
}

export type RateLimitDecision =
  { readonly kind: "allow" } | { readonly kind: "block"; readonly retryAfter: number; readonly ruleId: string };

/**
 * This isolate's blocks and leases (isolate-counters.ts): a known block answers 1015 without a round trip until it
 * ends (a flood of blocked requests costs a Map lookup each); a lease admits approximate-counting requests locally.
 */
const ISOLATE = new IsolateCounters();

const ALLOW: RateLimitDecision = { kind: "allow" };

/** Where and when a request is counted. */
export interface RateLimitScope {
  readonly env: RateLimitEnv;
  readonly zone: string;
  readonly now: number;
  /** The request's evaluation context, when the caller has made it (the request phases share one). */
  readonly ctx?: EvaluationContext;
  /** Tests pass their own to play several isolates against one object. */
  readonly isolate?: IsolateCounters;
  /**
   * When given, each rule that counts the request is added here with what its counter said of the quota left (the
   * caller's `RateLimit` fields, fields.ts); the decision stays the same.
   */
  readonly applied?: AppliedLimit[];
}

export async function checkRateLimit(
  limits: CompiledRateLimits,
  request: Request,
  scope: RateLimitScope,
): Promise<RateLimitDecision> {
  const counted: Counted = {
    env: scope.env,
    zone: scope.zone,
    now: scope.now,
    ctx: scope.ctx ?? requestContext(request),
    isolate: scope.isolate ?? ISOLATE,
  };
  // Every matching rule counts the request, in order, until one blocks; a rule over budget counts it too (it fails
  // closed, logged like every phase's: rule-list.ts `failsClosed`; docs/rules-language.md "Evaluation budget").
  for (const rule of allMatches(limits, counted.ctx, scope.zone)) {
    const counter = await countUnder(rule, request, counted);
    scope.applied?.push({ rule, limit: counter.limit });
    if (counter.blockedUntil !== undefined) {
      return { kind: "block", retryAfter: retryAfterSeconds(counter.blockedUntil, scope.now), ruleId: rule.id };
    }
  }
  return ALLOW;
}

/** A `RateLimitScope` with its defaults filled in. */
type Counted = Required<Omit<RateLimitScope, "applied">>;

/**
 * Whole seconds until the block ends, rounded up, at least 1. The block ends when the client may send again (the
 * mitigation, or the window if later: counter.ts), so this is never early and less than a second late: exactly the
 * mitigation on the request that starts a block the window does not outlast (docs/producers.md "Rate limiting").
 */
export function retryAfterSeconds(blockedUntil: number, now: number): number {
  return Math.max(1, Math.ceil((blockedUntil - now) / 1000));
}

/**
 * Counting keys already hashed by this isolate: with leases most requests need no round trip, and the digest (a
 * WebCrypto call and its promise) was then most of what a counted request cost. Bounded (docs/configuration.md): at most
 * `KEY_MEMO_SIZE` keys of at most `KEY_MEMO_TEXT` characters (an address, a host, a short header: what clients
 * are usually counted by); a longer key is hashed every time.
 */
export const KEY_MEMO_SIZE = 10_000;
const KEY_MEMO_TEXT = 256;
const keyMemo = new BoundedCache<string, string>({ capacity: KEY_MEMO_SIZE });

/** The counter a request counts in under `rule`: its key in the object and the object's name. */
export async function counterOf(
  zone: string,
  rule: CompiledRateLimitRule,
  ctx: EvaluationContext,
  request: Request,
): Promise<{ readonly key: string; readonly name: string }> {
  // The counting key as 32 hex characters (128 bits of SHA-256): fixed size whatever the header values.
  const text = countingKey(rule.characteristics, ctx, request);
  let key = text.length <= KEY_MEMO_TEXT ? keyMemo.get(text) : undefined;
  if (key === undefined) {
    key = await sha256Hex(text, 16);
    if (text.length <= KEY_MEMO_TEXT) keyMemo.set(text, key);
  }
  // One object per (zone, rule, counting key): see rate-limiter.ts for why. The zone's incarnation is part of the
  // name (a zone created before incarnations has none, and keeps the names it had): a zone deleted and created
  // again never finds its predecessor's counters, which expire on their own (docs/configuration.md).
  const zoneName = rule.incarnation > 0 ? `${zone}\n${rule.incarnation}` : zone;
  return { key, name: `${zoneName}\n${rule.id}\n${key}` };
}

/**
 * What counting the request under `rule` gave: the end of the client's block (undefined when the request may pass:
 * counted, or failed open), and the counter's service limit (null when it could not be asked).
 */
interface CounterAnswer {
  readonly blockedUntil?: number;
  readonly limit: ServiceLimitState | null;
}

const UNKNOWN: CounterAnswer = { limit: null };

async function countUnder(rule: CompiledRateLimitRule, request: Request, scope: Counted): Promise<CounterAnswer> {
  const { env, zone, ctx, now, isolate } = scope;
  const { key, name } = await counterOf(zone, rule, ctx, request);
  const budgetMs = settingsFor(env).rateLimitTimeoutMs;
  const cached = isolate.knownBlock(name, now);
  if (cached !== undefined) return blocked(cached);
  const namespace = env.RATE_LIMITER;
  if (namespace === undefined) {
    logUnavailable(zone, rule.id, "no RATE_LIMITER binding");
    return UNKNOWN;
  }
  const input = {
    key,
    period: rule.period,
    requestsPerPeriod: rule.requestsPerPeriod,
    mitigationTimeout: rule.mitigationTimeout,
    now,
  };
  const stub = (): DurableObjectStub<RateLimiter> => namespace.get(namespace.idFromName(name));
  if (rule.counting === "approximate") {
    const admission = await isolate.admit(
      name,
      now,
      (want, returned, ahead) =>
        ask({ zone, ruleId: rule.id, budgetMs }, async (): Promise<Acquired> => {
          const { decision: d, limit: l } = await stub().leaseWithLimit({ ...input, want, returned, ahead });
          // Plain values of the union (RPC results are typed per member, not as the union).
          const limit = { remaining: l.remaining, resetAt: l.resetAt };
          if (d.kind === "lease")
            return { kind: "lease", size: d.size, bucket: d.bucket, expiresAt: d.expiresAt, limit };
          return d.kind === "block" ? { kind: "block", blockedUntil: d.blockedUntil } : { kind: "exhausted", limit };
        }),
      budgetMs,
    );
    if (admission.kind === "block") return blocked(admission.blockedUntil);
    return admission.kind === "admit" && admission.limit !== undefined ? { limit: admission.limit } : UNKNOWN;
  }
  type Answer = { readonly kind: "answer"; readonly decision: CounterDecision; readonly limit: ServiceLimitState };
  const answer = await ask({ zone, ruleId: rule.id, budgetMs }, async (): Promise<Answer | Unavailable> => {
    const { decision: d, limit: l } = await stub().hitWithLimit(input);
    const limit = { remaining: l.remaining, resetAt: l.resetAt };
    const decision: CounterDecision =
      d.kind === "block" ? { kind: "block", blockedUntil: d.blockedUntil } : { kind: "allow" };
    return { kind: "answer", decision, limit };
  });
  if (answer.kind === "unavailable") return UNKNOWN;
  if (answer.decision.kind !== "block") return { limit: answer.limit };
  isolate.noteBlock(name, answer.decision.blockedUntil);
  return blocked(answer.decision.blockedUntil);
}

/** A block: no quota left until it ends. */
function blocked(until: number): CounterAnswer {
  return { blockedUntil: until, limit: { remaining: 0, resetAt: until } };
}

type Unavailable = { readonly kind: "unavailable" };
const UNAVAILABLE: Unavailable = { kind: "unavailable" };

/** Whose counter is asked, and how long the request waits for it (`RATE_LIMIT_TIMEOUT_MS`). */
interface Asking {
  readonly zone: string;
  readonly ruleId: string;
  readonly budgetMs: number;
}

/** One call to the counter object within its budget; a failure is logged and answered "unavailable". */
async function ask<T>(asking: Asking, call: () => Promise<T>): Promise<T | Unavailable> {
  const { zone, ruleId, budgetMs } = asking;
  try {
    const answer = await within(call(), budgetMs);
    if (answer !== TIMEOUT) return answer;
    logUnavailable(zone, ruleId, `no answer within ${budgetMs} ms`);
  } catch (error) {
    logUnavailable(zone, ruleId, error instanceof Error ? error.message : String(error));
  }
  return UNAVAILABLE;
}

/** Fail-open: one structured line each (docs/origin.md: the failure is logged). */
function logUnavailable(zone: string, ruleId: string, cause: string): void {
  logEvent("rate_limiter_unavailable", { zone, phase: "http_ratelimit", rule: ruleId, cause });
}
