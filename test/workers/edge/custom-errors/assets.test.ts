/**
 * `serve_error` with `asset_name` through the real Worker (docs/custom-errors.md "Custom error assets"): the asset
 * must exist when the rule is written; traffic serves it (status, headers, body, tokens) on generated errors and on
 * the origin's own errors; it is read from KV once per zone version (not per request); an asset in use cannot be
 * deleted (409 naming the rules); an asset that cannot be read falls through to the next step, logged.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { CUSTOM_CONTENT_POLICY } from "../../../../src/errors/headers";
import { api, apiFetch } from "../../support/envelope";

const rulesPath = (z: string) => `/zones/${z}/rulesets/phases/http_custom_errors/entrypoint`;

/**
 * The zone's timeouts: generous, as no test here waits for one. The read timeout bounds the whole asset's fetch (page
 * and images); at 1 s a test here failed once at load 10 (three test files at once).
 */
const TIMEOUTS = { connect_timeout: 5, read_timeout: 10 };

/** A zone with the asset `down` made from the origin's page, then (optionally) pointed at a closed port (521). */
async function zoneWithAsset(origin: "http" | "closed" = "http"): Promise<string> {
  const z = uniqueZone("asset-traffic");
  await putZone(z, { plan: "pro", origin: loopback(ports.http), ...TIMEOUTS });
  const made = await api("POST", `/zones/${z}/custom_pages/assets`, {
    name: "down",
    url: `http://${z}/asset/page.html`,
  });
  expect(made.status, made.text).toBe(200);
  if (origin === "closed") await putZone(z, { plan: "pro", origin: loopback(ports.closed), ...TIMEOUTS });
  return z;
}

const ASSET_RULE = (expression: string, extra: Record<string, unknown> = {}) => ({
  expression,
  action: "serve_error",
  action_parameters: { asset_name: "down", ...extra },
  description: "the maintenance page",
});

