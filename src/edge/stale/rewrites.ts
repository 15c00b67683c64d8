/**
 * How often one isolate writes a copy it already wrote (docs/fewer-errors.md "Cost"): each write tees the answer's
 * body and puts it in the Cache API, which cost a `stale_if_error` zone ~2.5 million instructions on every good
 * answer (bench `proxy`, the `stale_if_error 600` row, docs/benchmarks.md). A copy this isolate wrote is written again
 * only once that write is older than a tenth of the copy's lifetime, and at most `REWRITE_AFTER_MAX_MS`: so a copy is
 * never more than that older than the latest good answer, and answers a failure at most that much less long after
 * it. An origin failure on the URL forgets the write (`forgetWrite`): the first good answer after an outage always
 * renews the copy. Answers with `Vary` (one copy per variant) are written every time.
 */
import { BoundedCache } from "../../shared/bounded-cache";

/** The longest a copy written here waits before it is written again, ms (docs/fewer-errors.md "Cost"). */
export const REWRITE_AFTER_MAX_MS = 60_000;
/** URLs whose last write this isolate remembers (least recently used out: a forgotten one is written again). */
export const WRITES_CACHE_SIZE = 10_000;

const written = new BoundedCache<string, number>({ capacity: WRITES_CACHE_SIZE });

/**
 * Whether the copy of `key` (zone and URL) should be written at `now`, a copy usable for `ttlSeconds`; when it should,
 * the write is noted.
 */
export function claimWrite(key: string, ttlSeconds: number, now: number): boolean {
  const at = written.get(key);
  if (at !== undefined && now - at < Math.min(ttlSeconds * 100, REWRITE_AFTER_MAX_MS)) return false;
  written.set(key, now);
  return true;
}

/** The write of `key` failed, or its origin did: the next good answer writes the copy again. */
export function forgetWrite(key: string): void {
  written.delete(key);
}
