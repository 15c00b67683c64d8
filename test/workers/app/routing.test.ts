import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parseSettings } from "../../../src/shared/settings";
import { destinationOf } from "../../../src/app";
import { ADMIN, loopback, ports, zoneFor } from "../support/origin";
import { apiFetch } from "../support/envelope";

describe("destinationOf (docs/architecture.md routing order)", () => {
  const settings = parseSettings({ API_HOSTS: "localhost,127.0.0.1,api.example", SERVICE_PREFIX: "/cdn-cgi" });
  it.each([
    ["http://shop.example/cdn-cgi/error/522", "service"],
    ["http://localhost/cdn-cgi/errors", "service"],
    ["http://api.example/cdn-cgi/error/500", "service"],
    ["http://localhost/zones/x", "api"],
    ["http://API.EXAMPLE:8787/accounts/x/tags", "api"],
    ["http://shop.example/", "zone"],
    ["http://shop.example/cdn-cgiX", "zone"],
    ["http://localhost./zones/x", "api"], // an absolute name is the same host (RFC 1034 §3.1)
    ["http://API.EXAMPLE.:8787/zones/x", "api"],
    ["http://api.example../zones/x", "zone"],
  ])("%s → %s", (url, expected) => {
    expect(destinationOf(new URL(url), settings)).toBe(expected);
  });

  it("honours a custom SERVICE_PREFIX", () => {
    const custom = parseSettings({ SERVICE_PREFIX: "/_edge/" });
    expect(custom.servicePrefix).toBe("/_edge");
    expect(destinationOf(new URL("http://shop.example/_edge/errors"), custom)).toBe("service");
    expect(destinationOf(new URL("http://shop.example/cdn-cgi/errors"), custom)).toBe("zone");
  });
});

describe("management API", () => {
  it.each(["/nope", "/client/v4/nope"])("answers unknown route %s with a 404 envelope", async (path) => {
    const res = await apiFetch("GET", path);
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toBe("application/json; charset=utf-8");
    const body = await res.json<{ success: boolean; errors: { code: number }[]; result: unknown }>();
    expect(body.success).toBe(false);
    expect(body.errors[0]?.code).toBe(7003);
    expect(body.result).toBeNull();
  });
});

describe("an absolute host name (trailing dot) is the same zone (RFC 1034 §3.1)", () => {
  it("zone traffic finds the config the zones API stored without the dot", async () => {
    const zone = await zoneFor("dot", loopback(ports.http));
    const res = await exports.default.fetch(`http://${zone}./echo`, { headers: { Accept: "application/json" } });
    expect(res.status, await res.clone().text()).toBe(200);
    await res.body?.cancel();
  });

  it("the error's zone field names the zone without the dot", async () => {
    const res = await exports.default.fetch("http://Shop-Dot.Example.:8787/cdn-cgi/error/522", {
      headers: { Accept: "application/json" },
    });
    expect(await res.json()).toMatchObject({ error_code: 522, zone: "shop-dot.example" });
  });

  it("the management API answers on an API host spelled with the dot", async () => {
    const res = await exports.default.fetch("http://localhost./nope", { headers: ADMIN });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ success: false, errors: [{ code: 7003 }] });
  });
});

describe("every management request is authenticated first (docs/configuration.md, hostile input 6)", () => {
  const ACCOUNT = "0123456789abcdef0123456789abcdef";
  it.each<[string, string, string, number, number]>([
    ["an unknown path", "GET", "/no/such/endpoint", 404, 7003],
    ["an unknown path under /client/v4", "GET", "/client/v4/nope", 404, 7003],
    ["a wrong method on a zone", "POST", "/zones/shop.example", 405, 10405],
    ["a wrong method on tags", "POST", `/accounts/${ACCOUNT}/tags`, 405, 10405],
    ["a malformed account id", "GET", "/accounts/NOT-AN-ACCOUNT/tags/keys", 404, 7003],
    ["a malformed zone name", "GET", "/zones/bad_name.example", 400, 7003],
  ])("%s answers 401 without a token, and its own error with one", async (_name, method, path, status, code) => {
    const anonymous = await apiFetch(method, path, undefined, {});
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ success: false, errors: [{ code: 10000 }] });
    const known = await apiFetch(method, path);
    expect(known.status).toBe(status);
    expect(await known.json()).toMatchObject({ success: false, errors: [{ code }] });
  });

  it("a wrong method with a token answers 405 with Allow", async () => {
    const res = await apiFetch("PUT", `/accounts/${ACCOUNT}/tags/keys`);
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("GET");
  });

  it("/openapi.json stays public (docs/differences.md)", async () => {
    for (const path of ["/openapi.json", "/client/v4/openapi.json"]) {
      expect((await exports.default.fetch(`http://localhost${path}`)).status).toBe(200);
    }
  });
});

describe("a request carrying our own CDN-Loop mark is a loop, whatever it asks for (docs/origin.md, input 1)", () => {
  it.each([
    ["the management API", "http://localhost/zones/shop.example"],
    ["the OpenAPI document", "http://localhost/openapi.json"],
    ["a service endpoint", "http://localhost/cdn-cgi/errors"],
  ])("%s → 1000", async (_name, url) => {
    const res = await exports.default.fetch(url, {
      headers: { ...ADMIN, "CDN-Loop": "other-cdn, edge-errors", Accept: "application/json" },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error_code: 1000 });
  });
});

describe("parseSettings: operator input is normalised, never half-read", () => {
  it("API_HOSTS entries lose their port and trailing dot, keep IPv6 brackets", () => {
    const { apiHosts } = parseSettings({ API_HOSTS: " LocalHost:8787 , api.example. ,[::1]:8787,,127.0.0.1" });
    expect([...apiHosts].sort()).toEqual(["127.0.0.1", "[::1]", "api.example", "localhost"]);
    expect(
      destinationOf(new URL("http://api.example:8787/zones/x"), parseSettings({ API_HOSTS: "api.example:443" })),
    ).toBe("api");
  });

  it.each([
    ["25000", 25_000],
    [" 12 ", 12],
    ["10abc", 10_000],
    ["0", 10_000],
    ["-5", 10_000],
    ["1e6", 10_000],
    ["", 10_000],
  ])("TAG_LIMIT %j → %d (default for anything but a whole positive number)", (raw, expected) => {
    expect(parseSettings({ TAG_LIMIT: raw }).tagLimit).toBe(expected);
  });
});
