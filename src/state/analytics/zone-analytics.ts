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
 * - Shard 0 of a zone (the object named after it) also holds the zone's alert policies, evaluates them on its
 *   alarm over every shard (alert-counts.ts `zoneAlertCounts`) and delivers their webhooks (docs/analytics.md "Alerts").
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
import {
  ATTEMPT_TIMEOUT_MS,
  checkTarget,
  evaluate,
  EVENTS_KEPT,
  MAX_ALERT_POLICIES,
  MAX_ATTEMPTS,
  ORIGIN_FAILURE_CODES,
  RETRY_DELAYS_MS,
  windowsOf,
  type AlertSpec,
  type AlertState,
  type WindowCount,
  type WindowQuery,
} from "./alerts";
import { zoneAlertCounts } from "./alert-counts";
import { storedShardPlan } from "./shards";
import { newEventId, newWebhookSecret, webhookHeaders } from "./webhook";
import { lookupZone } from "../zone/cache";
import { settingsFor } from "../../shared/settings";
import { randomId } from "../../shared/crypto";
import { logEvent } from "../../shared/log";
import { TIMEOUT, within } from "../../shared/timeout";

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

/** A policy as stored (the secret apart): what the API presents. */
export interface StoredAlert {
  readonly id: string;
  readonly spec: AlertSpec;
  readonly state: AlertState;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** One event (a firing or a resolution) and its delivery attempts. */
export interface AlertDelivery {
  readonly id: string;
  readonly type: string;
  readonly createdAt: number;
  readonly status: "pending" | "delivered" | "failed";
  readonly nextAt: number | null;
  readonly body: string;
  readonly attempts: readonly {
    readonly attempt: number;
    readonly at: number;
    readonly outcome: "delivered" | "failed" | "refused";
    readonly httpStatus: number | null;
    readonly error: string | null;
  }[];
}

/** What one alarm run did (tests read it). */
export interface TickReport {
  readonly evaluated: number;
  readonly attempts: number;
}

/** The next evaluation runs this long after its minute ends, so the minute's batches and tallies have arrived. */
export const EVALUATE_DELAY_MS = 5_000;

interface PolicyRow extends Record<string, SqlStorageValue> {
  id: string;
  spec: string;
  created_at: number;
  updated_at: number;
  status: string;
  since: number;
  clear_streak: number;
  value: number | null;
  evaluated_at: number | null;
}

const toStored = (row: PolicyRow): StoredAlert => ({
  id: row.id,
  spec: JSON.parse(row.spec) as AlertSpec,
  state: {
    status: row.status === "firing" ? "firing" : "ok",
    since: row.since,
    clearStreak: row.clear_streak,
    value: row.value,
    evaluatedAt: row.evaluated_at,
  },
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const POLICY_COLUMNS = "id, spec, created_at, updated_at, status, since, clear_streak, value, evaluated_at";

/**
 * The SQL condition "an error `side` caused", over a record's (or a minute count's) source and code columns: the
 * origin caused its own responses >= 500 passed through and the edge's codes for an origin that failed
 * (ORIGIN_FAILURE_CODES: refused, timed out, unreachable, TLS, DNS); the edge caused every other error it generated.
 * Origin 4xx passed through are the client's: neither side's. Only constants reach the SQL text.
 */
function causedBy(side: "edge" | "origin", sourceColumn: string, codeColumn: string): string {
  const failed = `${sourceColumn} = 'edge' AND ${codeColumn} IN (${ORIGIN_FAILURE_CODES.join(", ")})`;
  return side === "origin"
    ? `((${sourceColumn} = 'origin' AND ${codeColumn} >= 500) OR (${failed}))`
    : `(${sourceColumn} = 'edge' AND NOT (${failed}))`;
}

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
  /** Events whose attempt is in flight in this object life: a second alarm run never sends them again meanwhile. */
  private readonly sending = new Set<number>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    migrate(ctx.storage, ANALYTICS_MIGRATIONS);
    this.wipedAt =
      this.sql.exec<{ value: number }>("SELECT value FROM analytics_meta WHERE name = 'wiped_at'").toArray()[0]
        ?.value ?? 0;
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
    // The alarm is armed once per object life (an alarm that fired re-arms itself in `alarm`), not read per batch.
    if (!this.alarmArmed) {
      if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + PRUNE_EVERY_MS);
      this.alarmArmed = true;
    }
    return stored.length;
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
   * policies once per minute that ended, the webhook attempts that are due; then the alarm is armed for the
   * earliest of what is left (docs/analytics.md "Alerts").
   */
  async tick(now: number = Date.now()): Promise<TickReport> {
    const prunedAt = this.meta("pruned_at");
    if (prunedAt === null || now >= prunedAt + PRUNE_EVERY_MS) {
      this.prune(now);
      this.setMeta("pruned_at", now);
    }
    const evaluated = await this.evaluateAlerts(now);
    const attempts = await this.deliverDue(now);
    await this.arm(now);
    return { evaluated, attempts };
  }

  /** Arms the alarm for the earliest of: the next prune (rows left), the next evaluation, the next attempt due. */
  private async arm(now: number): Promise<void> {
    const left = this.sql
      .exec<{ n: number }>(
        "SELECT (SELECT count(*) FROM (SELECT 1 FROM hours LIMIT 1)) + (SELECT count(*) FROM (SELECT 1 FROM traffic_hours LIMIT 1)) + (SELECT count(*) FROM (SELECT 1 FROM avoided_hours LIMIT 1)) + (SELECT count(*) FROM (SELECT 1 FROM alert_events LIMIT 1)) AS n",
      )
      .one().n;
    const times: number[] = [];
    if (left > 0) times.push((this.meta("pruned_at") ?? now) + PRUNE_EVERY_MS);
    if (this.enabledPolicies() > 0) times.push(floorTo(now, STEP_MS.minute) + STEP_MS.minute + EVALUATE_DELAY_MS);
    const due = this.sql
      .exec<{ t: number | null }>("SELECT min(next_at) AS t FROM alert_events WHERE status = 'pending'")
      .one().t;
    if (due !== null) times.push(due);
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

  private enabledPolicies(): number {
    let n = 0;
    for (const row of this.sql.exec<{ spec: string }>("SELECT spec FROM alert_policies")) {
      if ((JSON.parse(row.spec) as AlertSpec).enabled) n++;
    }
    return n;
  }

  /**
   * Errors and requests of this shard over each window (alert-counts.ts `zoneAlertCounts` sums the shards): the minute
   * counts and `traffic_minutes` (primary-key range scans); a path filter reads the records of the batches in the
   * window (the `batches_by_newest` index; its window is at most an hour, alerts.ts THRESHOLD_WINDOW).
   */
  alertWindows(windows: readonly WindowQuery[]): WindowCount[] {
    return windows.map((w) => {
      const requests = this.sql
        .exec<{ n: number }>(
          "SELECT coalesce(sum(requests), 0) AS n FROM traffic_minutes WHERE bucket >= ? AND bucket < ?",
          w.since,
          w.until,
        )
        .one().n;
      return { errors: this.windowErrors(w), requests };
    });
  }

  private windowErrors(w: WindowQuery): number {
    const params: SqlStorageValue[] = [w.since, w.until];
    if (w.match.kind === "origin-errors") {
      return this.sql
        .exec<{ n: number }>(
          `SELECT coalesce(sum(count), 0) AS n FROM minutes WHERE bucket >= ? AND bucket < ? AND ${causedBy("origin", "source", "code")}`,
          ...params,
        )
        .one().n;
    }
    const { code, source, path } = w.match.filter;
    // Each condition binds its value by number: the path scan names ?1 (since) twice.
    const and = (column: string, value: string | number | undefined): string => {
      if (value === undefined) return "";
      params.push(value);
      return ` AND ${column} = ?${params.length}`;
    };
    // A filter's source is who caused the error, the burn rate's one meaning of "origin errors" (docs/analytics.md
    // "Alerts"): not the record's own `source` column, which says who answered.
    const cause = (sourceColumn: string, codeColumn: string): string =>
      source === undefined ? "" : ` AND ${causedBy(source, sourceColumn, codeColumn)}`;
    if (path === undefined) {
      const text =
        "SELECT coalesce(sum(count), 0) AS n FROM minutes WHERE bucket >= ?1 AND bucket < ?2" +
        and("code", code) +
        cause("source", "code");
      return this.sql.exec<{ n: number }>(text, ...params).one().n;
    }
    const text =
      `SELECT count(*) AS n FROM batches b, json_each(b.records) j WHERE b.newest >= ?1
      AND (j.value ->> 1) >= ?1 AND (j.value ->> 1) < ?2` +
      and("(j.value ->> 9)", path) +
      and("(j.value ->> 2)", code) +
      cause("(j.value ->> 4)", "(j.value ->> 2)");
    return this.sql.exec<{ n: number }>(text, ...params).one().n;
  }

  /** The zone's policies (shard 0 holds them), oldest first. */
  listAlerts(): StoredAlert[] {
    return this.sql
      .exec<PolicyRow>(`SELECT ${POLICY_COLUMNS} FROM alert_policies ORDER BY created_at, id`)
      .toArray()
      .map(toStored);
  }

  getAlert(id: string): StoredAlert | null {
    const row = this.sql.exec<PolicyRow>(`SELECT ${POLICY_COLUMNS} FROM alert_policies WHERE id = ?`, id).toArray()[0];
    return row === undefined ? null : toStored(row);
  }

  /** A new policy, state ok, with a new secret (answered here once, never read back by the API). */
  async createAlert(
    spec: AlertSpec,
    now: number = Date.now(),
  ): Promise<
    | { readonly kind: "created"; readonly alert: StoredAlert; readonly secret: string }
    | { readonly kind: "too-many"; readonly limit: number }
  > {
    const n = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM alert_policies").one().n;
    if (n >= MAX_ALERT_POLICIES) return { kind: "too-many", limit: MAX_ALERT_POLICIES };
    const id = randomId();
    const secret = newWebhookSecret();
    this.sql.exec(
      "INSERT INTO alert_policies (id, spec, secret, created_at, updated_at, status, since, clear_streak) VALUES (?, ?, ?, ?, ?, 'ok', ?, 0)",
      id,
      JSON.stringify(spec),
      secret,
      now,
      now,
      now,
    );
    await this.arm(now);
    return { kind: "created", alert: this.getAlert(id)!, secret };
  }

  /**
   * Replaces a policy's definition; its id, secret, state and events stay. Disabling it sets its state to ok (since
   * now, no event): a policy nobody evaluates is not shown firing.
   */
  async updateAlert(id: string, spec: AlertSpec, now: number = Date.now()): Promise<StoredAlert | null> {
    const written = this.sql.exec(
      `UPDATE alert_policies SET spec = ?1, updated_at = ?2,
         status = CASE WHEN ?3 THEN status ELSE 'ok' END,
         since = CASE WHEN ?3 OR status = 'ok' THEN since ELSE ?2 END,
         clear_streak = CASE WHEN ?3 THEN clear_streak ELSE 0 END
       WHERE id = ?4`,
      JSON.stringify(spec),
      now,
      spec.enabled ? 1 : 0,
      id,
    ).rowsWritten;
    if (written === 0) return null;
    await this.arm(now);
    return this.getAlert(id);
  }

  /** Deletes a policy with its events and attempts (a pending event is not sent). */
  deleteAlert(id: string): boolean {
    return this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        "DELETE FROM alert_attempts WHERE event_seq IN (SELECT seq FROM alert_events WHERE policy_id = ?)",
        id,
      );
      this.sql.exec("DELETE FROM alert_events WHERE policy_id = ?", id);
      return this.sql.exec("DELETE FROM alert_policies WHERE id = ?", id).rowsWritten > 0;
    });
  }

  /** A policy's events, newest first, each with its attempts; null when the policy does not exist. */
  alertDeliveries(id: string): AlertDelivery[] | null {
    if (this.getAlert(id) === null) return null;
    const events = this.sql
      .exec<{
        seq: number;
        id: string;
        type: string;
        created_at: number;
        status: string;
        next_at: number | null;
        body: string;
      }>(
        "SELECT seq, id, type, created_at, status, next_at, body FROM alert_events WHERE policy_id = ? ORDER BY seq DESC",
        id,
      )
      .toArray();
    return events.map((e) => ({
      id: e.id,
      type: e.type,
      createdAt: e.created_at,
      status: e.status as AlertDelivery["status"],
      nextAt: e.status === "pending" ? e.next_at : null,
      body: e.body,
      attempts: this.sql
        .exec<{ attempt: number; at: number; outcome: string; http_status: number | null; error: string | null }>(
          "SELECT attempt, at, outcome, http_status, error FROM alert_attempts WHERE event_seq = ? ORDER BY attempt",
          e.seq,
        )
        .toArray()
        .map((a) => ({
          attempt: a.attempt,
          at: a.at,
          outcome: a.outcome as AlertDelivery["attempts"][number]["outcome"],
          httpStatus: a.http_status,
          error: a.error,
        })),
    }));
  }

  /**
   * Evaluates every enabled policy once per minute that ended (a second run within the same minute does nothing),
   * over every shard of the zone; a change of state writes an event to deliver. Returns how many were evaluated.
   */
  private async evaluateAlerts(now: number): Promise<number> {
    const minute = floorTo(now, STEP_MS.minute);
    const policies = this.listAlerts().filter((p) => p.spec.enabled);
    if (policies.length === 0) return 0;
    const last = this.meta("alerts_evaluated");
    if (last !== null && minute <= last) return 0;
    this.setMeta("alerts_evaluated", minute);
    const zone = this.ctx.id.name;
    if (zone === undefined) return 0;
    const config = await lookupZone(this.env.CONFIG, zone);
    if (!config.ok || config.value === null) return 0;
    const plan = storedShardPlan(config.value.document);
    if (!plan.ok) return 0;
    const windows = policies.map((p) => windowsOf(p.spec.rule, now));
    const all = windows.flat();
    const ns = this.env.ZONE_ANALYTICS;
    const counts = await zoneAlertCounts(zone, plan.value, all, (name) =>
      name === zone ? this.alertWindows(all) : ns.get(ns.idFromName(name)).alertWindows(all),
    );
    let offset = 0;
    for (const [i, p] of policies.entries()) {
      const size = windows[i]!.length;
      const result = evaluate(p.spec, p.state, counts.slice(offset, offset + size), now);
      offset += size;
      this.ctx.storage.transactionSync(() => {
        // The policy may have been deleted while the counts were read: its state and events go with it.
        const s = result.state;
        const kept = this.sql.exec(
          "UPDATE alert_policies SET status = ?, since = ?, clear_streak = ?, value = ?, evaluated_at = ? WHERE id = ?",
          s.status,
          s.since,
          s.clearStreak,
          s.value,
          s.evaluatedAt,
          p.id,
        ).rowsWritten;
        if (kept > 0 && result.transition !== null) this.addEvent(zone, p, result.state, now);
      });
    }
    return policies.length;
  }

  /** One event (Standard Webhooks payload: type, timestamp, data), its body fixed for every attempt. */
  private addEvent(zone: string, p: StoredAlert, state: AlertState, now: number): void {
    const type = state.status === "firing" ? "alert.firing" : "alert.resolved";
    const id = newEventId();
    const body = JSON.stringify({
      type,
      timestamp: new Date(now).toISOString(),
      data: {
        zone,
        policy: { id: p.id, name: p.spec.name, ...p.spec.rule },
        status: state.status,
        since: new Date(state.since).toISOString(),
        value: state.value,
      },
    });
    this.sql.exec(
      "INSERT INTO alert_events (id, policy_id, type, body, created_at, status, attempts, next_at) VALUES (?, ?, ?, ?, ?, 'pending', 0, ?)",
      id,
      p.id,
      type,
      body,
      now,
      now,
    );
    // Bounded: the newest EVENTS_KEPT of the policy stay, and a pending one is never dropped.
    const old = `SELECT seq FROM alert_events WHERE policy_id = ?1 AND status != 'pending'
      AND seq < (SELECT min(seq) FROM (SELECT seq FROM alert_events WHERE policy_id = ?1 ORDER BY seq DESC LIMIT ${EVENTS_KEPT}))`;
    this.sql.exec(`DELETE FROM alert_attempts WHERE event_seq IN (${old})`, p.id);
    this.sql.exec(`DELETE FROM alert_events WHERE seq IN (${old})`, p.id);
  }

  /**
   * Sends the events that are due, oldest first, the oldest pending event of each policy only (a resolution never
   * overtakes its firing). An event is sent under its one id on every attempt; once a 2xx answered it, it is
   * `delivered` and never sent again; after MAX_ATTEMPTS it is `failed`. The target is checked again against the
   * settings of now (API_HOSTS may have changed): refused, the event fails without a request.
   */
  private async deliverDue(now: number): Promise<number> {
    const pending = this.sql
      .exec<{ seq: number; id: string; policy_id: string; body: string; attempts: number; next_at: number }>(
        "SELECT seq, id, policy_id, body, attempts, next_at FROM alert_events WHERE status = 'pending' ORDER BY seq",
      )
      .toArray();
    const seen = new Set<string>();
    const due = pending.filter((e) => {
      const first = !seen.has(e.policy_id);
      seen.add(e.policy_id);
      return first && e.next_at <= now && !this.sending.has(e.seq);
    });
    const settings = settingsFor(this.env);
    const targets = { apiHosts: settings.apiHosts, loopbackAllowed: settings.webhookLoopback };
    await Promise.all(
      due.map(async (e) => {
        const policy = this.sql
          .exec<{ spec: string; secret: string }>("SELECT spec, secret FROM alert_policies WHERE id = ?", e.policy_id)
          .toArray()[0];
        if (policy === undefined) return;
        const target = checkTarget((JSON.parse(policy.spec) as AlertSpec).webhook_url, targets);
        const attempt = e.attempts + 1;
        if (!target.ok) {
          this.recordAttempt(e, attempt, now, { outcome: "refused", status: null, error: target.error.message });
          return;
        }
        this.sending.add(e.seq);
        try {
          const answer = await this.send(target.value, policy.secret, e.id, e.body);
          this.recordAttempt(e, attempt, now, answer);
        } finally {
          this.sending.delete(e.seq);
        }
      }),
    );
    return due.length;
  }

  private async send(
    url: string,
    secret: string,
    id: string,
    body: string,
  ): Promise<{ outcome: "delivered" | "failed"; status: number | null; error: string | null }> {
    const headers = await webhookHeaders(secret, id, body);
    // Aborted when the attempt times out, so a receiver that never answers does not keep its connection (and the
    // object's outbound request) open after the attempt is counted as failed.
    const abort = new AbortController();
    try {
      // No redirect is followed: a 3xx is an answer, not a new target (it could name a host refused above).
      const answer = await within(
        fetch(url, { method: "POST", headers, body, redirect: "manual", signal: abort.signal }),
        ATTEMPT_TIMEOUT_MS,
      );
      if (answer === TIMEOUT) {
        abort.abort();
        return { outcome: "failed", status: null, error: `no answer within ${ATTEMPT_TIMEOUT_MS} ms` };
      }
      await answer.body?.cancel();
      const delivered = answer.status >= 200 && answer.status < 300;
      return { outcome: delivered ? "delivered" : "failed", status: answer.status, error: null };
    } catch (e) {
      return { outcome: "failed", status: null, error: String(e instanceof Error ? e.message : e).slice(0, 200) };
    }
  }

  private recordAttempt(
    e: { readonly seq: number; readonly id: string; readonly policy_id: string },
    attempt: number,
    now: number,
    r: { outcome: "delivered" | "failed" | "refused"; status: number | null; error: string | null },
  ): void {
    const seq = e.seq;
    const final = r.outcome !== "failed" || attempt >= MAX_ATTEMPTS;
    const status = r.outcome === "delivered" ? "delivered" : final ? "failed" : "pending";
    const next = status === "pending" ? now + (RETRY_DELAYS_MS[attempt - 1] ?? 0) : null;
    this.ctx.storage.transactionSync(() => {
      // The event may have been deleted with its policy while the attempt was in flight.
      const kept = this.sql.exec(
        "UPDATE alert_events SET status = ?, attempts = ?, next_at = ? WHERE seq = ?",
        status,
        attempt,
        next,
        seq,
      ).rowsWritten;
      if (kept === 0) return;
      this.sql.exec(
        "INSERT OR REPLACE INTO alert_attempts (event_seq, attempt, at, outcome, http_status, error) VALUES (?, ?, ?, ?, ?, ?)",
        seq,
        attempt,
        now,
        r.outcome,
        r.status,
        r.error,
      );
    });
    if (status === "failed") {
      logEvent("alert_webhook_failed", {
        zone: this.ctx.id.name ?? null,
        policy: e.policy_id,
        message: e.id,
        attempts: attempt,
        cause: r.error ?? (r.status === null ? r.outcome : `HTTP ${r.status}`),
      });
    }
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
