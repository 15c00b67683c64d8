/**
 * Per-isolate "blocked until" cache (contract §4): once a counter says a client is blocked until T, further
 * requests of that client on this isolate are answered 1015 without a Durable Object round trip until T, so a
 * flood of blocked requests costs a Map lookup each, not a call to the counter. Bounded (contract §8); entries
 * leave when they expire or, past the bound, oldest first.
 */
export const BLOCKED_CACHE_SIZE = 10_000;

export class BlockedCache {
  private readonly entries = new Map<string, number>();

  constructor(readonly capacity: number = BLOCKED_CACHE_SIZE) {}

  get size(): number {
    return this.entries.size;
  }

  /** The end of a known block of `name` at `now`, or undefined. */
  blockedUntil(name: string, now: number): number | undefined {
    const until = this.entries.get(name);
    if (until === undefined) return undefined;
    if (until <= now) {
      this.entries.delete(name);
      return undefined;
    }
    return until;
  }

  remember(name: string, until: number): void {
    this.entries.delete(name);
    this.entries.set(name, until);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }
}
