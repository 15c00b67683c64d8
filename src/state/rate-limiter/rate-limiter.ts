/**
 * `RateLimiter`: the counters of rate-limiting rules (docs/producers.md "Rate limiting"), a SQLite-backed Durable
 * Object. One object per (zone, rule, counting key) (check.ts names them), so one hot zone or one flooding client
 * never serialises anybody else's traffic; the table is keyed anyway, so a coarser sharding would work unchanged.
 *
 * Two ways to count (a per-rule choice, `ratelimit.counting`): `hit` counts one request (exact counting), `lease`
 * reserves a batch of requests the calling isolate admits locally (approximate counting, counter.ts
 * `leaseRequests`; the isolate side is src/edge/request-phases/rate-limit/isolate-counters.ts). Both are one step of
 * the same counter state, so the same counter may be driven by either.
 * Cost per call (a counted request, or a lease): the RPC and a `Map` update. The object is single-threaded, so its
 * in-memory state is the truth while it lives; SQLite is written behind (a write per request held every answer
 * behind the storage output gate: 0.45× of a zone without rules in the producers benchmark, 0.6× written behind):
 *   - a block is written through (it must outlive the object: a restarted object still blocks);
 *   - other changes mark the counter dirty and arm a flush alarm `FLUSH_MS` ahead, so a busy counter costs one
 *     row write and two alarm writes per second, whatever its request rate;
 *   - a counter is read from SQLite once per object lifetime.
 * Loss bound: an object that dies between a count and its flush (a deploy, a crash; an idle object is evicted
 * only long after its flush) forgets at most `FLUSH_MS` of counts; never a block.
 * State expires with alarms: the alarm flushes, deletes rows past their expiry and re-arms for the next one; an
 * object left with no row deletes its storage.
 *
 * The clock is the caller's `now` (the edge's `Date.now()`, injectable for tests). The alarm compares expiries
 * with the later of the object's clock and the latest caller clock it saw, so state counted on a caller's clock
 * expires on that clock too (a caller running ahead only makes deletion earlier by that skew).
 * Invalid input throws (a bug of the caller): the caller fails open (docs/producers.md "Rate limiting").
 */
import { DurableObject } from "cloudflare:workers";
import {
  countRequest,
  expiresAt,
  leaseRequests,
  MAX_LEASE,
  serviceLimit,
  type Bucket,
  type CounterDecision,
  type CounterLimits,
  type CounterState,
  type LeaseDecision,
  type LeaseReturn,
  type ServiceLimitState,
} from "./counter";
import { RATE_LIMIT_BOUNDS } from "../zone/rulesets/ratelimit";
import { migrate, type Migration } from "../migrations";

export interface HitInput {
  /** The counting key (a hash of the characteristics' values). */
  readonly key: string;
  readonly period: number;
  readonly requestsPerPeriod: number;
  readonly mitigationTimeout: number;
  /** Milliseconds since the epoch on the caller's clock. */
  readonly now: number;
}

/** `lease` (approximate counting, counter.ts `leaseRequests`): `hit`'s input plus what the caller wants and gives back. */
export interface LeaseInput extends HitInput {
  /** Requests the caller expects to admit within a lease's lifetime (1–MAX_LEASE; the object may grant fewer). */
  readonly want: number;
  /** The unspent part of the caller's expired leases of this counter (one bucket's), if any. */
  readonly returned: LeaseReturn | null;
  /** Asked ahead: the caller still holds some of the counter (nothing left is then not a block). */
  readonly ahead: boolean;
}

/** A decision and the counter's service limit right after it. */
export interface Reported<D> {
  readonly decision: D;
  readonly limit: ServiceLimitState;
}

interface Row extends Record<string, SqlStorageValue> {
  buckets: string;
  blocked_until: number;
  expires_at: number;
}

/**
 * The RateLimiter's SQLite schema, applied by the one runner (src/state/migrations.ts). Both tables were created on
 * first use before the object kept a log, so each migration adopts its table: an object holding `counters` (the
 * two-fixed-window model) runs version 2, which takes its counters over; one holding `sliding_counters` runs nothing.
 */
