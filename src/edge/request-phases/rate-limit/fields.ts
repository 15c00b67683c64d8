/**
 * The `RateLimit-Policy` and `RateLimit` response fields (docs/producers.md "RateLimit fields";
 * draft-ietf-httpapi-ratelimit-headers-10 §3, §4: structured-field Lists, RFC 9651): one member per
 * rate-limiting rule that counted the request, named by the rule's id.
 *   RateLimit-Policy: "<rule id>";q=<requests_per_period>;w=<period>
 *   RateLimit: "<rule id>";r=<requests left>;t=<seconds until more are allowed>
 * On every answer of a request a rule counted, allowed or blocked, the origin's own included. On a block the
 * blocking rule says r=0 and t = the answer's `Retry-After` (draft-ietf-httpapi-ratelimit-headers §6: `Retry-After` never earlier than `t`).
 * Made only for such requests: a zone without rate-limiting rules, or a request no rule matched, pays nothing.
 * At most RATELIMIT_MAX_MEMBERS members a field (the draft lets a server send the policies it chooses, §3.1): the
 * blocking rule's first, then the rules nearest their limit, so a zone of 150 counted rules does not add 15 KB of
 * fields to every answer.
 */
import type { AppliedLimit } from "./check";

/** The two field values; `limit` is null when no counter could say what is left. */
export interface RateLimitFieldValues {
  readonly policy: string;
  readonly limit: string | null;
}

/** The two field values for the rules that counted a request at `now`; `blocked`: the rule that refused it. */
export function rateLimitFields(
  applied: readonly AppliedLimit[],
  now: number,
  blocked?: { readonly ruleId: string; readonly retryAfter: number },
): RateLimitFieldValues {
  const policies: string[] = [];
  const limits: string[] = [];
  for (const { rule, limit } of sentMembers(applied, blocked?.ruleId)) {
    const { name, policy } = rule.members;
    policies.push(policy);
    if (blocked !== undefined && rule.id === blocked.ruleId) {
      limits.push(`${name};r=0;t=${blocked.retryAfter}`);
      continue;
    }
    if (limit === null) continue; // the counter could not be asked (fail open): nothing true to say
    const t = limit.resetAt === null ? "" : `;t=${Math.max(0, Math.ceil((limit.resetAt - now) / 1000))}`;
    limits.push(`${name};r=${limit.remaining}${t}`);
  }
  return { policy: policies.join(", "), limit: limits.length === 0 ? null : limits.join(", ") };
}

/** The most members either field carries (docs/producers.md "RateLimit fields"). */
export const RATELIMIT_MAX_MEMBERS = 5;

/**
 * The rules whose members are sent, in this order: the blocking rule, then by requests left (fewest first; a rule
 * whose counter could not be asked, with nothing known, last), ties in rule order. All of them, in rule order, when
 * they fit: the common case pays no sort.
 */
function sentMembers(applied: readonly AppliedLimit[], blockedId: string | undefined): readonly AppliedLimit[] {
  if (applied.length <= RATELIMIT_MAX_MEMBERS) return applied;
  const rank = (a: AppliedLimit): number =>
    a.rule.id === blockedId ? -1 : a.limit === null ? Number.POSITIVE_INFINITY : a.limit.remaining;
  return applied
    .map((a, order) => ({ a, order, rank: rank(a) }))
    .sort((x, y) => x.rank - y.rank || x.order - y.order)
    .slice(0, RATELIMIT_MAX_MEMBERS)
    .map((x) => x.a);
}

/**
 * `response` with the fields appended (an origin's own `RateLimit` members stay: a List may be split over field
 * lines, RFC 9651 §3.1). A response whose headers are immutable (an origin's, as fetch returns it) is copied first:
 * at once when the caller says it came from the origin (`fromOrigin`), else when appending throws. Letting an
 * origin's answer throw first cost a runtime exception per counted request (its error object and stack), more than
 * the copy itself (docs/benchmarks.md "Current numbers").
 */
export function withRateLimitFields(response: Response, fields: RateLimitFieldValues, fromOrigin: boolean): Response {
  let out = fromOrigin ? new Response(response.body, response) : response;
  // One read of `out.headers`: each is a call into the runtime.
  let headers = out.headers;
  try {
    headers.append("RateLimit-Policy", fields.policy);
  } catch {
    out = new Response(response.body, response);
    headers = out.headers;
    headers.append("RateLimit-Policy", fields.policy);
  }
  if (fields.limit !== null) headers.append("RateLimit", fields.limit);
  return out;
}
