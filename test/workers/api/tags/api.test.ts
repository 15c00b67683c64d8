/** The seven tagging endpoints through the real Worker (docs/tags-api.md). */
import { describe, expect, it } from "vitest";
import { allPages, call, errorCode, newAccount, put, worker, type Resource } from "../../support/tags";

const EMPTY_ETAG = "v1:RBNvo1WzZ4oRRq0W9-hkng";

describe("PUT / GET / DELETE one resource", () => {
  it("replaces the whole set, returns it with its ETag, and reads it back", async () => {
    const a = newAccount();
    const first = await put(a, worker("api", { team: "platform", env: "prod" }));
    expect(first.status).toBe(200);
    expect(first.body?.result).toMatchObject({
      id: "api",
      type: "worker",
      name: "api",
      tags: { env: "prod", team: "platform" },
    });
    expect(first.body?.result.etag).toMatch(/^v1:[A-Za-z0-9_-]{22}$/);
    expect(first.body?.result.etag).not.toBe(EMPTY_ETAG);
    expect(first.headers.get("ETag")).toBe(`"${first.body?.result.etag}"`);
    expect(Date.parse(first.body?.result.tags_updated_at ?? "")).not.toBeNaN();

    const second = await put(a, worker("api", { owner: "" }));
    expect(second.body?.result.tags).toEqual({ owner: "" }); // replaced, not merged; key-only tag kept as ""

    const got = await call<Resource>("GET", `/accounts/${a}/tags?resource_type=worker&resource_id=api`);
    expect(got.status).toBe(200);
    expect(got.body?.result).toEqual(second.body?.result);
    expect(got.headers.get("ETag")).toBe(`"${second.body?.result.etag}"`);
  });

  it("answers an untagged resource with the empty set and no tags_updated_at", async () => {
    const got = await call<Resource>("GET", `/accounts/${newAccount()}/tags?resource_type=r2_bucket&resource_id=b`);
    expect(got.status).toBe(200);
    expect(got.body?.result).toEqual({ id: "b", type: "r2_bucket", name: "b", tags: {}, etag: EMPTY_ETAG });
  });

  it("DELETE answers 204, is idempotent, and the resource leaves every listing", async () => {
    const a = newAccount();
    await put(a, worker("w", { env: "prod" }));
    for (let i = 0; i < 2; i++) {
      const del = await call("DELETE", `/accounts/${a}/tags`, { body: { resource_type: "worker", resource_id: "w" } });
      expect(del.status).toBe(204);
      expect(del.body).toBeNull();
    }
    expect((await call("GET", `/accounts/${a}/tags/keys`)).body?.result).toEqual([]);
    expect((await call("GET", `/accounts/${a}/tags/resources`)).body?.result).toEqual([]);
  });

  it("PUT of an empty set (or no tags) behaves as DELETE", async () => {
    const a = newAccount();
    await put(a, worker("w", { env: "prod" }));
    const res = await put(a, { resource_type: "worker", resource_id: "w" });
    expect(res.body?.result).toEqual({ id: "w", type: "worker", name: "w", tags: {}, etag: EMPTY_ETAG });
    expect((await call("GET", `/accounts/${a}/tags/resources`)).body?.result).toEqual([]);
  });

  it("identifies a worker_version by its worker too", async () => {
    const a = newAccount();
    await put(a, { resource_type: "worker_version", resource_id: "v1", worker_id: "w1", tags: { stage: "canary" } });
    await put(a, { resource_type: "worker_version", resource_id: "v1", worker_id: "w2", tags: { stage: "stable" } });
    const got = await call<Resource>(
      "GET",
      `/accounts/${a}/tags?resource_type=worker_version&resource_id=v1&worker_id=w2`,
    );
    expect(got.body?.result).toMatchObject({ worker_id: "w2", tags: { stage: "stable" } });
    const missing = await call("GET", `/accounts/${a}/tags?resource_type=worker_version&resource_id=v1`);
    expect(errorCode(missing)).toBe(1003);
  });

  it("keeps __proto__ and Unicode keys as data", async () => {
    const a = newAccount();
    const res = await call<Resource>("PUT", `/accounts/${a}/tags`, {
      rawBody: '{"resource_type":"worker","resource_id":"p","tags":{"__proto__":"x","हिन्दी":"मान"}}',
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body?.result.tags ?? {})).toEqual(["__proto__", "हिन्दी"]);
  });
});

