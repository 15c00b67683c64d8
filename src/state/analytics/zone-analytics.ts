/**
 * One SQLite-backed Durable Object per zone: the zone's recorded errors (issue 24, docs/analytics.md).
 *
 * - `recordEncoded` takes a batch as one string (one RPC per isolate batch, src/edge/analytics/recorder.ts; `record`
 *   takes records, for tests and callers that have them) and, in one synchronous transaction, inserts its new
 *   occurrences and adds them to their minute, hour and path-hour counters. Hours are counted as records arrive, so
 *   pruning minute rows loses nothing: they are already rolled into their hour.
 * - The Ray index is `rays`, written in bulk, plus the recent rays in this object's memory (schema.ts
 *   RAY_INDEX_EVERY, docs/analytics.md "The Ray index").
 * - Retention is enforced by an alarm (every PRUNE_EVERY_MS while the object holds rows) and by the queries, which
 *   never read past it; the clock is a parameter so tests move it.
 * - Every read is a primary-key lookup or range scan (query.ts; asserted with EXPLAIN QUERY PLAN in the tests).
 * - Expected failures are closed `{kind}` values; the API maps them (src/api/analytics/routes.ts).
 */
import { DurableObject } from "cloudflare:workers";
import { err, ok, type Result } from "../../shared/result";
import { migrate } from "../tags/migrations";
import { encodeBatch, RECORD_COLUMNS, type EncodedRecord, type ErrorRecord } from "./record";
import {
  addCountsSql,
  groupCountSql,
  EVENT_BY_ID_SQL,
  INDEXED_RAYS_SQL,
  INSERT_EVENTS_SQL,
  LOOKUP_SQL,
  seriesSql,
  topCodesSql,
  topPathsSql,
  type CountQuery,
  type Dimension,
} from "./query";
import {
  ANALYTICS_MIGRATIONS,
  MAX_PATHS_PER_HOUR,
  MAX_SERIES,
  OTHER_PATH,
  PRUNE_EVERY_MS,
  RAY_INDEX_EVERY,
  RETENTION,
  STEP_MS,
  TOP_N,
} from "./schema";

export interface SeriesRow {
  readonly bucket: number;
  readonly group: Readonly<Partial<Record<Dimension, string | number>>>;
  readonly n: number;
}

export interface CountResult {
  readonly rows: readonly SeriesRow[];
  readonly topCodes: readonly { readonly code: number; readonly count: number }[];
  readonly topPaths: readonly { readonly path: string; readonly count: number }[];
}

export type CountFailure = { readonly kind: "too-many-series"; readonly series: number; readonly limit: number };

export interface Pruned {
  readonly events: number;
  readonly minutes: number;
  readonly hours: number;
  readonly paths: number;
}

/** A row of `events`, as the migration declares it (the values the `record` method wrote). */
type EventRow = {
  [K in keyof ErrorRecord]: ErrorRecord[K];
};

const floorTo = (ms: number, step: number): number => Math.floor(ms / step) * step;

/** Rows per events insert: 7 rows × 13 columns (id and RECORD_COLUMNS) = 91 bound parameters, under the limit of 100. */
const EVENT_ROWS = 7;
const EVENT_TUPLE = `(${Array.from({ length: RECORD_COLUMNS.length + 1 }, () => "?").join(", ")})`;

