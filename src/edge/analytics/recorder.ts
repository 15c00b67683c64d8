/**
 * Recording errors without delaying or failing the response (docs/analytics.md "Loss bound").
 *
 * Records are batched per isolate and written to the zone's ZoneAnalytics object after the response, always from
 * a `waitUntil`:
 *   - a record arriving when no window is open is written at once (a lone error waits for no window) and opens a
 *     window of `maxWaitMs`, or of `busyWaitMs` when the window before it flushed `busyRecords` or more (a
 *     sustained burst: fewer, larger batches, so fewer RPCs and storage commits per error);
 *   - the records arriving inside an open window wait; the request of the first of them flushes them all when the
 *     window closes (`waitUntil`), as the error log coalesces its lines (src/errors/error-log.ts);
 *   - a batch that reaches `maxRecords` is flushed at once, from the request that filled it (`waitUntil`);
 *   - a window whose flush never came (its request was cancelled) is flushed by the next record after twice its
 *     length.
 * So an isolate that dies loses at most the one batch it holds: fewer than `maxRecords` records, at most
 * `busyWaitMs` of them (plus any batch whose RPC was in flight). A failed write is logged once per batch and its
 * records are not retried (recording never retries into the response path), but they are counted
 * (docs/analytics.md "Loss is counted"): the count goes at once to another shard of the zone, else with the
 * isolate's next delivery for the zone, and every answer of the API reports it.
 *
 * Records go to their shard (src/state/analytics/shards.ts: the Ray ID's lane modulo the zone's shard count), one
 * batch per shard. Requests are counted here too, per zone and minute (`count`, the error rates' denominator), and
 * ride with the next batch of the zone, or go alone with the first count after their window (TALLY_WAIT_MS).
 */
import { encodeBatch, type ErrorRecord } from "../../state/analytics/record";
import { shardName, shardOfRay } from "../../state/analytics/shards";
import type { AvoidedKind } from "../../state/analytics/avoided";
import type { Tally } from "../../state/analytics/zone-analytics";
import { currentLane } from "../../shared/ray";
import { randomId } from "../../shared/crypto";
import { logEvent } from "../../shared/log";

/** A zone and its shard count now (the compiled zone's `analyticsShards`). */
export interface ShardTarget {
  readonly zone: string;
  readonly shards: number;
}

/** One call to one shard: its records, and the zone's tally (requests and drops) when this delivery carries it. */
export interface Delivery {
  readonly zone: string;
  readonly shard: number;
  readonly shards: number;
  readonly records: readonly ErrorRecord[];
  readonly tally?: Tally;
}

/** Where a delivery goes: one call per (zone, shard). */
export type RecordSink = (delivery: Delivery) => Promise<void>;

export interface BatchLimits {
  readonly maxRecords: number;
  readonly maxWaitMs: number;
  /** The window after one that flushed at least `busyRecords` (default: no longer window). */
  readonly busyWaitMs?: number;
  readonly busyRecords?: number;
}

// 50 ms: the error log's window (src/errors/error-log.ts), so a request that opens both waits no longer than before.
// 250 ms once a window held 100 records or more (2,000 errors/s from one isolate): the object stores a batch in one
// row (src/state/analytics/zone-analytics.ts), so what is left per batch is the RPC and the commit, which Miniflare
// runs on the Worker's own thread; the longer window measured 0.89× and 0.95× against 0.86× and 0.88× for 50 ms in
// the analytics bench (docs/analytics.md "Cost per error"). Quiet traffic and tests that await each error keep 50 ms.
// 1,000 records: one stored row (schema.ts BATCH_SLOTS), ~120 KB per RPC; a busy window at 4,000 errors/s or more
// from one isolate is cut there.
export const DEFAULT_BATCH: BatchLimits = { maxRecords: 1000, maxWaitMs: 50, busyWaitMs: 250, busyRecords: 100 };

/**
 * The tallies' window (docs/analytics.md "Requests and drops"). Counted requests never wait on a timer: a count
 * arriving when the window is over (or the first ever) sends every held tally at once, from its own request, and
 * opens the next window; the counts inside a window wait for the first count after it, or ride with a record batch.
 * So an isolate makes at most one tally RPC a second per zone, no request's `waitUntil` sleeps for counts (a client
 * or test awaiting it waits one RPC), and an isolate that serves no request after its last ones loses at most one
 * window of counts when it goes, as it would lose its last batch. Counts are per minute: a second is no delay.
 */
