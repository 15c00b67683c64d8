/** Cutting pages to PAGE_SIZE items and the byte budget (docs/tags-api.md), the summary's split keys, long cursors. */
import { describe, expect, it } from "vitest";
import {
  decodeCursor,
  importCursorKey,
  MAX_CURSOR_LENGTH,
  signCursor,
  verifyCursor,
} from "../../../../src/state/tags/cursor";
import { cutPage, jsonBytes, utf8Length, type PageRow } from "../../../../src/state/tags/page-budget";
import { cutSummaryPage } from "../../../../src/state/tags/summary";

const rows = (items: string[]): PageRow<string>[] => items.map((item) => ({ item, sortKey: [item] }));
const pairs = (key: string, values: string[]) => values.map((value) => ({ key, value }));

describe("utf8Length", () => {
  it.each(["", "abc", "é", "€", "\u{1F600}", "a\uD800b", "\uDC00", "İ".repeat(3), "\u0001"])("%j", (s) => {
    // A lone surrogate is what TextEncoder writes as U+FFFD (3 bytes); JSON never carries one from storage.
    expect(utf8Length(s)).toBe(new TextEncoder().encode(s).byteLength);
  });
});

describe("cutPage", () => {
  it("takes 100 items, then a cursor after the 100th", () => {
    const all = Array.from({ length: 150 }, (_, i) => `k${String(i).padStart(3, "0")}`);
    expect(cutPage(rows(all))).toEqual({ items: all.slice(0, 100), next: ["k099"] });
    expect(cutPage(rows(all.slice(0, 100)))).toEqual({ items: all.slice(0, 100), next: null });
  });

  it("ends early at the byte budget, and always takes the first item", () => {
    const big = ["a".repeat(100), "b".repeat(100), "c".repeat(100)];
    const budget = jsonBytes(big[0]) + jsonBytes(big[1]);
    expect(cutPage(rows(big), budget)).toEqual({ items: big.slice(0, 2), next: [big[1]] });
    expect(cutPage(rows(big), budget - 1)).toEqual({ items: big.slice(0, 1), next: [big[0]] });
    expect(cutPage(rows(big), 1)).toEqual({ items: big.slice(0, 1), next: [big[0]] });
  });

  it("reads no row past the cut", () => {
    let read = 0;
    function* lazy(): Generator<PageRow<string>> {
      for (let i = 0; i < 1_000; i++) {
        read++;
        yield { item: String(i), sortKey: [String(i)] };
      }
    }
    cutPage(lazy());
    expect(read).toBe(101);
  });
});

describe("cutSummaryPage", () => {
  it("groups values by key, 100 keys per page, cursor [key] between keys", () => {
    const input = Array.from({ length: 101 }, (_, i) => pairs(`k${String(i).padStart(3, "0")}`, ["x", "y"])).flat();
    const page = cutSummaryPage(input);
    expect(page.items.length).toBe(100);
    expect(page.items[0]).toEqual({ key: "k000", values: ["x", "y"] });
    expect(page.next).toEqual(["k099"]);
    expect(cutSummaryPage(input.slice(0, 200)).next).toBeNull();
  });

  it("splits a key at the budget with the cursor [key, last value]", () => {
    const values = ["v1".repeat(50), "v2".repeat(50), "v3".repeat(50)];
    const input = [...pairs("a", values), ...pairs("b", ["z"])];
    const frame = jsonBytes({ key: "a", values: [] });
    const budget = frame + jsonBytes(values[0]) + jsonBytes(values[1]);
    expect(cutSummaryPage(input, budget)).toEqual({
      items: [{ key: "a", values: values.slice(0, 2) }],
      next: ["a", values[1]],
    });
    // The rest of the key, then the next key, fit the next page: it starts with the same key.
    expect(cutSummaryPage(input.slice(2), budget)).toEqual({
      items: [
        { key: "a", values: [values[2]] },
        { key: "b", values: ["z"] },
      ],
      next: null,
    });
    // A page that fills up exactly at the end of a key continues after the key.
    expect(cutSummaryPage([...pairs("a", values.slice(0, 2)), ...pairs("b", ["z"])], budget).next).toEqual(["a"]);
  });

  it("signs and accepts the longest [key, value] cursor", async () => {
    const key = "\u{1D400}".repeat(256);
    const value = "\u0001".repeat(1024);
    const hmac = await importCursorKey(crypto.getRandomValues(new Uint8Array(32)).buffer);
    const scope = { account: "a".repeat(32), query: '["summary"]' };
    const text = await signCursor(hmac, scope, [key, value]);
    expect(text.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
    const decoded = decodeCursor(text, [1, 2]);
    expect(decoded.ok && (await verifyCursor(hmac, scope, decoded.value))).toBe(true);
    expect(decodeCursor(text, 1).ok).toBe(false);
  });
});
