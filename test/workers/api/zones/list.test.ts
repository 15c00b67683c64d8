/**
 * `GET /zones` (docs/configuration.md "Listing zones") through the real Worker and real KV: the published shape,
 * page-number and keyset (cursor) pagination, a walk across KV list pages, zones' parts never listed, token scope,
 * and refused parameters. Storage is this file's own, so the zones created here are all there are.
 */
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { tokenDigestHex } from "../../../../src/api/kit/auth";
import worker from "../../../../src/index";
import { ADMIN } from "../../support/origin";
import { apiFetch, apiOk } from "../../support/envelope";

interface Listed {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly plan?: { readonly legacy_id: string; readonly name: string };
  readonly modified_on?: string;
}
interface ListBody {
  readonly success: boolean;
  readonly errors: { readonly code: number; readonly message: string }[];
  readonly result: Listed[] | null;
  readonly result_info?: Record<string, unknown> & { readonly cursor: string | null; readonly count: number };
}

// Names chosen so that their key order is known: `a-…` < `b-…` < … (and `m-…` carries the parts).
const ZONES = ["a-list.example", "b-list.example", "c-list.example", "d-list.example", "e-list.example"];
const PARTED = "c-list.example";
const PAGE = "<html><head><title>Oops</title></head><body>::EDGE_ERROR_500S_BOX::</body></html>";

async function list(query = "", headers: Record<string, string> = ADMIN, prefix = ""): Promise<[number, ListBody]> {
  const res = await exports.default.fetch(`http://localhost${prefix}/zones${query}`, { headers });
  expect(res.headers.get("Content-Type")).toBe("application/json; charset=utf-8");
  return [res.status, await res.json<ListBody>()];
}

const names = (body: ListBody): string[] => (body.result ?? []).map((z) => z.name);

/** Follows `result_info.cursor` from `first` to the end; every page's names, in order. */
async function walk(first: string, headers: Record<string, string> = ADMIN): Promise<string[][]> {
  const pages: string[][] = [];
  let query = first;
  for (let i = 0; i < 50; i++) {
    const [status, body] = await list(query, headers);
    expect(status, JSON.stringify(body.errors)).toBe(200);
    pages.push(names(body));
    const cursor = body.result_info?.cursor ?? null;
    if (cursor === null) return pages;
    query = `?per_page=${String(body.result_info?.per_page)}&cursor=${encodeURIComponent(cursor)}`;
  }
  throw new Error("the cursor never ended");
}

beforeAll(async () => {
  // Created out of order: the listing is by name, not by creation.
  for (const zone of [...ZONES].reverse()) {
    await apiOk("PUT", `/zones/${zone}`, {
      plan: zone === "a-list.example" ? "business" : "pro",
      origin: "https://o.example",
    });
  }
  // A part of its own under `zone:{zone}:…` (a customised error page): never a zone of the list.
  await apiOk("PUT", `/zones/${PARTED}/custom_pages/500_errors`, {
    state: "customized",
    content: PAGE,
  });
  expect(await env.CONFIG.get(`zone:${PARTED}:page:500_errors`)).toBe(PAGE);
});

describe("GET /zones: the published shape", () => {
  it("lists every zone by name, parts left out, in the v4 envelope with page-number result_info", async () => {
    const [status, body] = await list();
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, errors: [] });
    expect(names(body)).toEqual(ZONES);
    expect(body.result_info).toEqual({
      page: 1,
      per_page: 20,
      count: 5,
      total_count: 5,
      total_pages: 1,
      cursor: null,
    });
    const first = body.result![0]!;
    expect(first).toMatchObject({
      id: "a-list.example",
      name: "a-list.example",
      status: "active",
      plan: { legacy_id: "business", name: "Business" },
    });
    expect(Date.parse(first.modified_on ?? "")).not.toBeNaN();
    // With the v4 prefix, the same answer.
    const [, v4] = await list("", ADMIN, "/client/v4");
    expect(names(v4)).toEqual(ZONES);
  });

  it("a deleted zone leaves the list", async () => {
    const zone = "f-list-gone.example";
    await apiOk("PUT", `/zones/${zone}`, { plan: "free", origin: "https://o.example" });
    expect(names((await list())[1])).toContain(zone);
    await apiOk("DELETE", `/zones/${zone}`);
    expect(names((await list())[1])).toEqual(ZONES);
  });

  it("needs a token: 401 without one", async () => {
    const [status, body] = await list("", {});
    expect(status).toBe(401);
    expect(body.errors[0]?.code).toBe(10000);
  });
});

