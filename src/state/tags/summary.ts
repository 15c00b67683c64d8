/**
 * Pages of `GET /tags/summary` (docs/tags-api.md): keys with their distinct values, 100 keys per page and within the
 * page byte budget (page-budget.ts). One key may hold far more values than a page can carry (10,000 values of
 * 1,024 code points are ~40 MB), so a key whose values pass the budget is split: the page ends inside the key
 * with a cursor `[key, last value]`, and the next page starts with the same key and the values after it. A page
 * that ends between keys has the cursor `[key]` ("after this key"), the form every summary cursor had before.
 */
import { PAGE_SIZE } from "./filters";
import { jsonBytes, PAGE_BYTE_BUDGET, type PageCut } from "./page-budget";

export interface KeySummary {
  readonly key: string;
  readonly values: string[];
}

/**
 * Cuts one page from distinct (key, value) pairs in (key, value) order, consumed lazily: pairs past the cut
 * are never read. The first pair is always taken (a key and one value are at most ~7 KiB), so a page is never
 * empty while pairs remain.
 */
export function cutSummaryPage(
  pairs: Iterable<{ readonly key: string; readonly value: string }>,
  budget = PAGE_BYTE_BUDGET,
): PageCut<KeySummary> {
  const items: KeySummary[] = [];
  let current: KeySummary | null = null;
  let used = 0;
  for (const { key, value } of pairs) {
    const newKey = current === null || current.key !== key;
    if (current !== null && newKey && items.length === PAGE_SIZE) return { items, next: [current.key] };
    // A new item costs its `{"key":…,"values":[]}` frame; each value its JSON and a comma.
    const cost = (newKey ? jsonBytes({ key, values: [] }) : 0) + jsonBytes(value);
    if (current !== null && used + cost > budget) {
      const last = current.values[current.values.length - 1];
      return { items, next: newKey || last === undefined ? [current.key] : [current.key, last] };
    }
    if (current === null || newKey) {
      current = { key, values: [] };
      items.push(current);
    }
    current.values.push(value);
    used += cost;
  }
  return { items, next: null };
}
