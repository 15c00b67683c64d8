/**
 * Maintenance mode (docs/fewer-errors.md "Maintenance mode"): while a zone's `maintenance.enabled` is true, every
 * request its `allow` expression does not match is answered with the maintenance error at once, and the origin is
 * not contacted. `allow` is compiled once per zone version (with the compiled zone), through the engine's one
 * compile cache.
 */
import { PROXY_NAME } from "../../errors/proxy-status";
import { compileExpression, requestContext } from "../../rules/rule-list";
import type { Rule } from "../../rules/rule";
import type { RuleUrl } from "../../shared/rule-url";
import type { ZoneSettings } from "../../state/zone/schema";

/**
 * The code answered: 1200, the catalog's one 503 that carries a `Retry-After` (docs/fewer-errors.md says why this
 * code: the catalog has no maintenance code, and a non-retryable 503 would contradict the `Retry-After`).
 */
export const MAINTENANCE_CODE = 1200;

/** A zone's maintenance mode, compiled; null when it is off. */
export interface CompiledMaintenance {
  readonly retryAfter: number;
  /** The requests let through; null: none. */
  readonly allow: Rule | null;
}

export function compileMaintenance(settings: ZoneSettings): CompiledMaintenance | null {
  const m = settings.maintenance;
  if (m === undefined || !m.enabled) return null;
  // The writer validated `allow`; one that no longer compiles (an engine change) lets nobody through: maintenance
  // keeps the origin unasked rather than opening it to everyone.
  const compiled = m.allow === undefined ? null : compileExpression("http_request_firewall_custom", m.allow);
  return { retryAfter: m.retry_after, allow: compiled?.ok === true ? compiled.value : null };
}

/**
 * Whether the request is let through to the origin. An `allow` over the evaluation budget does not match (the
 * request gets the maintenance answer: the origin stays unasked, as the operator meant).
 */
export function allowedThrough(m: CompiledMaintenance, request: Request, ruleUrl: RuleUrl): boolean {
  return m.allow !== null && m.allow.evaluate(requestContext(request, ruleUrl)).kind === "match";
}

/**
 * The maintenance error's `Proxy-Status`: this service answered locally without asking the next hop (RFC 9209
 * §2.3.29 `proxy_internal_response`), `details="maintenance"`, whatever the answered code's own type.
 */
export function maintenanceMarked(response: Response): Response {
  const value = `${PROXY_NAME}; error=proxy_internal_response; details="maintenance"`;
  try {
    response.headers.set("Proxy-Status", value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set("Proxy-Status", value);
    return copy;
  }
}