export class ZoneAnalytics extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  /** Ray → id of the events above `rays_upto` (not yet in `rays`); loaded when first needed. */
  private recent: Map<string, number> | null = null;
  /** `analytics_meta.rays_upto`: every event up to this id is in `rays` (loaded with `recent`). */
  private raysUpto = 0;
  /** Whether this object life has seen its alarm armed (then no write reads it again). */
  private alarmArmed = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    migrate(ctx.storage, ANALYTICS_MIGRATIONS);
  }

  /** Stores a batch; a Ray ID already stored is ignored (a retried batch counts nothing twice). Returns how many. */
  record(batch: readonly ErrorRecord[]): Promise<number> {
    return this.recordEncoded(encodeBatch(batch));
  }

  /**
   * Stores a batch encoded by `encodeBatch` (what the recorder sends: one string crosses the RPC). One synchronous
   * transaction, per batch and not per record wherever SQLite can do it:
   *   - a ray already stored (in the recent rays in memory, or in `rays`), or earlier in the batch, is ignored: a
   *     retried batch counts nothing twice;
   *   - the new events are inserted with ids max + 1, + 2, …, 7 rows a statement (91 bound parameters, under the
   *     storage's limit of 100);
   *   - the counters are summed per key from the rows just stored (one upsert per distinct key), the paths per
   *     distinct (hour, path);
   *   - every RAY_INDEX_EVERY new rays, the recent rays go to `rays` in key order (schema.ts).
   * Returns how many records were new.
   */
  async recordEncoded(rows: string): Promise<number> {
    const batch = JSON.parse(rows) as readonly EncodedRecord[];
    const recent = this.recentRays();
    const stored = this.ctx.storage.transactionSync(() => {
      const seen = new Set<string>();
      const candidates: EncodedRecord[] = [];
      for (const record of batch) {
        const ray = record[0];
        if (recent.has(ray) || seen.has(ray)) continue;
        seen.add(ray);
        candidates.push(record);
      }
      if (candidates.length === 0) return [];
      const indexed = new Set(
        this.sql
          .exec<{ ray: string }>(INDEXED_RAYS_SQL, JSON.stringify(candidates.map((r) => r[0])))
          .toArray()
          .map((r) => r.ray),
      );
      const fresh = indexed.size === 0 ? candidates : candidates.filter((r) => !indexed.has(r[0]));
      if (fresh.length === 0) return [];
      // New ids are above `rays_upto` even when retention emptied the table's end (an idle zone's events all
      // expire), so the events the memory index names are exactly those above it, after a restart too.
      const largest = this.sql.exec<{ id: number | null }>("SELECT max(id) AS id FROM events").one().id ?? 0;
      const before = Math.max(largest, this.raysUpto);
      for (let start = 0; start < fresh.length; start += EVENT_ROWS) {
        const chunk = fresh.slice(start, start + EVENT_ROWS);
        const values: SqlStorageValue[] = [];
        chunk.forEach((record, i) => values.push(before + 1 + start + i, ...record));
        this.sql.exec(`${INSERT_EVENTS_SQL} ${chunk.map(() => EVENT_TUPLE).join(", ")}`, ...values);
      }
      this.sql.exec(addCountsSql("minutes", STEP_MS.minute), before);
      this.sql.exec(addCountsSql("hours", STEP_MS.hour), before);
      const paths = this.sql
        .exec<{ bucket: number; path: string; n: number }>(
          `SELECT at / ${STEP_MS.hour} * ${STEP_MS.hour} AS bucket, path, count(*) AS n FROM events WHERE id > ?
           GROUP BY 1, 2`,
          before,
        )
        .toArray();
      for (const { bucket, path, n } of paths) this.countPath(bucket, path, n);
      return fresh.map((record, i) => [record[0], before + 1 + i] as const);
    });
    // Only once the rows are written: the memory index never names an event the storage does not hold.
    for (const [ray, id] of stored) recent.set(ray, id);
    if (recent.size >= RAY_INDEX_EVERY) this.indexRecentRays();
    // The alarm is armed once per object life (an alarm that fired re-arms itself in `alarm`), not read per batch.
    if (!this.alarmArmed) {
      if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + PRUNE_EVERY_MS);
      this.alarmArmed = true;
    }
    return stored.length;
  }

  /** One occurrence by Ray ID, within the events' retention as of `now`; null when unknown or expired. */
  lookup(ray: string, now: number = Date.now()): ErrorRecord | null {
    const id = this.recentRays().get(ray);
    const since = now - RETENTION.eventsMs;
    const row = (
      id === undefined
        ? this.sql.exec<EventRow>(LOOKUP_SQL, ray, since)
        : this.sql.exec<EventRow>(EVENT_BY_ID_SQL, id, since)
    ).toArray()[0];
    if (!row) return null;
    return {
      ray: row.ray,
      at: row.at,
      code: row.code,
      status: row.status,
      source: row.source,
      answered_by: row.answered_by,
      answer_id: row.answer_id,
      format: row.format,
      method: row.method,
      path: row.path,
      country: row.country,
      cause: row.cause,
    };
  }

  /** Counts over a range already validated by the API (limits in schema.ts). */
  counts(q: CountQuery): Result<CountResult, CountFailure> {
    const groups = groupCountSql(q);
    const series = this.sql.exec<{ n: number }>(groups.text, ...groups.params).one().n;
    if (series > MAX_SERIES) return err({ kind: "too-many-series", series, limit: MAX_SERIES });
    const s = seriesSql(q);
    const rows = this.sql.exec<Record<string, SqlStorageValue>>(s.text, ...s.params).toArray();
    const codes = topCodesSql(q, TOP_N);
    const paths = topPathsSql(floorTo(q.since, STEP_MS.hour), q.until, TOP_N);
    return ok({
      rows: rows.map((row) => ({
        bucket: Number(row.bucket),
        group: Object.fromEntries(q.groupBy.map((d) => [d, row[d] as string | number])),
        n: Number(row.n),
      })),
      topCodes: this.sql
        .exec<{ code: number; n: number }>(codes.text, ...codes.params)
        .toArray()
        .map((r) => ({ code: r.code, count: r.n })),
      topPaths: this.sql
        .exec<{ path: string; n: number }>(paths.text, ...paths.params)
        .toArray()
        .map((r) => ({ path: r.path, count: r.n })),
    });
  }

  /** Deletes what is past retention as of `now`. */
  prune(now: number = Date.now()): Pruned {
    this.recent = null; // reloaded from what is left
    return this.ctx.storage.transactionSync(() => ({
      events: this.pruneEvents(now - RETENTION.eventsMs),
      minutes: this.sql.exec("DELETE FROM minutes WHERE bucket < ?", now - RETENTION.minutesMs).rowsWritten,
      hours: this.sql.exec("DELETE FROM hours WHERE bucket < ?", now - RETENTION.hoursMs).rowsWritten,
      paths: this.sql.exec("DELETE FROM path_hours WHERE bucket < ?", now - RETENTION.hoursMs).rowsWritten,
    }));
  }

  override async alarm(): Promise<void> {
    this.prune(Date.now());
    const left = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM (SELECT 1 FROM hours LIMIT 1)").one().n;
    this.alarmArmed = left > 0;
    if (left > 0) await this.ctx.storage.setAlarm(Date.now() + PRUNE_EVERY_MS);
  }

  /** Deletes the events before `cutoff` and their rays (by the time index, then each ray by its key). */
  private pruneEvents(cutoff: number): number {
    this.sql.exec("DELETE FROM rays WHERE ray IN (SELECT ray FROM events WHERE at < ?)", cutoff);
    return this.sql.exec("DELETE FROM events WHERE at < ?", cutoff).rowsWritten;
  }

  /** The in-memory index of the events above `rays_upto` (at most RAY_INDEX_EVERY + one batch of them). */
  private recentRays(): Map<string, number> {
    if (this.recent !== null) return this.recent;
    this.raysUpto = this.sql
      .exec<{ value: number }>("SELECT value FROM analytics_meta WHERE name = 'rays_upto'")
      .one().value;
    const recent = new Map<string, number>();
    const rows = this.sql.exec<{ ray: string; id: number }>("SELECT ray, id FROM events WHERE id > ?", this.raysUpto);
    for (const row of rows) recent.set(row.ray, row.id);
    this.recent = recent;
    return recent;
  }

  /** The recent rays into `rays`, in key order, so consecutive rays share the pages they are written to. */
  private indexRecentRays(): void {
    const recent = this.recentRays();
    const upto = this.ctx.storage.transactionSync(() => {
      const top = this.sql.exec<{ id: number | null }>("SELECT max(id) AS id FROM events").one().id ?? 0;
      const next = Math.max(top, this.raysUpto);
      this.sql.exec(
        "INSERT OR IGNORE INTO rays (ray, id) SELECT ray, id FROM events WHERE id > ? ORDER BY ray",
        this.raysUpto,
      );
      this.sql.exec("UPDATE analytics_meta SET value = ? WHERE name = 'rays_upto'", next);
      return next;
    });
    this.raysUpto = upto;
    recent.clear();
  }

  /** Adds `n` to the path's hour, or to OTHER_PATH once the hour has MAX_PATHS_PER_HOUR distinct paths. */
  private countPath(bucket: number, path: string, n: number): void {
    const bump = (p: string): number =>
      this.sql.exec("UPDATE path_hours SET count = count + ? WHERE bucket = ? AND path = ?", n, bucket, p).rowsWritten;
    if (bump(path) > 0) return;
    const distinct = this.sql
      .exec<{ n: number }>("SELECT count(*) AS n FROM path_hours WHERE bucket = ?", bucket)
      .one().n;
    const target = distinct >= MAX_PATHS_PER_HOUR ? OTHER_PATH : path;
    if (target === OTHER_PATH && bump(OTHER_PATH) > 0) return;
    this.sql.exec("INSERT INTO path_hours (bucket, path, count) VALUES (?, ?, ?)", bucket, target, n);
  }
}
