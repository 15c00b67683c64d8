/**
 * `request_reached_origin` (docs/errors.md "Did the request reach the origin?"): whether the origin saw the request.
 * A producer that knows what happened says so (the proxy from its classification, src/edge/origin/classify.ts; the
 * request phases and every refusal before the origin: `false`); otherwise, and on `/cdn-cgi/error/{code}`, the value
 * the code has when this service produces it, from this table. Pure.
 */
import type { CatalogEntry } from "./catalog";

/** `true`: sent, and the answer failed; `false`: never left the edge or no origin accepted it; `null`: unknown. */
export type ReachedOrigin = boolean | null;

/** The origin failures of docs/origin.md "Failure mapping" whose request was sent: a reset, a timeout, a bad answer. */
const SENT = new Set([502, 520, 524]);

/**
 * The code's value when nothing more is known: `true` for 502, 520 and 524 (connected and sent; the answer failed),
 * `null` for 500 and 504 (the service's own failure and the gateway timeout no local failure produces: either could
 * come before or after the origin) and for the Worker and Snippet codes (a Worker may have fetched the origin before it
 * failed), `false` for every other code (refused, connect timeout, unreachable, DNS, TLS, and the edge's own refusals).
 */
export function typicalReach(entry: Pick<CatalogEntry, "code" | "category">): ReachedOrigin {
  if (SENT.has(entry.code)) return true;
  if (entry.code === 500 || entry.code === 504) return null;
  if (entry.category === "worker" || entry.category === "snippet") return null;
  return false;
}
