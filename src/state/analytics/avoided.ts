/**
 * Avoided errors (docs/analytics.md "Avoided errors"): requests whose origin failed, or was skipped because its
 * circuit was open, counted by how the visitor was answered and by the code of the origin's failure. They are
 * counted per minute and hour like the requests (tallies, not records), so "the origin failed N times, the visitors
 * saw M errors" is read from one answer.
 */

/**
 * `stale`: a kept copy answered; `failover`: the fallback origin answered; `circuit_open`: the origin's circuit was
 * open, so the error came at once and the origin was not asked (docs/fewer-errors.md).
 */
export const AVOIDED_KINDS = ["stale", "failover", "circuit_open"] as const;
export type AvoidedKind = (typeof AVOIDED_KINDS)[number];

/** One (kind, code) and how many, over a query's window. */
export interface AvoidedRow {
  readonly kind: AvoidedKind;
  readonly code: number;
  readonly count: number;
}

/** The avoided table of a step: `avoided_minutes` or `avoided_hours` (schema.ts version 7). */
export type AvoidedTable = "avoided_minutes" | "avoided_hours";

/** Adds `?4` to one (bucket `?1`, kind `?2`, code `?3`) row of an avoided table. */
export function addAvoidedSql(target: AvoidedTable): string {
  return `INSERT INTO ${target} (bucket, kind, code, count) VALUES (?1, ?2, ?3, ?4)
    ON CONFLICT (bucket, kind, code) DO UPDATE SET count = count + excluded.count`;
}

/** Every (kind, code) counted in [since, until) of a step's table: one primary-key range scan. */
export function avoidedSql(step: "minute" | "hour", since: number, until: number): { text: string; params: number[] } {
  return {
    text: `SELECT kind, code, sum(count) AS n FROM avoided_${step === "minute" ? "minutes" : "hours"}
      WHERE bucket >= ? AND bucket < ? GROUP BY kind, code`,
    params: [since, until],
  };
}

export function isAvoidedKind(value: unknown): value is AvoidedKind {
  return typeof value === "string" && (AVOIDED_KINDS as readonly string[]).includes(value);
}
