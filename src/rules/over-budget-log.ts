/**
 * The one log line of an over-budget evaluation (docs/rules-language.md: "logged with zone, phase and rule, in every phase"):
 * `{"event":"rule_over_budget","zone","phase","rule","cause","suppressed"}` at level error (src/shared/log.ts), from the firewall,
 * rate-limiting and custom error loops alike.
 *
 * Bounded volume: 25 over-budget rules on every request of a busy zone must not write 25 lines per request forever.
 * Per isolate, each (zone, phase, rule) writes at most one line per `OVER_BUDGET_LOG_WINDOW_MS`: the first
 * occurrence at once, later ones inside the window are only counted, and the next line written for the same key
 * carries that count as `suppressed`. The keys are bounded (`OVER_BUDGET_LOG_KEYS`, least recently written out
 * first); a key pushed out simply writes its next occurrence at once. What can be lost: the count of a window whose
 * key never occurs again, or leaves the map, or dies with the isolate.
 */
import { BoundedCache } from "../shared/bounded-cache";
import { logEvent } from "../shared/log";

export type RulePhase = "http_custom_errors" | "http_request_firewall_custom" | "http_ratelimit";

export interface OverBudgetEvent {
  readonly zone: string;
  readonly phase: RulePhase;
  readonly rule: string;
  readonly reason: string;
}

export const OVER_BUDGET_LOG_WINDOW_MS = 60_000;
export const OVER_BUDGET_LOG_KEYS = 1024;

interface Window {
  readonly openedAt: number;
  suppressed: number;
}

const windows = new BoundedCache<string, Window>({ capacity: OVER_BUDGET_LOG_KEYS });

/** Writes the event's line, or counts it when its key already wrote one within the window. */
export function logOverBudget(event: OverBudgetEvent, now: number = Date.now()): void {
  const key = `${event.zone}\n${event.phase}\n${event.rule}`;
  const open = windows.peek(key); // counting does not refresh: the least recently *written* key leaves first
  if (open !== undefined && now - open.openedAt < OVER_BUDGET_LOG_WINDOW_MS) {
    open.suppressed++;
    return;
  }
  logEvent("rule_over_budget", {
    zone: event.zone,
    phase: event.phase,
    rule: event.rule,
    cause: event.reason,
    suppressed: open?.suppressed ?? 0,
  });
  windows.set(key, { openedAt: now, suppressed: 0 });
}

/** Forgets every window (tests). */
export function resetOverBudgetLog(): void {
  windows.clear();
}
