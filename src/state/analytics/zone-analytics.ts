/**
 * One SQLite-backed Durable Object per zone: the zone's recorded errors (issue 24, docs/analytics.md).
 *
 * - `record` takes a batch (one RPC per isolate batch, src/edge/analytics/recorder.ts) and, in one synchronous
 *   transaction, inserts each occurrence and adds it to its minute, hour and path-hour counters. Hours are counted as
 *   records arrive, so pruning minute rows loses nothing: they are already rolled into their hour.
 * - Retention is enforced by an alarm (every PRUNE_EVERY_MS while the object holds rows) and by the queries, which
 *   never read past it; the clock is a parameter so tests move it.
 * - Every read is a primary-key lookup or range scan (query.ts; asserted with EXPLAIN QUERY PLAN in the tests).
 * - Expected failures are closed `{kind}` values; the API maps them (src/api/analytics/routes.ts).
 */
import { DurableObject } from "cloudflare:workers";
import { err, ok, type Result } from "../../shared/result";
import { migrate } from "../tags/migrations";
import type { ErrorRecord } from "./record";
import {
  groupCountSql,
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

/** Rows per event insert: 8 rows × 12 columns = 96 bound parameters, under the storage's limit of 100 per query. */
const EVENT_ROWS = 8;
const EVENT_TUPLE = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

export class ZoneAnalytics extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    migrate(ctx.storage, ANALYTICS_MIGRATIONS);
  }

  /** Stores a batch; a Ray ID already stored is ignored (a retried batch counts nothing twice). Returns how many. */
  async record(batch: readonly ErrorRecord[]): Promise<number> {
    const stored = this.ctx.storage.transactionSync(() => {
      // Counters are summed over the batch first, so a batch of a burst (mostly the same code and path) costs one
      // upsert per distinct key and table, not three per record.
      const counters = new Map<string, { table: "minutes" | "hours"; key: readonly (string | number)[]; n: number }>();
      const paths = new Map<string, { bucket: number; path: string; n: number }>();
      // Events go in by statements of EVENT_ROWS rows (each statement's bound parameters stay under the storage's
      // limit of 100), `RETURNING ray` naming the rows stored: a Ray ID already stored is not counted again.
      const fresh = new Set<string>();
      for (let start = 0; start < batch.length; start += EVENT_ROWS) {
        const chunk = batch.slice(start, start + EVENT_ROWS);
        const values = chunk.flatMap((r) => [
          r.ray,
          r.at,
          r.code,
          r.status,
          r.source,
          r.answered_by,
          r.answer_id,
          r.format,
          r.method,
          r.path,
          r.country,
          r.cause,
        ]);
        const rows = this.sql.exec<{ ray: string }>(
          `INSERT OR IGNORE INTO events (ray, at, code, status, source, answered_by, answer_id, format, method, path,
             country, cause) VALUES ${chunk.map(() => EVENT_TUPLE).join(", ")} RETURNING ray`,
          ...values,
        );
        for (const row of rows) fresh.add(row.ray);
      }
      let count = 0;
      for (const r of batch) {
        if (!fresh.delete(r.ray)) continue;
        count += 1;
        for (const [table, step] of [
          ["minutes", STEP_MS.minute],
          ["hours", STEP_MS.hour],
        ] as const) {
          const key = [floorTo(r.at, step), r.code, r.source, r.answered_by, r.format] as const;
          const id = JSON.stringify([table, ...key]);
          const counter = counters.get(id);
          if (counter) counter.n += 1;
          else counters.set(id, { table, key, n: 1 });
        }
        const bucket = floorTo(r.at, STEP_MS.hour);
        const pathId = JSON.stringify([bucket, r.path]);
        const path = paths.get(pathId);
        if (path) path.n += 1;
        else paths.set(pathId, { bucket, path: r.path, n: 1 });
      }
      for (const { table, key, n } of counters.values()) {
        this.sql.exec(
          `INSERT INTO ${table} (bucket, code, source, answered_by, format, count) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (bucket, code, source, answered_by, format) DO UPDATE SET count = count + excluded.count`,
          ...key,
          n,
        );
      }
      for (const { bucket, path, n } of paths.values()) this.countPath(bucket, path, n);
      return count;
    });
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + PRUNE_EVERY_MS);
    return stored;
  }

  /** One occurrence by Ray ID, within the events' retention as of `now`; null when unknown or expired. */
  lookup(ray: string, now: number = Date.now()): ErrorRecord | null {
    const row = this.sql.exec<EventRow>(LOOKUP_SQL, ray, now - RETENTION.eventsMs).toArray()[0];
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
    return this.ctx.storage.transactionSync(() => ({
      events: this.sql.exec("DELETE FROM events WHERE at < ?", now - RETENTION.eventsMs).rowsWritten,
      minutes: this.sql.exec("DELETE FROM minutes WHERE bucket < ?", now - RETENTION.minutesMs).rowsWritten,
      hours: this.sql.exec("DELETE FROM hours WHERE bucket < ?", now - RETENTION.hoursMs).rowsWritten,
      paths: this.sql.exec("DELETE FROM path_hours WHERE bucket < ?", now - RETENTION.hoursMs).rowsWritten,
    }));
  }

  override async alarm(): Promise<void> {
    this.prune(Date.now());
    const left = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM (SELECT 1 FROM hours LIMIT 1)").one().n;
    if (left > 0) await this.ctx.storage.setAlarm(Date.now() + PRUNE_EVERY_MS);
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