describe("tag order in resource objects", () => {
  it("PUT answers its tags in the same code point order as GET and listings", async () => {
    const a = newAccount();
    const astral = "\u{1D400}";
    const res = await put(a, worker("o", { [astral]: "1", "\uFF21": "2", b: "3", B: "4", "123": "5" }));
    const order = Object.keys(res.body?.result.tags ?? {});
    // "123" is an array index, which JS objects always list first; the rest follows code point order.
    expect(order).toEqual(["123", "B", "b", "\uFF21", astral]);
    const got = await call<Resource>("GET", `/accounts/${a}/tags?resource_type=worker&resource_id=o`);
    expect(Object.keys(got.body?.result.tags ?? {})).toEqual(order);
    const listed = await call<Resource[]>("GET", `/accounts/${a}/tags/resources`);
    expect(Object.keys(listed.body?.result[0]?.tags ?? {})).toEqual(order);
  });
});

describe("If-Match / ETag (docs/tags-api.md)", () => {
  it("accepts the current ETag (quoted or bare) and *, refuses a stale one with 412 / 1018", async () => {
    const a = newAccount();
    const first = await put(a, worker("w", { v: "1" }));
    const etag = first.body?.result.etag ?? "";
    const stale = await put(a, worker("w", { v: "2" }), { "If-Match": `"${EMPTY_ETAG}"` });
    expect(stale.status).toBe(412);
    expect(errorCode(stale)).toBe(1018);
    const ok = await put(a, worker("w", { v: "2" }), { "If-Match": `"${etag}"` });
    expect(ok.status).toBe(200);
    expect((await put(a, worker("w", { v: "3" }), { "If-Match": etag })).status).toBe(412); // now stale
    expect((await put(a, worker("w", { v: "3" }), { "If-Match": ok.body?.result.etag ?? "" })).status).toBe(200);
    expect((await put(a, worker("w", { v: "4" }), { "If-Match": "*" })).status).toBe(200);
    expect((await put(a, worker("w", { v: "5" }), { "If-Match": `W/"${EMPTY_ETAG}"` })).status).toBe(412);
  });

  it("guards DELETE too; an untagged resource has the ETag of {}", async () => {
    const a = newAccount();
    const ref = { resource_type: "worker", resource_id: "w" };
    expect((await put(a, worker("w", { k: "v" }), { "If-Match": `"${EMPTY_ETAG}"` })).status).toBe(200);
    const del = await call("DELETE", `/accounts/${a}/tags`, { body: ref, headers: { "If-Match": `"${EMPTY_ETAG}"` } });
    expect(del.status).toBe(412);
    expect(errorCode(del)).toBe(1018);
    expect((await call("GET", `/accounts/${a}/tags?resource_type=worker&resource_id=w`)).body?.result).toMatchObject({
      tags: { k: "v" },
    });
  });
});

describe("keys, values, summary", () => {
  it("lists distinct keys and values in code point order, values filtered by type", async () => {
    const a = newAccount();
    const astral = "\u{1D400}"; // sorts after U+FF21 by code point, before it in UTF-16
    await put(a, worker("w1", { env: "prod", "\uFF21": "x", [astral]: "y", Env: "P" }));
    await put(a, worker("w2", { env: "staging" }));
    await put(a, { resource_type: "r2_bucket", resource_id: "b", tags: { env: "dev" } });
    expect((await call("GET", `/accounts/${a}/tags/keys`)).body?.result).toEqual(["Env", "env", "\uFF21", astral]);
    expect((await call("GET", `/accounts/${a}/tags/values/env`)).body?.result).toEqual(["dev", "prod", "staging"]);
    expect((await call("GET", `/accounts/${a}/tags/values/env?type=worker`)).body?.result).toEqual(["prod", "staging"]);
    const encoded = encodeURIComponent(astral);
    expect((await call("GET", `/accounts/${a}/tags/values/${encoded}`)).body?.result).toEqual(["y"]);
    const summary = await call("GET", `/accounts/${a}/tags/summary`);
    expect(summary.body?.result).toEqual([
      { key: "Env", values: ["P"] },
      { key: "env", values: ["dev", "prod", "staging"] },
      { key: "\uFF21", values: ["x"] },
      { key: astral, values: ["y"] },
    ]);
    expect(summary.body?.result_info).toEqual({ count: 4, per_page: 100, cursor: null, cursors: { after: null } });
  });

  it.each([
    ["/tags/values/", 1009],
    ["/tags/values/bad%20key", 1014],
    ["/tags/values/%E0%A4", 1014],
    [`/tags/values/${"a".repeat(257)}`, 1011],
    [`/tags/values/${"a".repeat(256)}`, 0],
    ["/tags/values/env?type=nope", 1006],
  ])("GET %s → %i", async (path, expected) => {
    const res = await call("GET", `/accounts/${newAccount()}${path}`);
    expect(errorCode(res) ?? 0).toBe(expected);
    expect(res.status).toBe(expected === 0 ? 200 : 400);
  });
});

