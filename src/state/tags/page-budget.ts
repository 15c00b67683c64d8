/**
 * The byte budget of one listing page (docs/tags-api.md: "a page also has a byte budget, well under the runtime's
 * 32 MiB RPC limit"). A page is the object's RPC return value, so without a budget 100 resources of legal size
 * (100 tags of 256-code-point keys and 1,024-code-point values each, 512 KiB) already serialise to 51 MB and the
 * request ends in a 500.
 *
 * The budget counts the UTF-8 bytes of the items' JSON as the client receives it. Structured clone stores a
 * string as Latin-1 or UTF-16, at most 2 bytes per UTF-8 byte (ASCII inside a string that also holds a
 * non-Latin-1 character), so 8 MiB of JSON is at most ~16 MiB on the wire between Worker and object: half the
 * RPC limit. The largest item is far below the budget: a resource carries at most one 1 MiB body of tags
 * (docs/configuration.md), a key or value page item at most 6 KiB, and a summary item is split across pages (summary.ts).
 */
import { PAGE_SIZE } from "./filters";

export const PAGE_BYTE_BUDGET = 8 * 1024 * 1024;

/** UTF-8 length of a string, without encoding it (a surrogate pair is one 4-byte code point). */
export function utf8Length(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** Bytes `value` adds to a JSON array: its JSON text and the comma before the next item. */
export function jsonBytes(value: unknown): number {
  return utf8Length(JSON.stringify(value)) + 1;
}

/** One candidate item of a page, with the sort key a cursor after it would carry. */
export interface PageRow<T> {
  readonly item: T;
  readonly sortKey: readonly string[];
}

/** A page cut from its candidate rows: the items, and the sort key to continue after (null on the last page). */
export interface PageCut<T> {
  readonly items: T[];
  readonly next: readonly string[] | null;
}

/**
 * Takes rows while the page has fewer than PAGE_SIZE items and the next item fits the budget. The first item
 * is always taken, so a page is never empty while rows remain (every legal account is listable). `rows` is
 * consumed lazily: it should yield at most PAGE_SIZE + 1 rows, and rows past the cut are never built.
 */
export function cutPage<T>(rows: Iterable<PageRow<T>>, budget = PAGE_BYTE_BUDGET): PageCut<T> {
  const items: T[] = [];
  let used = 0;
  let last: readonly string[] | null = null;
  for (const row of rows) {
    if (items.length === PAGE_SIZE) return { items, next: last };
    const bytes = jsonBytes(row.item);
    if (items.length > 0 && used + bytes > budget) return { items, next: last };
    items.push(row.item);
    used += bytes;
    last = row.sortKey;
  }
  return { items, next: null };
}
