/** The bounded per-isolate rule cache (contract §8). */
import { describe, expect, it } from "vitest";
import { RuleCache } from "../../../src/rules";
import { scheme } from "./helpers";

describe("RuleCache", () => {
  it("compiles once per source, caches failures, and evicts the least recently used", () => {
    const cache = new RuleCache(scheme, 2);
    const a = cache.get("n == 1");
    expect(a.ok).toBe(true);
    expect(cache.get("n == 1")).toBe(a);
    const bad = cache.get("n ==");
    expect(bad.ok).toBe(false);
    expect(cache.get("n ==")).toBe(bad);
    expect(cache.get("n == 1")).toBe(a); // touch: "n ==" is now the oldest
    cache.get("n == 2");
    expect(cache.size).toBe(2);
    expect(cache.get("n == 1")).toBe(a);
    expect(cache.get("n ==")).not.toBe(bad);
  });
});