describe("serve_error with asset_name", () => {
  it("serves the asset on a generated error: status, headers, body with tokens replaced", async () => {
    const z = await zoneWithAsset("closed");
    const put = await api("PUT", rulesPath(z), {
      rules: [ASSET_RULE("http.response.code eq 521", { status_code: 503 })],
    });
    expect(put.status, put.text).toBe(200);
    const res = await exports.default.fetch(`http://${z}/checkout`, { headers: { Accept: "application/json" } });
    const body = await res.text();
    expect(res.status).toBe(503);
    expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    const ray = res.headers.get("Ray-ID")!;
    expect(ray).toMatch(/^[0-9a-f]{16}$/);
    expect(res.headers.get("Cache-Control")).toContain("no-store");
    // An asset is operator content: sandboxed, script in an opaque origin (docs/custom-errors.md).
    expect(res.headers.get("Content-Security-Policy")).toBe(CUSTOM_CONTENT_POLICY);
    expect(body).toContain(`Ray ${ray} \u00e9`);
    expect(body).toContain('<img src="data:image/png;base64,');
    expect(body).toBe((await env.CONFIG.get(`zone:${z}:asset:down`))!.replace("::RAY_ID::", ray));
  });

  it("the preview answers what traffic gets: the asset", async () => {
    const z = await zoneWithAsset("closed");
    expect((await api("PUT", rulesPath(z), { rules: [ASSET_RULE("http.response.code eq 521")] })).status).toBe(200);
    const res = await apiFetch("GET", `/zones/${z}/preview/521`);
    expect(res.status).toBe(521);
    expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    expect(await res.text()).toContain("<title>Down</title>");
  });

  it("serves the asset on the origin's own error response, replacing its body", async () => {
    const z = await zoneWithAsset();
    expect((await api("PUT", rulesPath(z), { rules: [ASSET_RULE("http.response.code eq 503")] })).status).toBe(200);
    const res = await exports.default.fetch(`http://${z}/status/503-json`);
    const body = await res.text();
    expect(res.status).toBe(503);
    expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("X-Origin")).toBe("yes");
    expect(res.headers.get("Retry-After")).toBe("7");
    expect(body).toContain("<title>Down</title>");
    expect(body).not.toContain("down for maintenance");
  });

  it("reads the asset from KV once per zone version, not per request", async () => {
    const z = await zoneWithAsset("closed");
    expect((await api("PUT", rulesPath(z), { rules: [ASSET_RULE("true")] })).status).toBe(200);
    const first = await (await exports.default.fetch(`http://${z}/`)).text();
    expect(first).toContain("<title>Down</title>");
    // Gone from KV behind the service's back: this isolate still serves the version it read.
    await env.CONFIG.delete(`zone:${z}:asset:down`);
    const second = await (await exports.default.fetch(`http://${z}/`)).text();
    expect(second).toContain("<title>Down</title>");
    // A new version reads again, finds nothing, and falls through to the next step (the structured default).
    expect((await api("PUT", `/zones/${z}/url_normalization`, { scope: "incoming", type: "cloudflare" })).status).toBe(
      200,
    );
    const res = await exports.default.fetch(`http://${z}/`, { headers: { Accept: "application/json" } });
    expect(res.status).toBe(521);
    expect((await res.json<{ error_code: number }>()).error_code).toBe(521);
  });

  it("refuses a rule naming an asset the zone does not have (400, 20021), nothing stored", async () => {
    const z = await zoneWithAsset();
    const bad = await api("PUT", rulesPath(z), {
      rules: [ASSET_RULE("true"), { ...ASSET_RULE("true"), action_parameters: { asset_name: "nope" } }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      {
        code: 20021,
        message:
          'rules[1].action_parameters.asset_name: names no custom error asset of this zone ("nope"); create it ' +
          "first with POST /zones/{zone}/custom_pages/assets",
      },
    ]);
    expect((await api("GET", rulesPath(z))).body.result).toMatchObject({ rules: [] });
  });

  it.each([
    [
      { asset_name: "down", content: "x", content_type: "text/html" },
      "action_parameters.content: must be absent when asset_name is given",
    ],
    [
      { asset_name: "down", content_type: "application/json" },
      "action_parameters.content_type: must be text/html or absent",
    ],
    [{ asset_name: "bad-name" }, 'action_parameters.asset_name: "bad-name" may only contain letters'],
    [{ asset_name: "x".repeat(201) }, "action_parameters.asset_name: must be 1 to 200 characters"],
    [{ asset_name: "down", status_code: 200 }, "action_parameters.status_code: must be an integer from 400 to 599"],
    [{ asset_name: "down", colour: "red" }, "action_parameters.colour: is not a parameter of serve_error"],
  ])("refuses the parameters %j", async (parameters, message) => {
    const z = await zoneWithAsset();
    const bad = await api("PUT", rulesPath(z), {
      rules: [{ expression: "true", action: "serve_error", action_parameters: parameters }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]?.message).toContain(`rules[0].${message}`);
  });

  it("refuses to delete an asset a rule names (409 naming the rules); deletes it once unused", async () => {
    const z = await zoneWithAsset();
    const rules = [
      {
        expression: "http.response.code eq 404",
        action: "serve_error",
        action_parameters: { content: "x", content_type: "text/plain" },
      },
      ASSET_RULE("http.response.code eq 503"),
      { ...ASSET_RULE("http.response.code eq 500"), enabled: false, description: "" },
    ];
    const put = await api("PUT", rulesPath(z), { rules });
    expect(put.status).toBe(200);
    const ids = (put.body.result as { rules: { id: string }[] }).rules.map((r) => r.id);
    const refused = await api("DELETE", `/zones/${z}/custom_pages/assets/down`);
    expect(refused.status).toBe(409);
    expect(refused.body.errors).toEqual([
      {
        code: 20054,
        message:
          `The custom asset "down" is used by the http_custom_errors rules rules[1] (id ${ids[1]}, "the maintenance page"), ` +
          `rules[2] (id ${ids[2]}): change or delete them first; nothing was deleted`,
      },
    ]);
    expect(await env.CONFIG.get(`zone:${z}:asset:down`)).not.toBeNull();
    // Traffic still served by it.
    expect(await (await exports.default.fetch(`http://${z}/status/503-json`)).text()).toContain("<title>Down</title>");
    expect((await api("PUT", rulesPath(z), { rules: [rules[0]] })).status).toBe(200);
    const deleted = await api("DELETE", `/zones/${z}/custom_pages/assets/down`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect(await env.CONFIG.get(`zone:${z}:asset:down`)).toBeNull();
    expect((await api("GET", `/zones/${z}/custom_pages/assets/down`)).status).toBe(404);
  });
});
