/**
 * The tag history is bounded in bytes, not only in rows (docs/tags-api.md "History"): each entry counts its UTF-8
 * bytes, the object keeps their running total, and a write deletes the oldest entries until the total is at most
 * HISTORY_MAX_BYTES. Counted in rows and bytes of the real object's SQLite, never timed.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  HISTORY_MAX_BYTES,
  HISTORY_ROW_BYTES,
  HISTORY_ROW_OVERHEAD,
  type HistoryEntry,
} from "../../../../src/state/tags/history";
import type { TagStore } from "../../../../src/state/tags/tag-store";
import { call, newAccount, put, storeOf, worker } from "../../support/tags";

/** A letter outside the BMP (𝒜, U+1D49C): 4 bytes in UTF-8, 2 UTF-16 units, 1 code point. */
const WIDE = "\u{1D49C}";
const utf8 = (s: string | null): number => (s === null ? 0 : new TextEncoder().encode(s).byteLength);

type Counted = { rows: number; bytes: number; total: number; oldest: number; newest: number };

/** The history's rows, the sum of their bytes and the running total, read in the object. */
const counted = (account: string): Promise<Counted> =>
  runInDurableObject(storeOf(account), (_: TagStore, state) => {
    const sql = state.storage.sql;
    const sums = sql
      .exec<{ rows: number; bytes: number | null; oldest: number | null; newest: number | null }>(
        "SELECT count(*) AS rows, sum(bytes) AS bytes, min(seq) AS oldest, max(seq) AS newest FROM history",
      )
      .one();
    const total = sql.exec<{ value: number }>("SELECT value FROM meta WHERE name = 'history_bytes'").one().value;
    return { rows: sums.rows, bytes: sums.bytes ?? 0, total, oldest: sums.oldest ?? 0, newest: sums.newest ?? 0 };
  });

