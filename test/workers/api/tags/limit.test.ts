/**
 * The account limit (docs/tags-api.md: 10,000 (resource, key) pairs, `TAG_LIMIT`), enforced atomically inside the
 * object, and concurrent writers on one account.
 */
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import handler from "../../../../src/index";
import type { TagStore } from "../../../../src/state/tags/tag-store";
import { ADMIN, call, errorCode, newAccount, put, storeOf, worker, type Envelope } from "../../support/tags";

const tagsOf = (prefix: string, n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, "v"]));

async function invariant(account: string): Promise<{ total: number; rows: number }> {
  return runInDurableObject(storeOf(account), (_instance: TagStore, state) => {
    const total = state.storage.sql
      .exec<{ value: number }>("SELECT value FROM meta WHERE name = 'tag_total'")
      .one().value;
    const rows = state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM tags").one().n;
    const counts = state.storage.sql
      .exec<{ n: number }>(
        "SELECT count(*) AS n FROM resources r WHERE tag_count != (SELECT count(*) FROM tags t WHERE t.type = r.type AND t.parent = r.parent AND t.id = r.id)",
      )
      .one().n;
    expect(counts).toBe(0);
    return { total, rows };
  });
}

/** The Worker's own handler with a modified env (vars can't change per request through `exports`). */
async function fetchWith(vars: Partial<Env>, method: string, path: string, body?: unknown): Promise<Response> {
  const ctx = createExecutionContext();
  const request = new Request(`http://localhost${path}`, {
    method,
    headers: { ...ADMIN, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const res = await handler.fetch(request, { ...env, ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("10,000 tags per account (default TAG_LIMIT)", () => {
  it("accepts exactly 10,000, refuses the 10,001st, allows replacing a set at the limit", async () => {
    const a = newAccount();
    for (let r = 0; r < 10; r++) expect((await put(a, worker(`w${r}`, tagsOf("k", 1_000)))).status).toBe(200);
    expect(await invariant(a)).toEqual({ total: 10_000, rows: 10_000 });

    const over = await put(a, worker("extra", { one: "more" }));
    expect(over.status).toBe(400);
    expect(errorCode(over)).toBe(1016);
    const grow = await put(a, worker("w0", tagsOf("k", 1_001)));
    expect(errorCode(grow)).toBe(1016);
    expect((await call("GET", `/accounts/${a}/tags?resource_type=worker&resource_id=w0`)).body).toMatchObject({
      result: { tags: tagsOf("k", 1_000) }, // a refused PUT changes nothing
    });

    // Replacing a set of the same size (other keys) at the limit is allowed.
    expect((await put(a, worker("w0", tagsOf("other", 1_000)))).status).toBe(200);
    // Freeing one pair makes room for exactly one.
    expect((await put(a, worker("w1", tagsOf("k", 999)))).status).toBe(200);
    expect((await put(a, worker("extra", { one: "more" }))).status).toBe(200);
    expect(errorCode(await put(a, worker("extra2", { one: "more" })))).toBe(1016);
    expect(await invariant(a)).toEqual({ total: 10_000, rows: 10_000 });
  }, 60_000);

  it("counts (resource, key) pairs, so the same key on two resources counts twice", async () => {
    const a = newAccount();
    const vars = { TAG_LIMIT: "3" };
    expect((await fetchWith(vars, "PUT", `/accounts/${a}/tags`, worker("a", { env: "x", team: "y" }))).status).toBe(
      200,
    );
    expect((await fetchWith(vars, "PUT", `/accounts/${a}/tags`, worker("b", { env: "x" }))).status).toBe(200);
    const refused = await fetchWith(vars, "PUT", `/accounts/${a}/tags`, worker("c", { env: "x" }));
    expect(refused.status).toBe(400);
    expect((await refused.json<Envelope>()).errors[0]?.code).toBe(1016);
    // DELETE frees its pairs.
    expect(
      (await fetchWith(vars, "DELETE", `/accounts/${a}/tags`, { resource_type: "worker", resource_id: "a" })).status,
    ).toBe(204);
    expect((await fetchWith(vars, "PUT", `/accounts/${a}/tags`, worker("c", { env: "x", k: "" }))).status).toBe(200);
  });
});

describe("concurrent PUTs on one account", () => {
  it("lose nothing", async () => {
    const a = newAccount();
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => put(a, worker(`w${i}`, { env: "prod", n: String(i) }))),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const listed = await call<{ id: string }[]>("GET", `/accounts/${a}/tags/resources?tag=env=prod`);
    expect(listed.body?.result.length).toBe(40);
    expect(await invariant(a)).toEqual({ total: 80, rows: 80 });
  });

  it("never exceed the limit when racing for the last slots", async () => {
    const a = newAccount();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        fetchWith({ TAG_LIMIT: "5" }, "PUT", `/accounts/${a}/tags`, worker(`w${i}`, { k: "v" })),
      ),
    );
    expect(results.filter((r) => r.status === 200).length).toBe(5);
    const refused = results.filter((r) => r.status === 400);
    expect(refused.length).toBe(7);
    for (const r of refused) expect((await r.json<Envelope>()).errors[0]?.code).toBe(1016);
    expect(await invariant(a)).toEqual({ total: 5, rows: 5 });
  });

  it("If-Match lets exactly one of two racing read-modify-writes win", async () => {
    const a = newAccount();
    const etag = (await put(a, worker("w", { n: "0" }))).body?.result.etag ?? "";
    const [x, y] = await Promise.all([
      put(a, worker("w", { n: "1" }), { "If-Match": `"${etag}"` }),
      put(a, worker("w", { n: "2" }), { "If-Match": `"${etag}"` }),
    ]);
    expect([x.status, y.status].sort()).toEqual([200, 412]);
  });
});
