/**
 * The request phases as spans (docs/telemetry.md "Spans"): IP access, firewall and rate limiting, each that ran,
 * the one that blocked with its rule. They run as one step (src/edge/request-phases/request-phase.ts), so each
 * phase without I/O shows the step's start; rate limiting, the one with I/O (its counters), gets the step's time.
 */
import type { CompiledRequestPhase } from "../request-phases/compile";
import type { RequestPhaseOutcome } from "../request-phases/request-phase";
import type { Attributes, RequestTrace } from "./request-trace";

/** Which phase answers each of the request phases' codes (docs/producers.md). */
const PHASE_OF_CODE = { 1006: "ip_access", 1009: "ip_access", 1020: "firewall", 1015: "rate_limit" } as const;
const ORDER = ["ip_access", "firewall", "rate_limit"] as const;

export function tracePhases(
  trace: RequestTrace,
  phases: CompiledRequestPhase,
  outcome: RequestPhaseOutcome,
  start: number,
  end: number,
): void {
  const configured = {
    ip_access: phases.access !== null,
    firewall: phases.firewall !== null,
    rate_limit: phases.rateLimits !== null,
  };
  const blockedBy = outcome.kind === "error" ? PHASE_OF_CODE[outcome.code] : null;
  for (const phase of ORDER) {
    if (!configured[phase]) continue;
    const blocked = phase === blockedBy && outcome.kind === "error";
    const attributes: Attributes = blocked
      ? {
          "edge_errors.phase.outcome": "block",
          "edge_errors.rule_id": outcome.ruleId,
          "edge_errors.code": outcome.code,
        }
      : { "edge_errors.phase.outcome": "pass" };
    trace.phase(`edge_errors.${phase}`, start, phase === "rate_limit" ? end : start, attributes);
    if (blocked) return;
  }
}
