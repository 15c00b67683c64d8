/**
 * No zone speaks for the API (docs/configuration.md "Zone names"): a zone named after a host of API_HOSTS would
 * have its custom error rules, pages and assets served on the API's own origin (`/cdn-cgi/error/{code}` answers on
 * every host), where their script could read what the analytics page holds. Through the real Worker and real KV:
 * every spelling the host normalisation accepts is refused by every zone-writing route, and a zone of that name
 * stored anyway (before the check, or before API_HOSTS listed it) is never served on the API host.
 * The tests' API_HOSTS is `localhost` (vitest.config.ts).
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api as mountedApi } from "../../../../src/app";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { apiFetch, type Envelope } from "../../support/envelope";
import { remember } from "../../../../src/state/zone/cache";
import type { ZoneDocument } from "../../../../src/state/zone/schema";
import { parseDocument } from "../../../../src/state/zone/store";

const API_HOST = "localhost";

async function refusal(res: Response): Promise<{ status: number; code: number | undefined; message: string }> {
  const body = await res.json<Envelope>();
  return { status: res.status, code: body.errors[0]?.code, message: body.errors[0]?.message ?? "" };
}

/** Every spelling of `localhost` that `zoneParam` + `parseZoneName` turn into `localhost`. */
const SPELLINGS = [
  "localhost",
  "LOCALHOST",
  "LocalHost",
  "localhost.",
  "LOCALHOST.",
  "%6Cocalhost",
  "%4C%4F%43%41%4C%48%4F%53%54",
  "localhost%2E",
  "localhost%2e",
];

const SCRIPT_RULE = {
  expression: "true",
  action: "serve_error",
  action_parameters: {
    content: "<!doctype html><title>owned</title><script>window.stolen = sessionStorage.length</script>",
    content_type: "text/html",
  },
};

describe("a zone named after an API host is refused", () => {
  it.each(SPELLINGS)("PUT /zones/%s: 400, code 7003, naming API_HOSTS; nothing stored", async (spelling) => {
    for (const prefix of ["", "/client/v4"]) {
      const res = await apiFetch("PUT", `${prefix}/zones/${spelling}`, { plan: "pro", origin: loopback(ports.http) });
      const answer = await refusal(res);
      expect(answer).toMatchObject({ status: 400, code: 7003 });
      expect(answer.message).toContain(`${API_HOST} is a host of the management API (API_HOSTS)`);
    }
    expect(await env.CONFIG.get(`zone:${API_HOST}`)).toBeNull();
    // A rehearsal is refused alike: the same answer as the write.
    const dry = await apiFetch("PUT", `/zones/${spelling}?dry_run=true`, { plan: "pro", origin: loopback(ports.http) });
    expect(await refusal(dry)).toMatchObject({ status: 400, code: 7003 });
  });

  it("with a port, or as an IP literal: refused as no hostname", async () => {
    for (const spelling of ["localhost:8787", "LOCALHOST.:443", "127.0.0.1", "%5B%3A%3A1%5D"]) {
      const res = await apiFetch("PUT", `/zones/${spelling}`, { plan: "pro", origin: loopback(ports.http) });
      const answer = await refusal(res);
      expect(answer, spelling).toMatchObject({ status: 400, code: 7003 });
      expect(answer.message).toMatch(/not an IP address|without a port/);
    }
  });

  it("every zone route that writes or renders refuses it (rulesets, pages, assets, access rules, previews, …)", async () => {
    const writes = mountedApi.routes.filter(
      (r) => r.path.startsWith("/zones/:zone") && !["GET", "HEAD", "DELETE"].includes(r.method),
    );
    // The route table grows; this test covers whatever it holds, and holds at least the sections of today.
    expect(writes.length).toBeGreaterThanOrEqual(10);
    for (const route of writes) {
      for (const spelling of ["localhost", "LocalHost."]) {
        const path = route.path
          .replace(":zone", spelling)
          .replace(":phase", "http_custom_errors")
          .replace(/:(\w+)/g, "0123456789abcdef0123456789abcdef");
        const answer = await refusal(await apiFetch(route.method, path, { rules: [SCRIPT_RULE] }));
        expect(answer, `${route.method} ${route.path}`).toMatchObject({ status: 400, code: 7003 });
        expect(answer.message).toContain("API_HOSTS");
      }
    }
  });

  it("a subdomain of an API host is another origin and stays a zone name", async () => {
    const zone = `shop-${Math.random().toString(36).slice(2, 8)}.localhost`;
    await putZone(zone, { origin: loopback(ports.http) });
    expect((await apiFetch("DELETE", `/zones/${zone}`)).status).toBe(200);
  });
});

describe("a zone of that name stored anyway is never served on the API host", () => {
  /** Writes `zone:localhost` as a zone written before the check would be: a copy of a real zone's document. */
  async function storeLegacyApiHostZone(): Promise<void> {
    const donor = uniqueZone("legacy-donor");
    await putZone(donor, { origin: loopback(ports.closed) });
    expect(
      (await apiFetch("PUT", `/zones/${donor}/rulesets/phases/http_custom_errors/entrypoint`, { rules: [SCRIPT_RULE] }))
        .status,
    ).toBe(200);
    const document = JSON.parse((await env.CONFIG.get(`zone:${donor}`)) ?? "null") as Record<string, unknown>;
    const legacy = { ...document, zone: API_HOST } as ZoneDocument;
    await env.CONFIG.put(`zone:${API_HOST}`, JSON.stringify(legacy));
    // This isolate sees it at once, as it would a zone it had just read (whatever an earlier test left cached).
    const parsed = parseDocument(API_HOST, legacy);
    if (!parsed.ok) throw new Error(parsed.error.cause);
    remember(API_HOST, parsed.value);
    // The donor proves the rule serves its script where it is a zone.
    const own = await exports.default.fetch(`http://${donor}/cdn-cgi/error/500`, { headers: { Accept: "text/html" } });
    expect(await own.text()).toContain("window.stolen");
  }

  it("/cdn-cgi/error/{code} on every spelling of the API host: the structured default, no operator content", async () => {
    await storeLegacyApiHostZone();
    for (const host of ["localhost", "LOCALHOST", "localhost.", "localhost:8787"]) {
      for (const accept of ["text/html", "application/json", "text/markdown"]) {
        const res = await exports.default.fetch(`http://${host}/cdn-cgi/error/500`, { headers: { Accept: accept } });
        const text = await res.text();
        expect(res.status, `${host} ${accept}`).toBe(500);
        expect(text).not.toContain("window.stolen");
        expect(res.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
        expect(res.headers.get("Content-Type")).toContain(accept);
      }
    }
  });

  it("it can still be read and deleted (GET and DELETE accept the name), and is then gone", async () => {
    await storeLegacyApiHostZone();
    expect((await apiFetch("GET", `/zones/${API_HOST}`)).status).toBe(200);
    expect((await apiFetch("DELETE", `/zones/LocalHost.`)).status).toBe(200);
    expect(await env.CONFIG.get(`zone:${API_HOST}`)).toBeNull();
    expect((await apiFetch("GET", `/zones/${API_HOST}`)).status).toBe(404);
  });
});
