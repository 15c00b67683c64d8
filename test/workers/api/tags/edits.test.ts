/** PATCH (a JSON Merge Patch of one resource's tags) and bulk edits (docs/tags-api.md "PATCH", "Bulk edit"). */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { etagOf } from "../../../../src/state/tags/etag";
import type { TagStore } from "../../../../src/state/tags/tag-store";
import { call, errorCode, newAccount, put, storeOf, worker, type Resource } from "../../support/tags";

const patch = (account: string, body: unknown, headers?: Record<string, string>) =>
  call<Resource>("PATCH", `/accounts/${account}/tags`, { body, headers });
const bulk = (account: string, body: unknown) => call<Resource[]>("POST", `/accounts/${account}/tags/bulk`, { body });
const get = (account: string, id: string) =>
  call<Resource>("GET", `/accounts/${account}/tags?resource_type=worker&resource_id=${encodeURIComponent(id)}`);

async function totals(account: string): Promise<{ total: number; rows: number }> {
  return runInDurableObject(storeOf(account), (_i: TagStore, state) => ({
    total: state.storage.sql.exec<{ value: number }>("SELECT value FROM meta WHERE name = 'tag_total'").one().value,
    rows: state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM tags").one().n,
  }));
}

describe("PATCH /accounts/{account_id}/tags", () => {
  it("sets, changes and removes keys, keeps the rest, and answers the ETag of the merged set", async () => {
    const a = newAccount();
    await put(a, worker("api", { env: "prod", team: "web", old: "x" }));
    const res = await patch(a, {
      resource_type: "worker",
      resource_id: "api",
      tags: { team: "api", old: null, new: "" },
    });
    expect(res.status).toBe(200);
    expect(res.body?.result.tags).toEqual({ env: "prod", new: "", team: "api" });
    expect(Object.keys(res.body?.result.tags ?? {})).toEqual(["env", "new", "team"]);
    // The same ETag a PUT of the merged set gives.
    const same = await put(a, worker("api", { env: "prod", new: "", team: "api" }));
    expect(res.body?.result.etag).toBe(same.body?.result.etag);
    expect(res.headers.get("ETag")).toBe(`"${same.body?.result.etag}"`);
    expect(await totals(a)).toEqual({ total: 3, rows: 3 });
  });

  it("creates a resource, and removing every key removes it from the listings", async () => {
    const a = newAccount();
    expect((await patch(a, { resource_type: "worker", resource_id: "n", tags: { k: "v" } })).body?.result.tags).toEqual(
      { k: "v" },
    );
    const gone = await patch(a, { resource_type: "worker", resource_id: "n", tags: { k: null, absent: null } });
    expect(gone.body?.result).toEqual({
      id: "n",
      type: "worker",
      name: "n",
      tags: {},
      etag: "v1:RBNvo1WzZ4oRRq0W9-hkng",
    });
    expect((await call("GET", `/accounts/${a}/tags/resources`)).body?.result).toEqual([]);
    expect(await totals(a)).toEqual({ total: 0, rows: 0 });
  });

  it("20 concurrent PATCHes adding different keys to one resource all land", async () => {
    const a = newAccount();
    await put(a, worker("hot", { base: "1" }));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        patch(a, {
          resource_type: "worker",
          resource_id: "hot",
          tags: { [`k${String(i).padStart(2, "0")}`]: `v${i}` },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 200));
    const tags = (await get(a, "hot")).body?.result.tags ?? {};
    expect(Object.keys(tags).length).toBe(21);
    for (let i = 0; i < 20; i++) expect(tags[`k${String(i).padStart(2, "0")}`]).toBe(`v${i}`);
    expect(await totals(a)).toEqual({ total: 21, rows: 21 });
    // Each answer's ETag is the hash of the set it shows (hashed under the object's lock, not from a stale read).
    for (const r of results) expect(r.body?.result.etag).toBe(await etagOf(Object.entries(r.body?.result.tags ?? {})));
    expect((await get(a, "hot")).body?.result.etag).toBe(await etagOf(Object.entries(tags)));
  });

  it("honours If-Match against the stored set (412, 1018) and accepts the current ETag", async () => {
    const a = newAccount();
    const first = await put(a, worker("w", { a: "1" }));
    const stale = await patch(a, worker("w", { b: "2" }), { "If-Match": '"v1:RBNvo1WzZ4oRRq0W9-hkng"' });
    expect(stale.status).toBe(412);
    expect(errorCode(stale)).toBe(1018);
    const fresh = await patch(a, worker("w", { b: "2" }), { "If-Match": `"${first.body?.result.etag}"` });
    expect(fresh.body?.result.tags).toEqual({ a: "1", b: "2" });
  });

  it("checks as PUT does, in PUT's order: 1002 → 1006 → 1002 → 1014 → 1011 → 1012 → 1016", async () => {
    const a = newAccount();
    const p = (body: unknown) => patch(a, body).then(errorCode);
    expect(await p([])).toBe(1002);
    expect(await p({ resource_type: "worker", resource_id: "w", tags: { k: 1 } })).toBe(1002);
    expect(await p({ resource_type: "worker", resource_id: "w" })).toBe(1002); // a patch needs tags
    expect(await p({ resource_type: "worker", resource_id: "w", tags: {}, extra: 1 })).toBe(1002);
    expect(await p({ resource_type: "nope", resource_id: "w", tags: { "bad key": "x".repeat(2000) } })).toBe(1006);
    expect(await p({ resource_type: "worker_version", resource_id: "v", tags: { k: "v" } })).toBe(1002);
    expect(await p({ resource_type: "worker", resource_id: "w", tags: { "bad key": null } })).toBe(1014);
    expect(await p({ resource_type: "worker", resource_id: "w", tags: { ["k".repeat(257)]: "v" } })).toBe(1011);
    expect(await p({ resource_type: "worker", resource_id: "w", tags: { k: "v".repeat(1025) } })).toBe(1012);
    // 256 / 1,024 code points exactly (astral letters count once) are accepted.
    const edge = await patch(a, {
      resource_type: "worker",
      resource_id: "w",
      tags: { ["𝐀".repeat(256)]: "𝐀".repeat(1024) },
    });
    expect(edge.status).toBe(200);
  });

  it("holds the 10,000-tag account limit (1016), counting only growth", async () => {
    const a = newAccount();
    const many = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, "v"]));
    expect((await put(a, worker("x", many))).status).toBe(200);
    expect((await put(a, worker("y", many))).status).toBe(200);
    const over = await patch(a, worker("x", { extra: "1" }));
    expect(over.status).toBe(400);
    expect(errorCode(over)).toBe(1016);
    // At the limit: a swap (one removed, one added) and a value change are allowed.
    expect(
      (await patch(a, { resource_type: "worker", resource_id: "x", tags: { k0: null, swapped: "1" } })).status,
    ).toBe(200);
    expect((await patch(a, worker("y", { k1: "changed" }))).status).toBe(200);
    expect(await totals(a)).toEqual({ total: 10_000, rows: 10_000 });
  });
});

