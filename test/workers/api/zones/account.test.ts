/**
 * The zone object's `account` (docs/configuration.md "Zone accounts") through the real Worker, writer and KV: set on
 * create, replaced or removed by a later PUT, shown by `GET /zones/{zone}` and `GET /zones`, refused when malformed
 * (400, 1004, naming the field), and a token's `accounts` scope: such a token reaches exactly the zones of its
 * accounts, may create a zone only in one of them, and may neither move a zone out of them nor leave it in none.
 * Zones without an account keep working for tokens that name them.
 */
import { createExecutionContext } from "cloudflare:test";
import Cloudflare from "cloudflare";
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { tokenDigestHex } from "../../../../src/api/kit/auth";
import worker from "../../../../src/index";
import { api, apiOk, type Envelope } from "../../support/envelope";
import { uniqueZone } from "../../support/origin";

const A = "a".repeat(31) + "1";
const B = "b".repeat(31) + "2";
const ORIGIN = "http://127.0.0.1:9";

interface ZoneResult {
  readonly zone: string;
  readonly account?: { readonly id: string };
}
interface Listed {
  readonly name: string;
  readonly account?: { readonly id: string };
}

let scopedEnv: Env;

beforeAll(async () => {
  const tokens = [
    { name: "account-a", token: "tok-a", accounts: [A], zones: [], p: ["zones:read", "zones:write"] },
    { name: "any-account", token: "tok-any", accounts: ["*"], zones: [], p: ["zones:read", "zones:write"] },
    {
      name: "named",
      token: "tok-named",
      accounts: [],
      zones: ["named-zone.example"],
      p: ["zones:read", "zones:write"],
    },
  ];
  const apiTokens = await Promise.all(
    tokens.map(async (t) => ({
      name: t.name,
      sha256: await tokenDigestHex(t.token),
      accounts: t.accounts,
      zones: t.zones,
      permissions: t.p,
    })),
  );
  scopedEnv = { ...env, API_TOKENS: JSON.stringify(apiTokens) };
});

