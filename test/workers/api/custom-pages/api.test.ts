/** `GET /zones/{zone}/custom_pages`, `GET/PUT /zones/{zone}/custom_pages/{id}` (docs/custom-errors.md, docs/configuration.md). */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { catalogEntry } from "../../../../src/errors/catalog";
import { errorFields, footerText } from "../../../../src/errors/fields";
import { renderHtmlBox } from "../../../../src/errors/render-html";
import { uniqueZone } from "../../support/origin";
import { api as apiCall } from "../../support/envelope";

/** The shared `api`, its result an object unless told otherwise (`null` on a failure). */
const api = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
  apiCall<T | null>(method, path, body);

async function zone(plan = "pro"): Promise<string> {
  const name = uniqueZone("pages");
  expect((await api("PUT", `/zones/${name}`, { plan, origin: "http://o.example" })).status).toBe(200);
  return name;
}

const PAGE = "<html><head><title>Oops</title></head><body><h1>Sorry</h1>::EDGE_ERROR_500S_BOX::</body></html>";

describe("custom pages", () => {
  it("lists both classes, customises one (page stored under its own key), restores the default", async () => {
    const z = await zone();
    const list = await api<{ id: string; state: string }[]>("GET", `/zones/${z}/custom_pages`);
    expect(list.body.result?.map((p) => [p.id, p.state])).toEqual([
      ["500_errors", "default"],
      ["1000_errors", "default"],
    ]);
    const put = await api("PUT", `/zones/${z}/custom_pages/500_errors`, { state: "customized", content: PAGE });
    expect(put.status).toBe(200);
    expect(put.body.result).toMatchObject({ id: "500_errors", state: "customized" });
    expect(await env.CONFIG.get(`zone:${z}:page:500_errors`)).toBe(PAGE);
    expect((await api("GET", `/zones/${z}/custom_pages/500_errors`)).body.result).toMatchObject({ content: PAGE });
    const reset = await api("PUT", `/zones/${z}/custom_pages/500_errors`, { state: "default" });
    expect(reset.body.result).toMatchObject({ state: "default" });
    expect(await env.CONFIG.get(`zone:${z}:page:500_errors`)).toBeNull();
  });

  it("shows the CSP hash-source of the box's one inline style, which is the served box's style", async () => {
    const z = await zone();
    const page = await api<{ box_style_hash: string }>("GET", `/zones/${z}/custom_pages/500_errors`);
    const box = renderHtmlBox(
      errorFields(catalogEntry(521)!, {
        type: "http://x.example/cdn-cgi/errors/521",
        rayId: "0123456789abcdef",
        timestamp: "2026-04-24T09:22:40Z",
        zone: "x.example",
        retryAfter: 120,
        footer: footerText("the edge"),
        reachedOrigin: false,
      }),
    );
    const styles = [...box.matchAll(/<style>([^<]*)<\/style>/g)].map((m) => m[1] ?? "");
    expect(styles).toHaveLength(1);
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(styles[0]));
    const hash = btoa(String.fromCharCode(...new Uint8Array(digest)));
    expect(page.body.result?.box_style_hash).toBe(`'sha256-${hash}'`);
  });

  it("accepts the published token spelling as an alias", async () => {
    const z = await zone();
    const content = PAGE.replace("::EDGE_ERROR_500S_BOX::", "::CLOUDFLARE_ERROR_500S_BOX::");
    expect((await api("PUT", `/zones/${z}/custom_pages/500_errors`, { state: "customized", content })).status).toBe(
      200,
    );
  });

  it.each<[string, unknown, RegExp]>([
    [
      "a page without its box token",
      { state: "customized", content: "<html><head></head><body>x</body></html>" },
      /box token/,
    ],
    [
      "the other class's token",
      { state: "customized", content: PAGE.replace("</body>", "::EDGE_ERROR_1000S_BOX::</body>") },
      /other page class/,
    ],
    [
      "a page without <head>",
      { state: "customized", content: "<html><body>::EDGE_ERROR_500S_BOX::</body></html>" },
      /<head>/,
    ],
    ["an unknown state", { state: "custom", content: PAGE }, /state/],
    ["an unknown field", { state: "default", url: "http://x" }, /url/],
  ])("%s → 400, nothing stored", async (_name, body, message) => {
    const z = await zone();
    const before = await env.CONFIG.get(`zone:${z}`);
    const res = await api("PUT", `/zones/${z}/custom_pages/500_errors`, body);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e) => e.code)).toEqual([20023]);
    expect(res.body.errors[0]?.message).toMatch(message);
    expect(await env.CONFIG.get(`zone:${z}`)).toBe(before);
    expect(await env.CONFIG.get(`zone:${z}:page:500_errors`)).toBeNull();
  });

  it.each<[string, string, RegExp]>([
    [
      "the box token twice",
      PAGE.replace("</body>", "::EDGE_ERROR_500S_BOX::</body>"),
      /content: must contain the 500_errors box token once, found it 2 times \(::EDGE_ERROR_500S_BOX:: ×2\)/,
    ],
    [
      "the token and its published alias",
      PAGE.replace("</body>", "::CLOUDFLARE_ERROR_500S_BOX::</body>"),
      /found it 2 times \(::EDGE_ERROR_500S_BOX:: ×1, ::CLOUDFLARE_ERROR_500S_BOX:: ×1\)/,
    ],
    [
      // 45,581 tokens in a 1 MiB page rendered 119,650,138 bytes per error.
      "the ×119 page: 1 MiB of box tokens",
      `<html><head></head><body>${"::EDGE_ERROR_500S_BOX::".repeat(45_581)}</body></html>`,
      /found it 45581 times \(::EDGE_ERROR_500S_BOX:: ×45581\)/,
    ],
  ])(
    "%s → 400 naming the token and its count, nothing stored (docs/custom-errors.md)",
    async (_name, content, message) => {
      const z = await zone();
      const before = await env.CONFIG.get(`zone:${z}`);
      const res = await api("PUT", `/zones/${z}/custom_pages/500_errors`, { state: "customized", content });
      expect(res.status).toBe(400);
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0]?.code).toBe(20023);
      expect(res.body.errors[0]?.message).toMatch(message);
      expect(await env.CONFIG.get(`zone:${z}`)).toBe(before);
      expect(await env.CONFIG.get(`zone:${z}:page:500_errors`)).toBeNull();
    },
  );

  it("free plan → 403 (1100), an unknown page id → 404, a body over 1 MiB → 413", async () => {
    const free = await zone("free");
    const res = await api("PUT", `/zones/${free}/custom_pages/500_errors`, { state: "customized", content: PAGE });
    expect(res.status).toBe(403);
    expect(res.body.errors[0]?.code).toBe(1100);
    const z = await zone();
    expect((await api("PUT", `/zones/${z}/custom_pages/404_errors`, { state: "default" })).status).toBe(404);
    const huge = PAGE.replace("<h1>", "<h1>" + "x".repeat(1024 * 1024));
    expect(
      (await api("PUT", `/zones/${z}/custom_pages/500_errors`, { state: "customized", content: huge })).status,
    ).toBe(413);
  });

  it("both pages written at once both land", async () => {
    const z = await zone();
    const other = PAGE.replace("::EDGE_ERROR_500S_BOX::", "::EDGE_ERROR_1000S_BOX::");
    const [a, b] = await Promise.all([
      api("PUT", `/zones/${z}/custom_pages/500_errors`, { state: "customized", content: PAGE }),
      api("PUT", `/zones/${z}/custom_pages/1000_errors`, { state: "customized", content: other }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const list = await api<{ state: string }[]>("GET", `/zones/${z}/custom_pages`);
    expect(list.body.result?.map((p) => p.state)).toEqual(["customized", "customized"]);
  });
});
