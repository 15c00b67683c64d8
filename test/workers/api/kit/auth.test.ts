/**
 * Management API authentication (docs/configuration.md) through the real Worker: 401 (10000) / 403 (10001) in the v4
 * envelope, ADMIN_TOKEN, scoped API_TOKENS by permission, zone and account, fail-closed parsing, and the
 * constant-time comparison path.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { authenticate, parseApiTokens, tokenDigestHex } from "../../../../src/api/kit/auth";
import worker from "../../../../src/index";
import type { Envelope } from "../../support/envelope";
import { countRequestWork } from "../../support/string-work";

const ACCOUNT = "0123456789abcdef0123456789abcdef";
const OTHER_ACCOUNT = "fedcba9876543210fedcba9876543210";

async function apiTokens(): Promise<string> {
  const tokens = [
    {
      name: "zone-a-reader",
      token: "tok-zone-a-reader",
      accounts: [],
      zones: ["a.example"],
      permissions: ["zones:read"],
    },
    {
      name: "zone-a-writer",
      token: "tok-zone-a-writer",
      accounts: [],
      zones: ["A.example"],
      permissions: ["zones:read", "zones:write"],
    },
    {
      name: "all-zones",
      token: "tok-all-zones",
      accounts: [],
      zones: ["*"],
      permissions: ["zones:write", "zones:read"],
    },
    { name: "tags-reader", token: "tok-tags-reader", accounts: [ACCOUNT], zones: [], permissions: ["tags:read"] },
  ];
  return JSON.stringify(
    await Promise.all(tokens.map(async ({ token, ...rest }) => ({ ...rest, sha256: await tokenDigestHex(token) }))),
  );
}

async function call(path: string, init: RequestInit & { token?: string; apiTokens?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.token !== undefined) headers.set("Authorization", `Bearer ${init.token}`);
  const local = { ...env, API_TOKENS: init.apiTokens ?? (await apiTokens()) };
  return worker.fetch(new Request(`http://localhost${path}`, { ...init, headers }), local, createExecutionContext());
}

async function expectCode(res: Response, status: number, code: number): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get("Content-Type")).toBe("application/json; charset=utf-8");
  const body = await res.json<Envelope>();
  expect(body.success).toBe(false);
  expect(body.errors[0]?.code).toBe(code);
}

const zoneBody = JSON.stringify({ plan: "pro", origin: "http://o.example" });

describe("401: missing or unknown token", () => {
  it.each<[string, Record<string, string>]>([
    ["no Authorization", {}],
    ["unknown token", { Authorization: "Bearer not-a-token" }],
    ["empty bearer", { Authorization: "Bearer " }],
    ["Basic scheme", { Authorization: "Basic dGVzdC1hZG1pbi10b2tlbjo=" }],
    ["token without scheme", { Authorization: "test-admin-token" }],
    ["admin token with a suffix", { Authorization: "Bearer test-admin-tokenX" }],
    ["admin token prefix", { Authorization: "Bearer test-admin-toke" }],
  ])("%s → 401 (10000)", async (_name, headers) => {
    const res = await call("/zones/a.example", { headers });
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
    await expectCode(res, 401, 10000);
  });

  it("is checked before the body is read: an unauthenticated 2 MiB body is 401, not 413", async () => {
    const res = await call("/zones/a.example", { method: "PUT", body: "x".repeat(2 * 1024 * 1024) });
    await expectCode(res, 401, 10000);
  });

  it("bearer scheme is case-insensitive (RFC 6750)", async () => {
    const res = await call("/zones/nonexistent-zone.example", {
      headers: { Authorization: "bearer test-admin-token" },
    });
    await expectCode(res, 404, 1001);
  });
});

describe("scoped tokens (403 = authenticated, not allowed)", () => {
  it.each<[string, string, string, string, number]>([
    ["zones:read on its zone", "tok-zone-a-reader", "GET", "/zones/a.example", 404],
    ["zones:read, zone names case-insensitive", "tok-zone-a-reader", "GET", "/zones/A.EXAMPLE", 404],
    ["zones:read, the zone's absolute name (trailing dot)", "tok-zone-a-reader", "GET", "/zones/a.example.", 404],
    ["zones:read, an escaped trailing dot is the same name", "tok-zone-a-reader", "GET", "/zones/a.example%2E", 404],
    ["zones:read cannot write", "tok-zone-a-reader", "PUT", "/zones/a.example", 403],
    ["zones:read cannot delete", "tok-zone-a-reader", "DELETE", "/zones/a.example", 403],
    ["zones:read outside its zones", "tok-zone-a-reader", "GET", "/zones/b.example", 403],
    ["zones:write on its zone", "tok-zone-a-writer", "PUT", "/zones/a.example", 200],
    ["zones:write outside its zones", "tok-zone-a-writer", "PUT", "/zones/b.example", 403],
    ["'*' zones", "tok-all-zones", "PUT", "/zones/anything.example", 200],
    ["tags token on zones", "tok-tags-reader", "GET", "/zones/a.example", 403],
    ["zones token on tags", "tok-all-zones", "GET", `/accounts/${ACCOUNT}/tags/keys`, 403],
    ["tags:read on its account", "tok-tags-reader", "GET", `/accounts/${ACCOUNT}/tags/keys`, 200],
    ["tags:read outside its accounts", "tok-tags-reader", "GET", `/accounts/${OTHER_ACCOUNT}/tags/keys`, 403],
    ["tags:read cannot write", "tok-tags-reader", "DELETE", `/accounts/${ACCOUNT}/tags`, 403],
    ["admin everywhere", "test-admin-token", "GET", `/accounts/${OTHER_ACCOUNT}/tags/keys`, 200],
  ])("%s", async (_name, token, method, path, status) => {
    const res = await call(path, { method, token, body: method === "PUT" ? zoneBody : null });
    if (status === 403) await expectCode(res, 403, 10001);
    // Allowed: the route itself answers; a 404 must be the zone's own "not found" (1001, not written yet), never
    // the router's "no such endpoint" (7003), which would mean the request never reached the route.
    else if (status === 404) await expectCode(res, 404, 1001);
    else expect(res.status, await res.clone().text()).toBe(status);
  });
});

describe("zone scopes are host names like the path's (docs/configuration.md)", () => {
  it("a scope written as an absolute name (trailing dot) covers the zone", async () => {
    const raw = JSON.stringify([
      { name: "fqdn", sha256: await tokenDigestHex("tok-fqdn"), zones: ["C.Example."], permissions: ["zones:read"] },
    ]);
    for (const path of ["/zones/c.example", "/zones/c.example."]) {
      await expectCode(await call(path, { token: "tok-fqdn", apiTokens: raw }), 404, 1001);
    }
    await expectCode(await call("/zones/d.example", { token: "tok-fqdn", apiTokens: raw }), 403, 10001);
  });
});

describe("malformed API_TOKENS fails closed", () => {
  it.each([
    ["not JSON", "{oops"],
    ["not an array", '{"sha256":"x"}'],
    ["a bad digest", JSON.stringify([{ sha256: "abc", zones: ["*"], permissions: ["zones:read"] }])],
    ["an unknown permission", JSON.stringify([{ sha256: "a".repeat(64), zones: ["*"], permissions: ["zones:admin"] }])],
  ])("%s: no scoped token works, the admin token still does", async (_name, raw) => {
    expect(parseApiTokens(raw).ok).toBe(false);
    const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await expectCode(await call("/zones/a.example", { token: "tok-zone-a-reader", apiTokens: raw }), 401, 10000);
    expect((await call("/zones/never-written.example", { token: "test-admin-token", apiTokens: raw })).status).toBe(
      404,
    );
    spy.mockRestore();
  });

  it("one bad entry invalidates the whole secret (no half-applied configuration)", async () => {
    const good = JSON.parse(await apiTokens()) as unknown[];
    const raw = JSON.stringify([...good, { sha256: "zz", zones: [], permissions: [] }]);
    const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await expectCode(await call("/zones/a.example", { token: "tok-zone-a-reader", apiTokens: raw }), 401, 10000);
    spy.mockRestore();
  });
});

describe("constant-time comparison", () => {
  afterEach(() => vi.restoreAllMocks());

  it("compares the presented digest with every known digest, whichever matches (no early exit)", async () => {
    const raw = await apiTokens(); // 4 scoped tokens + the admin token = 5 known digests
    const local = { ADMIN_TOKEN: "test-admin-token", API_TOKENS: raw };
    const spy = vi.spyOn(crypto.subtle, "timingSafeEqual");
    for (const token of ["test-admin-token", "tok-zone-a-reader", "tok-tags-reader", "wrong"]) {
      spy.mockClear();
      await authenticate(new Request("http://localhost/", { headers: { Authorization: `Bearer ${token}` } }), local);
      expect(spy, token).toHaveBeenCalledTimes(5);
      // Always digest against digest: equal lengths whatever the presented token's length.
      for (const [a, b] of spy.mock.calls)
        expect((a as ArrayBufferView).byteLength).toBe((b as ArrayBufferView).byteLength);
    }
  });
});

describe("hostile URLs cost linear work before authentication (docs/configuration.md)", () => {
  // itty-router's Router.fetch builds `request.query` with one `[].concat` per repeated key: quadratic, seconds of
  // CPU for these URLs before any handler (and so before the token check) ran. 8× the keys may cost at most about 8×
  // the work, counted (test/workers/support/string-work.ts `countRequestWork`), not timed: quadratic would be 64×.
  const repeated = (keys: number, pair: string) => "?" + pair.repeat(keys);

  it.each([
    ["unauthenticated", "/zones/a.example", {}, 401],
    ["unknown route, no token", "/no/such/endpoint", {}, 401],
    ["unknown route", "/no/such/endpoint", { Authorization: "Bearer test-admin-token" }, 404],
    [
      "tags, over the filter limit",
      `/accounts/${ACCOUNT}/tags/resources`,
      { Authorization: "Bearer test-admin-token" },
      400,
    ],
  ])("40,000 repeated query keys, %s", async (_name, path, headers, status) => {
    const pair = path.includes("/tags/") ? "tag=a&" : "a=1&";
    const tokens = await apiTokens();
    const send = (keys: number) =>
      countRequestWork(() => call(`${path}${repeated(keys, pair)}`, { headers, apiTokens: tokens }));
    // The first request of an isolate fills its caches (about a million units): not part of either count.
    await (await send(5_000)).value.body?.cancel();
    const small = await send(5_000);
    const large = await send(40_000);
    expect([small.value.status, large.value.status]).toEqual([status, status]);
    await small.value.body?.cancel();
    await large.value.body?.cancel();
    expect(large.units).toBeLessThanOrEqual(8.5 * small.units + 10_000);
  });
});