/** One API request as a scoped token. */
async function as<T = unknown>(
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<[number, Envelope<T>]> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const init: RequestInit = { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
  const res = await worker.fetch(new Request(`http://localhost${path}`, init), scopedEnv, createExecutionContext());
  return [res.status, await res.json<Envelope<T>>()];
}

describe("the zone's account: written, shown, replaced", () => {
  it("PUT with account shows it in GET /zones/{zone} and GET /zones; a PUT without it removes it", async () => {
    const zone = uniqueZone("acct");
    const put = await apiOk<ZoneResult>("PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN, account: { id: A } });
    expect(put.result.account).toEqual({ id: A });
    expect((await apiOk<ZoneResult>("GET", `/zones/${zone}`)).result.account).toEqual({ id: A });
    const listed = await apiOk<Listed[]>("GET", "/client/v4/zones?per_page=50");
    expect(listed.result.find((z) => z.name === zone)?.account).toEqual({ id: A });

    const replaced = await apiOk<ZoneResult>("PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN });
    expect(replaced.result).not.toHaveProperty("account");
    expect(await apiOk<ZoneResult>("GET", `/zones/${zone}`)).not.toHaveProperty("result.account");
    const again = await apiOk<Listed[]>("GET", "/zones?per_page=50");
    expect(again.result.find((z) => z.name === zone)).not.toHaveProperty("account");
  });

  it("account: null is no account", async () => {
    const zone = uniqueZone("acct-null");
    const put = await apiOk<ZoneResult>("PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN, account: null });
    expect(put.result).not.toHaveProperty("account");
  });

  it.each([
    ["a string", "acme", "account must be an object"],
    ["an array", [A], "account must be an object"],
    ["no id", {}, "account.id must be 32 lower-case hex characters"],
    ["upper-case hex", { id: A.toUpperCase() }, "account.id must be 32 lower-case hex characters"],
    ["31 characters", { id: A.slice(1) }, "account.id must be 32 lower-case hex characters"],
    ["a number", { id: 12 }, "account.id must be 32 lower-case hex characters"],
    ["another key", { id: A, name: "Acme" }, "account.name is not a field of account (only id)"],
  ])(
    "a malformed account (%s) is refused: 400, 1004, naming the field, nothing stored",
    async (_, account, message) => {
      const zone = uniqueZone("acct-bad");
      const answer = await api("PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN, account });
      expect(answer.status).toBe(400);
      expect(answer.body.success).toBe(false);
      expect(answer.body.errors).toHaveLength(1);
      expect(answer.body.errors[0]).toMatchObject({ code: 1004 });
      expect(answer.body.errors[0]!.message).toContain(`Invalid zone setting: ${message}`);
      expect((await api("GET", `/zones/${zone}`)).status).toBe(404);
    },
  );
});

describe("a token scoped to accounts", () => {
  const ofA = uniqueZone("of-a");
  const ofB = uniqueZone("of-b");
  const none = uniqueZone("of-none");

  beforeAll(async () => {
    await apiOk("PUT", `/zones/${ofA}`, { plan: "pro", origin: ORIGIN, account: { id: A } });
    await apiOk("PUT", `/zones/${ofB}`, { plan: "pro", origin: ORIGIN, account: { id: B } });
    await apiOk("PUT", `/zones/${none}`, { plan: "pro", origin: ORIGIN });
  });

  it("reads and writes the zones of its accounts, and their sections", async () => {
    const [status, body] = await as<ZoneResult>("tok-a", "GET", `/zones/${ofA}`);
    expect(status).toBe(200);
    expect(body.result.account).toEqual({ id: A });
    const [pagesStatus] = await as("tok-a", "GET", `/client/v4/zones/${ofA}/custom_pages`);
    expect(pagesStatus).toBe(200);
    const [putStatus, put] = await as<ZoneResult>("tok-a", "PUT", `/zones/${ofA}`, {
      plan: "business",
      origin: ORIGIN,
      account: { id: A },
    });
    expect(putStatus, JSON.stringify(put.errors)).toBe(200);
  });

  it("gets 403 (10001) on a zone of another account, of none, or not configured", async () => {
    for (const zone of [ofB, none, uniqueZone("nowhere")]) {
      for (const [method, path] of [
        ["GET", `/zones/${zone}`],
        ["DELETE", `/zones/${zone}`],
        ["GET", `/zones/${zone}/custom_pages`],
      ] as const) {
        const [status, body] = await as("tok-a", method, path);
        expect(status, `${method} ${path}`).toBe(403);
        expect(body.errors[0]?.code).toBe(10001);
      }
    }
    const [status] = await as("tok-a", "PUT", `/zones/${ofB}`, { plan: "pro", origin: ORIGIN, account: { id: A } });
    expect(status).toBe(403);
    expect((await apiOk<ZoneResult>("GET", `/zones/${ofB}`)).result.account).toEqual({ id: B });
  });

  it("creates a zone only in one of its accounts", async () => {
    const created = uniqueZone("created-a");
    const [status, body] = await as<ZoneResult>("tok-a", "PUT", `/zones/${created}`, {
      plan: "pro",
      origin: ORIGIN,
      account: { id: A },
    });
    expect(status, JSON.stringify(body.errors)).toBe(200);
    expect(body.result.account).toEqual({ id: A });

    for (const account of [{ id: B }, undefined]) {
      const zone = uniqueZone("refused");
      const [refused, answer] = await as("tok-a", "PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN, account });
      expect(refused).toBe(403);
      expect(answer.errors[0]?.code).toBe(10001);
      expect(answer.errors[0]?.message).toMatch(/^Authorization error: /);
      expect((await api("GET", `/zones/${zone}`)).status).toBe(404);
      // The rehearsal is refused as the write is.
      const [rehearsed] = await as("tok-a", "PUT", `/zones/${zone}?dry_run=true`, {
        plan: "pro",
        origin: ORIGIN,
        account,
      });
      expect(rehearsed).toBe(403);
    }
  });

  it("may neither move a zone to another account nor leave it in none", async () => {
    const zone = uniqueZone("mover");
    await apiOk("PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN, account: { id: A } });
    const [moved, movedBody] = await as("tok-a", "PUT", `/zones/${zone}`, {
      plan: "pro",
      origin: ORIGIN,
      account: { id: B },
    });
    expect(moved).toBe(403);
    expect(movedBody.errors[0]?.message).toContain(`account ${B}`);
    const [dropped, droppedBody] = await as("tok-a", "PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN });
    expect(dropped).toBe(403);
    expect(droppedBody.errors[0]?.message).toContain("account.id");
    expect((await apiOk<ZoneResult>("GET", `/zones/${zone}`)).result.account).toEqual({ id: A });
    // A token with every account moves it.
    const [any] = await as("tok-any", "PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN, account: { id: B } });
    expect(any).toBe(200);
    expect((await as("tok-a", "GET", `/zones/${zone}`))[0]).toBe(403);
  });

  it("lists exactly the zones of its accounts (GET /zones, both paginations)", async () => {
    const [status, body] = await as<Listed[]>("tok-a", "GET", "/zones?per_page=50");
    expect(status).toBe(200);
    const names = body.result.map((z) => z.name);
    expect(names).toContain(ofA);
    expect(names).not.toContain(ofB);
    expect(names).not.toContain(none);
    expect(body.result.every((z) => z.account?.id === A)).toBe(true);
    const [, any] = await as<Listed[]>("tok-any", "GET", "/zones?per_page=50");
    expect(any.result.map((z) => z.name)).toEqual(expect.arrayContaining([ofA, ofB]));
    expect(any.result.map((z) => z.name)).not.toContain(none);
  });
});

describe("GET /zones?account.id= (the published filter)", () => {
  it("the official client lists one account's zones; a malformed id is 400 (20060)", async () => {
    const client = new Cloudflare({
      apiToken: "test-admin-token",
      baseURL: "http://localhost/client/v4",
      fetch: (url, init) => exports.default.fetch(url, init),
      maxRetries: 0,
    });
    const mine = uniqueZone("filter-a");
    const theirs = uniqueZone("filter-b");
    await apiOk("PUT", `/zones/${mine}`, { plan: "pro", origin: ORIGIN, account: { id: A } });
    await apiOk("PUT", `/zones/${theirs}`, { plan: "pro", origin: ORIGIN, account: { id: B } });
    const names: string[] = [];
    for await (const zone of client.zones.list({ account: { id: A }, per_page: 1 })) names.push(zone.name);
    expect(names).toContain(mine);
    expect(names).not.toContain(theirs);
    const listed = await apiOk<Listed[]>("GET", `/zones?account.id=${B}&per_page=50`);
    expect(listed.result.every((z) => z.account?.id === B)).toBe(true);
    expect(listed.result.map((z) => z.name)).toContain(theirs);
    for (const query of ["?account.id=ACME", `?account.id=${A}&account.id=${B}`]) {
      const refused = await api("GET", `/zones${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.errors[0]?.code).toBe(20060);
    }
    // Within the token's scope: a token of account A asking for B's zones gets none.
    const [status, body] = await as<Listed[]>("tok-a", "GET", `/zones?account.id=${B}`);
    expect(status).toBe(200);
    expect(body.result).toEqual([]);
  });
});

describe("a token scoped to zone names", () => {
  it("may keep or remove the account an admin set, never name one itself", async () => {
    const zone = "named-zone.example";
    const [created] = await as("tok-named", "PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN });
    expect(created).toBe(200);
    const [named, namedBody] = await as("tok-named", "PUT", `/zones/${zone}`, {
      plan: "pro",
      origin: ORIGIN,
      account: { id: A },
    });
    expect(named).toBe(403);
    expect(namedBody.errors[0]?.code).toBe(10001);
    await apiOk("PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN, account: { id: A } });
    const [kept] = await as("tok-named", "PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN, account: { id: A } });
    expect(kept).toBe(200);
    const [readBack, body] = await as<ZoneResult>("tok-named", "GET", `/zones/${zone}`);
    expect(readBack).toBe(200);
    expect(body.result.account).toEqual({ id: A });
    const [removed] = await as("tok-named", "PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN });
    expect(removed).toBe(200);
  });
});
