/**
 * The one per-isolate cache type (docs/configuration.md: "caches are bounded"): at most `capacity` entries and, when a
 * `sizeOf` is given, at most `maxBytes` of values; the least recently used entry leaves first. A Map iterates in
 * insertion order, so deleting and re-inserting a key on every hit makes the first key the least recently used:
 * a hit costs two Map operations, an eviction one, except a hit on the key already most recently used (the
 * common case of a hot key: one zone, one Accept, one rule text), which changes no order and costs one lookup.
 * Every per-isolate cache of the service is one of these (docs/architecture.md "Per-isolate caches").
 */
export interface BoundedCacheOptions<V> {
  /** Most entries kept (≥ 1). */
  readonly capacity: number;
  /** Most bytes kept, as measured by `sizeOf` (both or neither). A value larger than the budget is not kept. */
  readonly maxBytes?: number;
  readonly sizeOf?: (value: V) => number;
}

/** No key (a key may be `undefined`). */
const NONE: unique symbol = Symbol("none");

export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();
  private readonly capacity: number;
  private readonly maxBytes: number;
  private readonly sizeOf: ((value: V) => number) | undefined;
  private total = 0;
  /**
   * The key stored or refreshed last, i.e. the Map's last key (NONE when unknown): a hit on it skips the
   * delete and re-insert, which would leave the order as it is (the zone cache's hit on the one zone of
   * a burst was two Map writes per request).
   */
  private newest: K | typeof NONE = NONE;

  constructor(options: BoundedCacheOptions<V>) {
    this.capacity = Math.max(1, options.capacity);
    this.maxBytes = options.maxBytes ?? Infinity;
    this.sizeOf = options.sizeOf;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Bytes held (0 without `sizeOf`). */
  get bytes(): number {
    return this.total;
  }

  /** The value for `key`, made the most recently used; undefined on a miss. */
  get(key: K): V | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined || key === this.newest) return hit;
    this.entries.delete(key);
    this.entries.set(key, hit);
    this.newest = key;
    return hit;
  }

  /** The value without touching its recency (for a check that must not keep an entry alive). */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Stores `value` as the most recently used, replacing any value of `key`, then evicts past the bounds. */
  set(key: K, value: V): void {
    this.delete(key);
    const bytes = this.sizeOf === undefined ? 0 : this.sizeOf(value);
    if (bytes > this.maxBytes) return;
    this.entries.set(key, value);
    this.newest = key;
    this.total += bytes;
    while (this.entries.size > this.capacity || this.total > this.maxBytes) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.delete(oldest.value);
    }
  }

  /** The cached value, or `build()`'s, stored. */
  getOrBuild(key: K, build: () => V): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const value = build();
    this.set(key, value);
    return value;
  }

  delete(key: K): boolean {
    const old = this.entries.get(key);
    if (old === undefined) return false;
    this.entries.delete(key);
    if (key === this.newest) this.newest = NONE;
    if (this.sizeOf !== undefined) this.total -= this.sizeOf(old);
    return true;
  }

  clear(): void {
    this.entries.clear();
    this.newest = NONE;
    this.total = 0;
  }
}
