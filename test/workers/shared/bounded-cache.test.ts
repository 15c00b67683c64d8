/** The one per-isolate cache type (docs/configuration.md: caches are bounded): capacity, byte budget, LRU order. */
import { describe, expect, it } from "vitest";
import { BoundedCache } from "../../../src/shared/bounded-cache";

describe("BoundedCache", () => {
  it("keeps at most `capacity` entries, the least recently used out first", () => {
    const cache = new BoundedCache<string, number>({ capacity: 2 });
    cache.set("a", 1);
    cache.set("b", 2);
    expect(cache.get("a")).toBe(1); // "b" is now the least recently used
    cache.set("c", 3);
    expect(cache.size).toBe(2);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBe(1);
    expect(cache.get("c")).toBe(3);
  });

  it("a hit on the most recently used key keeps the order; deleting or evicting it forgets it", () => {
    const cache = new BoundedCache<string | undefined, number>({ capacity: 2 });
    cache.set("a", 1);
    expect(cache.get("a")).toBe(1); // already the newest
    cache.set("b", 2);
    expect(cache.get("b")).toBe(2); // already the newest: "a" stays the least recently used
    cache.set("c", 3);
    expect(cache.peek("a")).toBeUndefined();
    expect(cache.get("b")).toBe(2); // "b" becomes the newest, "c" the least recently used
    cache.delete("b");
    cache.set("d", 4);
    cache.set("b", 5);
    expect(cache.peek("c")).toBeUndefined();
    expect(cache.get("d")).toBe(4); // not the newest ("b" is): refreshed, so "b" leaves next
    cache.set("e", 6);
    expect(cache.peek("b")).toBeUndefined();
    // `undefined` is a key like any other, never mistaken for "no newest key".
    cache.clear();
    cache.set(undefined, 7);
    cache.set("f", 8);
    expect(cache.get(undefined)).toBe(7);
    cache.set("g", 9);
    expect(cache.peek("f")).toBeUndefined();
    expect(cache.peek(undefined)).toBe(7);
  });

  it("peek does not refresh recency (insertion order: FIFO for memos that only peek)", () => {
    const cache = new BoundedCache<string, number>({ capacity: 2 });
    cache.set("a", 1);
    cache.set("b", 2);
    expect(cache.peek("a")).toBe(1);
    cache.set("c", 3);
    expect(cache.peek("a")).toBeUndefined();
    expect(cache.peek("b")).toBe(2);
  });

  it("keeps at most `maxBytes`, evicting the least recently used until it fits; a value over the budget is not kept", () => {
    const cache = new BoundedCache<string, string>({ capacity: 100, maxBytes: 10, sizeOf: (v) => v.length });
    cache.set("a", "aaaa");
    cache.set("b", "bbbb");
    expect(cache.bytes).toBe(8);
    cache.set("c", "cccc"); // 12 > 10: "a" leaves
    expect(cache.peek("a")).toBeUndefined();
    expect(cache.bytes).toBe(8);
    cache.set("huge", "x".repeat(11));
    expect(cache.peek("huge")).toBeUndefined();
    expect(cache.bytes).toBe(8);
    expect(cache.size).toBe(2);
  });

  it("replacing an entry adjusts the bytes held; delete and clear too", () => {
    const cache = new BoundedCache<string, string>({ capacity: 10, maxBytes: 100, sizeOf: (v) => v.length });
    cache.set("a", "12345");
    cache.set("a", "12");
    expect(cache.bytes).toBe(2);
    expect(cache.size).toBe(1);
    cache.set("b", "123");
    expect(cache.delete("a")).toBe(true);
    expect(cache.bytes).toBe(3);
    cache.clear();
    expect(cache.bytes).toBe(0);
    expect(cache.size).toBe(0);
  });

  it("getOrBuild builds once per key while it is kept", () => {
    const cache = new BoundedCache<string, number>({ capacity: 1 });
    let builds = 0;
    const get = (k: string) => cache.getOrBuild(k, () => ++builds);
    expect(get("a")).toBe(1);
    expect(get("a")).toBe(1);
    get("b"); // evicts "a"
    expect(get("a")).toBe(3);
  });
});
