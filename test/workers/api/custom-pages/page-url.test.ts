/**
 * Custom pages given by the published `url` (docs/custom-errors.md "Error pages"): the official client
 * (`cloudflare` npm package, `customPages.update/get/list`) sends `{state, url}`; the page is fetched from the zone's
 * own origin (the loopback test origin) and inlined exactly as a custom error asset is, then validated as a page and
 * served on the zone's errors. Also the refusals: `url` with `content`, a non-empty `url` on a reset, a URL out of
 * scope, a fetch that fails, a page over the limit, a fetched page without its box token, the free plan; and a dry run.
 */
import Cloudflare from "cloudflare";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, apiOk } from "../../support/envelope";
import { loopback, ports, uniqueZone } from "../../support/origin";

const client = new Cloudflare({
  apiToken: "test-admin-token",
  baseURL: "http://localhost/client/v4",
  fetch: (url, init) => exports.default.fetch(url, init),
  maxRetries: 0,
});

/** A zone on the loopback origin; generous timeouts, as no test here waits for one (a loaded machine is slow). */
async function newZone(plan = "pro"): Promise<string> {
  const zone = uniqueZone("page-url");
  await apiOk("PUT", `/zones/${zone}`, { plan, origin: loopback(ports.http), connect_timeout: 5, read_timeout: 10 });
  return zone;
}

const page = (zone: string, id = "500_errors"): string => `/zones/${zone}/custom_pages/${id}`;

describe("the official client sets a custom page by URL", () => {
  it("update with url fetches and inlines the page; get, list show it; traffic serves it; a reset restores", async () => {
    const zone_id = await newZone();
    const url = `http://${zone_id}/asset/error-page.html?box=500`;
    const updated = await client.customPages.update("500_errors", { zone_id, state: "customized", url });
    expect(updated).toMatchObject({ id: "500_errors", state: "customized", url });

    const got = (await client.customPages.get("500_errors", { zone_id })) as typeof updated & { content?: string };
    expect(got).toMatchObject({ state: "customized", url });
    // Inlined as an asset is: the stylesheet's rules and the image as a data: URI, nothing left to fetch.
    expect(got.content).toContain("h1{color:red}");
    expect(got.content).toContain("data:image/png;base64,");
    expect(got.content).not.toContain('href="/asset/style.css"');
    expect(got.content).toBe(await env.CONFIG.get(`zone:${zone_id}:page:500_errors`));

    const pages = [];
    for await (const p of client.customPages.list({ zone_id })) pages.push([p.id, p.state, p.url]);
    expect(pages).toEqual([
      ["500_errors", "customized", url],
      ["1000_errors", "default", ""],
    ]);

    const served = await exports.default.fetch(`http://${zone_id}/cdn-cgi/error/522`);
    expect(served.status).toBe(522);
    const html = await served.text();
    expect(html).toContain("<title>Shop down</title>");
    expect(html).not.toContain("::EDGE_ERROR_500S_BOX::");

    // The published client sends `url` on every update: an empty one with a reset.
    const reset = await client.customPages.update("500_errors", { zone_id, state: "default", url: "" });
    expect(reset).toMatchObject({ state: "default", url: "" });
    expect(await env.CONFIG.get(`zone:${zone_id}:page:500_errors`)).toBeNull();
  });

  it("content is still accepted, and shows url empty", async () => {
    const zone = await newZone();
    const content = "<html><head></head><body>::EDGE_ERROR_1000S_BOX::</body></html>";
    const put = await apiOk<{ url: string }>("PUT", page(zone, "1000_errors"), { state: "customized", content });
    expect(put.result.url).toBe("");
  });
});

describe("a custom page by URL: refusals (nothing stored)", () => {
  it.each([
    [
      "url with content",
      { state: "customized", url: "http://{zone}/asset/error-page.html", content: "<html>" },
      "url: give either content or url, not both",
    ],
    [
      "a non-empty url on a reset",
      { state: "default", url: "http://{zone}/asset/error-page.html" },
      "url: must be empty or absent when state is default",
    ],
    [
      "another host",
      { state: "customized", url: "http://elsewhere.example/asset/error-page.html" },
      "url: must be on the zone's host {zone} or one of its subdomains, not elsewhere.example (same scope only)",
    ],
    [
      "an API host",
      { state: "customized", url: "http://localhost/asset/error-page.html" },
      "url: must not point at localhost, a host of the management API (API_HOSTS)",
    ],
    ["no URL", { state: "customized", url: "not a url" }, 'url: "not a url" is not a valid URL'],
    ["a URL that is no string", { state: "customized", url: 7 }, "url: must be a URL string"],
    [
      "a page whose stylesheet fails",
      { state: "customized", url: "http://{zone}/asset/broken-link.html" },
      "url: could not be fetched:",
    ],
    [
      "a page over 1.5 MB",
      { state: "customized", url: "http://{zone}/asset/huge.html?kb=2000" },
      "url: the inlined page would be",
    ],
    [
      "a fetched page with the other class's box token",
      { state: "customized", url: "http://{zone}/asset/error-page.html?box=1000" },
      "url: the fetched page must contain the 500_errors box token ::EDGE_ERROR_500S_BOX::",
    ],
    [
      "a fetched page without <head>",
      { state: "customized", url: "http://{zone}/asset/huge.html?kb=1" },
      "url: the fetched page must contain <head> and </head>",
    ],
  ])("%s: 400, 20023, naming url", async (_, template, message) => {
    const zone = await newZone();
    const body = JSON.parse(JSON.stringify(template).replaceAll("{zone}", zone)) as unknown;
    const answer = await api("PUT", page(zone), body);
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body.errors).toHaveLength(1);
    expect(answer.body.errors[0]!.code).toBe(20023);
    expect(
      answer.body.errors[0]!.message.startsWith(message.replaceAll("{zone}", zone)),
      answer.body.errors[0]!.message,
    ).toBe(true);
    expect(await env.CONFIG.get(`zone:${zone}:page:500_errors`)).toBeNull();
  });

  it("the free plan is refused (403, 1100) before anything is fetched", async () => {
    const zone = await newZone("free");
    const answer = await api("PUT", page(zone), { state: "customized", url: `http://${zone}/asset/error-page.html` });
    expect(answer.status).toBe(403);
    expect(answer.body.errors[0]?.code).toBe(1100);
  });

  it("?dry_run=true fetches and validates, answers result null, stores nothing", async () => {
    const zone = await newZone();
    const good = await apiOk("PUT", `${page(zone)}?dry_run=true`, {
      state: "customized",
      url: `http://${zone}/asset/error-page.html`,
    });
    expect(good.result).toBeNull();
    expect(await env.CONFIG.get(`zone:${zone}:page:500_errors`)).toBeNull();
    const bad = await api("PUT", `${page(zone)}?dry_run=true`, {
      state: "customized",
      url: `http://${zone}/asset/page.html`,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]?.message).toContain("url: the fetched page must contain the 500_errors box token");
  });
});
