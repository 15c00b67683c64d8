/**
 * "Where it broke": the path of a request, you → the edge → the website, with each hop marked for the
 * error's category (docs/errors.md: every code has one of the docs/errors.md categories). The mapping is the
 * project's own and documented in docs/errors.md:
 *
 * - the website failed (`origin`, `ssl`, `dns`, `config`, `worker`, `rewrite`, `snippet`): its server, certificate,
 *   DNS or the owner's configuration, rules and code run by the edge. The edge itself works; the owner acts.
 * - the edge failed (`edge`: 500): the website was never asked, so its state is unknown.
 * - your request was refused (`access_denied`, `rate_limit`, `legal`): the edge works and stopped the request on
 *   the owner's or the law's behalf; the website was not reached.
 * - your request could not be served (`tls`, `unsupported`): the client's TLS or protocol; the website was not
 *   reached.
 * Pure.
 */
import type { ErrorCategory } from "./catalog";

export type HopState = "working" | "error" | "blocked" | "not-reached";

export interface Hop {
  readonly kind: "you" | "edge" | "website";
  readonly state: HopState;
}

/** The three hops in order, for a category. Exhaustive: a new category breaks the build until it is mapped. */
export function whereItBroke(category: ErrorCategory): readonly [Hop, Hop, Hop] {
  switch (category) {
    case "origin":
    case "ssl":
    case "dns":
    case "config":
    case "worker":
    case "rewrite":
    case "snippet":
      return path("working", "working", "error");
    case "edge":
      return path("working", "error", "not-reached");
    case "access_denied":
    case "rate_limit":
    case "legal":
      return path("blocked", "working", "not-reached");
    case "tls":
    case "unsupported":
      return path("error", "working", "not-reached");
  }
}

function path(you: HopState, edge: HopState, website: HopState): readonly [Hop, Hop, Hop] {
  return [
    { kind: "you", state: you },
    { kind: "edge", state: edge },
    { kind: "website", state: website },
  ];
}