export const TALLY_WAIT_MS = 1000;

/** Minute buckets a zone's undelivered tally keeps (older ones are logged and let go: the isolate's memory is bounded). */
export const MAX_TALLY_MINUTES = 120;

const MINUTE_MS = 60_000;

/** Counts per minute bucket. */
type Minutes = Map<number, number>;

/** Avoided errors per `"<bucket> <kind> <code>"` (docs/analytics.md "Avoided errors"). */
type AvoidedCounts = Map<
  string,
  { readonly bucket: number; readonly kind: AvoidedKind; readonly code: number; n: number }
>;

interface ZoneTally {
  shards: number;
  readonly requests: Minutes;
  readonly dropped: Minutes;
  readonly avoided: AvoidedCounts;
}

export class RecordBatcher {
  /** Held records per zone, then per shard. */
  private pending = new Map<string, { shards: number; byShard: Map<number, ErrorRecord[]> }>();
  /** Requests counted and records dropped per zone, not yet delivered. */
  private tallies = new Map<string, ZoneTally>();
  private size = 0;
  private openedAt: number | null = null;
  /** Whether the open window's flush is already scheduled. */
  private scheduled = false;
  /** When the tallies' window opened (null: no count yet). */
  private tallyAt: number | null = null;
  /** The open window's length (`maxWaitMs`, or `busyWaitMs` after a busy window). */
  private windowMs: number;
  /** Whether the last window flushed `busyRecords` or more. */
  private busy = false;

  constructor(
    private readonly limits: BatchLimits = DEFAULT_BATCH,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
    private readonly tallyWaitMs: number = TALLY_WAIT_MS,
  ) {
    this.windowMs = limits.maxWaitMs;
  }

  /** Records held and not yet handed to a sink. */
  get held(): number {
    return this.size;
  }

  /** Requests counted, records dropped and errors avoided, held and not yet delivered (`zone` or all zones). */
  tallied(zone?: string): { requests: number; dropped: number; avoided: number } {
    let requests = 0;
    let dropped = 0;
    let avoided = 0;
    for (const [z, t] of this.tallies) {
      if (zone !== undefined && z !== zone) continue;
      for (const n of t.requests.values()) requests += n;
      for (const n of t.dropped.values()) dropped += n;
      for (const a of t.avoided.values()) avoided += a.n;
    }
    return { requests, dropped, avoided };
  }

  add(
    target: ShardTarget,
    record: ErrorRecord,
    sink: RecordSink,
    invocation: Pick<ExecutionContext, "waitUntil">,
    now = Date.now(),
  ): void {
    // A window whose flush never came (its request was cancelled) is dead: what waits goes with this record.
    const dead = this.openedAt !== null && now - this.openedAt > 2 * this.windowMs;
    if (this.openedAt === null) {
      // No window open: a lone error is stored at once (its request waits for one RPC, not for a window), and the
      // records of a burst behind it wait for the window to close, as the error log's lines do.
      this.open(now);
      const shard = shardOfRay(record.ray, target.shards);
      invocation.waitUntil(
        this.deliver(sink, [{ zone: target.zone, shard, shards: target.shards, records: [record] }]),
      );
      return;
    }
    let zone = this.pending.get(target.zone);
    if (zone === undefined) {
      zone = { shards: target.shards, byShard: new Map() };
      this.pending.set(target.zone, zone);
    }
    zone.shards = target.shards;
    const shard = shardOfRay(record.ray, target.shards);
    let list = zone.byShard.get(shard);
    if (list === undefined) {
      list = [];
      zone.byShard.set(shard, list);
    }
    list.push(record);
    this.size += 1;
    if (dead || this.size >= this.limits.maxRecords) {
      invocation.waitUntil(this.flush(sink));
      return;
    }
    this.schedule(sink, invocation, now);
  }

  /**
   * Counts one avoided error of the zone (docs/analytics.md "Avoided errors"): a map increment, delivered as the
   * request counts are (with the zone's next delivery, or with the first count after the window), so an avoided
   * error costs no RPC of its own beyond what counting its request already may.
   */
  avoid(
    target: ShardTarget,
    avoided: { readonly kind: AvoidedKind; readonly code: number },
    sink: RecordSink,
    invocation: Pick<ExecutionContext, "waitUntil">,
    now = Date.now(),
  ): void {
    bumpAvoided(this.tallyOf(target).avoided, Math.floor(now / MINUTE_MS) * MINUTE_MS, avoided.kind, avoided.code, 1);
    this.maybeFlushTallies(sink, invocation, now);
  }

