/**
 * The ZoneAnalytics SQLite schema (append-only migrations, applied by the runner of src/state/migrations.ts) and the retention and
 * query limits (docs/analytics.md "Retention", "Limits").
 */
import type { Migration } from "../migrations";

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** How long each kind of row is kept (pruned by the object's alarm; queries never read past it). */
export const RETENTION = {
  /** One row per occurrence: the Ray lookup and the top paths' source. */
  eventsMs: 7 * DAY_MS,
  /** Counts per minute. */
  minutesMs: 3 * DAY_MS,
  /** Counts per hour and paths per hour. */
  hoursMs: 35 * DAY_MS,
} as const;

export const STEP_MS = { minute: MINUTE_MS, hour: HOUR_MS } as const;
export type Step = keyof typeof STEP_MS;

/** The longest range one query may ask, per step: at most 1,440 minutes or 840 hours of points. */
export const MAX_RANGE_MS: Readonly<Record<Step, number>> = { minute: DAY_MS, hour: RETENTION.hoursMs };

/** A query grouping into more series than this is refused (400): a chart of 50 stacked series is unreadable. */
export const MAX_SERIES = 50;
/** Distinct paths counted per hour; the others are counted as OTHER_PATH (a path scan cannot grow the table). */
export const MAX_PATHS_PER_HOUR = 1000;
export const OTHER_PATH = "(other paths)";
export const TOP_N = 10;
/**
 * Ray IDs are random (docs/errors.md), so a B-tree keyed by them takes each insert on a different page once it is
 * large: every record of a batch dirtied its own page of `events`, and SQLite writes every dirty page at commit
 * (and again at checkpoint). Since version 2 the Ray index, `rays`, is written RAY_INDEX_EVERY rays at a time in
 * key order, so each page it writes takes many rays. The rays of the batches above `rays_upto` (fewer than
 * RAY_INDEX_EVERY + one batch) are indexed in the object's memory, rebuilt from those batches when the object
 * starts (docs/analytics.md "Cost per error").
 */
export const RAY_INDEX_EVERY = 4096;

/**
 * Since version 3 a batch is one row of `batches` (its records as the JSON text the Worker sent, record.ts
 * `encodeBatch`), and an occurrence's id is `batch id × BATCH_SLOTS + its index in the batch`: a batch is stored
 * with one statement instead of a row, 13 bound values and an index entry per record, which measured ~6.5 of the
 * ~8.5 µs of CPU the object spent per record (docs/analytics.md "Cost per error"). A batch of more records is
 * stored as several rows.
 */
export const BATCH_SLOTS = 1024;

/** The alarm's period: retention is enforced at most this late. */
export const PRUNE_EVERY_MS = HOUR_MS;

export const ANALYTICS_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "events, minutes, hours, path_hours",
    statements: [
      `CREATE TABLE events (
         ray TEXT PRIMARY KEY, at INTEGER NOT NULL, code INTEGER NOT NULL, status INTEGER NOT NULL,
         source TEXT NOT NULL, answered_by TEXT NOT NULL, answer_id TEXT, format TEXT NOT NULL,
         method TEXT NOT NULL, path TEXT NOT NULL, country TEXT, cause TEXT
       ) WITHOUT ROWID`,
      // Retention deletes by time.
      "CREATE INDEX events_by_at ON events (at)",
      // Counts are kept per (bucket, dimensions): a range query is one primary-key range scan.
      `CREATE TABLE minutes (
         bucket INTEGER NOT NULL, code INTEGER NOT NULL, source TEXT NOT NULL, answered_by TEXT NOT NULL,
         format TEXT NOT NULL, count INTEGER NOT NULL,
         PRIMARY KEY (bucket, code, source, answered_by, format)
       ) WITHOUT ROWID`,
      `CREATE TABLE hours (
         bucket INTEGER NOT NULL, code INTEGER NOT NULL, source TEXT NOT NULL, answered_by TEXT NOT NULL,
         format TEXT NOT NULL, count INTEGER NOT NULL,
         PRIMARY KEY (bucket, code, source, answered_by, format)
       ) WITHOUT ROWID`,
      `CREATE TABLE path_hours (
         bucket INTEGER NOT NULL, path TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (bucket, path)
       ) WITHOUT ROWID`,
    ],
  },
  {
    version: 2,
    name: "events keyed by arrival; the Ray index (rays) written in bulk up to rays_upto",
    statements: [
      `CREATE TABLE events_by_arrival (
         id INTEGER PRIMARY KEY, ray TEXT NOT NULL, at INTEGER NOT NULL, code INTEGER NOT NULL,
         status INTEGER NOT NULL, source TEXT NOT NULL, answered_by TEXT NOT NULL, answer_id TEXT,
         format TEXT NOT NULL, method TEXT NOT NULL, path TEXT NOT NULL, country TEXT, cause TEXT
       )`,
      `INSERT INTO events_by_arrival (ray, at, code, status, source, answered_by, answer_id, format, method, path,
         country, cause)
       SELECT ray, at, code, status, source, answered_by, answer_id, format, method, path, country, cause
       FROM events ORDER BY at`,
      "DROP TABLE events",
      "ALTER TABLE events_by_arrival RENAME TO events",
      // Retention deletes by time (appends: the index's writes stay on its last pages).
      "CREATE INDEX events_by_at ON events (at)",
      // Ray → events.id for every event up to rays_upto; the events above it are indexed in memory.
      "CREATE TABLE rays (ray TEXT PRIMARY KEY, id INTEGER NOT NULL) WITHOUT ROWID",
      "INSERT INTO rays (ray, id) SELECT ray, id FROM events",
      "CREATE TABLE analytics_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID",
      "INSERT INTO analytics_meta (name, value) SELECT 'rays_upto', coalesce(max(id), 0) FROM events",
    ],
  },
  {
    version: 3,
    name: "a batch per row (batches); rays name batch id × 1024 + index; rays_upto counts batches",
    statements: [
      // `newest`: the batch's latest record time; retention deletes a batch once it is past (queries check each
      // record's own time, so none is read past retention).
      `CREATE TABLE batches (
         id INTEGER PRIMARY KEY, newest INTEGER NOT NULL, records TEXT NOT NULL
       )`,
      "CREATE INDEX batches_by_newest ON batches (newest)",
      // Each version 2 event becomes a batch of one under its own id, so `rays_upto` (every event up to it is in
      // `rays`) keeps its value as "every batch up to it", and a ray's id becomes id × BATCH_SLOTS + 0.
      `INSERT INTO batches (id, newest, records)
       SELECT id, at, json_array(json_array(ray, at, code, status, source, answered_by, answer_id, format, method,
         path, country, cause))
       FROM events`,
      `UPDATE rays SET id = id * ${BATCH_SLOTS}`,
      "DROP TABLE events",
    ],
  },
  {
    version: 4,
    name: "each record gains its request detail (record.ts `detail`): null for the records stored before",
    statements: [
      // Every stored record gets the thirteenth value, so every reader sees one shape (request-detail.ts: null is
      // "recorded before the detail was kept"). Each batch's array is rebuilt in its own order (`ORDER BY key`).
      `UPDATE batches SET records = (
         SELECT json_group_array(json(CASE WHEN json_array_length(j.value) < 13
           THEN json_insert(j.value, '$[#]', NULL) ELSE j.value END) ORDER BY j.key)
         FROM json_each(batches.records) j)`,
    ],
  },
  {
    version: 5,
    name: "traffic per minute and hour (requests, dropped records); tallies delivered",
    statements: [
      // The denominator and the loss count (docs/analytics.md "Requests and drops"): per bucket, summed over shards.
      `CREATE TABLE traffic_minutes (
         bucket INTEGER PRIMARY KEY, requests INTEGER NOT NULL, dropped INTEGER NOT NULL
       )`,
      `CREATE TABLE traffic_hours (
         bucket INTEGER PRIMARY KEY, requests INTEGER NOT NULL, dropped INTEGER NOT NULL
       )`,
      // A tally carries no Ray ID, so its id is what makes one delivered twice count once.
      "CREATE TABLE tallies (id TEXT PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID",
      "CREATE INDEX tallies_by_at ON tallies (at)",
    ],
  },
  {
    version: 6,
    name: "alert policies, their events and delivery attempts (shard 0 of a zone)",
    statements: [
      // docs/analytics.md "Alerts": a policy's definition (alerts.ts AlertSpec, JSON), its signing secret and state.
      `CREATE TABLE alert_policies (
         id TEXT PRIMARY KEY, spec TEXT NOT NULL, secret TEXT NOT NULL, created_at INTEGER NOT NULL,
         updated_at INTEGER NOT NULL, status TEXT NOT NULL, since INTEGER NOT NULL, clear_streak INTEGER NOT NULL,
         value REAL, evaluated_at INTEGER
       ) WITHOUT ROWID`,
      // One row per event (a firing or a resolution): its id is the webhook-id of every attempt, its body is fixed.
      `CREATE TABLE alert_events (
         seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, policy_id TEXT NOT NULL, type TEXT NOT NULL,
         body TEXT NOT NULL, created_at INTEGER NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL,
         next_at INTEGER
       )`,
      "CREATE INDEX alert_events_by_policy ON alert_events (policy_id, seq)",
      "CREATE INDEX alert_events_pending ON alert_events (status, next_at)",
      `CREATE TABLE alert_attempts (
         event_seq INTEGER NOT NULL, attempt INTEGER NOT NULL, at INTEGER NOT NULL, outcome TEXT NOT NULL,
         http_status INTEGER, error TEXT, PRIMARY KEY (event_seq, attempt)
       ) WITHOUT ROWID`,
    ],
  },
  {
    version: 7,
    name: "avoided errors per minute and hour (kind, code)",
    statements: [
      // docs/analytics.md "Avoided errors": summed over shards like the traffic; a window's read is one
      // primary-key range scan, grouped by (kind, code).
      `CREATE TABLE avoided_minutes (
         bucket INTEGER NOT NULL, kind TEXT NOT NULL, code INTEGER NOT NULL, count INTEGER NOT NULL,
         PRIMARY KEY (bucket, kind, code)
       ) WITHOUT ROWID`,
      `CREATE TABLE avoided_hours (
         bucket INTEGER NOT NULL, kind TEXT NOT NULL, code INTEGER NOT NULL, count INTEGER NOT NULL,
         PRIMARY KEY (bucket, kind, code)
       ) WITHOUT ROWID`,
    ],
  },
];
