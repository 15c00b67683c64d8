/**
 * Byte limits of legal data (hostile inputs 2 and 3): an account filled to its limit with the widest legal
 * tags is listable page by page (pages are bounded in bytes under the 32 MiB RPC limit), and the widest legal PUT
 * body is stored (no bound SQL parameter passes SQLite's string limit).
 */
import { describe, expect, it } from "vitest";
import { PAGE_BYTE_BUDGET } from "../../../../src/state/tags/page-budget";
import { allPages, call, newAccount, put, seed, worker, type Resource } from "../../support/tags";

/** A letter outside the BMP (𝒜, U+1D49C, category Lu): 4 bytes in UTF-8, 2 UTF-16 units. */
const WIDE = "\u{1D49C}";

describe("an account full of the widest legal tags is listable (hostile input 2)", () => {
  it("10,000 tags of 256-code-point keys and 1,024-code-point values: every page answers, all resources listed", async () => {
    const account = newAccount();
    const perResource = 125; // 125 × (1 KiB key + 4 KiB value) ≈ 640 KB of UTF-8: under the 1 MiB body of one PUT
    const resources: [string, Record<string, string>][] = [];
    for (let r = 0; r < 10_000 / perResource; r++) {
      const tags: Record<string, string> = {};
      for (let t = 0; t < perResource; t++) tags[String(t).padStart(3, "0") + WIDE.repeat(253)] = WIDE.repeat(1024);
      resources.push([`r${String(r).padStart(3, "0")}`, tags]);
    }
    await seed(account, resources);
    // Before the budget, the first page (all 80 resources, ~50 MB) failed the 32 MiB RPC limit: a 500.
    const pages = await allPages<Resource>(`/accounts/${account}/tags/resources`);
    expect(pages.length).toBeGreaterThan(1);
    const ids = pages.flat().map((r) => r.id);
    expect(ids).toEqual(resources.map(([id]) => id));
    for (const page of pages) {
      expect(JSON.stringify(page).length * 2).toBeLessThanOrEqual(PAGE_BYTE_BUDGET + 64 * 1024);
    }
    // `count` says how many came on a page cut short by the budget, and the keys listing is whole too.
    const first = await call<Resource[]>("GET", `/accounts/${account}/tags/resources`);
    expect(first.body?.result_info).toMatchObject({ count: first.body?.result.length, per_page: 100 });
    expect(first.body?.result_info?.cursor).toEqual(expect.any(String));
    const keys = await allPages<string>(`/accounts/${account}/tags/keys`);
    expect(keys.flat()).toHaveLength(perResource);
    // ~50 MB through the store: 8 s on a quiet machine, over 60 s beside a CPU hog and three other test runs.
  }, 180_000);
});

describe("the widest legal PUT body is stored (hostile input 3)", () => {
  it("500 tags whose values are 1,024 × İ (1,028,944 bytes): 200, and GET returns them with the same ETag", async () => {
    const account = newAccount();
    const tags: Record<string, string> = {};
    for (let i = 0; i < 500; i++) tags[`k${String(i).padStart(3, "0")}`] = "İ".repeat(1024);
    const body = worker("wide", tags);
    expect(new TextEncoder().encode(JSON.stringify(body)).byteLength).toBeLessThan(1024 * 1024);
    // Before: 500 SQLITE_TOOBIG (the rows and their case-folded forms went in as one ~2.6 MB parameter).
    const stored = await put(account, body);
    expect(stored.status).toBe(200);
    const read = await call<Resource>("GET", `/accounts/${account}/tags?resource_type=worker&resource_id=wide`);
    expect(read.status).toBe(200);
    expect(read.body?.result.tags).toEqual(tags);
    expect(read.headers.get("ETag")).toBe(stored.headers.get("ETag"));
    // The case-folded forms were stored too: a case-insensitive filter on the lower-case spelling finds it.
    const found = await call<Resource[]>(
      "GET",
      `/accounts/${account}/tags/resources?tag=${encodeURIComponent(`K000=${"İ".repeat(1024)}`)}&case_insensitive=true`,
    );
    expect(found.status).toBe(200);
    expect(found.body?.result.map((r) => r.id)).toEqual(["wide"]);
  });
});
