/**
 * Recording errors without delaying or failing the response (issue 24, docs/analytics.md "Loss bound").
 *
 * Records are batched per isolate and written to the zone's ZoneAnalytics object after the response, always from
 * a `waitUntil`:
 *   - a record arriving when the isolate is idle (no batch left in the last `maxWaitMs`) is written at once: a lone
 *     error waits for no window;
 *   - otherwise it opens a window of `maxWaitMs` (or joins the open one); the request of the window's first record
 *     flushes them all when the window closes (`waitUntil`), as the error log coalesces its lines
 *     (src/errors/error-log.ts). A sustained stream of errors thus costs one RPC, and one storage commit in the
 *     object, per window (docs/analytics.md "Cost per error");
 *   - a batch that reaches `maxRecords` is flushed at once, from the request that filled it (`waitUntil`);
 *   - a window whose flush never came (its request was cancelled) is flushed by the next record after twice its
 *     length.
 * So an isolate that dies loses at most the one batch it holds: fewer than `maxRecords` records, at most
 * `maxWaitMs` of them (plus any batch whose RPC was in flight). A failed write is logged once per batch and
 * dropped: recording never retries into the response path.
 */
import { encodeBatch, type ErrorRecord } from "../../state/analytics/record";
import { logEvent } from "../../shared/log";

/** Where a batch goes: one call per zone. */
export type RecordSink = (zone: string, batch: readonly ErrorRecord[]) => Promise<void>;

export interface BatchLimits {
  readonly maxRecords: number;
  readonly maxWaitMs: number;
}

// 50 ms: the error log's window (src/errors/error-log.ts), so a request that opens both waits no longer than before.
// 500 records: a window's worth at 10,000 errors/s from one isolate; one RPC then carries ~100 KB.
export const DEFAULT_BATCH: BatchLimits = { maxRecords: 500, maxWaitMs: 50 };

export class RecordBatcher {
  private pending = new Map<string, ErrorRecord[]>();
  private size = 0;
  private openedAt: number | null = null;
  /** When a batch last left (an idle isolate writes a lone error at once). */
  private lastWriteAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly limits: BatchLimits = DEFAULT_BATCH,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

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
    const dead = this.openedAt !== null && now - this.openedAt > 2 * this.limits.maxWaitMs;
    if (this.openedAt === null) {
      if (now - this.lastWriteAt >= this.limits.maxWaitMs) {
        // Idle (nothing written for a window's length): a lone error is stored at once; its request waits for one
        // RPC, not for a window.
        this.lastWriteAt = now;
        invocation.waitUntil(this.write(sink, new Map([[zone, [record]]])));
        return;
      }
      // Errors keep coming: this one opens a window and waits with the ones behind it, so a sustained stream
      // costs one RPC (and one storage commit) per window, not one more per lone write.
      this.openedAt = now;
    }
    let list = this.pending.get(zone);
    if (list === undefined) {
      list = [];
      this.pending.set(zone, list);
    }
    list.push(record);
    this.size += 1;
    if (dead || this.size >= this.limits.maxRecords) {
      invocation.waitUntil(this.flush(sink, now));
      return;
    }
    // The first record to wait closes the window from its own request, when the window ends.
    if (this.size === 1) {
      const closesAt = this.openedAt + this.limits.maxWaitMs;
      invocation.waitUntil(this.sleep(Math.max(0, closesAt - now)).then(() => this.flush(sink, closesAt)));
    }
  }

  /** Hands every held batch to the sink (one call per zone) at `now`; never rejects. */
  async flush(sink: RecordSink, now = Date.now()): Promise<void> {
    const batches = this.pending;
    this.pending = new Map();
    this.size = 0;
    this.openedAt = null;
    if (batches.size === 0) return; // a window flushed early (full) leaves its closer nothing
    this.lastWriteAt = now;
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
