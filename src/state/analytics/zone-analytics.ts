/**
 * One SQLite-backed Durable Object per zone: the zone's recorded errors (docs/analytics.md).
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
 * - Shard 0 of a zone (the object named after it) also holds the zone's alerting: its alert policies, evaluated on
 *   this object's alarm over every shard, and their webhook outbox (alerting.ts, its own tables and statements;
 *   docs/analytics.md "Alerts"). This object delegates to it and answers every shard's part of an evaluation
 *   (`alertWindows`, alert-counts.ts).
 */
import { DurableObject } from "cloudflare:workers";
import { err, ok, type Result } from "../../shared/result";
import { migrate } from "../migrations";
import { decodeRecord, encodeBatch, type EncodedRecord, type ErrorRecord } from "./record";
import {
  addCountSql,
  BATCHES_BETWEEN_SQL,
  groupCountSql,
  EVENT_BY_ID_SQL,
  INDEX_RAYS_SQL,
  INDEXED_RAYS_SQL,
  INSERT_BATCH_SQL,
  LOOKUP_SQL,
  PRUNE_BATCHES_SQL,
  PRUNE_RAYS_SQL,
  RECENT_BATCHES_SQL,
  seriesSql,
  codesSql,
  topPathsSql,
  trafficSql,
  addTrafficSql,
  type CountQuery,
  type Dimension,
} from "./query";
import {
  ANALYTICS_MIGRATIONS,
  BATCH_SLOTS,
  MAX_PATHS_PER_HOUR,
  MAX_SERIES,
  OTHER_PATH,
  PRUNE_EVERY_MS,
  RAY_INDEX_EVERY,
  RETENTION,
  STEP_MS,
} from "./schema";
import { failsOnPurpose } from "./faults";
import { addAvoidedSql, avoidedSql, isAvoidedKind, type AvoidedKind, type AvoidedRow } from "./avoided";
import type { AlertSpec, WindowCount, WindowQuery } from "./alerts";
import { WINDOW_REQUESTS_SQL, windowErrorsSql } from "./alert-counts";
import {
  Alerting,
  type AlertChange,
  type AlertDelivery,
  type AlertSeen,
  type AlertsApplied,
  type CreatedAlert,
  type StoredAlert,
} from "./alerting";

export interface SeriesRow {
  readonly bucket: number;
  readonly group: Readonly<Partial<Record<Dimension, string | number>>>;
  readonly n: number;
}

/** Requests served and records dropped in one bucket (docs/analytics.md "Requests and drops"). */
export interface TrafficRow {
  readonly bucket: number;
  readonly requests: number;
  readonly dropped: number;
}

/** One shard's answer: every code and path (the fan-out sums the shards before it takes the top ones). */
export interface CountResult {
  readonly rows: readonly SeriesRow[];
  readonly topCodes: readonly { readonly code: number; readonly count: number }[];
  readonly topPaths: readonly { readonly path: string; readonly count: number }[];
  readonly traffic: readonly TrafficRow[];
  /** Requests over the whole hours the top paths count (their rate's denominator). */
  readonly pathHoursRequests: number;
  /** Errors avoided in the window, per (kind, code) (docs/analytics.md "Avoided errors"). */
  readonly avoided: readonly AvoidedRow[];
}

/**
 * What an isolate counted besides records (docs/analytics.md "Requests and drops"): requests served and records it
 * could not store, per minute bucket (`[bucket, n]`). `id` is random per tally: one delivered twice counts once.
 */
export interface Tally {
  readonly id: string;
  readonly requests: readonly (readonly [number, number])[];
  readonly dropped: readonly (readonly [number, number])[];
  /** Errors avoided (`[bucket, kind, code, n]`, docs/analytics.md "Avoided errors"); absent: none. */
  readonly avoided?: readonly (readonly [number, AvoidedKind, number, number])[];
}

/** Distinct paths one shard returns for a range (the sum over shards is exact while each holds fewer). */
export const MAX_PATHS_PER_ANSWER = 10_000;

export type CountFailure = { readonly kind: "too-many-series"; readonly series: number; readonly limit: number };

export interface Pruned {
  readonly events: number;
  readonly minutes: number;
  readonly hours: number;
  readonly paths: number;
  readonly traffic: number;
  readonly avoided: number;
}