describe("GET /zones: pagination", () => {
  it("page / per_page: slices by name, counts every zone", async () => {
    const pages = await Promise.all([1, 2, 3, 4].map((p) => list(`?page=${p}&per_page=2`)));
    expect(pages.map(([, b]) => names(b))).toEqual([ZONES.slice(0, 2), ZONES.slice(2, 4), ZONES.slice(4), []]);
    expect(pages.map(([, b]) => b.result_info)).toMatchObject([
      { page: 1, per_page: 2, count: 2, total_count: 5, total_pages: 3 },
      { page: 2, per_page: 2, count: 2, total_count: 5, total_pages: 3 },
      { page: 3, per_page: 2, count: 1, total_count: 5, total_pages: 3, cursor: null },
      { page: 4, per_page: 2, count: 0, total_count: 5, total_pages: 3, cursor: null },
    ]);
  });

  it("cursor: the pages after the first follow result_info.cursor, each zone once, null at the end", async () => {
    expect(await walk("?per_page=2")).toEqual([ZONES.slice(0, 2), ZONES.slice(2, 4), ZONES.slice(4)]);
    expect(await walk("?per_page=5")).toEqual([ZONES]);
    // A page's cursor leads on from that page: page 2's cursor gives what page 3 holds.
    const [, second] = await list("?page=2&per_page=2");
    const [, third] = await list(`?per_page=2&cursor=${second.result_info!.cursor!}`);
    expect(names(third)).toEqual(ZONES.slice(4));
    expect(third.result_info).toEqual({ per_page: 2, count: 1, cursor: null, cursors: { after: null } });
  });

  it("a zone created behind the cursor's position is not shown twice; one created ahead is shown", async () => {
    const [, first] = await list("?per_page=3");
    const cursor = first.result_info!.cursor!;
    const ahead = "e-list-ahead.example"; // after e-list.example by name
    const behind = "a-list-behind.example";
    for (const zone of [ahead, behind]) {
      await apiOk("PUT", `/zones/${zone}`, { plan: "pro", origin: "https://o.example" });
    }
    try {
      const rest = await walk(`?per_page=3&cursor=${cursor}`);
      expect(rest.flat()).toEqual(["d-list.example", "e-list-ahead.example", "e-list.example"]);
    } finally {
      for (const zone of [ahead, behind]) {
        await apiFetch("DELETE", `/zones/${zone}`);
      }
    }
  });
});

describe("GET /zones: token scope", () => {
  async function scopedEnv(): Promise<Env> {
    const tokens = [
      {
        name: "two-zones",
        token: "tok-two",
        zones: ["b-list.example", "D-LIST.example", "none.example"],
        p: ["zones:read"],
      },
      { name: "no-zones", token: "tok-none", zones: [], p: ["zones:read"] },
      { name: "all-zones", token: "tok-all", zones: ["*"], p: ["zones:read"] },
      { name: "tags-only", token: "tok-tags", zones: ["*"], p: ["tags:read"] },
    ];
    const apiTokens = await Promise.all(
      tokens.map(async (t) => ({
        name: t.name,
        sha256: await tokenDigestHex(t.token),
        accounts: [],
        zones: t.zones,
        permissions: t.p,
      })),
    );
    return { ...env, API_TOKENS: JSON.stringify(apiTokens) };
  }

  async function scoped(token: string, query = ""): Promise<[number, ListBody]> {
    const res = await worker.fetch(
      new Request(`http://localhost/zones${query}`, { headers: { Authorization: `Bearer ${token}` } }),
      await scopedEnv(),
      createExecutionContext(),
    );
    return [res.status, await res.json<ListBody>()];
  }

  it("a token scoped to zones lists only those that exist, and counts only those", async () => {
    const [status, body] = await scoped("tok-two");
    expect(status).toBe(200);
    expect(names(body)).toEqual(["b-list.example", "d-list.example"]);
    expect(body.result_info).toMatchObject({ count: 2, total_count: 2, total_pages: 1 });
    const [, paged] = await scoped("tok-two", "?per_page=1");
    expect(names(paged)).toEqual(["b-list.example"]);
    const [, next] = await scoped("tok-two", `?per_page=1&cursor=${paged.result_info!.cursor!}`);
    expect(names(next)).toEqual(["d-list.example"]);
    expect(next.result_info!.cursor).toBeNull();
  });

  it("a cursor names a position, never a zone: one made by hand still shows only the token's zones", async () => {
    const forged = btoa(JSON.stringify(["", "a-list.example"])).replace(/=+$/, "");
    const [status, body] = await scoped("tok-two", `?cursor=${forged}`);
    expect(status).toBe(200);
    expect(names(body)).toEqual(["b-list.example", "d-list.example"]);
  });

  it("a token with every zone lists all; one with none lists nothing; one without zones:read is refused", async () => {
    expect(names((await scoped("tok-all"))[1])).toEqual(ZONES);
    const [noneStatus, none] = await scoped("tok-none");
    expect(noneStatus).toBe(200);
    expect(none.result).toEqual([]);
    expect(none.result_info).toMatchObject({ count: 0, total_count: 0, total_pages: 0, cursor: null });
    const [tagsStatus, tags] = await scoped("tok-tags");
    expect(tagsStatus).toBe(403);
    expect(tags.errors[0]?.code).toBe(10001);
  });
});

