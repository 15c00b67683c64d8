/**
 * `RateLimiter`: the counters of rate-limiting rules (contract §0 `RATE_LIMITER`, §4), a SQLite-backed Durable
 * Object. One object per (zone, rule, counting key) (check.ts names them), so one hot zone or one flooding client
 * never serialises anybody else's traffic; the table is keyed anyway, so a coarser sharding would work unchanged.
 *
 * Cost per counted request: one indexed row read and one row upsert (SQLite in the object, no network), plus an
 * alarm write only when the earliest expiry moves earlier. State expires with alarms (contract §8): the alarm
 * deletes rows past their expiry and re-arms for the next one; an object left with no row deletes its storage.
 *
 * The clock is the caller's `now` (the edge's `Date.now()`, injectable for tests). The alarm compares expiries
 * with the later of the object's clock and the latest caller clock it saw, so state counted on a caller's clock
 * expires on that clock too (a caller running ahead only makes deletion earlier by that skew).
 * Invalid input throws (a bug of the caller): the caller fails open (contract §3).
 */
import { DurableObject } from "cloudflare:workers";
import { countRequest, expiresAt, type CounterDecision, type CounterState } from "./counter";
import { RATE_LIMIT_BOUNDS } from "./ruleset";

export interface HitInput {
  /** The counting key (a hash of the characteristics' values). */
  readonly key: string;
  readonly period: number;
  readonly requestsPerPeriod: number;
  readonly mitigationTimeout: number;
  /** Milliseconds since the epoch on the caller's clock. */
  readonly now: number;
}

interface Row extends Record<string, SqlStorageValue> {
  window_start: number;
  count: number;
  previous: number;
  blocked_until: number;
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS counters (
     key TEXT PRIMARY KEY,
     window_start INTEGER NOT NULL,
     count INTEGER NOT NULL,
     previous INTEGER NOT NULL,
     blocked_until INTEGER NOT NULL,
     expires_at INTEGER NOT NULL
   ) WITHOUT ROWID`,
  "CREATE INDEX IF NOT EXISTS counters_expiry ON counters (expires_at)",
];

export class RateLimiter extends DurableObject<Env> {
  private ready = false;
  /** The alarm time this instance set (null: none known); avoids an alarm write per request. */
  private alarmAt: number | null = null;
  /** The latest caller clock seen by this instance (see the header). */
  private latestNow = 0;

  /** Counts one request (or refuses to, while blocked) and says whether it may pass. */
  hit(input: HitInput): CounterDecision {
    const { key, now } = input;
    checkInput(input);
    if (now > this.latestNow) this.latestNow = now;
    this.ensureSchema();
    const sql = this.ctx.storage.sql;
    const row = sql
      .exec<Row>("SELECT window_start, count, previous, blocked_until FROM counters WHERE key = ?", key)
      .toArray()[0];
    const current: CounterState | null = row
      ? { windowStart: row.window_start, count: row.count, previous: row.previous, blockedUntil: row.blocked_until }
      : null;
    const periodMs = input.period * 1000;
    const step = countRequest(
      current,
      { periodMs, limit: input.requestsPerPeriod, timeoutMs: input.mitigationTimeout * 1000 },
      now,
    );
    if (step.changed) {
      const s = step.state;
      const expiry = expiresAt(s, periodMs);
      sql.exec(
        `INSERT INTO counters (key, window_start, count, previous, blocked_until, expires_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET window_start = excluded.window_start, count = excluded.count,
           previous = excluded.previous, blocked_until = excluded.blocked_until, expires_at = excluded.expires_at`,
        key,
        s.windowStart,
        s.count,
        s.previous,
        s.blockedUntil,
        expiry,
      );
      this.armFor(expiry);
    }
    return step.decision;
  }

  /** Deletes expired counters; re-arms for the next expiry, or drops the object's storage when none is left. */
  override async alarm(): Promise<void> {
    this.alarmAt = null;
    this.ensureSchema();
    const sql = this.ctx.storage.sql;
    sql.exec("DELETE FROM counters WHERE expires_at <= ?", Math.max(Date.now(), this.latestNow));
    const next = sql.exec<{ next: number | null }>("SELECT MIN(expires_at) AS next FROM counters").one().next;
    if (next === null) {
      await this.ctx.storage.deleteAll();
      this.ready = false; // deleteAll dropped the table too
      return;
    }
    this.armFor(next);
  }

  private armFor(expiry: number): void {
    if (this.alarmAt !== null && this.alarmAt <= expiry) return;
    this.alarmAt = expiry;
    void this.ctx.storage.setAlarm(expiry);
  }

  private ensureSchema(): void {
    if (this.ready) return;
    for (const statement of SCHEMA) this.ctx.storage.sql.exec(statement);
    this.ready = true;
  }
}

function checkInput(input: HitInput): void {
  const b = RATE_LIMIT_BOUNDS;
  const whole = (n: number, min: number, max: number) => Number.isInteger(n) && n >= min && n <= max;
  if (
    typeof input.key !== "string" ||
    input.key.length === 0 ||
    input.key.length > 256 ||
    !whole(input.period, b.period.min, b.period.max) ||
    !whole(input.requestsPerPeriod, b.requestsPerPeriod.min, b.requestsPerPeriod.max) ||
    !whole(input.mitigationTimeout, b.mitigationTimeout.min, b.mitigationTimeout.max) ||
    !Number.isFinite(input.now)
  ) {
    throw new TypeError("RateLimiter.hit: invalid input");
  }
}
