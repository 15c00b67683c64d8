/**
 * The request phases of a described request (docs/custom-errors.md "Draft preview", docs/custom-errors.md "Request tracer"):
 * IP access → firewall custom rules → rate limiting, run by the edge's own `requestPhase`
 * (src/edge/request-phases/request-phase.ts) on the zone's compiled phases, with tracers in its rule loops. Rate-
 * limiting rules are evaluated and never counted: the trace says which rules would count the request, not whether
 * a real client is over its limit now (that is the counters' state, which a described request must not change), so
 * a traced request is never answered 1015.
 */
import { requestPhase, type RequestPhaseTrace } from "../../edge/request-phases/request-phase";
import type { CompiledRequestPhase } from "../../edge/request-phases/compile";
import type { RuleUrl } from "../../shared/rule-url";
import type { AccessRule } from "../../state/zone/access-rules/types";
import type { StoredRule } from "../../state/zone/rulesets/validate";
import { storedRuleset } from "../../state/zone/rulesets/stored";
import { storedAccessRules } from "../../state/zone/access-rules/stored";
import type { ZoneDocument } from "../../state/zone/schema";
import type { CompiledZone } from "../../edge/compiled-zone";
import { RuleRecorder, ruleTraces, type RuleTrace } from "./trace";

/** The saved request phases of a zone: compiled (the compiled zone's, once per version) and as stored. */
export interface RequestPhasesSetup {
  readonly compiled: CompiledRequestPhase;
  readonly access: readonly AccessRule[];
  readonly firewall: readonly StoredRule[];
  readonly rateLimits: readonly StoredRule[];
}

export type PhaseOutcome = "blocked" | "passed" | "not-run";

export interface AccessRuleTrace {
  readonly id: string;
  readonly target: AccessRule["target"];
  readonly value: string;
  readonly notes: string;
  readonly outcome: "match" | "no-match" | "not-reached";
}

export interface RequestPhasesExplained {
  /** The error a phase answered (1006, 1009, 1020), or null: the request goes on to the origin. */
  readonly blocked: { readonly code: 1006 | 1009 | 1020; readonly cause: string } | null;
  readonly ip_access: { readonly outcome: PhaseOutcome; readonly rules: readonly AccessRuleTrace[] };
  readonly firewall: { readonly outcome: PhaseOutcome; readonly rules: readonly RuleTrace[] };
  readonly rate_limits: {
    readonly outcome: PhaseOutcome;
    /** Always false: a described request is never counted. */
    readonly counted: false;
    /** The rules that would count the request on traffic. */
    readonly matched: readonly string[];
    readonly rules: readonly RuleTrace[];
  };
}

/** The saved request phases of a zone document, with the compiled zone's compiled ones (once per version). */
export function requestPhasesOf(compiled: CompiledZone, document: ZoneDocument): RequestPhasesSetup {
  return {
    compiled: compiled.phases,
    access: storedAccessRules(document)?.rules ?? [],
    firewall: storedRuleset(document, "http_request_firewall_custom")?.rules ?? [],
    rateLimits: storedRuleset(document, "http_ratelimit")?.rules ?? [],
  };
}

/** Runs the request phases on `request` as traffic would (`now` for the phases' clock), traced, counting nothing. */
export async function explainRequestPhases(
  request: Request,
  setup: RequestPhasesSetup,
  scope: { readonly zone: string; readonly ruleUrl: RuleUrl; readonly now: number },
): Promise<RequestPhasesExplained> {
  const firewall = new RuleRecorder();
  const rateLimits = new RuleRecorder();
  const trace: RequestPhaseTrace = { firewall, rateLimits, rateLimitMatches: [] };
  // No RATE_LIMITER binding: a traced run never reaches a counter (request-phase.ts), so none is handed over.
  const outcome = await requestPhase(setup.compiled, request, { env: {}, ...scope, trace });
  const blocked =
    outcome.kind === "error" && outcome.code !== 1015 ? { code: outcome.code, cause: outcome.cause } : null;
  const access = trace.access;
  const accessBlocked = access !== undefined && access.kind !== "allow";
  const accessRules = setup.access.map((rule): AccessRuleTrace => ({
    id: rule.id,
    target: rule.target,
    value: rule.value,
    notes: rule.notes,
    outcome:
      access === undefined
        ? "not-reached"
        : access.kind !== "allow" && access.ruleId === rule.id
          ? "match"
          : accessBlocked
            ? "not-reached"
            : "no-match",
  }));
  const firewallTraces = setup.compiled.firewall
    ? ruleTraces(setup.firewall, { rules: setup.compiled.firewall }, firewall).rules
    : notRun(setup.firewall);
  const rateTraces = setup.compiled.rateLimits
    ? ruleTraces(setup.rateLimits, { rules: setup.compiled.rateLimits }, rateLimits).rules
    : notRun(setup.rateLimits);
  const phaseOutcome = (ran: boolean, blocks: boolean): PhaseOutcome =>
    !ran ? "not-run" : blocks ? "blocked" : "passed";
  return {
    blocked,
    ip_access: { outcome: phaseOutcome(access !== undefined, accessBlocked), rules: accessRules },
    firewall: { outcome: phaseOutcome(firewall.ran, blocked?.code === 1020), rules: firewallTraces },
    rate_limits: {
      outcome: phaseOutcome(rateLimits.ran, false),
      counted: false,
      matched: trace.rateLimitMatches,
      rules: rateTraces,
    },
  };
}

/** Rules of a phase that did not run (no enabled rule, or the plan evaluates none): each one's reason. */
function notRun(rules: readonly StoredRule[]): RuleTrace[] {
  return rules.map((rule, index) => ({
    index,
    id: rule.id,
    description: rule.description,
    expression: rule.expression,
    outcome: rule.enabled ? "not-reached" : "disabled",
    cost: 0,
    reason: rule.enabled ? "the phase did not run (no rule of it can run on this zone)" : "enabled is false",
  }));
}
