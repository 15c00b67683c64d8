/**
 * A copy served instead of the origin's answer, labelled for people and agents (docs/fewer-errors.md "How a stale
 * answer is labelled"): the origin's status, fields and body, plus `Age` (RFC 9111 §5.1), `Cache-Status` (RFC 9211:
 * `fwd=stale`, `fwd-status`, a `ttl` that is negative once past freshness, `detail` saying why) and, for a failure,
 * `Proxy-Status` (RFC 9209) as the error itself would have carried it (`details="circuit open"` when the origin was
 * skipped for its open circuit, src/edge/origin/circuit-open.ts).
 */
import { catalogEntry } from "../../errors/catalog";
import { PROXY_NAME, proxyStatus } from "../../errors/proxy-status";
import { circuitOpenProxyStatus } from "../origin/circuit-open";
import type { Copy } from "./copies";

/**
 * Why a copy answered: a failure the edge found (`code`; `circuit`: the origin was not asked, its circuit is open),
 * an error status the origin sent, or a slow origin.
 */
export type StaleBecause =
  | { readonly detail: "stale-if-error"; readonly code: number; readonly circuit: boolean }
  | { readonly detail: "stale-if-error"; readonly status: number }
  | { readonly detail: "stale-if-slow" };

export function labelled(copy: Copy, head: boolean, because: StaleBecause): Response {
  const headers = copy.headers;
  headers.set("Age", String(copy.age));
  let member = `${PROXY_NAME}; fwd=stale`;
  if ("code" in because) {
    // fwd-status is an HTTP status: the one the error would have had (530 for 1016); Proxy-Status names the code.
    member += `; fwd-status=${catalogEntry(because.code)?.status ?? 502}`;
    headers.set("Proxy-Status", because.circuit ? circuitOpenProxyStatus(because.code) : proxyStatus(because.code));
  } else if ("status" in because) {
    member += `; fwd-status=${because.status}`;
    headers.set("Proxy-Status", `${PROXY_NAME}; received-status=${because.status}`);
  }
  member += `; ttl=${copy.fresh - copy.age}; detail=${because.detail}`;
  // RFC 9211 §2: a cache nearer the client appends its member to those the origin side already wrote.
  const before = headers.get("Cache-Status");
  headers.set("Cache-Status", before === null ? member : `${before}, ${member}`);
  if (head) void copy.body?.cancel();
  return new Response(head ? null : copy.body, { status: copy.status, headers });
}
