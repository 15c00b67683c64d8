/**
 * The official client (`cloudflare` npm package) drives every custom error asset endpoint (docs/configuration.md;
 * docs/custom-errors.md "Custom error assets") against the real Worker, writer and KV inside workerd (its `fetch` is
 * the Worker's own); the asset itself is fetched from the loopback test origin. Also the published rule shape with
 * `asset_name` through `rulesets.phases.update`.
 */
import Cloudflare from "cloudflare";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";

const client = new Cloudflare({
  apiToken: "test-admin-token",
  baseURL: "http://localhost/client/v4",
  fetch: (url, init) => exports.default.fetch(url, init),
  maxRetries: 0,
});

describe("the official client drives the custom error assets API", () => {
  it("create, list (paginated), get, update, refused delete in use, delete", async () => {
    const zone_id = uniqueZone("asset-client");
    // Generous timeouts: the read timeout bounds the asset's whole fetch, which a loaded machine may slow past 1 s.
    await putZone(zone_id, { origin: loopback(ports.http), connect_timeout: 5, read_timeout: 10 });
    const url = `http://${zone_id}/asset/page.html`;
    const created = await client.customPages.assets.create({ zone_id, name: "down", description: "Down", url });
    expect(created).toMatchObject({ name: "down", description: "Down", url });
    expect(created.size_bytes).toBeGreaterThan(0);
    await client.customPages.assets.create({
      zone_id,
      name: "nf",
      description: "",
      url: `http://${zone_id}/asset/404.html`,
    });

    const names: string[] = [];
    for await (const asset of client.customPages.assets.list({ zone_id, per_page: 1 })) names.push(asset.name ?? "");
    expect(names).toEqual(["down", "nf"]);

    expect(await client.customPages.assets.get("down", { zone_id })).toEqual(created);
    const updated = await client.customPages.assets.update("down", { zone_id, description: "Again", url });
    expect(updated).toMatchObject({ name: "down", description: "Again", size_bytes: created.size_bytes });

    await client.rulesets.phases.update("http_custom_errors", {
      zone_id,
      rules: [
        { expression: "http.response.code eq 503", action: "serve_error", action_parameters: { asset_name: "down" } },
      ],
    });
    const traffic = await exports.default.fetch(`http://${zone_id}/status/503-json`);
    expect(traffic.status).toBe(503);
    expect(await traffic.text()).toContain("<title>Down</title>");

    await expect(client.customPages.assets.delete("down", { zone_id })).rejects.toMatchObject({ status: 409 });
    await client.customPages.assets.delete("nf", { zone_id });
    await expect(client.customPages.assets.get("nf", { zone_id })).rejects.toMatchObject({ status: 404 });
  });
});