  /**
   * Counts one request of the zone (every request of a configured zone: the error rates' denominator). A map
   * increment; the count leaves with the zone's next delivery, or with the first count after the window (TALLY_WAIT_MS).
   */
  count(
    target: ShardTarget,
    sink: RecordSink,
    invocation: Pick<ExecutionContext, "waitUntil">,
    now = Date.now(),
  ): void {
    bump(this.tallyOf(target).requests, Math.floor(now / MINUTE_MS) * MINUTE_MS, 1);
    this.maybeFlushTallies(sink, invocation, now);
  }

  /** The first count after the tallies' window (or the first ever) sends every held tally, and opens the next. */
  private maybeFlushTallies(sink: RecordSink, invocation: Pick<ExecutionContext, "waitUntil">, now: number): void {
    if (this.tallyAt !== null && now - this.tallyAt < this.tallyWaitMs) return;
    this.tallyAt = now;
    invocation.waitUntil(this.flushTallies(sink));
  }

  /** Hands the held tallies to the sink alone (the records' window may have taken them already); never rejects. */
  async flushTallies(sink: RecordSink): Promise<void> {
    const tallies = this.tallies;
    if (tallies.size === 0) return;
    this.tallies = new Map();
    await this.deliver(
      sink,
      [...tallies].map(([zone, t]) => aloneAt(zone, t)),
    );
  }

  /** Hands every held batch and tally to the sink (one call per zone and shard); never rejects. */
  async flush(sink: RecordSink): Promise<void> {
    const held = this.pending;
    const tallies = this.tallies;
    this.busy = this.size >= (this.limits.busyRecords ?? Infinity);
    this.pending = new Map();
    this.tallies = new Map();
    this.size = 0;
    this.openedAt = null;
    this.scheduled = false;
    const deliveries: Delivery[] = [];
    for (const [zone, { shards, byShard }] of held) {
      for (const [shard, records] of byShard) deliveries.push({ zone, shard, shards, records });
    }
    for (const [zone, t] of tallies) {
      const tally = tallyOf(t);
      // The tally rides with one of the zone's batches, else goes alone to the isolate's current shard.
      const i = deliveries.findIndex((d) => d.zone === zone && d.shards === t.shards);
      if (i >= 0) deliveries[i] = { ...deliveries[i]!, tally };
      else deliveries.push(aloneAt(zone, t));
    }
    await this.deliver(sink, deliveries);
  }

  private open(now: number): void {
    this.openedAt = now;
    this.scheduled = false;
    this.windowMs = this.busy ? (this.limits.busyWaitMs ?? this.limits.maxWaitMs) : this.limits.maxWaitMs;
  }

  /** The first record or count to wait closes the window from its own request, when the window ends. */
  private schedule(sink: RecordSink, invocation: Pick<ExecutionContext, "waitUntil">, now: number): void {
    if (this.scheduled || this.openedAt === null) return;
    this.scheduled = true;
    const left = Math.max(0, this.openedAt + this.windowMs - now);
    invocation.waitUntil(this.sleep(left).then(() => this.flush(sink)));
  }

  private tallyOf(target: ShardTarget): ZoneTally {
    let t = this.tallies.get(target.zone);
    if (t === undefined) {
      t = { shards: target.shards, requests: new Map(), dropped: new Map(), avoided: new Map() };
      this.tallies.set(target.zone, t);
    }
    t.shards = target.shards;
    return t;
  }