describe("resource filters (docs/tags-api.md)", () => {
  const a = newAccount();
  const fleet: Record<string, Record<string, string>> = {
    api: { env: "prod", region: "us-west-1", team: "core" },
    web: { env: "prod", region: "eu-west-1" },
    batch: { env: "staging", region: "us-west-1", archived: "" },
    docs: { env: "dev", Team: "Docs" },
    bare: { owner: "x" },
  };
  const ids = async (query: string) => {
    const res = await call<Resource[]>("GET", `/accounts/${a}/tags/resources?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body?.result.map((r) => r.id);
  };

  it.each([
    ["", ["api", "bare", "batch", "docs", "web"]],
    ["tag=env", ["api", "batch", "docs", "web"]],
    ["tag=env=prod", ["api", "web"]],
    ["tag=env=prod,staging", ["api", "batch", "web"]],
    ["tag=!archived", ["api", "bare", "docs", "web"]],
    ["tag=region!=us-west-1", ["bare", "docs", "web"]], // includes resources lacking region
    ["tag=env!=prod,staging", ["bare", "docs"]],
    ["tag=env=prod&tag=region=us-west-1", ["api"]],
    ["tag=env&tag=env!=prod", ["batch", "docs"]], // same key twice
    ["tag=archived=", ["batch"]], // key-only tag
    ["tag=team", ["api"]], // case-sensitive keys
    ["tag=team&case_insensitive=true", ["api", "docs"]],
    ["tag=TEAM=docs&case_insensitive=true", ["docs"]],
    ["tag=team=docs", []],
    ["tag=ENV=PROD&case_insensitive=false", []],
    ["id=web&id=docs", ["docs", "web"]],
    ["name=AP", ["api"]],
    ["type=r2_bucket", []],
    ["type=worker&tag=env=dev", ["docs"]],
    ["tag=env=nope", []],
  ])("?%s → %j", async (query, expected) => {
    for (const [id, tags] of Object.entries(fleet)) await put(a, worker(id, tags));
    expect(await ids(query)).toEqual(expected);
  });

  it("returns the resource objects with their tags and ETags", async () => {
    for (const [id, tags] of Object.entries(fleet)) await put(a, worker(id, tags));
    const res = await call<Resource[]>("GET", `/accounts/${a}/tags/resources?tag=team=core`);
    const got = await call<Resource>("GET", `/accounts/${a}/tags?resource_type=worker&resource_id=api`);
    expect(res.body?.result).toEqual([got.body?.result]);
    expect(res.body?.result_info).toEqual({ count: 1, per_page: 100, cursor: null, cursors: { after: null } });
  });

  it("accepts 20 filters and 10 values, refuses 21 (1010) and 11 (1013)", async () => {
    const base = `/accounts/${a}/tags/resources?`;
    const tags = (n: number) => Array.from({ length: n }, () => "tag=env").join("&");
    const values = (n: number) =>
      "tag=env=" + Array.from({ length: n }, (_, i) => (i === 0 ? "prod" : `v${i}`)).join(",");
    expect((await call("GET", base + tags(20))).status).toBe(200);
    expect(errorCode(await call("GET", base + tags(21)))).toBe(1010);
    expect((await call<Resource[]>("GET", base + values(10))).body?.result.length).toBe(2);
    expect(errorCode(await call("GET", base + values(11)))).toBe(1013);
  });

  it.each([
    ["tag=!", 1007],
    ["tag=k=a,,b", 1007],
    ["tag=env%20name", 1014],
    ["tag=env%F0%9F%9A%80", 1014],
    [`tag=${"a".repeat(257)}`, 1011],
    [`tag=k=${"v".repeat(1025)}`, 1012],
    ["type=nope", 1006],
    ["tag=env&cursor=garbage", 1017],
  ])("?%s → %i", async (query, expected) => {
    const res = await call("GET", `/accounts/${a}/tags/resources?${query}`);
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe(expected);
    expect(res.body?.success).toBe(false);
    expect(res.body?.result).toBeNull();
  });

  it("pages with allPages helper even for one page", async () => {
    expect((await allPages<Resource>(`/accounts/${a}/tags/resources?tag=env`)).length).toBe(1);
  });
});

describe("case_insensitive", () => {
  it("folds non-ASCII letters (SQLite alone folds ASCII only) and sees every casing of a key", async () => {
    const a = newAccount();
    await put(a, worker("fr", { équipe: "Été" }));
    await put(a, worker("mixed", { Env: "X", env: "y" }));
    await put(a, worker("plain", { env: "z" }));
    const ids = async (query: string) =>
      (await call<Resource[]>("GET", `/accounts/${a}/tags/resources?${query}&case_insensitive=true`)).body?.result.map(
        (r) => r.id,
      );
    expect(await ids(`tag=${encodeURIComponent("ÉQUIPE=été")}`)).toEqual(["fr"]);
    expect(await ids("tag=ENV=x")).toEqual(["mixed"]); // matched through "Env" although "env" holds another value
    expect(await ids("tag=ENV=y")).toEqual(["mixed"]);
    expect(await ids("tag=ENV!=x")).toEqual(["fr", "plain"]);
    expect((await call<Resource[]>("GET", `/accounts/${a}/tags/resources?tag=ENV=x`)).body?.result).toEqual([]);
  });
});

describe("request checks through the Worker", () => {
  it.each([
    ["GET", "/accounts/ABCDEF0123456789abcdef0123456789/tags/keys"],
    ["GET", "/accounts/abc/tags/keys"],
    ["PUT", "/accounts/0123456789abcdef0123456789abcdef0/tags"],
  ])("%s %s (bad account id) → 404 envelope", async (method, path) => {
    const res = await call(method, path, method === "PUT" ? { body: {} } : {});
    expect(res.status).toBe(404);
    expect(res.body?.success).toBe(false);
  });

  it("answers a wrong method with 405 and Allow", async () => {
    const res = await call("POST", `/accounts/${newAccount()}/tags`);
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("GET, PUT, DELETE, PATCH");
    expect((await call("DELETE", `/accounts/${newAccount()}/tags/keys`)).headers.get("Allow")).toBe("GET");
  });

  it("serves the same API under /client/v4", async () => {
    const a = newAccount();
    await put(a, worker("w", { env: "prod" }));
    expect((await call("GET", `/client/v4/accounts/${a}/tags/keys`)).body?.result).toEqual(["env"]);
  });

  it.each([
    ["PUT", "{", 1002],
    ["PUT", "", 1002],
    ["DELETE", "{", 1015],
    ["DELETE", "", 1015],
    ["DELETE", '{"resource_type":"worker"}', 1015],
  ])("%s with body %j → %i", async (method, rawBody, expected) => {
    const res = await call(method, `/accounts/${newAccount()}/tags`, { rawBody });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe(expected);
  });

  it.each([
    ["", 1003],
    ["?resource_type=worker", 1003],
    ["?resource_id=x", 1003],
    ["?resource_type=nope&resource_id=x", 1006],
    ["?resource_type=zone&resource_id=x", 1006],
  ])("GET /tags%s → %i", async (query, expected) => {
    expect(errorCode(await call("GET", `/accounts/${newAccount()}/tags${query}`))).toBe(expected);
  });

  it("refuses bodies over 1 MiB with 413 and accepts just under", async () => {
    const a = newAccount();
    const filler = (n: number) =>
      JSON.stringify({ resource_type: "worker", resource_id: "w", tags: { k: "v" }, pad: "x".repeat(n) });
    const over = filler(1024 * 1024);
    const res = await call("PUT", `/accounts/${a}/tags`, { rawBody: over });
    expect(res.status).toBe(413);
    const bigValid = JSON.stringify({
      resource_type: "worker",
      resource_id: "w",
      tags: Object.fromEntries(Array.from({ length: 900 }, (_, i) => [`k${i}`, "v".repeat(1024)])),
    });
    expect(bigValid.length).toBeLessThan(1024 * 1024);
    expect((await call("PUT", `/accounts/${a}/tags`, { rawBody: bigValid })).status).toBe(200);
  });
});
