/**
 * Whether an origin's answer may be kept as the last good copy, read from its header fields (docs/fewer-errors.md
 * "What is kept"): RFC 9111 §5.2.2 response directives, RFC 5861 `stale-if-error`, freshness per RFC 9111 §4.2.1
 * (`max-age`, else `Expires` − `Date`; no heuristic freshness). Pure.
 */

/** Why an answer is never kept, or how long it is fresh and how long past that the origin allows it to serve. */
export type Keepable =
  | { readonly kind: "never" }
  | {
      readonly kind: "keep";
      /** Seconds the answer is fresh (RFC 9111 §4.2.1), 0 when it says nothing. */
      readonly fresh: number;
      /** The origin's own `stale-if-error` (RFC 5861 §4), seconds; 0 when it sent none. */
      readonly staleIfError: number;
      /** The `Age` the origin (or a cache before it) gave, seconds. */
      readonly age: number;
    };

const NEVER: Keepable = { kind: "never" };

/**
 * Directives that forbid keeping a copy or serving it stale: RFC 9111 §5.2.2.5 (no-store), §5.2.2.7 (private) and
 * §4.2.4 (a cache must not serve stale what no-cache, must-revalidate, proxy-revalidate or s-maxage covers).
 */
const FORBIDDING = ["no-store", "private", "no-cache", "must-revalidate", "proxy-revalidate", "s-maxage"] as const;

/** Statuses kept: the successful ones RFC 9110 §15.1 calls heuristically cacheable (a 206 is a part, never kept). */
const KEPT_STATUSES = new Set([200, 203, 204]);

/** Directive name (lower case) → its argument (`""` when none), the first occurrence of each (RFC 9111 §4.2.1). */
export function directives(value: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of value.split(",")) {
    const eq = part.indexOf("=");
    const name = (eq === -1 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (name === "" || out.has(name)) continue;
    out.set(
      name,
      eq === -1
        ? ""
        : part
            .slice(eq + 1)
            .trim()
            .replace(/^"(.*)"$/, "$1"),
    );
  }
  return out;
}

/** RFC 9111 §1.2.2 delta-seconds, capped at 2^31 as it allows; null when absent or not digits. */
function seconds(text: string | undefined | null): number | null {
  if (text === undefined || text === null || !/^\d+$/.test(text)) return null;
  return Math.min(Number(text), 2_147_483_648);
}

/** Whether the answer's `Cache-Control` mentions `stale-if-error`: the one read a zone that has not opted in pays. */
export function carriesStaleIfError(headers: Headers): boolean {
  const cc = headers.get("Cache-Control");
  return cc !== null && cc.toLowerCase().includes("stale-if-error");
}

/**
 * Whether a `GET` answer may be kept, given whether the request carried `Authorization` and the zone's own window
 * (seconds past freshness, `stale_if_error`). `Set-Cookie`, `Vary: *`, an event stream and the directives of
 * `FORBIDDING` never are; an answer to a request with `Authorization` only when it is `public` (RFC 9111 §3.5); an
 * answer that could never be served (no freshness, no window) is not kept either.
 */
export function keepable(status: number, headers: Headers, authorized: boolean, zoneWindow: number): Keepable {
  if (!KEPT_STATUSES.has(status)) return NEVER;
  const d = directives(headers.get("Cache-Control") ?? "");
  for (const name of FORBIDDING) if (d.has(name)) return NEVER;
  if (authorized && !d.has("public")) return NEVER;
  if (headers.has("Set-Cookie")) return NEVER;
  const vary = headers.get("Vary");
  if (vary !== null && vary.split(",").some((v) => v.trim() === "*")) return NEVER;
  // A stream never ends as a whole answer to keep (docs/agents.md "Streams").
  const type = headers.get("Content-Type")?.toLowerCase() ?? "";
  if (type.startsWith("text/event-stream") || type.startsWith("application/x-ndjson")) return NEVER;
  const staleIfError = seconds(d.get("stale-if-error")) ?? 0;
  const fresh = freshness(d, headers);
  if (fresh + Math.max(staleIfError, zoneWindow) <= 0) return NEVER;
  return { kind: "keep", fresh, staleIfError, age: seconds(headers.get("Age")) ?? 0 };
}

/** RFC 9111 §4.2.1: `max-age`, else `Expires` − `Date` (an invalid `Expires` is already stale), else 0. */
function freshness(d: ReadonlyMap<string, string>, headers: Headers): number {
  const maxAge = seconds(d.get("max-age"));
  if (maxAge !== null) return maxAge;
  const expires = headers.get("Expires");
  if (expires === null) return 0;
  const at = Date.parse(expires);
  if (Number.isNaN(at)) return 0;
  const date = Date.parse(headers.get("Date") ?? "");
  return Math.max(0, Math.floor((at - (Number.isNaN(date) ? Date.now() : date)) / 1000));
}
