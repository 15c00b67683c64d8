/** The rate limiter's sliding windows as tests check them: the most in any window, and the counters an object holds. */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { RateLimiter } from "../../../src/state/rate-limiter/rate-limiter";

/**
 * The most of `times` (sorted ascending) that fall in any half-open window [s, s + length): the maximum is reached by
 * a window starting at one of them. The rate-limit tests check "never more than N in any window of period" with it.
 */
export function maxInWindow(times: readonly number[], length: number): number {
  let best = 0;
  let end = 0;
  for (let start = 0; start < times.length; start++) {
    if (end < start) end = start;
    while (end < times.length && times[end]! < times[start]! + length) end++;
    best = Math.max(best, end - start);
  }
  return best;
}

/** The `RateLimiter` object of `name` (tests pass a fresh name, so each test has its own). */
export const rateLimiterStub = (name: string): DurableObjectStub<RateLimiter> =>
  env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(name));

/** How many counters the object holds: 0 before its first counter made the table, and after its alarm removed it. */
export function counterRows(stub: DurableObjectStub<RateLimiter>): Promise<number> {
  return runInDurableObject(stub, (_: RateLimiter, state) => {
    const table = state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'sliding_counters'").toArray();
    return table.length === 0
      ? 0
      : state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM sliding_counters").one().n;
  });
}