  /**
   * One sink call per delivery. A failed one is logged once and its loss counted (never rejects): its records by
   * their minute, and its tally kept; the count goes at once to the zone's other shards in turn (the first that
   * takes it), else it waits in this isolate for the zone's next delivery.
   */
  private async deliver(sink: RecordSink, deliveries: readonly Delivery[]): Promise<void> {
    await Promise.all(
      deliveries.map(async (d) => {
        try {
          await sink(d);
        } catch (error) {
          logEvent("analytics_write_failed", { zone: d.zone, records: d.records.length, cause: String(error) });
          const lost: ZoneTally = { shards: d.shards, requests: new Map(), dropped: new Map(), avoided: new Map() };
          for (const r of d.records) bump(lost.dropped, Math.floor(r.at / MINUTE_MS) * MINUTE_MS, 1);
          for (const [b, n] of d.tally?.requests ?? []) bump(lost.requests, b, n);
          for (const [b, n] of d.tally?.dropped ?? []) bump(lost.dropped, b, n);
          for (const [b, kind, code, n] of d.tally?.avoided ?? []) bumpAvoided(lost.avoided, b, kind, code, n);
          await this.recount(sink, d, lost);
        }
      }),
    );
  }

  /** A failed delivery's tally to the zone's other shards in turn; kept for the next delivery when none takes it. */
  private async recount(sink: RecordSink, failed: Delivery, lost: ZoneTally): Promise<void> {
    const tally = tallyOf(lost);
    for (let step = 1; step < failed.shards; step++) {
      const shard = (failed.shard + step) % failed.shards;
      try {
        await sink({ zone: failed.zone, shard, shards: failed.shards, records: [], tally });
        return;
      } catch {
        // The next shard.
      }
    }
    const into = this.tallyOf({ zone: failed.zone, shards: failed.shards });
    for (const [b, n] of lost.requests) bump(into.requests, b, n);
    for (const [b, n] of lost.dropped) bump(into.dropped, b, n);
    for (const a of lost.avoided.values()) bumpAvoided(into.avoided, a.bucket, a.kind, a.code, a.n);
    for (const minutes of [into.requests, into.dropped]) {
      while (minutes.size > MAX_TALLY_MINUTES) {
        const [oldest, n] = minutes.entries().next().value as [number, number];
        minutes.delete(oldest);
        logEvent("analytics_write_failed", { zone: failed.zone, records: 0, cause: `tally of ${n} let go` });
      }
    }
    // Avoided counts are keyed by minute, kind and code: at most three kinds of a few codes a minute, so the bound
    // is the minutes' times a small factor (insertion order: the oldest first).
    while (into.avoided.size > MAX_TALLY_MINUTES * AVOIDED_KEYS_PER_MINUTE) {
      const [key, a] = into.avoided.entries().next().value as [string, { n: number }];
      into.avoided.delete(key);
      logEvent("analytics_write_failed", { zone: failed.zone, records: 0, cause: `avoided tally of ${a.n} let go` });
    }
  }
}

/** A tally alone, to the isolate's current shard of the zone. */
function aloneAt(zone: string, t: ZoneTally): Delivery {
  const shard = Number.parseInt(currentLane(), 16) % t.shards;
  return { zone, shard, shards: t.shards, records: [], tally: tallyOf(t) };
}

function bump(minutes: Minutes, bucket: number, n: number): void {
  minutes.set(bucket, (minutes.get(bucket) ?? 0) + n);
}

/** Kinds × the codes an origin failure has (520–527, 530, 502, 1016…): the held avoided keys' bound per minute. */
const AVOIDED_KEYS_PER_MINUTE = 30;

function bumpAvoided(into: AvoidedCounts, bucket: number, kind: AvoidedKind, code: number, n: number): void {
  const key = `${bucket} ${kind} ${code}`;
  const known = into.get(key);
  if (known !== undefined) known.n += n;
  else into.set(key, { bucket, kind, code, n });
}

/** A tally as it crosses the RPC, under a new id (one delivered twice counts once: zone-analytics.ts `Tally`). */
function tallyOf(t: ZoneTally): Tally {
  const tally = { id: randomId(), requests: [...t.requests], dropped: [...t.dropped] };
  if (t.avoided.size === 0) return tally;
  return { ...tally, avoided: [...t.avoided.values()].map((a) => [a.bucket, a.kind, a.code, a.n] as const) };
}

/** The isolate's batcher. */
export const recorder = new RecordBatcher();

/** The sink of a Worker's environment: the shard's ZoneAnalytics object (shards.ts `shardName`). */
export function analyticsSink(env: Env): RecordSink {
  return async (d) => {
    const ns = env.ZONE_ANALYTICS;
    const stub = ns.get(ns.idFromName(shardName(d.zone, d.shard)));
    // One string crosses the RPC, not an object per record (record.ts `encodeBatch`).
    await stub.recordEncoded(encodeBatch(d.records), d.tally);
  };
}
