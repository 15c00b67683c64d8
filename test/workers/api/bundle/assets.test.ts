/**
 * Custom error assets in a bundle (docs/config-as-code.md "Custom error assets"): created and changed by URL,
 * fetched through the zone's origin as the asset API fetches (the loopback test origin, test/servers/http-origin.ts
 * `/asset/*`), kept in the bundle by name, URL and content hash; the plan shows each; a bundle read and put back
 * fetches nothing and is no change.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../../src/shared/crypto";
import { api } from "../../support/envelope";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";

interface Plan {
  readonly changes: number;
  readonly sections: Record<string, { action: string; name?: string; fields?: string[] }[]>;
}
type Asset = { description: string; url: string; sha256: string };
type Bundle = Record<string, unknown> & { custom_assets: Record<string, Asset> };

const read = async (zone: string) => {
  const answer = await api<Bundle>("GET", `/zones/${zone}/bundle`);
  expect(answer.status).toBe(200);
  return { bundle: answer.body.result, text: answer.text };
};
const put = (zone: string, bundle: unknown, query = "") => api<Plan>("PUT", `/zones/${zone}/bundle${query}`, bundle);

/** A zone whose origin is the loopback test origin (3 s read timeout: one asset, its page and resources). */
async function zone(plan = "pro"): Promise<string> {
  const name = uniqueZone("bundle-assets");
  await putZone(name, { plan, origin: loopback(ports.http), connect_timeout: 2, read_timeout: 3 });
  return name;
}

/** How often the test origin was asked for a counter page (it counts per `id`). */
async function askedFor(zone: string, name: string): Promise<string> {
  return (await env.CONFIG.get(`zone:${zone}:asset:${name}`)) ?? "";
}

describe("custom error assets in a bundle", () => {
  it("creates an asset by URL (a rule naming it in the same bundle), planned first; read and put back is no change", async () => {
    const z = await zone();
    const before = await read(z);
    const edited = {
      ...before.bundle,
      custom_assets: { down_page: { description: "Origin down", url: `https://${z}/asset/page.html` } },
      rulesets: {
        http_custom_errors: {
          rules: [
            {
              expression: "http.response.code eq 502",
              action: "serve_error",
              action_parameters: { asset_name: "down_page", status_code: 503 },
            },
          ],
        },
      },
    };
    const planned = await put(z, edited, "?plan=true");
    expect(planned.status, planned.text).toBe(200);
    expect(planned.body.result.sections.custom_assets).toEqual([{ action: "create", name: "down_page" }]);
    expect((await read(z)).text).toBe(before.text);

    const applied = await put(z, edited);
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.result).toEqual(planned.body.result);
    const after = await read(z);
    const html = await askedFor(z, "down_page");
    expect(html).toContain("<title>Down</title>");
    expect(after.bundle.custom_assets).toEqual({
      down_page: { description: "Origin down", url: `https://${z}/asset/page.html`, sha256: await sha256Hex(html) },
    });
    // Put back unchanged: nothing is fetched (the hash stays the one stored), nothing changes.
    const again = await put(z, after.bundle);
    expect(again.status).toBe(200);
    expect(again.body.result.changes).toBe(0);
    expect((await read(z)).text).toBe(after.text);
  });

  it("another URL, or another hash, fetches again: an update naming what changed", async () => {
    const z = await zone();
    // The counter page names how often its id was asked: each fetch of it is other HTML.
    const url = (v: string) => `https://${z}/asset/counter.html?id=${z}&v=${v}`;
    const start = await read(z);
    const made = await put(z, { ...start.bundle, custom_assets: { page: { description: "d", url: url("a") } } });
    expect(made.status, made.text).toBe(200);
    const first = await read(z);
    const hash = first.bundle.custom_assets.page?.sha256 ?? "";

    // Another URL: fetched from it; the stored HTML and its hash change with it.
    const moved = await put(z, { ...first.bundle, custom_assets: { page: { description: "d", url: url("b") } } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.result.sections.custom_assets).toEqual([
      { action: "update", name: "page", fields: ["sha256", "url"] },
    ]);
    const second = await read(z);
    expect(second.bundle.custom_assets.page?.url).toBe(url("b"));
    expect(second.bundle.custom_assets.page?.sha256).not.toBe(hash);

    // The same URL with a hash other than the stored one: fetched again (the counter page differs each time).
    const stale = { ...second.bundle.custom_assets.page, sha256: "0".repeat(64) };
    const refetched = await put(z, { ...second.bundle, custom_assets: { page: stale } });
    expect(refetched.status, refetched.text).toBe(200);
    expect(refetched.body.result.sections.custom_assets).toEqual([
      { action: "update", name: "page", fields: ["sha256"] },
    ]);
    const third = await read(z);
    expect(third.bundle.custom_assets.page?.sha256).toBe(await sha256Hex(await askedFor(z, "page")));
    expect(third.bundle.custom_assets.page?.sha256).not.toBe(second.bundle.custom_assets.page?.sha256);
  });

  it("a URL that is not the zone's, a fetch that fails, a plan without assets: refused by section, nothing changed", async () => {
    const z = await zone();
    const before = await read(z);
    const other = await put(z, {
      ...before.bundle,
      custom_assets: { x: { description: "d", url: "https://elsewhere.example/a.html" } },
    });
    expect(other.status).toBe(400);
    expect(other.body.errors[0]?.code).toBe(20150);
    expect(other.body.errors[0]?.message).toMatch(/^Invalid bundle: custom_assets\.x\.url /);

    const broken = await put(z, {
      ...before.bundle,
      custom_assets: { x: { description: "d", url: `https://${z}/asset/broken-link.html` } },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.errors[0]?.message).toMatch(/^Bundle section custom_assets\.x: /);
    expect((await read(z)).text).toBe(before.text);

    const free = await zone("free");
    const freeBefore = await read(free);
    const refused = await put(free, {
      ...freeBefore.bundle,
      custom_assets: { x: { description: "d", url: `https://${free}/asset/page.html` } },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]?.message).toMatch(/^Bundle section custom_assets\.x: /);
    expect((await read(free)).text).toBe(freeBefore.text);
  });
});