export const RATE_LIMITER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "counters (two fixed windows)",
    adopts: "counters",
    statements: [
      `CREATE TABLE counters (
         key TEXT PRIMARY KEY,
         window_start INTEGER NOT NULL,
         count INTEGER NOT NULL,
         previous INTEGER NOT NULL,
         blocked_until INTEGER NOT NULL,
         expires_at INTEGER NOT NULL
       ) WITHOUT ROWID`,
      "CREATE INDEX counters_expiry ON counters (expires_at)",
    ],
  },
  {
    version: 2,
    name: "sliding_counters, the two-window counters taken over",
    adopts: "sliding_counters",
    statements: [
      // One row per counter: its buckets as one JSON array of numbers (open, last, count, open, last, count, …; at
      // most `MAX_BUCKETS` triples), the block's end and the row's expiry.
      `CREATE TABLE sliding_counters (
         key TEXT PRIMARY KEY,
         buckets TEXT NOT NULL,
         blocked_until INTEGER NOT NULL,
         expires_at INTEGER NOT NULL
       ) WITHOUT ROWID`,
      "CREATE INDEX sliding_counters_expiry ON sliding_counters (expires_at)",
      // Taken over conservatively, so a deploy forgets no count and no block: a row's `previous` and `count` become
      // one bucket that counts until the row's expiry (window_start + 2 periods, the latest instant the old model
      // forgot them), and its block is kept.
      `INSERT INTO sliding_counters (key, buckets, blocked_until, expires_at)
         SELECT key,
           CASE WHEN count + previous = 0 THEN '[]'
             ELSE json_array(
               window_start - (expires_at - window_start) / 2, -- open: the previous window's start
               expires_at - (expires_at - window_start) / 2,   -- last: the current window's end
               count + previous)
           END,
           blocked_until, expires_at
         FROM counters`,
      "DROP TABLE counters",
    ],
  },
];

/** How long a counted request may stay only in memory (the write-behind delay, see the header). */
export const FLUSH_MS = 1000;

interface Entry {
  state: CounterState;
  expiry: number;
  /** Changed since it was last written. */
  dirty: boolean;
}

export class RateLimiter extends DurableObject<Env> {
  /** The counters this instance has touched: the truth while it lives (one per object with the default sharding). */
  private readonly entries = new Map<string, Entry>();
  /** The alarm time this instance set (null: none known); avoids an alarm write per request. */
  private alarmAt: number | null = null;
  /** The latest caller clock seen by this instance (see the header). */
  private latestNow = 0;

  /** Counts one request (or refuses to, while blocked) and says whether it may pass (exact counting). */
  hit(input: HitInput): CounterDecision {
    return this.hitWithLimit(input).decision;
  }

  /** `hit`, with the counter's service limit after it (the edge's `RateLimit` field, docs/producers.md). */
  hitWithLimit(input: HitInput): Reported<CounterDecision> {
    checkInput(input);
    const limits = this.limitsOf(input);
    return this.step(input, limits, (state) => countRequest(state, limits, input.now));
  }

  /**
   * Reserves up to `want` requests for the caller to admit locally (approximate counting), after taking back the
   * unspent part of its previous lease; or says the client is blocked.
   */
  lease(input: LeaseInput): LeaseDecision {
    return this.leaseWithLimit(input).decision;
  }

  /** `lease`, with the counter's service limit after it (the lease counted as spent). */
  leaseWithLimit(input: LeaseInput): Reported<LeaseDecision> {
    checkInput(input);
    checkLease(input);
    const limits = this.limitsOf(input);
    return this.step(input, limits, (state) => leaseRequests(state, limits, input.now, input));
  }

  private limitsOf(input: HitInput): CounterLimits {
    return { periodMs: input.period * 1000, limit: input.requestsPerPeriod, timeoutMs: input.mitigationTimeout * 1000 };
  }

  /** One counter step in memory, written behind (a block written through), alarms armed: see the header. */
  private step<D extends { readonly kind: string }>(
    input: HitInput,
    limits: CounterLimits,
    count: (state: CounterState | null) => { state: CounterState; decision: D; changed: boolean },
  ): Reported<D> {
    const periodMs = limits.periodMs;
    const { key, now } = input;
    if (now > this.latestNow) this.latestNow = now;
    const entry = this.entries.get(key) ?? this.load(key);
    const step = count(entry?.state ?? null);
    if (step.changed) {
      const next: Entry = { state: step.state, expiry: expiresAt(step.state, periodMs), dirty: true };
      this.entries.set(key, next);
      if (step.decision.kind === "block") {
        this.write(key, next); // written through: a block survives the object
        this.armFor(next.expiry);
      } else {
        this.armFor(Math.min(next.expiry, Date.now() + FLUSH_MS));
      }
    }
    return { decision: step.decision, limit: serviceLimit(step.state, limits, now) };
  }

