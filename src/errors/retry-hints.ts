/**
 * Retry-hint profiles of a zone (docs/errors.md "Retry-hint profiles"): `published` sends the catalog's hints
 * exactly; `agent` sends every hint under 60 s, the most that agent runtimes honour (Claude Code stops retrying past
 * 60 s, the Vercel AI SDK ignores longer hints; the current Stainless-generated SDKs wait any hint, so the published
 * 120 s cost them four minutes per failure: docs/errors.md "Retry verdicts"), and spreads the catalog's hints by Ray ID so that the clients of one
 * failing origin do not come back in the same second. Pure and deterministic: the value is a function of the hint
 * and the Ray ID, so a client (and a test) can predict it.
 */

import { isAgentClient } from "./client-kind";

/**
 * `auto` chooses per request (docs/errors.md "Retry-hint profiles"): `agent` for a client that retries by itself
 * (a Stainless SDK, an MCP request, the client package: client-kind.ts), `published` for everyone else.
 */
export type RetryHintProfile = "published" | "agent" | "auto";

/** The profile that applies to this request: `auto` resolved from its headers, the others as they are. */
export function profileFor(profile: RetryHintProfile | undefined, request: Request): "published" | "agent" {
  if (profile === undefined || profile === "published") return "published";
  if (profile === "agent") return "agent";
  return isAgentClient(request) ? "agent" : "published";
}

/**
 * The largest hint the `agent` profile sends, in seconds: 59, not 60, because an older generation of the
 * Stainless-generated SDKs (openai-node 4.x) honoured a hint only when it was under 60,000 ms (`timeoutMillis < 60 *
 * 1000` in its `retryRequest`); a 60 s hint would make those retry at once.
 */
export const AGENT_MAX_HINT = 59;

/**
 * The `agent` profile's hint. `dynamic`: the value was set by a rate-limiting rule (the seconds until the client's
 * block ends): never spread below it, only capped at AGENT_MAX_HINT. Otherwise the catalog's hint `h` is capped to
 * `c = min(h, 59)` and spread over the window `[c - floor(c / 2), c]`: the last 8 hex digits of the Ray ID as an
 * integer `n`, the hint is `c - n mod (floor(c / 2) + 1)` (120 or 60 → 30..59 s, 30 → 15..30 s, 5 → 3..5 s, 1 → 1 s).
 * A hint is never raised: a client is never told to wait longer than the published table says.
 */
export function agentHint(hint: number, rayId: string, dynamic: boolean): number {
  const capped = Math.min(hint, AGENT_MAX_HINT);
  if (dynamic) return capped;
  const width = Math.floor(capped / 2) + 1;
  const n = Number.parseInt(rayId.slice(-8), 16);
  return capped - (Number.isFinite(n) ? n % width : 0);
}