describe("GET /zones: refused parameters (400, 20060)", () => {
  it.each([
    ["an unknown parameter", "?status=active"],
    ["per_page 0", "?per_page=0"],
    ["per_page over 50", "?per_page=51"],
    ["per_page not a number", "?per_page=ten"],
    ["page twice", "?page=1&page=2"],
    ["page 0", "?page=0"],
    ["page and cursor", "?page=2&cursor=WyIiLCIiXQ"],
    ["an empty cursor", "?cursor="],
    ["a cursor that is not base64url", "?cursor=%2A%2A%2A"],
    ["a cursor that is not the listing's JSON", `?cursor=${btoa('{"a":1}').replace(/=+$/, "")}`],
    ["a cursor whose zone is not a hostname", `?cursor=${btoa('["","not a host"]').replace(/=+$/, "")}`],
    ["a cursor over 2,048 characters", `?cursor=${"A".repeat(2049)}`],
  ])("%s", async (_what, query) => {
    const [status, body] = await list(query);
    expect(status).toBe(400);
    expect(body.success).toBe(false);
    expect(body.errors[0]?.code).toBe(20060);
    expect(body.errors[0]?.message).toMatch(/page|cursor|parameter/);
  });
});

describe("GET /zones: the query is one schema", () => {
  it("names the parameter and the rule its schema states (the document's bounds)", async () => {
    const [, unknown] = await list("?status=active");
    expect(unknown.errors[0]?.message).toBe(
      "status is not a parameter of this listing (page, per_page, cursor, account.id, name)",
    );
    const [, range] = await list("?per_page=51");
    expect(range.errors[0]?.message).toBe("per_page must be given once, as an integer from 1 to 50");
  });
});

describe("GET /zones: across KV list pages", () => {
  it("a walk crosses the 1,000-key list pages of the index without losing or repeating a zone", async () => {
    // 1,100 part keys under one zone (as its custom error assets would be) push the zones after it onto later
    // KV list pages: `c-list.example:asset:…` sorts between c-list.example and d-list.example.
    // Kept afterwards: this is the file's last test.
    const parts = Array.from({ length: 1100 }, (_, i) => `zone:${PARTED}:asset:bulk_${String(i).padStart(4, "0")}`);
    for (let i = 0; i < parts.length; i += 100) {
      await Promise.all(parts.slice(i, i + 100).map((key) => env.CONFIG.put(key, "<html></html>")));
    }
    const [, all] = await list();
    expect(names(all)).toEqual(ZONES);
    expect(all.result_info).toMatchObject({ count: 5, total_count: 5 });
    expect((await walk("?per_page=1")).flat()).toEqual(ZONES);
    expect((await walk("?per_page=3")).flat()).toEqual(ZONES);
    const [, third] = await list("?page=3&per_page=1");
    expect(names(third)).toEqual(["c-list.example"]);
    const [, fourth] = await list(`?per_page=1&cursor=${third.result_info!.cursor!}`);
    expect(names(fourth)).toEqual(["d-list.example"]);
  }, 60_000);
});
