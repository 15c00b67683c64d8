/** The history of tag changes (docs/tags-api.md "History"): every write path, per resource and per account. */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../../../src/state/tags/history";
import type { TagStore } from "../../../../src/state/tags/tag-store";
import { allPages, call, errorCode, newAccount, put, storeOf, worker } from "../../support/tags";

const history = (account: string, query = "") =>
  call<HistoryEntry[]>("GET", `/accounts/${account}/tags/history${query}`);
const strip = (e: HistoryEntry) => ({ via: e.via, id: e.resource_id, key: e.key, before: e.before, after: e.after });

describe("GET /accounts/{account_id}/tags/history", () => {
  it("keeps an entry per changed key for PUT, PATCH, bulk and DELETE, newest first, with time and token name", async () => {
    const a = newAccount();
    await put(a, worker("w", { env: "prod", team: "web" }));
    await put(a, worker("w", { env: "prod", team: "web" })); // no change: no entry
    await call("PATCH", `/accounts/${a}/tags`, { body: worker("w", { team: "api", owner: "" }) });
    await call("POST", `/accounts/${a}/tags/bulk`, {
      body: {
        edits: [
          { op: "merge", resource_type: "worker", resource_id: "w", tags: { env: null } },
          { op: "replace", resource_type: "queue", resource_id: "q", tags: { k: "v" } },
        ],
      },
    });
    await call("DELETE", `/accounts/${a}/tags`, { body: { resource_type: "worker", resource_id: "w" } });
    const res = await history(a);
    expect(res.status).toBe(200);
    const entries = res.body?.result ?? [];
    expect(entries.map(strip)).toEqual([
      { via: "delete", id: "w", key: "team", before: "api", after: null },
      { via: "delete", id: "w", key: "owner", before: "", after: null },
      { via: "bulk", id: "q", key: "k", before: null, after: "v" },
      { via: "bulk", id: "w", key: "env", before: "prod", after: null },
      { via: "patch", id: "w", key: "team", before: "web", after: "api" },
      { via: "patch", id: "w", key: "owner", before: null, after: "" },
      { via: "put", id: "w", key: "team", before: null, after: "web" },
      { via: "put", id: "w", key: "env", before: null, after: "prod" },
    ]);
    for (const e of entries) {
      expect(e.token_name).toBe("admin");
      expect(Date.parse(e.at)).not.toBeNaN();
      expect(e.resource_type).toBe(e.resource_id === "q" ? "queue" : "worker");
    }
    // One change (one write's keys) shares a change_id; the bulk's two edits are two changes.
    const ids = entries.map((e) => e.change_id);
    expect(new Set(ids).size).toBe(5);
    // Per resource: only that resource's entries.
    const q = await history(a, "?resource_type=queue&resource_id=q");
    expect(q.body?.result.map(strip)).toEqual([{ via: "bulk", id: "q", key: "k", before: null, after: "v" }]);
  });

  it("pages newest first with authenticated keyset cursors, and counts against no tag limit", async () => {
    const a = newAccount();
    for (let i = 0; i < 3; i++)
      await put(a, worker("w", Object.fromEntries(Array.from({ length: 90 }, (_, k) => [`k${k}`, `v${i}`]))));
    const pages = await allPages<HistoryEntry>(`/accounts/${a}/tags/history?resource_type=worker&resource_id=w`);
    expect(pages.map((p) => p.length)).toEqual([100, 100, 70]);
    const seqs = pages.flat().map((e) => Number(e.id));
    expect(seqs).toEqual([...seqs].sort((x, y) => y - x));
    expect(new Set(seqs).size).toBe(270);
    // A cursor of one query is refused by another (1017), and a tampered one too.
    const first = await history(a, "?resource_type=worker&resource_id=w");
    const cursor = first.body?.result_info?.cursor ?? "";
    expect(errorCode(await history(a, `?cursor=${encodeURIComponent(cursor)}`))).toBe(1017);
    expect(errorCode(await history(a, `?resource_type=worker&resource_id=w&cursor=${cursor}x`))).toBe(1017);
    // The same cursor twice (or a good one and an empty one) is refused, with a message that says so.
    for (const query of [`?cursor=${cursor}&cursor=${cursor}`, `?cursor=${cursor}&cursor=`]) {
      const twice = await history(a, `?resource_type=worker&resource_id=w&${query.slice(1)}`);
      expect([twice.status, errorCode(twice), twice.body?.errors[0]?.message]).toEqual([
        400,
        1017,
        "invalid cursor: `cursor` is given more than once; send one",
      ]);
    }
    // History rows are not tags: the account total is the 90 tags the resource has.
    const total = await runInDurableObject(
      storeOf(a),
      (_i: TagStore, state) =>
        state.storage.sql.exec<{ value: number }>("SELECT value FROM meta WHERE name = 'tag_total'").one().value,
    );
    expect(total).toBe(90);
  });

  it("checks its query as GET of one resource does (1003, 1006)", async () => {
    const a = newAccount();
    expect(errorCode(await history(a, "?resource_type=worker"))).toBe(1003);
    expect(errorCode(await history(a, "?resource_type=nope&resource_id=x"))).toBe(1006);
  });

  it("drops entries past the retention on the next write", async () => {
    const a = newAccount();
    await put(a, worker("w", { k: "v" }));
    await runInDurableObject(storeOf(a), (_i: TagStore, state) => {
      state.storage.sql.exec("UPDATE history SET at = '2000-01-01T00:00:00.000Z'");
    });
    await put(a, worker("w", { k: "v2" }));
    expect((await history(a)).body?.result.map(strip)).toEqual([
      { via: "put", id: "w", key: "k", before: "v", after: "v2" },
    ]);
  });
});
