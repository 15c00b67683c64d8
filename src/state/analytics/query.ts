/**
 * The SQL of analytics queries, built from whitelisted names only (values are always bound parameters). Exported
 * so tests assert with `EXPLAIN QUERY PLAN` that each one is a primary-key range scan (docs/analytics.md).
 */
import type { Step } from "./schema";

export const DIMENSIONS = ["code", "source", "answered_by", "format"] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export interface CountQuery {
  /** Inclusive start and exclusive end, ms, aligned to the step. */
  readonly since: number;
  readonly until: number;
  readonly step: Step;
  readonly groupBy: readonly Dimension[];
  readonly filters: Readonly<Partial<Record<Dimension, string | number>>>;
}

interface Sql {
  readonly text: string;
  readonly params: (string | number)[];
}

function where(q: CountQuery): Sql {
  const params: (string | number)[] = [q.since, q.until];
  let text = "bucket >= ? AND bucket < ?";
  for (const d of DIMENSIONS) {
    const value = q.filters[d];
    if (value === undefined) continue;
    text += ` AND ${d} = ?`;
    params.push(value);
  }
  return { text, params };
}

const table = (q: CountQuery): string => (q.step === "minute" ? "minutes" : "hours");

/** The series: one row per (bucket, group). */
export function seriesSql(q: CountQuery): Sql {
  const w = where(q);
  const dims = q.groupBy.map((d) => `, ${d}`).join("");
  return {
    text: `SELECT bucket${dims}, sum(count) AS n FROM ${table(q)} WHERE ${w.text} GROUP BY bucket${dims}`,
    params: w.params,
  };
}

/** How many series the grouping yields (checked before the series are read). */
export function groupCountSql(q: CountQuery): Sql {
  const w = where(q);
  const dims = q.groupBy.length === 0 ? "1" : q.groupBy.join(", ");
  return {
    text: `SELECT count(*) AS n FROM (SELECT 1 FROM ${table(q)} WHERE ${w.text} GROUP BY ${dims})`,
    params: w.params,
  };
}

export function topCodesSql(q: CountQuery, limit: number): Sql {
  const w = where(q);
  return {
    text: `SELECT code, sum(count) AS n FROM ${table(q)} WHERE ${w.text} GROUP BY code ORDER BY n DESC, code LIMIT ${limit}`,
    params: w.params,
  };
}

/** Top paths over whole hours covering the range (paths are counted per hour only). */
export function topPathsSql(sinceHour: number, untilHour: number, limit: number): Sql {
  return {
    text: `SELECT path, sum(count) AS n FROM path_hours WHERE bucket >= ? AND bucket < ? GROUP BY path ORDER BY n DESC, path LIMIT ${limit}`,
    params: [sinceHour, untilHour],
  };
}

export const LOOKUP_SQL = "SELECT * FROM events WHERE ray = ? AND at >= ?";
