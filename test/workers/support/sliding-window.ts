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
