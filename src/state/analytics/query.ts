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

const EVENT_COLUMNS = "ray, at, code, status, source, answered_by, answer_id, format, method, path, country, cause";

/** One occurrence by Ray ID (`?1`) within retention (`?2`), through the Ray index (`rays`, schema.ts). */
export const LOOKUP_SQL = `SELECT ${EVENT_COLUMNS} FROM events
  WHERE id = (SELECT id FROM rays WHERE ray = ?1) AND at >= ?2`;

/** One occurrence by id (`?1`, from the object's in-memory index of the recent rays) within retention (`?2`). */
export const EVENT_BY_ID_SQL = `SELECT ${EVENT_COLUMNS} FROM events WHERE id = ?1 AND at >= ?2`;

/** The rays of a JSON array (`?1`) already in `rays`. */
export const INDEXED_RAYS_SQL =
  "SELECT value AS ray FROM json_each(?1) WHERE EXISTS (SELECT 1 FROM rays WHERE ray = value)";

/** The head of a multi-row events insert (`id` then the columns of record.ts `RECORD_COLUMNS`); rows follow. */
export const INSERT_EVENTS_SQL = `INSERT INTO events (id, ${EVENT_COLUMNS}) VALUES`;

/** Counts of the rows stored by one batch (`events.id > ?`), summed per key of a counters table and added. */
export function addCountsSql(target: "minutes" | "hours", step: number): string {
  return `INSERT INTO ${target} (bucket, code, source, answered_by, format, count)
    SELECT at / ${step} * ${step}, code, source, answered_by, format, count(*) FROM events WHERE id > ?
    GROUP BY 1, 2, 3, 4, 5
    ON CONFLICT (bucket, code, source, answered_by, format) DO UPDATE SET count = count + excluded.count`;
}
