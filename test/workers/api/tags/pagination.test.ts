/**
 * Keyset pagination and cursors (docs/tags-api.md; docs/tags-api.md): every resource present and matching for the
 * whole iteration is returned exactly once, in order, while other writes happen between pages; cursors are
 * bound to their account and query and authenticated.
 */
import { describe, expect, it } from "vitest";
import { base64UrlToBytes, bytesToBase64Url } from "../../../../src/state/tags/base64url";
import {
  allPages,
  call,
  errorCode,
  newAccount,
  put,
  seed,
  worker,
  type Envelope,
  type Resource,
} from "../../support/tags";

const pad = (i: number) => String(i).padStart(5, "0");

async function firstPage<T = Resource>(path: string) {
  const res = await call<T[]>("GET", path);
  expect(res.status, JSON.stringify(res.body?.errors)).toBe(200);
  return res.body as Envelope<T[]>;
}

function withCursor(path: string, cursor: string): string {
  return `${path}${path.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(cursor)}`;
}

describe("pagination over 1,000+ resources with writes between pages", () => {
  it("visits each stable resource exactly once, in order", async () => {
    const a = newAccount();
    const total = 1_050;
    await seed(
      a,
      Array.from({ length: total }, (_, i) => [`r${pad(i)}`, { env: i % 2 === 0 ? "prod" : "dev", n: String(i) }]),
    );
    const path = `/accounts/${a}/tags/resources?tag=env=prod`;
    const seen: string[] = [];
    const deleted = new Set<string>();
    let cursor: string | null = null;
    let page = 0;
    do {
      const res: { status: number; body: Envelope<Resource[]> | null } = await call<Resource[]>(
        "GET",
        cursor === null ? path : withCursor(path, cursor),
      );
      expect(res.status).toBe(200);
      const body = res.body as Envelope<Resource[]>;
      seen.push(...body.result.map((r) => r.id));
      expect(body.result_info?.count).toBe(body.result.length);
      expect(body.result_info?.cursors.after).toBe(body.result_info?.cursor);
      cursor = body.result_info?.cursor ?? null;
      if (cursor !== null) expect(body.result.length).toBe(100); // short pages only at the end
      // Writes between pages: new matching resources before and after the cursor, deletions ahead of it,
      // tag edits of resources already returned (their sort key never changes, so nothing repeats).
      await put(a, worker(`r${pad(page)}-late`, { env: "prod" }));
      await put(a, worker(`z${pad(page)}`, { env: "prod" }));
      const victim = `r${pad(total - 2 - page * 2)}`;
      deleted.add(victim);
      await call("DELETE", `/accounts/${a}/tags`, { body: { resource_type: "worker", resource_id: victim } });
      await put(a, worker(`r${pad(page * 2)}`, { env: "prod", edited: String(page) }));
      page++;
    } while (cursor !== null);

    expect(new Set(seen).size).toBe(seen.length); // no duplicates
    expect([...seen].sort()).toEqual(seen); // ASCII ids: code point order = sort()
    const stable = Array.from({ length: total }, (_, i) => i)
      .filter((i) => i % 2 === 0)
      .map((i) => `r${pad(i)}`)
      .filter((id) => !deleted.has(id));
    for (const id of stable) expect(seen).toContain(id);
    for (const id of deleted) {
      const index = seen.indexOf(id);
      if (index !== -1) expect(seen.filter((s) => s === id).length).toBe(1);
    }
    expect(page).toBeGreaterThanOrEqual(6);
  }, 60_000);

  it("pages keys and values with a null cursor on the exact last page (no empty trailing page)", async () => {
    const a = newAccount();
    // 200 keys: exactly two full pages.
    await put(a, worker("w", Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${pad(i)}`, `v${i}`]))));
    const keyPages = await allPages<string>(`/accounts/${a}/tags/keys`);
    expect(keyPages.map((p) => p.length)).toEqual([100, 100]);
    expect(keyPages.flat()).toEqual(Array.from({ length: 200 }, (_, i) => `k${pad(i)}`));
    await seed(
      a,
      Array.from({ length: 150 }, (_, i) => [`x${i}`, { shared: `value-${pad(i)}` }]),
    );
    const valuePages = await allPages<string>(`/accounts/${a}/tags/values/shared`);
    expect(valuePages.map((p) => p.length)).toEqual([100, 50]);
    const summaryPages = await allPages<{ key: string }>(`/accounts/${a}/tags/summary`);
    expect(summaryPages.flat().map((s) => s.key)).toEqual([...keyPages.flat(), "shared"]);
  });
});

describe("cursor binding and authentication (1017)", () => {
  async function setUp() {
    const a = newAccount();
    await seed(
      a,
      Array.from({ length: 120 }, (_, i) => [`w${pad(i)}`, { env: "prod", team: "t" }]),
    );
    const path = `/accounts/${a}/tags/resources?tag=env`;
    const cursor = (await firstPage(path)).result_info?.cursor;
    if (!cursor) throw new Error("expected a second page");
    return { a, path, cursor };
  }

  it("continues with a genuine cursor, also after the row it points to is gone (never expires)", async () => {
    const { a, path, cursor } = await setUp();
    await call("DELETE", `/accounts/${a}/tags`, { body: { resource_type: "worker", resource_id: "w00099" } });
    const next = await call<Resource[]>("GET", withCursor(path, cursor));
    expect(next.status).toBe(200);
    expect(next.body?.result[0]?.id).toBe("w00100");
    expect(next.body?.result.length).toBe(20);
  });

  it("refuses a tampered sort key, a flipped MAC bit and garbage", async () => {
    const { path, cursor } = await setUp();
    const [body, mac] = cursor.split(".") as [string, string];
    const decoded = JSON.parse(new TextDecoder().decode(base64UrlToBytes(body) ?? new Uint8Array())) as { k: string[] };
    expect(decoded.k).toEqual(["worker", "", "w00099"]);
    const forgedBody = bytesToBase64Url(
      new TextEncoder().encode(JSON.stringify({ v: 1, k: ["worker", "", "w00009"] })),
    );
    const macBytes = base64UrlToBytes(mac) ?? new Uint8Array(16);
    macBytes[0] = (macBytes[0] ?? 0) ^ 1;
    for (const bad of [
      `${forgedBody}.${mac}`,
      `${body}.${bytesToBase64Url(macBytes)}`,
      `${body}.`,
      "not-a-cursor",
      `${cursor}x`,
    ]) {
      const res = await call("GET", withCursor(path, bad));
      expect(res.status).toBe(400);
      expect(errorCode(res)).toBe(1017);
    }
  });

  it("refuses a cursor of another query, endpoint or account", async () => {
    const { a, cursor } = await setUp();
    const other = newAccount();
    await seed(
      other,
      Array.from({ length: 120 }, (_, i) => [`w${pad(i)}`, { env: "prod", team: "t" }]),
    );
    const cases = [
      `/accounts/${a}/tags/resources?tag=team`, // another filter
      `/accounts/${a}/tags/resources?tag=env&case_insensitive=true`,
      `/accounts/${a}/tags/resources?tag=env&type=worker`,
      `/accounts/${a}/tags/resources`,
      `/accounts/${other}/tags/resources?tag=env`, // same query, foreign account (different key)
      `/accounts/${a}/tags/resources?tag=bad%20key`, // invalid query: the cursor check comes first
    ];
    for (const target of cases) {
      const res = await call("GET", withCursor(target, cursor));
      expect(errorCode(res), target).toBe(1017);
    }
    const keysCursor = (await firstPage<string>(`/accounts/${a}/tags/values/env`)).result_info?.cursor;
    expect(keysCursor).toBeNull(); // one value only: no cursor
    const valuesA = `/accounts/${a}/tags/keys`;
    await put(a, worker("many", Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`k${i}`, ""]))));
    const kc = (await firstPage<string>(valuesA)).result_info?.cursor ?? "";
    expect(errorCode(await call("GET", withCursor(`/accounts/${a}/tags/summary`, kc)))).toBe(1017);
    expect(errorCode(await call("GET", withCursor(`/accounts/${a}/tags/values/env`, kc)))).toBe(1017);
    expect((await call("GET", withCursor(valuesA, kc))).status).toBe(200);
  });
});
