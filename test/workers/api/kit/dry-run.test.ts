/**
 * `?dry_run=` on every zone write (docs/configuration.md "any write", kit/dry-run.ts), through the real Worker and the zone's
 * real writer: a valid write rehearsed answers 200 with `result: null` and changes nothing (read back through the API
 * and through traffic); an invalid one fails exactly as the write would; values other than `true`/`false`, or the
 * parameter repeated, are 400 before any work; a route that cannot rehearse (tags) refuses the parameter; auth
 * comes first (a reader's dry run is 403, as its write).
 */
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DRY_RUN_CODE } from "../../../../src/api/kit/dry-run";
import { tokenDigestHex } from "../../../../src/api/kit/auth";
import worker from "../../../../src/index";
import { api } from "../../support/envelope";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";

async function zoneWithVersion(label: string): Promise<{ zone: string; version: number }> {
  const zone = uniqueZone(label);
  await putZone(zone, { plan: "enterprise", origin: loopback(ports.http) });
  const got = await api("GET", `/zones/${zone}`);
  return { zone, version: (got.body.result as { version: number }).version };
}

const RULE = {
  expression: 'http.request.uri.path eq "/dry"',
  action: "serve_error",
  action_parameters: { content: "rehearsed", content_type: "text/plain", status_code: 503 },
};

/** Every zone write the API has, with a valid body. */
const WRITES: readonly {
  name: string;
  method: string;
  path: (zone: string) => string;
  body?: unknown;
  /** The write's own success status: a 200 rehearsed is `result: null`, a 204 stays a 204 (published). */
  status?: 204;
}[] = [
  {
    name: "PUT zone settings",
    method: "PUT",
    path: (z) => `/zones/${z}`,
    body: { plan: "pro", origin: loopback(ports.http) },
  },
  {
    name: "PUT a ruleset entrypoint",
    method: "PUT",
    path: (z) => `/zones/${z}/rulesets/phases/http_custom_errors/entrypoint`,
    body: { rules: [RULE] },
  },
  {
    name: "PUT a custom page",
    method: "PUT",
    path: (z) => `/zones/${z}/custom_pages/500_errors`,
    body: {
      state: "customized",
      content: "<html><head><title>down</title></head><body>::CLOUDFLARE_ERROR_500S_BOX::</body></html>",
    },
  },
  {
    name: "PUT access rules",
    method: "PUT",
    path: (z) => `/zones/${z}/access_rules`,
    body: { rules: [{ mode: "block", configuration: { target: "ip", value: "192.0.2.1" } }] },
  },
  {
    name: "PUT url_normalization",
    method: "PUT",
    path: (z) => `/zones/${z}/url_normalization`,
    body: { scope: "both", type: "rfc3986" },
  },
  { name: "DELETE url_normalization", method: "DELETE", path: (z) => `/zones/${z}/url_normalization`, status: 204 },
  { name: "DELETE the zone", method: "DELETE", path: (z) => `/zones/${z}` },
];

