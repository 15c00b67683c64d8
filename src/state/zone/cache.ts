/**
 * The raw zone documents behind the compiled zone (src/edge/compiled-zone.ts, the one lookup traffic uses).
 * Per-isolate zone cache (docs/configuration.md): at most `TTL_MS` old, at most `MAX_ENTRIES` entries (LRU), and
 * unknown hosts cached too (negative entries), so a flood of requests for random hosts costs one KV read per
 * host per TTL and bounded memory. Writes through the API update the entry at once, so a change is visible on
 * the writing isolate immediately.
 *
 * Only plain values are shared between requests, never a pending KV promise: in workerd, a request that
 * awaits a promise created by another request's I/O continues in that other request's context, and its next
 * subrequest fails ("Cannot perform I/O on behalf of a different request"; found under load by the proxy
 * benchmark). Concurrent misses for one host therefore each read KV once; the first to finish fills the entry.
 */
import { BoundedCache } from "../../shared/bounded-cache";
import { hostnameProblem } from "../../shared/host";
import { ok, type Result } from "../../shared/result";
import type { Zone } from "./schema";
import { readZone, type StoreFailure } from "./store";

export const TTL_MS = 10_000;
export const MAX_ENTRIES = 1024;

interface Entry {
  readonly zone: Zone | null;
  readonly expires: number;
  /** When the entry was stored: a KV read that started earlier must not overwrite it. */
  readonly storedAt: number;
}

const entries = new BoundedCache<string, Entry>({ capacity: MAX_ENTRIES });

/**
 * The cached zone for `host` when fresh (`null` = known to have none), or `undefined` on a miss. Synchronous,
 * so the hot path costs one Map lookup and no promise.
 */
export function cachedZone(host: string, now = Date.now()): Zone | null | undefined {
  const hit = entries.get(host);
  if (hit === undefined || hit.expires <= now) return undefined;
  return hit.zone;
}

/** The zone config for `host` (`null` = none), from the cache when fresh, else from KV. */
export async function lookupZone(
  kv: KVNamespace,
  host: string,
  now = Date.now(),
): Promise<Result<Zone | null, StoreFailure>> {
  const hit = cachedZone(host, now);
  if (hit !== undefined) return ok(hit);
  // A name that is not a DNS hostname can never be a zone (the zones API refuses it): no KV read, whose 512-byte
  // key limit would throw for a long Host and pass for a CONFIG outage, and no cache entry, so a flood of junk
  // hosts cannot evict real zones (docs/configuration.md: bounded caches).
  if (hostnameProblem(host) !== null) return ok(null);
  const result = await readZone(kv, host);
  // Failures are not cached (the next request retries KV); a write that landed during the read wins.
  const current = entries.peek(host);
  if (result.ok && (current === undefined || current.storedAt <= now)) remember(host, result.value, Date.now());
  return result;
}

/** Records what the writing isolate just stored (or deleted: `null`). */
export function remember(host: string, zone: Zone | null, now = Date.now()): void {
  entries.set(host, { zone, expires: now + TTL_MS, storedAt: now });
}

/** Number of cached hosts (for tests of the bound). */
export function cachedHostCount(): number {
  return entries.size;
}
