/**
 * What a kept copy may be used for, read from the origin's answer (docs/fewer-errors.md "What is kept"): RFC 9111
 * §5.2.2 response directives, RFC 5861 `stale-if-error`, freshness per RFC 9111 §4.2.1 (`max-age`, else
 * `Expires` − `Date`; no heuristic freshness). Pure.
 */

/** Why an answer is never kept (docs/fewer-errors.md), or how long it is fresh and how long it may serve stale. */
export type Keepable =
  | { readonly kind: "never" }
  | {
      readonly kind: "keep";
      /** Seconds the answer is fresh (RFC 9111 §4.2.1), 0 when it says nothing. */
      readonly fresh: number;
      /** Seconds past freshness a copy may answer an origin failure: the origin's `stale-if-error`, or the zone's. */
      readonly window: number;
      /** The `Age` the origin (or a cache before it) gave, seconds. */
      readonly age: number;
    };

const NEVER: Keepable = { kind: "never" };

/** Directives that forbid keeping or serving stale: RFC 9111 §5.2.2.3 (no-store), §5.2.2.7 (private), §4.2.4. */
const FORBIDDING = new Set(["no-store", "private", "no-cache", "must-revalidate", "proxy-revalidate", "s-maxage"]);

/** Directive name (lower case) → its argument (`""` when none), the first occurrence of each (RFC 9111 §4.2.1). */
export function directives(value: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of value.split(",")) {
    const eq = part.indexOf("=");
    const name = (eq === -1 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (name === "" || out.has(name)) continue;
    out.set(name, eq === -1 ? "" : part.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1"));
  }
  return out;
}

function seconds(text: string | undefined): number | null {
  if (text === undefined || !/^\d+$/.test(text)) return null;
  return Math.min(Number(text), 2_147_483_648);
}

/**
 * Whether a `GET` answer may be kept as the last good copy, given the request's `Authorization` and the zone's
 * `stale_if_error` window (seconds, 0: only what the origin allows). `Set-Cookie`, `Vary: *` and the directives of
 * `FORBIDDING` never are; a request with `Authorization` only when the answer is `public` (RFC 9111 §3.5).
 */
export function keepable(headers: Headers, authorized: boolean, zoneWindow: number): Keepable {
  const cc = headers.get("Cache-Control");
  // The common case of a zone without `stale_if_error`: one header read, nothing parsed.
  if (zoneWindow === 0 && (cc === null || !cc.toLowerCase().includes("stale-if-error"))) return NEVER;
  const d = directives(cc ?? "");
  for (const name of FORBIDDING) if (d.has(name)) return NEVER;
  if (authorized && !d.has("public")) return NEVER;
  if (headers.has("Set-Cookie")) return NEVER;
  const vary = headers.get("Vary");
  if (vary !== null && vary.split(",").some((v) => v.trim() === "*")) return NEVER;
  const window = Math.max(seconds(d.get("stale-if-error")) ?? 0, zoneWindow);
  const fresh = freshness(d, headers);
  if (fresh + window <= 0) return NEVER;
  return { kind: "keep", fresh, window, age: seconds(headers.get("Age") ?? undefined) ?? 0 };
}

/** RFC 9111 §4.2.1: `max-age`, else `Expires` − `Date` (an invalid `Expires` is already stale), else 0. */
function freshness(d: ReadonlyMap<string, string>, headers: Headers): number {
  const maxAge = seconds(d.get("max-age"));
  if (maxAge !== null) return maxAge;
  const expires = headers.get("Expires");
  if (expires === null) return 0;
  const at = Date.parse(expires);
  const date = Date.parse(headers.get("Date") ?? "");
  if (Number.isNaN(at)) return 0;
  return Math.max(0, Math.floor((at - (Number.isNaN(date) ? Date.now() : date)) / 1000));
}
