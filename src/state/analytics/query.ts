/**
 * The SQL of analytics queries, built from whitelisted names only (values are always bound parameters). Exported
 * so tests assert with `EXPLAIN QUERY PLAN` that each one is a primary-key range scan (docs/analytics.md).
 */
import { BATCH_SLOTS, type Step } from "./schema";

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

/** Every code's count (the fan-out takes the top codes of the sum over shards, so no shard cuts its list). */
export function codesSql(q: CountQuery): Sql {
  const w = where(q);
  return {
    text: `SELECT code, sum(count) AS n FROM ${table(q)} WHERE ${w.text} GROUP BY code ORDER BY n DESC, code`,
    params: w.params,
  };
}

/** Requests and dropped records per bucket of the step (`traffic_minutes` or `traffic_hours`). */
export function trafficSql(q: Pick<CountQuery, "since" | "until" | "step">): Sql {
  return {
    text: `SELECT bucket, requests, dropped FROM traffic_${q.step === "minute" ? "minutes" : "hours"}
      WHERE bucket >= ? AND bucket < ? ORDER BY bucket`,
    params: [q.since, q.until],
  };
}

/** Adds requests `?2` and dropped records `?3` to one bucket (`?1`) of a traffic table. */
export function addTrafficSql(target: "traffic_minutes" | "traffic_hours"): string {
  return `INSERT INTO ${target} (bucket, requests, dropped) VALUES (?1, ?2, ?3)
    ON CONFLICT (bucket) DO UPDATE SET requests = requests + excluded.requests, dropped = dropped + excluded.dropped`;
}

/** Top paths over whole hours covering the range (paths are counted per hour only). */
export function topPathsSql(sinceHour: number, untilHour: number, limit: number): Sql {
  return {
    text: `SELECT path, sum(count) AS n FROM path_hours WHERE bucket >= ? AND bucket < ? GROUP BY path ORDER BY n DESC, path LIMIT ${limit}`,
    params: [sinceHour, untilHour],
  };
}

/**
 * One occurrence by Ray ID (`?1`), through the Ray index: the record's JSON array (record.ts RECORD_COLUMNS), taken
 * from its batch row by its index (schema.ts BATCH_SLOTS). Retention is checked on the record's own time.
 */
export const LOOKUP_SQL = `SELECT json_extract(b.records, '$[' || (r.id % ${BATCH_SLOTS}) || ']') AS record
  FROM rays r JOIN batches b ON b.id = r.id / ${BATCH_SLOTS} WHERE r.ray = ?1`;

/**
 * One occurrence by id (`?1`, from the object's in-memory index of the recent rays). A JavaScript number is bound as
 * a REAL, so it is made an INTEGER before the arithmetic (`1025.0 % 1024` would make the path `$[1.0]`).
 */
export const EVENT_BY_ID_SQL = `SELECT json_extract(records, '$[' || (CAST(?1 AS INTEGER) % ${BATCH_SLOTS}) || ']')
  AS record FROM batches WHERE id = CAST(?1 AS INTEGER) / ${BATCH_SLOTS}`;

/** The batches whose newest record is in [`?1`, `?2`), newest first (through `batches_by_newest`). */
export const BATCHES_BETWEEN_SQL =
  "SELECT records FROM batches WHERE newest >= ?1 AND newest < ?2 ORDER BY newest DESC";

/** The rays of a JSON array (`?1`) already in `rays`. */
export const INDEXED_RAYS_SQL =
  "SELECT value AS ray FROM json_each(?1) WHERE EXISTS (SELECT 1 FROM rays WHERE ray = value)";

/** The batches above `?1` (the ones whose rays are indexed in the object's memory, not yet in `rays`). */
export const RECENT_BATCHES_SQL = "SELECT id, records FROM batches WHERE id > ?1";

/** The rays of the batches above `?1` into `rays`, in key order (consecutive rays share the pages written). */
export const INDEX_RAYS_SQL = `INSERT OR IGNORE INTO rays (ray, id)
  SELECT j.value ->> 0, b.id * ${BATCH_SLOTS} + j.key FROM batches b, json_each(b.records) j WHERE b.id > ?1
  ORDER BY 1`;

/** One batch: its id, its newest record's time, its records' JSON text. */
export const INSERT_BATCH_SQL = "INSERT INTO batches (id, newest, records) VALUES (?1, ?2, ?3)";

/** Retention: the rays of the batches whose newest record is before `?1`, then the batches. */
export const PRUNE_RAYS_SQL = `DELETE FROM rays WHERE ray IN
  (SELECT j.value ->> 0 FROM batches b, json_each(b.records) j WHERE b.newest < ?1)`;
export const PRUNE_BATCHES_SQL = "DELETE FROM batches WHERE newest < ?1 RETURNING json_array_length(records) AS n";

/** Adds `?6` to one counter row of `minutes` or `hours` (bucket, code, source, answered_by, format). */
export function addCountSql(target: "minutes" | "hours"): string {
  return `INSERT INTO ${target} (bucket, code, source, answered_by, format, count) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
    ON CONFLICT (bucket, code, source, answered_by, format) DO UPDATE SET count = count + excluded.count`;
}
