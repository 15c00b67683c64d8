/** The TagStore object itself (runInDurableObject): schema, migrations, SQL shape, code point order. */
import { runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeCursor, type DecodedCursor } from "../../../../src/state/tags/cursor";
import { compileResourceQuery } from "../../../../src/state/tags/filters";
import { distinctKeysQuery, distinctPairsQuery, distinctValuesQuery } from "../../../../src/state/tags/listings";
import { EMPTY_TAGS_ETAG } from "../../../../src/state/tags/etag";
import { migrate } from "../../../../src/state/migrations";
import { TAG_MIGRATIONS as MIGRATIONS } from "../../../../src/state/tags/schema";
import type { TagStore } from "../../../../src/state/tags/tag-store";
import { compareCodePoints, isWellFormed } from "../../../../src/state/tags/text";
import type { ResourceQuery } from "../../../../src/state/tags/types";
import { newAccount, seed, storeOf } from "../../support/tags";

const WORST_QUERY: ResourceQuery = {
  filters: Array.from({ length: 20 }, (_, i) =>
    i % 2 === 0
      ? { kind: "equals" as const, key: `k${i}`, values: Array.from({ length: 10 }, (_, j) => `v${j}`) }
      : { kind: "notEquals" as const, key: `k${i}`, values: ["x"] },
  ),
  types: ["worker", "r2_bucket"],
  ids: Array.from({ length: 50 }, (_, i) => `id${i}`),
  name: "web",
  caseInsensitive: false,
};

describe("schema and migrations", () => {
  it("records each applied migration once and re-running is a no-op", async () => {
    await runInDurableObject(storeOf(newAccount()), (_instance: TagStore, state) => {
      const log = () => state.storage.sql.exec<{ version: number }>("SELECT version FROM schema_migrations").toArray();
      expect(log().map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
      const last = MIGRATIONS.length;
      expect(migrate(state.storage, MIGRATIONS)).toBe(last);
      expect(log().length).toBe(MIGRATIONS.length);
      // An appended migration is applied alone, in a transaction.
      const next = [...MIGRATIONS, { version: last + 1, name: "test", statements: ["CREATE TABLE probe (x)"] }];
      expect(migrate(state.storage, next)).toBe(last + 1);
      expect(log().map((r) => r.version)).toEqual(next.map((m) => m.version));
      // A failing migration leaves nothing behind.
      const broken = [
        ...next,
        { version: last + 2, name: "broken", statements: ["CREATE TABLE probe2 (x)", "NOT SQL"] },
      ];
      expect(() => migrate(state.storage, broken)).toThrow();
      expect(log().map((r) => r.version)).toEqual(next.map((m) => m.version));
      expect(state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'probe2'").toArray()).toEqual([]);
    });
  });
});

describe("domain failures (no HTTP inside the object)", () => {
  it("returns kinds, not statuses or wire codes, for If-Match, the limit and a foreign cursor", async () => {
    const a = newAccount();
    const store = storeOf(a);
    const ref = { type: "worker" as const, parent: "", id: "w" };
    const put = (ifMatch: { kind: "tags"; etags: string[] } | null, limit: number) =>
      store.putTags({ ref, tags: [["k", "v"]], etag: "v1:x", ifMatch, limit });
    expect(await put({ kind: "tags", etags: ["nope"] }, 10)).toEqual({
      ok: false,
      error: { kind: "precondition-failed" },
    });
    expect(await put(null, 0)).toEqual({ ok: false, error: { kind: "limit-reached", limit: 0 } });
    expect(await store.deleteTags({ ref, ifMatch: { kind: "tags", etags: ["nope"] } })).toEqual({
      ok: false,
      error: { kind: "precondition-failed" },
    });
    await seed(
      a,
      Array.from({ length: 101 }, (_, i): [string, Record<string, string>] => [
        `w${i}`,
        { [`k${String(i).padStart(3, "0")}`]: "" },
      ]),
    );
    const page = await store.listKeys({ scope: { account: a, query: '["keys"]' }, cursor: null });
    const decoded = page.ok && page.value.next !== null ? decodeCursor(page.value.next, 1) : null;
    if (!decoded?.ok) throw new Error("expected a cursor");
    expect(await store.listKeys({ scope: { account: a, query: '["other"]' }, cursor: decoded.value })).toEqual({
      ok: false,
      error: { kind: "invalid-cursor" },
    });
  });
});

describe("compiled resource query", () => {
  it("binds the worst allowed query with < 100 parameters and no user text in the SQL", () => {
    const { sql, params } = compileResourceQuery(WORST_QUERY, ["worker", "", "id0"]);
    expect(params.length).toBe(46); // limit: 100 per statement
    expect((sql.match(/\?/g) ?? []).length).toBe(params.length);
    for (const text of ["k0", "v1", "web", "id0", "r2_bucket"]) expect(sql).not.toContain(text);
  });

  it("runs against real SQLite and seeks by primary key (no scan of tags)", async () => {
    const a = newAccount();
    await seed(a, [["w", { k0: "v0" }]]);
    await runInDurableObject(storeOf(a), (_instance: TagStore, state) => {
      const { sql, params } = compileResourceQuery(WORST_QUERY, null);
      expect(state.storage.sql.exec(sql, ...params).toArray()).toEqual([]);
      const plan = state.storage.sql
        .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ...params)
        .toArray()
        .map((r) => r.detail);
      expect(plan.some((d) => /^SCAN t\b/.test(d))).toBe(false);
      expect(plan.filter((d) => /SEARCH t USING PRIMARY KEY/.test(d)).length).toBeGreaterThan(0);
    });
  });
});

describe("binary (code point) order", () => {
  it("SQLite's order of values equals code point order for arbitrary Unicode", async () => {
    const a = newAccount();
    const store = storeOf(a);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.string({ unit: "binary", minLength: 1, maxLength: 6 }).filter(isWellFormed), {
          minLength: 1,
          maxLength: 30,
        }),
        async (values) => {
          const key = `p${crypto.randomUUID().slice(0, 8)}`;
          await seed(
            a,
            values.map((v, i) => [`${key}-${i}`, { [key]: v }]),
          );
          const listed = await store.listValues({ scope: { account: a, query: "t" }, cursor: null, key, type: null });
          expect(listed.ok && listed.value.items).toEqual([...values].sort(compareCodePoints));
        },
      ),
      { numRuns: 25 },
    );
  }, 60_000);

  it("keeps the cursor key inside the object", async () => {
    const a = newAccount();
    await seed(
      a,
      Array.from({ length: 101 }, (_, i): [string, Record<string, string>] => [
        `w${i}`,
        { [`k${String(i).padStart(3, "0")}`]: "" },
      ]),
    );
    const page = await storeOf(a).listKeys({ scope: { account: a, query: '["keys"]' }, cursor: null });
    expect(page.ok && page.value.next).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    await runInDurableObject(storeOf(a), (_i: TagStore, state) => {
      const row = state.storage.sql
        .exec<{ value: ArrayBuffer }>("SELECT value FROM meta WHERE name = 'cursor_key'")
        .one();
      expect(row.value.byteLength).toBe(32);
    });
  });
});

