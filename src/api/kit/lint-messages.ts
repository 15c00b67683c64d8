/**
 * The rule linter's warnings (docs/lint.md) for a zone document a write, a dry run or a draft leaves: the linter is
 * pure (src/state/zone/lint/lint.ts); what it needs from storage, the zone's recorded error rate, is read here from
 * the zone's analytics object (one count over the last 24 hours). A write never fails for its warnings: if the
 * count cannot be read, the rate-based budget is not judged (the per-error budget still is).
 */
import { lintInputOf, lintZone, type LintWarning } from "../../state/zone/lint/lint";
import type { ZoneDocument } from "../../state/zone/schema";

const HOUR_MS = 3_600_000;
const WINDOW_HOURS = 24;

/** The zone's mean errors per hour over the last 24 whole hours and the current one; null when unreadable. */
export async function recordedErrorsPerHour(env: Env, zone: string, now = Date.now()): Promise<number | null> {
  try {
    const ns = env.ZONE_ANALYTICS;
    const until = Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS;
    const since = until - (WINDOW_HOURS + 1) * HOUR_MS;
    const counted = await ns.get(ns.idFromName(zone)).counts({ since, until, step: "hour", groupBy: [], filters: {} });
    if (!counted.ok) return null;
    let total = 0;
    for (const row of counted.value.rows) total += row.n;
    return total / WINDOW_HOURS;
  } catch {
    return null;
  }
}

/** Runs one synchronous piece of work; a management call that takes turns with traffic passes its own. */
export type PieceRunner = <T>(piece: () => T) => Promise<T>;

const directly: PieceRunner = (piece) => Promise.resolve(piece());

/**
 * The warnings of `document` (the zone as the write, dry run or draft leaves it). Linting is one synchronous piece
 * over every rule of the zone: a draft preview or a replay passes `run` to lint in a turn with traffic
 * (src/api/explain/turns.ts `inTurn`).
 */
export async function lintMessages(
  env: Env,
  zone: string,
  document: ZoneDocument,
  run: PieceRunner = directly,
): Promise<LintWarning[]> {
  const errorsPerHour = await recordedErrorsPerHour(env, zone);
  return run(() => lintZone(lintInputOf(document, errorsPerHour)));
}
