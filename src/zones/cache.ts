/**
 * Per-isolate zone cache (contract §6, §8): at most `TTL_MS` old, at most `MAX_ENTRIES` entries (LRU), and
 * unknown hosts cached too (negative entries), so a flood of requests for random hosts costs one KV read per
 * host per TTL and bounded memory. Concurrent misses for one host share a single KV read. Writes through the
 * API update the entry at once, so a change is visible on the writing isolate immediately.
 */
import { ok, type Result } from "../result";
import type { Zone } from "./schema";
import { readZone, type StoreFailure } from "./store";

export const TTL_MS = 10_000;
export const MAX_ENTRIES = 1024;

interface Entry {
  readonly zone: Zone | null;
  readonly expires: number;
}

const entries = new Map<string, Entry>();
const inflight = new Map<string, Promise<Result<Zone | null, StoreFailure>>>();

/** The zone config for `host` (`null` = none), from the cache when fresh, else from KV. */
export function lookupZone(kv: KVNamespace, host: string, now = Date.now()): Promise<Result<Zone | null, StoreFailure>> | Result<Zone | null, StoreFailure> {
  const hit = entries.get(host);
  if (hit !== undefined && hit.expires > now) {
    // Refresh recency: Map iteration order is insertion order, so re-inserting makes this the newest.
    entries.delete(host);
    entries.set(host, hit);
    return ok(hit.zone);
  }
  const shared = inflight.get(host);
  if (shared !== undefined) return shared;
  const pending: Promise<Result<Zone | null, StoreFailure>> = readZone(kv, host).then((result) => {
    // A write on this isolate while the read was in flight has already replaced the entry: keep the write.
    if (inflight.get(host) !== pending) return result;
    inflight.delete(host);
    // Failures are not cached: the next request retries KV.
    if (result.ok) remember(host, result.value, Date.now());
    return result;
  });
  inflight.set(host, pending);
  return pending;
}

/** Records what the writing isolate just stored (or deleted: `null`). */
export function remember(host: string, zone: Zone | null, now = Date.now()): void {
  inflight.delete(host);
  entries.delete(host);
  entries.set(host, { zone, expires: now + TTL_MS });
  if (entries.size > MAX_ENTRIES) {
    const oldest = entries.keys().next();
    if (!oldest.done) entries.delete(oldest.value);
  }
}

/** Number of cached hosts (for tests of the bound). */
export function cachedHostCount(): number {
  return entries.size;
}