describe("tag history byte cap", () => {
  it("counts each entry's UTF-8 bytes (not its characters) and keeps their running total", async () => {
    const a = newAccount();
    await put(a, worker("w", { [WIDE.repeat(256)]: WIDE.repeat(1024), k: "v" }));
    await call("PATCH", `/accounts/${a}/tags`, { body: worker("w", { k: "é" }) });
    const rows = await runInDurableObject(storeOf(a), (_: TagStore, state) =>
      state.storage.sql
        .exec<{ at: string; actor: string; via: string; type: string; parent: string; id: string }>(
          "SELECT at, actor, via, type, parent, id, key, before, after, bytes FROM history ORDER BY seq",
        )
        .toArray(),
    );
    expect(rows).toHaveLength(3);
    for (const r of rows as unknown as Record<string, string | number | null>[]) {
      const text = ["at", "actor", "via", "type", "parent", "id", "key", "before", "after"].map((c) =>
        utf8(r[c] as string | null),
      );
      expect(r.bytes).toBe(HISTORY_ROW_OVERHEAD + text.reduce((x, y) => x + y, 0));
    }
    // The wide entry: 1 KiB of key and 4 KiB of value, as UTF-8.
    expect(Math.max(...rows.map((r) => (r as unknown as { bytes: number }).bytes))).toBeGreaterThan(5 * 1024);
    const c = await counted(a);
    expect(c).toMatchObject({ rows: 3, total: c.bytes });
  });

  it("deletes the oldest entries once the total passes HISTORY_MAX_BYTES, and no more than that", async () => {
    const a = newAccount();
    await put(a, worker("first", { k: "v" }));
    // Filler entries (each ~4.2 KB) up to just under the cap, written as a write would, with the running total.
    const filler = await runInDurableObject(storeOf(a), (_: TagStore, state) => {
      const sql = state.storage.sql;
      const at = new Date().toISOString();
      const first = sql.exec<{ b: number }>("SELECT value AS b FROM meta WHERE name = 'history_bytes'").one().b;
      const one = 4096 + 64 + 24 + 6 + 3 + 6 + 3 + 6; // overhead, time, actor, via, type, id, key: at least the real size
      const count = Math.floor((HISTORY_MAX_BYTES - first - 8 * 1024) / one);
      sql.exec(
        `INSERT INTO history (change, at, actor, via, type, parent, id, key, before, after)
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         SELECT 0, ?, 'filler', 'put', 'worker', '', 'old', 'k' || i, NULL, hex(zeroblob(2048)) FROM n`,
        count,
        at,
      );
      sql.exec(`UPDATE history SET bytes = ${HISTORY_ROW_BYTES} WHERE actor = 'filler'`);
      sql.exec("UPDATE meta SET value = (SELECT sum(bytes) FROM history) WHERE name = 'history_bytes'");
      return count;
    });
    const before = await counted(a);
    expect(before.total).toBe(before.bytes);
    expect(before.total).toBeLessThanOrEqual(HISTORY_MAX_BYTES);
    expect(before.rows).toBe(filler + 1);
    // Over the remaining room: 4 entries of 1 KiB values are ~4.4 KB, the room is under 8 KiB + one filler row.
    const room = HISTORY_MAX_BYTES - before.total;
    const tags = Object.fromEntries(
      Array.from({ length: Math.ceil(room / 1024) + 2 }, (_, i) => [`n${i}`, "x".repeat(1024)]),
    );
    await put(a, worker("new", tags));
    const after = await counted(a);
    expect(after.total).toBe(after.bytes);
    expect(after.total).toBeLessThanOrEqual(HISTORY_MAX_BYTES);
    // No more was deleted than needed: putting back the oldest deleted entry would pass the cap again.
    expect(after.total).toBeGreaterThan(HISTORY_MAX_BYTES - (4096 + 200));
    const added = Object.keys(tags).length;
    const deleted = before.rows + added - after.rows;
    expect(deleted).toBeGreaterThan(0);
    expect(after.oldest).toBe(before.oldest + deleted);
    expect(after.newest).toBe(before.newest + added);
    // The first write's entry (the oldest) is gone; the new write's entries are all listed, newest first.
    const listed = await call<HistoryEntry[]>(
      "GET",
      `/accounts/${a}/tags/history?resource_type=worker&resource_id=new`,
    );
    expect(listed.body?.result).toHaveLength(Math.min(added, 100));
    const first = await call<HistoryEntry[]>(
      "GET",
      `/accounts/${a}/tags/history?resource_type=worker&resource_id=first`,
    );
    expect(first.body?.result).toEqual([]);
  }, 60_000);

  it("storage from before the byte count (version 2) gets each entry's bytes and the total when it opens", async () => {
    const a = newAccount();
    await put(a, worker("w", { [WIDE.repeat(10)]: "v", k: "é" }));
    const expected = await counted(a);
    // Back to version 2's shape by hand, then opened again (aborted: the next call constructs it and migrates).
    await runInDurableObject(storeOf(a), (_: TagStore, state) => {
      const sql = state.storage.sql;
      sql.exec("ALTER TABLE history DROP COLUMN bytes");
      sql.exec("DELETE FROM meta WHERE name = 'history_bytes'");
      sql.exec("DELETE FROM schema_migrations WHERE version = 3");
    });
    await runInDurableObject(storeOf(a), (_: unknown, state) => state.abort()).catch(() => undefined);
    await put(a, worker("w2", { k: "v" }));
    const c = await counted(a);
    expect(c.rows).toBe(3);
    expect(c.total).toBe(c.bytes);
    const recomputed = await runInDurableObject(
      storeOf(a),
      (_: TagStore, state) =>
        state.storage.sql
          .exec<{ n: number }>(`SELECT count(*) AS n FROM history WHERE bytes = ${HISTORY_ROW_BYTES}`)
          .one().n,
    );
    expect(recomputed).toBe(3);
    expect(c.bytes).toBeGreaterThan(expected.bytes);
  });
});