const floorTo = (ms: number, step: number): number => Math.floor(ms / step) * step;

/** What one alarm run did (tests read it). */
export interface TickReport {
  readonly evaluated: number;
  readonly attempts: number;
}

/** Whether the object holds error rows a prune may delete (the alarm keeps running while it does). */
const ROWS_LEFT_SQL =
  "SELECT (SELECT count(*) FROM (SELECT 1 FROM hours LIMIT 1)) + (SELECT count(*) FROM (SELECT 1 FROM traffic_hours LIMIT 1)) + (SELECT count(*) FROM (SELECT 1 FROM avoided_hours LIMIT 1)) AS n";

/** A counters row's key (schema.ts `minutes`, `hours`). */
interface CounterKey {
  readonly bucket: number;
  readonly code: number;
  readonly source: string;
  readonly answered_by: string;
  readonly format: string;
}

export class ZoneAnalytics extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  /** Ray → occurrence id of the batches above `rays_upto` (not yet in `rays`); loaded when first needed. */
  private recent: Map<string, number> | null = null;
  /** `analytics_meta.rays_upto`: the rays of every batch up to this id are in `rays` (loaded with `recent`). */
  private raysUpto = 0;
  /** Whether this object life has seen its alarm armed (then no write reads it again). */
  private alarmArmed = false;
  /** `analytics_meta.wiped_at`: when the zone was last deleted (`wipe`); a record made before it is refused. */
  private wipedAt = 0;
  /** The zone's alert policies and webhook outbox (shard 0's; empty tables in every other shard). */
  private readonly alerting: Alerting;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    migrate(ctx.storage, ANALYTICS_MIGRATIONS);
    this.wipedAt =
      this.sql.exec<{ value: number }>("SELECT value FROM analytics_meta WHERE name = 'wiped_at'").toArray()[0]
        ?.value ?? 0;
    this.alerting = new Alerting({ ctx, env, ownWindows: (windows) => this.alertWindows(windows) });
  }

  /**
   * The zone was deleted (docs/analytics.md "When a zone is deleted"): everything this object holds goes (its
   * SQLite database and its alarm, `deleteAll`), and from now on a record made before `now` is refused, so a batch
   * an isolate still held when the zone was deleted does not land in the empty object a zone created again under
   * the name reads. What stays is one row: the time of the wipe.
   */
  async wipe(now: number = Date.now()): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.recent = null;
    this.raysUpto = 0;
    this.alarmArmed = false;
    migrate(this.ctx.storage, ANALYTICS_MIGRATIONS);
    this.sql.exec("INSERT OR REPLACE INTO analytics_meta (name, value) VALUES ('wiped_at', ?)", now);
    this.wipedAt = now;
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
   *   - the new records are stored as one `batches` row per BATCH_SLOTS of them, as JSON text (the text received
   *     when nothing was dropped), with ids above every batch the memory index may name (schema.ts BATCH_SLOTS);
   *   - the counters are summed per key here and added with one upsert per distinct key, the paths per distinct
   *     (hour, path): a burst of one error is one row each;
   *   - every RAY_INDEX_EVERY new rays, the recent rays go to `rays` in key order (schema.ts).
   * Returns how many records were new.
   */
  async recordEncoded(rows: string, tally?: Tally): Promise<number> {
    // docs/analytics.md "Loss is counted": the one way to make the store refuse a batch, set only by tests.
    if (failsOnPurpose(this.ctx.id.name)) throw new Error("ZoneAnalytics overloaded (made to fail by a test)");
    const batch = JSON.parse(rows) as readonly EncodedRecord[];
    // A tally alone (the once-a-second delivery of request counts, recorder.ts) has no ray to look up: it does not
    // load the memory index of recent rays (two statements on the first call of an object's life).
    if (batch.length === 0) {
      if (tally !== undefined) this.ctx.storage.transactionSync(() => this.addTally(tally));
      await this.armAlarm();
      return 0;
    }
    const recent = this.recentRays();
    // Records made before the zone was deleted are not the zone's that exists now (`wipe`).
    const current = this.wipedAt === 0 ? batch : batch.filter((r) => r[1] >= this.wipedAt);
    const stored = this.ctx.storage.transactionSync(() => {
      if (tally !== undefined) this.addTally(tally);
      const fresh = this.unseen(current, recent);
      if (fresh.length === 0) return [];
      // New batch ids are above `rays_upto` even when retention emptied the table's end (an idle zone's batches
      // all expire), so the batches the memory index names are exactly those above it, after a restart too.
      const largest = this.sql.exec<{ id: number | null }>("SELECT max(id) AS id FROM batches").one().id ?? 0;
      let next = Math.max(largest, this.raysUpto) + 1;
      const ids: (readonly [string, number])[] = [];
      for (let start = 0; start < fresh.length; start += BATCH_SLOTS, next++) {
        const part = fresh.slice(start, start + BATCH_SLOTS);
        // The received text is stored as it is when every record of it is new and fits one row.
        const text = part.length === batch.length ? rows : JSON.stringify(part);
        this.sql.exec(INSERT_BATCH_SQL, next, Math.max(...part.map((r) => r[1])), text);
        part.forEach((record, i) => ids.push([record[0], next * BATCH_SLOTS + i]));
      }
      this.addCounts(fresh);
      return ids;
    });
    // Only once the rows are written: the memory index never names an event the storage does not hold.
    for (const [ray, id] of stored) recent.set(ray, id);
    if (recent.size >= RAY_INDEX_EVERY) this.indexRecentRays();
    await this.armAlarm();
    return stored.length;
  }

  /** The alarm is armed once per object life (an alarm that fired re-arms itself in `alarm`), not read per batch. */
  private async armAlarm(): Promise<void> {
    if (this.alarmArmed) return;
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + PRUNE_EVERY_MS);
    this.alarmArmed = true;
  }

  /** A tally's requests and drops into their minute and hour (once per tally id; none from before the wipe). */
  private addTally(tally: Tally): void {
    const now = Date.now();
    if (this.sql.exec("INSERT OR IGNORE INTO tallies (id, at) VALUES (?, ?)", tally.id, now).rowsWritten === 0) return;
    const sums = new Map<number, { requests: number; dropped: number }>();
    const add = (entries: Tally["requests"], field: "requests" | "dropped"): void => {
      for (const [bucket, n] of entries) {
        if (bucket < floorTo(this.wipedAt, STEP_MS.minute)) continue;
        const row = sums.get(bucket) ?? { requests: 0, dropped: 0 };
        row[field] += n;
        sums.set(bucket, row);
      }
    };
    add(tally.requests, "requests");
    add(tally.dropped, "dropped");
    const minutes = addTrafficSql("traffic_minutes");
    const hours = addTrafficSql("traffic_hours");
    for (const [bucket, row] of sums) {
      this.sql.exec(minutes, bucket, row.requests, row.dropped);
      this.sql.exec(hours, floorTo(bucket, STEP_MS.hour), row.requests, row.dropped);
    }
    this.addAvoided(tally.avoided ?? []);
  }

  /** A tally's avoided errors into their minute and hour: one upsert per distinct key and step. */
  private addAvoided(entries: NonNullable<Tally["avoided"]>): void {
    if (entries.length === 0) return;
    const since = floorTo(this.wipedAt, STEP_MS.minute);
    const minutes = new Map<string, { bucket: number; kind: AvoidedKind; code: number; n: number }>();
    const hours = new Map<string, { bucket: number; kind: AvoidedKind; code: number; n: number }>();
    const add = (into: typeof minutes, bucket: number, kind: AvoidedKind, code: number, n: number): void => {
      const key = `${bucket} ${kind} ${code}`;
      const row = into.get(key);
      if (row !== undefined) row.n += n;
      else into.set(key, { bucket, kind, code, n });
    };
    for (const [bucket, kind, code, n] of entries) {
      // What crossed the RPC is checked: an unknown kind or a bad number is not stored.
      if (bucket < since || !isAvoidedKind(kind) || !Number.isInteger(code) || !Number.isInteger(n) || n <= 0) continue;
      add(minutes, bucket, kind, code, n);
      add(hours, floorTo(bucket, STEP_MS.hour), kind, code, n);
    }
    for (const [table, rows] of [
      ["avoided_minutes", minutes],
      ["avoided_hours", hours],
    ] as const) {
      const sql = addAvoidedSql(table);
      for (const r of rows.values()) this.sql.exec(sql, r.bucket, r.kind, r.code, r.n);
    }
  }

  /** The records of a batch whose ray is neither stored (memory index, then `rays`) nor earlier in the batch. */
  private unseen(batch: readonly EncodedRecord[], recent: ReadonlyMap<string, number>): readonly EncodedRecord[] {
    const seen = new Set<string>();
    const candidates: EncodedRecord[] = [];
    for (const record of batch) {
      const ray = record[0];
      if (recent.has(ray) || seen.has(ray)) continue;
      seen.add(ray);
      candidates.push(record);
    }
    if (candidates.length === 0) return candidates;
    const indexed = new Set(
      this.sql
        .exec<{ ray: string }>(INDEXED_RAYS_SQL, JSON.stringify(candidates.map((r) => r[0])))
        .toArray()
        .map((r) => r.ray),
    );
    return indexed.size === 0 ? candidates : candidates.filter((r) => !indexed.has(r[0]));
  }

  /** Adds the records to their minute, hour and path-hour counters: one upsert per distinct key. */
  private addCounts(records: readonly EncodedRecord[]): void {
    const minutes = new Map<string, CounterKey & { n: number }>();
    const hours = new Map<string, CounterKey & { n: number }>();
    const paths = new Map<string, { bucket: number; path: string; n: number }>();
    const bump = (into: Map<string, CounterKey & { n: number }>, bucket: number, r: EncodedRecord): void => {
      const key = `${bucket} ${r[2]} ${r[4]} ${r[5]} ${r[7]}`;
      const row = into.get(key);
      if (row !== undefined) row.n += 1;
      else into.set(key, { bucket, code: r[2], source: r[4], answered_by: r[5], format: r[7], n: 1 });
    };
    for (const r of records) {
      const hour = floorTo(r[1], STEP_MS.hour);
      bump(minutes, floorTo(r[1], STEP_MS.minute), r);
      bump(hours, hour, r);
      const pathKey = `${hour} ${r[9]}`;
      const row = paths.get(pathKey);
      if (row !== undefined) row.n += 1;
      else paths.set(pathKey, { bucket: hour, path: r[9], n: 1 });
    }
    for (const [table, rows] of [
      ["minutes", minutes],
      ["hours", hours],
    ] as const) {
      const sql = addCountSql(table);
      for (const c of rows.values()) this.sql.exec(sql, c.bucket, c.code, c.source, c.answered_by, c.format, c.n);
    }
    for (const { bucket, path, n } of paths.values()) this.countPath(bucket, path, n);
  }

  /** One occurrence by Ray ID, within the events' retention as of `now`; null when unknown or expired. */
  lookup(ray: string, now: number = Date.now()): ErrorRecord | null {
    const id = this.recentRays().get(ray);
    const row = (
      id === undefined
        ? this.sql.exec<{ record: string | null }>(LOOKUP_SQL, ray)
        : this.sql.exec<{ record: string | null }>(EVENT_BY_ID_SQL, id)
    ).toArray()[0];
    if (!row?.record) return null;
    const r = JSON.parse(row.record) as EncodedRecord;
    // Retention is each record's own (a batch stays until its newest record expires).
    if (r[1] < now - RETENTION.eventsMs) return null;
    return decodeRecord(r);
  }

  /**
   * The newest records made in [since, until), at most `limit`, newest first (a replay's window, docs/custom-errors.md
   * "Replay"), within retention as of `now`. Batches are read newest first through their time index and parsed one
   * at a time until `limit` records are found, so the work is bounded by `limit` and one batch; a batch is found by
   * its newest record, which is at most its window (250 ms) after its oldest, so batches up to a minute past
   * `until` are read and their records filtered by their own time.
   */
  recordsBetween(since: number, until: number, limit: number, now: number = Date.now()): ErrorRecord[] {
    const from = Math.max(since, now - RETENTION.eventsMs);
    const out: ErrorRecord[] = [];
    const rows = this.sql.exec<{ records: string }>(BATCHES_BETWEEN_SQL, from, until + 60_000);
    for (const row of rows) {
      const batch = JSON.parse(row.records) as readonly EncodedRecord[];
      for (let i = batch.length - 1; i >= 0 && out.length < limit; i--) {
        const r = batch[i]!;
        if (r[1] >= from && r[1] < until) out.push(decodeRecord(r));
      }
      if (out.length >= limit) break;
    }
    return out.sort((a, b) => b.at - a.at);
  }

  /** Counts over a range already validated by the API (limits in schema.ts). */
  counts(q: CountQuery): Result<CountResult, CountFailure> {
    const groups = groupCountSql(q);
    const series = this.sql.exec<{ n: number }>(groups.text, ...groups.params).one().n;
    if (series > MAX_SERIES) return err({ kind: "too-many-series", series, limit: MAX_SERIES });
    const s = seriesSql(q);
    const rows = this.sql.exec<Record<string, SqlStorageValue>>(s.text, ...s.params).toArray();
    const codes = codesSql(q);
    const sinceHour = floorTo(q.since, STEP_MS.hour);
    const paths = topPathsSql(sinceHour, q.until, MAX_PATHS_PER_ANSWER);
    const traffic = trafficSql(q);
    const hourTraffic = trafficSql({ since: sinceHour, until: q.until, step: "hour" });
    const avoided = avoidedSql(q.step, q.since, q.until);
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
      traffic: this.sql
        .exec<{ bucket: number; requests: number; dropped: number }>(traffic.text, ...traffic.params)
        .toArray()
        .map((r) => ({ bucket: r.bucket, requests: r.requests, dropped: r.dropped })),
      pathHoursRequests: this.sql
        .exec<{ requests: number }>(hourTraffic.text, ...hourTraffic.params)
        .toArray()
        .reduce((sum, r) => sum + r.requests, 0),
      avoided: this.sql
        .exec<{ kind: AvoidedKind; code: number; n: number }>(avoided.text, ...avoided.params)
        .toArray()
        .map((r) => ({ kind: r.kind, code: r.code, count: r.n })),
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
      traffic:
        this.sql.exec("DELETE FROM traffic_minutes WHERE bucket < ?", now - RETENTION.minutesMs).rowsWritten +
        this.sql.exec("DELETE FROM traffic_hours WHERE bucket < ?", now - RETENTION.hoursMs).rowsWritten +
        this.sql.exec("DELETE FROM tallies WHERE at < ?", now - RETENTION.minutesMs).rowsWritten,
      avoided:
        this.sql.exec("DELETE FROM avoided_minutes WHERE bucket < ?", now - RETENTION.minutesMs).rowsWritten +
        this.sql.exec("DELETE FROM avoided_hours WHERE bucket < ?", now - RETENTION.hoursMs).rowsWritten,
    }));
  }

  override async alarm(): Promise<void> {
    await this.tick(Date.now());
  }

  /**
   * One alarm run at `now` (a parameter so tests move the clock): retention once per PRUNE_EVERY_MS, the alert
   * policies once per minute that ended, the webhook attempts that are due (alerting.ts); then the alarm is armed
   * for the earliest of what is left (docs/analytics.md "Alerts").
   */
  async tick(now: number = Date.now()): Promise<TickReport> {
    const prunedAt = this.meta("pruned_at");
    if (prunedAt === null || now >= prunedAt + PRUNE_EVERY_MS) {
      this.prune(now);
      this.setMeta("pruned_at", now);
    }
    const evaluated = await this.alerting.evaluate(now);
    const attempts = await this.alerting.deliverDue(now);
    await this.arm(now);
    return { evaluated, attempts };
  }

  /** Arms the alarm for the earliest of: the next prune (rows left), what alerting waits for (its next wake). */
  private async arm(now: number): Promise<void> {
    const times: number[] = [];
    if (this.sql.exec<{ n: number }>(ROWS_LEFT_SQL).one().n > 0 || this.alerting.holdsEvents()) {
      times.push((this.meta("pruned_at") ?? now) + PRUNE_EVERY_MS);
    }
    const wake = this.alerting.nextWake(now);
    if (wake !== null) times.push(wake);
    this.alarmArmed = times.length > 0;
    if (times.length > 0) await this.ctx.storage.setAlarm(Math.min(...times));
  }

  private meta(name: string): number | null {
    return (
      this.sql.exec<{ value: number }>("SELECT value FROM analytics_meta WHERE name = ?", name).toArray()[0]?.value ??
      null
    );
  }

  private setMeta(name: string, value: number): void {
    this.sql.exec("INSERT OR REPLACE INTO analytics_meta (name, value) VALUES (?, ?)", name, value);
  }

  /**
   * Errors and requests of this shard over each window (alert-counts.ts: `windowErrorsSql` counts, `zoneAlertCounts`
   * sums the shards).
   */
  alertWindows(windows: readonly WindowQuery[]): WindowCount[] {
    return windows.map((w) => {
      const errors = windowErrorsSql(w);
      return {
        errors: this.sql.exec<{ n: number }>(errors.text, ...errors.params).one().n,
        requests: this.sql.exec<{ n: number }>(WINDOW_REQUESTS_SQL, w.since, w.until).one().n,
      };
    });
  }

  // The zone's alert policies (shard 0 holds them), answered by its alerting (alerting.ts); a write that may start
  // or stop an evaluation re-arms the alarm.

  listAlerts(): StoredAlert[] {
    return this.alerting.list();
  }

  getAlert(id: string): StoredAlert | null {
    return this.alerting.get(id);
  }

  async createAlert(spec: AlertSpec, now: number = Date.now()): Promise<CreatedAlert> {
    const made = this.alerting.create(spec, now);
    if (made.kind === "created") await this.arm(now);
    return made;
  }

  async updateAlert(id: string, spec: AlertSpec, now: number = Date.now()): Promise<StoredAlert | null> {
    const alert = this.alerting.update(id, spec, now);
    if (alert !== null) await this.arm(now);
    return alert;
  }

  deleteAlert(id: string): boolean {
    return this.alerting.delete(id);
  }

  /** A bundle's policies, all or none (alerting.ts `apply`); a write that may start an evaluation re-arms. */
  async applyAlerts(
    seen: readonly AlertSeen[],
    changes: readonly AlertChange[],
    dryRun: boolean,
    now: number = Date.now(),
  ): Promise<AlertsApplied> {
    const applied = this.alerting.apply(seen, changes, now, dryRun);
    if (applied.kind === "applied" && !dryRun && changes.length > 0) await this.arm(now);
    return applied;
  }

  alertDeliveries(id: string): AlertDelivery[] | null {
    return this.alerting.deliveries(id);
  }

  /**
   * Deletes the batches whose newest record is before `cutoff`, and their rays (by the time index, then each ray
   * by its key); returns how many records went.
   */
  private pruneEvents(cutoff: number): number {
    this.sql.exec(PRUNE_RAYS_SQL, cutoff);
    return this.sql
      .exec<{ n: number }>(PRUNE_BATCHES_SQL, cutoff)
      .toArray()
      .reduce((sum, row) => sum + row.n, 0);
  }

  /** The in-memory index of the batches above `rays_upto` (at most RAY_INDEX_EVERY + one batch of rays). */
  private recentRays(): Map<string, number> {
    if (this.recent !== null) return this.recent;
    this.raysUpto = this.sql
      .exec<{ value: number }>("SELECT value FROM analytics_meta WHERE name = 'rays_upto'")
      .one().value;
    const recent = new Map<string, number>();
    for (const row of this.sql.exec<{ id: number; records: string }>(RECENT_BATCHES_SQL, this.raysUpto)) {
      (JSON.parse(row.records) as readonly EncodedRecord[]).forEach((r, i) =>
        recent.set(r[0], row.id * BATCH_SLOTS + i),
      );
    }
    this.recent = recent;
    return recent;
  }

  /** The recent rays into `rays`, in key order, so consecutive rays share the pages they are written to. */
  private indexRecentRays(): void {
    const recent = this.recentRays();
    const upto = this.ctx.storage.transactionSync(() => {
      const top = this.sql.exec<{ id: number | null }>("SELECT max(id) AS id FROM batches").one().id ?? 0;
      const next = Math.max(top, this.raysUpto);
      this.sql.exec(INDEX_RAYS_SQL, this.raysUpto);
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