describe("dry_run=true on every zone write", () => {
  it.each(WRITES)("$name: result null (or 204), nothing stored", async ({ method, path, body, status }) => {
    const { zone, version } = await zoneWithVersion("dry");
    if (status === 204) {
      // Something to delete, so that the real delete below changes the zone.
      await api("PUT", `/zones/${zone}/url_normalization`, { scope: "both", type: "rfc3986" });
    }
    const before = ((await api("GET", `/zones/${zone}`)).body.result as { version: number }).version;
    const rehearsed = await api(method, `${path(zone)}?dry_run=true`, body);
    expect(rehearsed.status, rehearsed.text).toBe(status ?? 200);
    if (status === 204) expect(rehearsed.text).toBe("");
    // `messages` holds the rule linter's warnings about the rehearsed zone (docs/lint.md), if any.
    else {
      expect(rehearsed.body).toMatchObject({ success: true, errors: [], result: null });
      expect(Array.isArray(rehearsed.body.messages)).toBe(true);
    }
    const after = await api("GET", `/zones/${zone}`);
    expect(after.status).toBe(200);
    expect((after.body.result as { version: number }).version).toBe(before);
    expect((after.body.result as { plan: string }).plan).toBe("enterprise");
    expect(before).toBeGreaterThanOrEqual(version);
    // The same write with dry_run=false does store: the assertions above could fail.
    const real = await api(method, `${path(zone)}?dry_run=false`, body);
    expect(real.status).toBe(status ?? 200);
    const stored = await api("GET", `/zones/${zone}`);
    if (method === "DELETE" && path(zone) === `/zones/${zone}`) expect(stored.status).toBe(404);
    else expect((stored.body.result as { version: number }).version).toBeGreaterThan(before);
  });

  it("a rehearsed rule does not reach traffic", async () => {
    const { zone } = await zoneWithVersion("dry-traffic");
    const path = `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`;
    const rule = { ...RULE, expression: "http.response.code eq 522" };
    expect((await api("PUT", `${path}?dry_run=true`, { rules: [rule] })).status).toBe(200);
    // A zone whose origin refuses: a 522-class error is generated; the rehearsed rule must not answer it.
    await putZone(zone, { plan: "enterprise", origin: loopback(ports.closed) });
    const res = await exports.default.fetch(`http://${zone}/`, { headers: { Accept: "text/plain" } });
    expect(await res.text()).not.toContain("rehearsed");
    const rules = await api("GET", path);
    expect((rules.body.result as { rules: unknown[] }).rules).toEqual([]);
  });

  it("an invalid write rehearsed fails exactly as the write", async () => {
    const { zone } = await zoneWithVersion("dry-invalid");
    const path = `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`;
    const bad = { rules: [{ ...RULE, expression: 'http.request.uri.path eq "' }] };
    const rehearsed = await api("PUT", `${path}?dry_run=true`, bad);
    const real = await api("PUT", path, bad);
    expect(rehearsed.status).toBe(400);
    expect(rehearsed.body).toEqual(real.body);
    const missing = await api("PUT", `/zones/${uniqueZone("dry-none")}/access_rules?dry_run=true`, { rules: [] });
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0]?.code).toBe(1001);
  });

  it.each(["TRUE", "1", "", "yes", "true "])("dry_run=%j is refused before any work", async (value) => {
    const { zone, version } = await zoneWithVersion("dry-value");
    const res = await api("PUT", `/zones/${zone}?dry_run=${encodeURIComponent(value)}`, {
      plan: "pro",
      origin: loopback(ports.http),
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]?.code).toBe(DRY_RUN_CODE);
    expect(res.body.errors[0]?.message).toContain("dry_run must be true or false");
    const after = await api("GET", `/zones/${zone}`);
    expect((after.body.result as { version: number }).version).toBe(version);
  });

  it("dry_run repeated is refused", async () => {
    const { zone } = await zoneWithVersion("dry-twice");
    const res = await api("DELETE", `/zones/${zone}?dry_run=true&dry_run=false`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]?.message).toBe("dry_run must be given once");
    expect((await api("GET", `/zones/${zone}`)).status).toBe(200);
  });

  it("a write that cannot rehearse (tags) refuses the parameter and writes nothing", async () => {
    const account = "0123456789abcdef0123456789abcdee";
    const body = { resource_type: "zone", resource_id: "z1", tags: { team: "edge" } };
    const res = await api("PUT", `/accounts/${account}/tags?dry_run=true`, body);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]?.code).toBe(DRY_RUN_CODE);
    const read = await api("GET", `/accounts/${account}/tags?resource_type=zone&resource_id=z1`);
    expect(JSON.stringify(read.body.result ?? null)).not.toContain("edge");
  });

  it("authorisation is the write's: a reader's dry run is 403", async () => {
    const zone = uniqueZone("dry-auth");
    const tokens = JSON.stringify([
      {
        name: "reader",
        sha256: await tokenDigestHex("tok-reader"),
        accounts: [],
        zones: ["*"],
        permissions: ["zones:read"],
      },
    ]);
    const res = await worker.fetch(
      new Request(`http://localhost/zones/${zone}?dry_run=true`, {
        method: "PUT",
        headers: { Authorization: "Bearer tok-reader", "Content-Type": "application/json" },
        body: JSON.stringify({ plan: "pro", origin: loopback(ports.http) }),
      }),
      { ...env, API_TOKENS: tokens },
      createExecutionContext(),
    );
    expect(res.status).toBe(403);
  });
});
