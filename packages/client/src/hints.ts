/**
 * Retry hints any HTTP response may carry besides an edge error's body (docs/client.md "Headers read"):
 * - `x-should-retry: true|false`, the explicit verdict the Stainless-generated SDKs obey before anything else;
 * - `retry-after-ms`, the wait in milliseconds those SDKs read before `Retry-After`;
 * - the `RateLimit-Policy` and `RateLimit` fields of draft-ietf-httpapi-ratelimit-headers (structured-field lists:
 *   `RateLimit-Policy: "burst";q=100;w=60` and `RateLimit: "burst";r=0;t=42`). Malformed fields are ignored, as
 *   draft-ietf-httpapi-ratelimit-headers requires (§5 "Client Behavior").
 */
import { parseSfList, type SfBareItem, type SfMember } from "./structured-field.js";
import type { RateLimitInfo, RateLimitPolicy, ServiceLimit } from "./types.js";

/** What the headers of one response say about retrying, whoever answered. */
export interface RetryHints {
  /** `x-should-retry`: true or false when sent exactly so, else null. */
  readonly shouldRetry: boolean | null;
  /** `retry-after-ms` in whole milliseconds (rounded up), else null. */
  readonly retryAfterMs: number | null;
  /** `Retry-After` in whole seconds (RFC 9110 §10.2.3: delay-seconds or an HTTP-date), else null. */
  readonly retryAfter: number | null;
  readonly rateLimit: RateLimitInfo | null;
}

export function readHints(headers: Headers): RetryHints {
  return {
    shouldRetry: shouldRetryHeader(headers.get("x-should-retry")),
    retryAfterMs: retryAfterMsHeader(headers.get("retry-after-ms")),
    retryAfter: retryAfterHeader(headers.get("Retry-After")),
    rateLimit: readRateLimit(headers),
  };
}

/** `x-should-retry`: exactly `true` or `false` (as the Stainless SDKs compare it); anything else is no verdict. */
export function shouldRetryHeader(value: string | null): boolean | null {
  const v = value?.trim();
  return v === "true" ? true : v === "false" ? false : null;
}

/** `retry-after-ms`: a non-negative number of milliseconds (a fraction allowed), rounded up; else null. */
export function retryAfterMsHeader(value: string | null): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (!/^\d+(?:\.\d+)?$/.test(v)) return null;
  return Math.ceil(Number(v));
}

/**
 * `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, in whole seconds from `now` (never negative);
 * null when absent or unreadable.
 */
export function retryAfterHeader(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const date = Date.parse(v);
  if (Number.isNaN(date) || !/[A-Za-z]/.test(v)) return null;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers §3, §4); null when neither is sent or
 * both are malformed. A policy name may be an sf-string or an sf-token (drafts have allowed either); `q`, `r`, `t`
 * must be non-negative integers and `w` a positive one, or the member is dropped.
 */
export function readRateLimit(headers: Headers): RateLimitInfo | null {
  const policyField = headers.get("RateLimit-Policy");
  const limitField = headers.get("RateLimit");
  if (policyField === null && limitField === null) return null;
  const policies: RateLimitPolicy[] = [];
  for (const member of list(policyField)) {
    const name = nameOf(member);
    const quota = count(paramOf(member, "q"));
    if (name === null || quota === null) continue;
    const w = paramOf(member, "w");
    const window = w === undefined ? null : count(w);
    if (window === 0 || (w !== undefined && window === null)) continue;
    const qu = paramOf(member, "qu");
    policies.push({ name, quota, window, unit: typeof qu === "string" ? qu : null });
  }
  const limits: ServiceLimit[] = [];
  for (const member of list(limitField)) {
    const policy = nameOf(member);
    const remaining = count(paramOf(member, "r"));
    if (policy === null || remaining === null) continue;
    const t = paramOf(member, "t");
    const reset = t === undefined ? null : count(t);
    if (t !== undefined && reset === null) continue;
    limits.push({ policy, remaining, reset });
  }
  if (policies.length === 0 && limits.length === 0) return null;
  let remaining: number | null = null;
  for (const l of limits) remaining = remaining === null ? l.remaining : Math.min(remaining, l.remaining);
  let reset: number | null = null;
  for (const l of limits) {
    if (l.remaining !== remaining || l.reset === null) continue;
    reset = reset === null ? l.reset : Math.max(reset, l.reset);
  }
  return { policies, limits, remaining, reset };
}

function list(field: string | null): SfMember[] {
  return field === null ? [] : (parseSfList(field) ?? []);
}

function nameOf(member: SfMember): string | null {
  if (member.kind !== "item") return null;
  const v = member.value;
  if (typeof v === "string") return v;
  return typeof v === "object" && "kind" in v && v.kind === "token" ? v.value : null;
}

function paramOf(member: SfMember, key: string): SfBareItem | undefined {
  return member.params.get(key);
}

function count(value: SfBareItem | undefined): number | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : null;
}