describe("keys and values listings (loose index scan)", () => {
  it("pages distinct values, with and without a type, and seeks instead of scanning", async () => {
    const a = newAccount();
    const store = storeOf(a);
    await runInDurableObject(store, (instance: TagStore) => {
      const put = (type: "worker" | "r2_bucket", id: string, value: string) =>
        instance.putTags({
          ref: { type, parent: "", id },
          tags: [["k", value]],
          etag: EMPTY_TAGS_ETAG,
          ifMatch: null,
          limit: 1e9,
        });
      for (let i = 0; i < 260; i++) put("worker", `w${i}`, `v-${String(i % 130).padStart(3, "0")}`);
      for (let i = 0; i < 20; i++) put("r2_bucket", `b${i}`, `r2-${String(i).padStart(2, "0")}`);
    });
    const all = async (type: string | null) => {
      const pages: string[][] = [];
      let cursor: DecodedCursor | null = null;
      do {
        const res = await store.listValues({ scope: { account: a, query: "q" }, cursor, key: "k", type });
        if (!res.ok) throw new Error("listing failed");
        pages.push([...res.value.items]);
        const decoded = res.value.next === null ? null : decodeCursor(res.value.next, 1);
        cursor = decoded?.ok ? decoded.value : null;
      } while (cursor !== null);
      return pages;
    };
    const workers = Array.from({ length: 130 }, (_, i) => `v-${String(i).padStart(3, "0")}`);
    const buckets = Array.from({ length: 20 }, (_, i) => `r2-${String(i).padStart(2, "0")}`);
    expect(await all("worker")).toEqual([workers.slice(0, 100), workers.slice(100)]);
    expect(await all("r2_bucket")).toEqual([buckets]);
    const everything = [...buckets, ...workers];
    expect(await all(null)).toEqual([everything.slice(0, 100), everything.slice(100)]);
    await runInDurableObject(store, (_i: TagStore, state) => {
      for (const { sql, params } of [
        distinctKeysQuery(null),
        distinctKeysQuery("a"),
        distinctValuesQuery("k", null, "v-050"),
        distinctValuesQuery("k", "worker", null),
      ]) {
        const plan = state.storage.sql
          .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ...params)
          .toArray()
          .map((r) => r.detail);
        expect(
          plan.some((d) => /SCAN tags/.test(d)),
          plan.join("; "),
        ).toBe(false);
      }
      // The summary streams (key, value) pairs in index order: no sort and no DISTINCT table to build first, so a
      // page that stops early reads only its own rows.
      for (const { sql, params } of [
        distinctPairsQuery(null),
        distinctPairsQuery(["k"]),
        distinctPairsQuery(["k", "v-050"]),
      ]) {
        const plan = state.storage.sql
          .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ...params)
          .toArray()
          .map((r) => r.detail);
        expect(plan.join("; ")).toMatch(/COVERING INDEX tags_by_key_value/);
        expect(
          plan.some((d) => /TEMP B-TREE/.test(d)),
          plan.join("; "),
        ).toBe(false);
      }
    });
  });
});
