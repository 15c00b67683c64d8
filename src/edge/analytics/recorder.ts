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
 * `busyWaitMs` of them (plus any batch whose RPC was in flight). A failed write is logged once per batch and
 * dropped: recording never retries into the response path.
 */
import { encodeBatch, type ErrorRecord } from "../../state/analytics/record";
import { logEvent } from "../../shared/log";

/** Where a batch goes: one call per zone. */
export type RecordSink = (zone: string, batch: readonly ErrorRecord[]) => Promise<void>;

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

export class RecordBatcher {
  private pending = new Map<string, ErrorRecord[]>();
  private size = 0;
  private openedAt: number | null = null;
  /** The open window's length (`maxWaitMs`, or `busyWaitMs` after a busy window). */
  private windowMs: number;
  /** Whether the last window flushed `busyRecords` or more. */
  private busy = false;

  constructor(
    private readonly limits: BatchLimits = DEFAULT_BATCH,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.windowMs = limits.maxWaitMs;
  }

  /** Records held and not yet handed to a sink. */
  get held(): number {
    return this.size;
  }

  add(
    zone: string,
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
      this.openedAt = now;
      this.windowMs = this.busy ? (this.limits.busyWaitMs ?? this.limits.maxWaitMs) : this.limits.maxWaitMs;
      invocation.waitUntil(this.write(sink, new Map([[zone, [record]]])));
      return;
    }
    let list = this.pending.get(zone);
    if (list === undefined) {
      list = [];
      this.pending.set(zone, list);
    }
    list.push(record);
    this.size += 1;
    if (dead || this.size >= this.limits.maxRecords) {
      invocation.waitUntil(this.flush(sink));
      return;
    }
    // The first record to wait closes the window from its own request, when the window ends.
    if (this.size === 1) {
      const left = Math.max(0, this.openedAt + this.windowMs - now);
      invocation.waitUntil(this.sleep(left).then(() => this.flush(sink)));
    }
  }

  /** Hands every held batch to the sink (one call per zone); never rejects. */
  async flush(sink: RecordSink): Promise<void> {
    const batches = this.pending;
    this.busy = this.size >= (this.limits.busyRecords ?? Infinity);
    this.pending = new Map();
    this.size = 0;
    this.openedAt = null;
    await this.write(sink, batches);
  }

  /** One sink call per zone; a failure is logged once per batch and dropped (never rejects). */
  private async write(sink: RecordSink, batches: ReadonlyMap<string, readonly ErrorRecord[]>): Promise<void> {
    await Promise.all(
      [...batches].map(async ([zone, batch]) => {
        try {
          await sink(zone, batch);
        } catch (error) {
          logEvent("analytics_write_failed", { zone, records: batch.length, cause: String(error) });
        }
      }),
    );
  }
}

/** The isolate's batcher. */
export const recorder = new RecordBatcher();

/** The sink of a Worker's environment: the zone's ZoneAnalytics object. */
export function analyticsSink(env: Env): RecordSink {
  return async (zone, batch) => {
    const stub = env.ZONE_ANALYTICS.get(env.ZONE_ANALYTICS.idFromName(zone));
    // One string crosses the RPC, not an object per record (record.ts `encodeBatch`).
    await stub.recordEncoded(encodeBatch(batch));
  };
}
