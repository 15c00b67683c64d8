/**
 * "Compile once per config version" (AGENTS.md), for every feature compiled from a zone document (request phases,
 * custom errors): one compiled value per key (the zone),
 * rebuilt only when the zone document's version changes, at most `capacity` keys per isolate (contract §8),
 * least recently used first out. Keyed by version, not by object identity, because the zone cache re-reads KV
 * every 10 s and gets a new object for the same version.
 */
export class VersionedMemo<T> {
  private readonly entries = new Map<string, { readonly version: number; readonly value: T }>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string, version: number, build: () => T): T {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.entries.delete(key); // re-inserted below: Map order is recency order
      if (hit.version === version) {
        this.entries.set(key, hit);
        return hit.value;
      }
    }
    const value = build();
    this.entries.set(key, { version, value });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    return value;
  }
}
