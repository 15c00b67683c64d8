/**
 * What a zone's stored request-phase rules cost (docs/rules-language.md "Evaluation budget"): the scope a write of
 * one phase is checked against (what the other phase and this one cost as stored), and whether the stored rules still
 * fit when the zone's header limit grows. The budget check itself is worst-case.ts; this half reads the zone document
 * (stored.ts), so it is kept apart from the check the ruleset validator uses. Pure: no bindings.
 */
import { compile } from "../../../rules";
import { phaseWorstCase, type RequestLimits, type RuleInPhase } from "../../../rules/worst-case";
import { IssueList, isObject, type Issues } from "../../../shared/validation";
import { ZONE_LIMITS, type ZoneDocument } from "../schema";
import { PHASE_SPECS } from "./phases";
import { storedRuleset } from "./stored";
import { budgetIssues, REQUEST_PHASES, unitsOf, type BudgetScope, type RequestPhase } from "./worst-case";

/**
 * Each stored rule of `phase` with its worst case in the phase (src/rules/worst-case.ts `phaseWorstCase`: the
 * enabled rules, their one-pass regex sets counted once); a disabled rule, or one that no longer compiles, costs
 * nothing.
 */
function storedCosts(phase: RequestPhase, document: ZoneDocument, limits: RequestLimits) {
  const rules = storedRuleset(document, phase)?.rules ?? [];
  const compiled = rules.map((rule) => {
    if (!rule.enabled) return null;
    const c = compile(rule.expression, PHASE_SPECS[phase].fields.scheme);
    return c.ok ? c.value : null;
  });
  const costs = phaseWorstCase(compiled, limits);
  return rules.map((rule, i) => {
    const cost: RuleInPhase = costs[i] ?? { alone: FREE, share: FREE };
    return { ...rule, cost: cost.alone, share: cost.share };
  });
}

const FREE = { kind: "bounded", units: 0 } as const;

/** The worst case of a stored ruleset's enabled rules together, on the largest request within `limits`. */
export function storedUnits(phase: RequestPhase, document: ZoneDocument, limits: RequestLimits): number {
  return storedCosts(phase, document, limits).reduce((n, r) => n + (r.enabled ? unitsOf(r.share) : 0), 0);
}

/** The zone's header limit as stored in its document (validated when written); the default without one. */
export function headerLimitOf(document: ZoneDocument): number {
  const settings = document.settings;
  const limit = isObject(settings) ? settings.max_request_header_bytes : undefined;
  return typeof limit === "number" ? limit : ZONE_LIMITS.maxRequestHeaderBytes.default;
}

/** The budget scope of a write of `phase` to `document`. */
export function budgetScope(document: ZoneDocument, phase: RequestPhase): BudgetScope {
  const limits = { headerBytes: headerLimitOf(document) };
  const other = REQUEST_PHASES.find((p) => p !== phase) ?? phase;
  return {
    limits,
    otherPhaseUnits: storedUnits(other, document, limits),
    previousUnits: storedUnits(phase, document, limits),
  };
}

/**
 * Whether the zone's stored request-phase rules still fit when its header limit becomes `headerBytes` (a settings
 * write): `null` when they do, or when the limit does not grow (a smaller request never costs more); otherwise the
 * issues, on the field `max_request_header_bytes`, naming each phase's rule that would not fit.
 */
export function headerLimitFits(document: ZoneDocument | null, headerBytes: number): Issues | null {
  if (document === null || headerBytes <= headerLimitOf(document)) return null;
  const limits = { headerBytes };
  const found = new IssueList();
  let total = 0;
  for (const phase of REQUEST_PHASES) {
    const costed = storedCosts(phase, document, limits);
    // One sum issue is enough: once the first phase passes the budget, the second is not blamed again.
    const previousUnits = found.count > 0 ? Infinity : 0;
    const issues = budgetIssues(phase, costed, { limits, otherPhaseUnits: total, previousUnits });
    for (const issue of issues?.listed ?? [])
      found.add(
        "out-of-range",
        "max_request_header_bytes",
        `with ${headerBytes} bytes of headers, ${phase} ${issue.path}: ${issue.message}`,
      );
    total += costed.reduce((n, r) => n + (r.enabled ? unitsOf(r.share) : 0), 0);
  }
  return found.count === 0 ? null : found.issues;
}