  /** Deletes expired counters; re-arms for the next expiry, or drops the object's storage when none is left. */
  override async alarm(): Promise<void> {
    this.alarmAt = null;
    for (const [key, entry] of this.entries) if (entry.dirty) this.write(key, entry);
    const sql = this.sql();
    const cutoff = Math.max(Date.now(), this.latestNow);
    sql.exec("DELETE FROM sliding_counters WHERE expires_at <= ?", cutoff);
    for (const [key, entry] of this.entries) if (entry.expiry <= cutoff) this.entries.delete(key);
    const next = sql.exec<{ next: number | null }>("SELECT MIN(expires_at) AS next FROM sliding_counters").one().next;
    if (next === null) {
      await this.ctx.storage.deleteAll(); // the schema and its log too: `sql()` migrates again on the next use
      return;
    }
    this.armFor(next);
  }

  private load(key: string): Entry | undefined {
    const row = this.sql()
      .exec<Row>("SELECT buckets, blocked_until, expires_at FROM sliding_counters WHERE key = ?", key)
      .toArray()[0];
    if (row === undefined) return undefined;
    const entry: Entry = {
      state: { buckets: parseBuckets(row.buckets), blockedUntil: row.blocked_until },
      expiry: row.expires_at,
      dirty: false,
    };
    this.entries.set(key, entry);
    return entry;
  }

  private write(key: string, entry: Entry): void {
    const s = entry.state;
    this.sql().exec(
      `INSERT INTO sliding_counters (key, buckets, blocked_until, expires_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET buckets = excluded.buckets, blocked_until = excluded.blocked_until,
         expires_at = excluded.expires_at`,
      key,
      JSON.stringify(s.buckets.flatMap((b) => [b.open, b.last, b.count])),
      s.blockedUntil,
      entry.expiry,
    );
    entry.dirty = false;
  }

  private armFor(expiry: number): void {
    if (this.alarmAt !== null && this.alarmAt <= expiry) return;
    this.alarmAt = expiry;
    void this.ctx.storage.setAlarm(expiry);
  }

  /**
   * The object's SQL, its schema migrated first. Before every use rather than once per object life, because the
   * alarm deletes the whole storage (schema included) while the object may live on; a current schema costs two
   * catalogue reads, and SQL is used only off the counting path (a counter's first load, a write-behind, the alarm).
   */
  private sql(): SqlStorage {
    migrate(this.ctx.storage, RATE_LIMITER_MIGRATIONS);
    return this.ctx.storage.sql;
  }
}

/**
 * The stored form of `CounterState.buckets` (see `sliding_counters`); anything else is a bug and throws (the caller
 * fails open).
 */
function parseBuckets(text: string): Bucket[] {
  const flat: unknown = JSON.parse(text);
  if (!Array.isArray(flat) || flat.length % 3 !== 0) throw new TypeError("RateLimiter: unreadable stored counter");
  const numbers: unknown[] = flat;
  if (!numbers.every((n): n is number => typeof n === "number"))
    throw new TypeError("RateLimiter: unreadable stored counter");
  const buckets: Bucket[] = [];
  for (let i = 0; i < numbers.length; i += 3)
    buckets.push({ open: numbers[i]!, last: numbers[i + 1]!, count: numbers[i + 2]! });
  return buckets;
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
    throw new TypeError("RateLimiter: invalid input");
  }
}

function checkLease(input: LeaseInput): void {
  const r = input.returned;
  if (
    !Number.isInteger(input.want) ||
    input.want < 1 ||
    input.want > MAX_LEASE ||
    (r !== null &&
      (typeof r !== "object" ||
        !Number.isFinite(r.bucket) ||
        !Number.isInteger(r.unspent) ||
        r.unspent < 0 ||
        r.unspent > input.requestsPerPeriod)) ||
    typeof input.ahead !== "boolean"
  ) {
    throw new TypeError("RateLimiter.lease: invalid input");
  }
}