describe("POST /accounts/{account_id}/tags/bulk", () => {
  it("applies merge, replace and delete edits in order, in one call, and answers each resource", async () => {
    const a = newAccount();
    await put(a, worker("gone", { k: "v" }));
    await put(a, worker("m", { keep: "1", drop: "2" }));
    const res = await bulk(a, {
      edits: [
        { op: "merge", resource_type: "worker", resource_id: "m", tags: { drop: null, add: "3" } },
        { op: "replace", resource_type: "r2_bucket", resource_id: "b", tags: { env: "prod" } },
        { op: "delete", resource_type: "worker", resource_id: "gone" },
        { op: "merge", resource_type: "worker", resource_id: "m", tags: { again: "4" } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body?.result.map((r) => r.tags)).toEqual([
      { add: "3", keep: "1" },
      { env: "prod" },
      {},
      { add: "3", again: "4", keep: "1" },
    ]);
    expect((await get(a, "m")).body?.result.tags).toEqual({ add: "3", again: "4", keep: "1" });
    expect((await get(a, "gone")).body?.result.tags).toEqual({});
    expect(await totals(a)).toEqual({ total: 4, rows: 4 });
  });

  it("changes nothing when one edit is invalid, and names it (index, id, reason)", async () => {
    const a = newAccount();
    await put(a, worker("w0", { k: "v" }));
    const before = await totals(a);
    const edits = Array.from({ length: 10 }, (_, i) => ({
      op: "merge",
      resource_type: "worker",
      resource_id: `w${i}`,
      tags: i === 7 ? { "bad key": "x" } : { added: "1" },
    }));
    const res = await bulk(a, { edits });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe(1014);
    expect(res.body?.errors[0]?.message).toMatch(/^edits\[7\] \(resource_id "w7"\): Invalid tag key "bad key"/);
    expect((await get(a, "w0")).body?.result.tags).toEqual({ k: "v" });
    expect(await totals(a)).toEqual(before);
  });

  it("rolls back every edit when a later one fails in the object (If-Match, limit)", async () => {
    const a = newAccount();
    await put(a, worker("w", { k: "v" }));
    const stale = await bulk(a, {
      edits: [
        { op: "replace", resource_type: "worker", resource_id: "x", tags: { new: "1" } },
        { op: "merge", resource_type: "worker", resource_id: "w", tags: { b: "2" }, if_match: "v1:stale" },
      ],
    });
    expect(stale.status).toBe(412);
    expect(errorCode(stale)).toBe(1018);
    expect(stale.body?.errors[0]?.message).toMatch(/^edits\[1\] \(resource_id "w"\)/);
    expect((await get(a, "x")).body?.result.tags).toEqual({});
    expect(await totals(a)).toEqual({ total: 1, rows: 1 });

    const big = Object.fromEntries(Array.from({ length: 9_999 }, (_, i) => [`k${i}`, "v"]));
    const over = await bulk(a, {
      edits: [
        { op: "replace", resource_type: "worker", resource_id: "big", tags: big },
        { op: "merge", resource_type: "worker", resource_id: "w", tags: { one: "more" } },
      ],
    });
    expect(errorCode(over)).toBe(1016);
    expect(over.body?.errors[0]?.message).toMatch(/^edits\[1\]/);
    expect(await totals(a)).toEqual({ total: 1, rows: 1 });
  });

  it("refuses more than 100 edits (1021) and a malformed call (1020)", async () => {
    const a = newAccount();
    const edit = (i: number) => ({ op: "merge", resource_type: "worker", resource_id: `w${i}`, tags: { k: "v" } });
    const hundred = await bulk(a, { edits: Array.from({ length: 100 }, (_, i) => edit(i)) });
    expect(hundred.status).toBe(200);
    const tooMany = await bulk(a, { edits: Array.from({ length: 101 }, (_, i) => edit(i)) });
    expect(tooMany.status).toBe(400);
    expect(errorCode(tooMany)).toBe(1021);
    expect(errorCode(await bulk(a, { edits: [] }))).toBe(1020);
    expect(errorCode(await bulk(a, [edit(0)]))).toBe(1020);
    expect(errorCode(await bulk(a, { edits: [edit(0)], more: 1 }))).toBe(1020);
    expect(errorCode(await bulk(a, { edits: [{ ...edit(0), op: "upsert" }] }))).toBe(1020);
    expect(errorCode(await call("POST", `/accounts/${a}/tags/bulk`, { rawBody: "{" }))).toBe(1020);
    // Each edit is checked as its endpoint checks: a replace's key, a delete's body, a filter-sized value.
    expect(errorCode(await bulk(a, { edits: [{ ...edit(0), op: "replace", tags: { ["k".repeat(257)]: "" } }] }))).toBe(
      1011,
    );
    expect(
      errorCode(await bulk(a, { edits: [{ op: "delete", resource_type: "worker", resource_id: "w", tags: {} }] })),
    ).toBe(1015);
    expect(errorCode(await bulk(a, { edits: [{ ...edit(0), tags: { k: "v".repeat(1025) } }] }))).toBe(1012);
  });
});
