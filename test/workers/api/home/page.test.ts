/**
 * The front door, `GET /` on an API host (docs/configuration.md "The front door"), through the real Worker: the HTML
 * page and its JSON form, every link of both resolving through the Worker (the catalog, the OpenAPI document, the
 * zone list, a zone's analytics page; the docs are checked against the repository by test/browser/home.test.ts),
 * and the root of any other host still answered as zone traffic.
 */
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN, loopback, ports, putZone } from "../../support/origin";
import type { Envelope } from "../../support/envelope";

const ZONE = "front-door-shop.example";

interface Home {
  readonly service: string;
  readonly description: string;
  readonly links: Record<"error_catalog" | "openapi" | "zones" | "zone_analytics", string>;
  readonly docs: { readonly title: string; readonly about: string; readonly path: string }[];
}

const get = (url: string, headers: Record<string, string> = {}): Promise<Response> =>
  exports.default.fetch(url, { headers });

/** Every `href` of the page, in order. */
function hrefs(page: string): string[] {
  return [...page.matchAll(/\shref="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, "&"));
}

beforeAll(async () => {
  await putZone(ZONE, { origin: loopback(ports.http) });
});

describe("GET / on an API host", () => {
  it("answers, without a token, a page saying what this is, with its links", async () => {
    const res = await get("http://localhost/");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("Vary")).toBe("Accept");
    expect(res.headers.get("Content-Security-Policy")).toMatch(/^default-src 'none'; script-src 'nonce-/);
    // The page takes a token: no other page may hold a handle on it, frame it or load it.
    expect(res.headers.get("Cross-Origin-Opener-Policy")).toBe("same-origin");
    expect(res.headers.get("Cross-Origin-Resource-Policy")).toBe("same-origin");
    expect(res.headers.get("X-Frame-Options")).toBe("DENY");
    const page = await res.text();
    expect(page).toContain("<h1>Structured edge errors</h1>");
    expect(page).toContain('href="http://localhost/cdn-cgi/errors"');
    expect(page).toContain('href="http://localhost/openapi.json"');
    // The documents are named, not linked: no public repository is known to hold them.
    expect(page).not.toContain("github.com");
    expect(page).toContain('<code class="mono">docs/errors.md</code>');
    expect(page).toContain('<label for="token">API token</label>');
    // The one inline script and the one style carry this response's nonce; nothing else runs.
    const nonce = /'nonce-([^']+)'/.exec(res.headers.get("Content-Security-Policy")!)![1]!;
    expect(page.match(/<script\b[^>]*>/g)).toEqual([`<script nonce="${nonce}">`]);
    expect(page.match(/<style\b[^>]*>/g)).toEqual([`<style nonce="${nonce}">`]);
  });

  it("answers JSON in the v4 envelope for Accept: application/json, with the same links, absolute", async () => {
    const res = await get("http://localhost:8787/", { Accept: "application/json" });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("Vary")).toBe("Accept");
    const body = await res.json<Envelope<Home>>();
    expect(body).toMatchObject({ success: true, errors: [] });
    expect(body.result.service).toBe("edge-errors");
    expect(body.result.links).toEqual({
      error_catalog: "http://localhost:8787/cdn-cgi/errors",
      openapi: "http://localhost:8787/openapi.json",
      zones: "http://localhost:8787/zones",
      zone_analytics: "http://localhost:8787/zones/{zone}/analytics",
    });
    expect(body.result.docs.length).toBeGreaterThan(5);
    for (const doc of body.result.docs) expect(doc.path).toMatch(/^docs\/[a-z-]+\.md$/);
    // The page names every document the JSON lists.
    const page = await (await get("http://localhost/")).text();
    for (const doc of body.result.docs) expect(page).toContain(`<code class="mono">${doc.path}</code>`);
  });

  it.each([
    ["a browser's Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "text/html"],
    ["no preference (*/*)", "*/*", "text/html"],
    ["JSON preferred", "application/json, text/html;q=0.5", "application/json"],
    ["application/*", "application/*", "application/json"],
    ["nothing it has (image/png)", "image/png", "text/html"],
  ])("%s (%s) → %s", async (_what, accept, type) => {
    const res = await get("http://localhost/", { Accept: accept });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe(`${type}; charset=utf-8`);
    await res.body?.cancel();
  });

  it("every link of the page and of the JSON resolves through the Worker (200)", async () => {
    const page = await (await get("http://localhost/")).text();
    const json = (await (await get("http://localhost/", { Accept: "application/json" })).json<Envelope<Home>>()).result;
    const own = [...hrefs(page), ...Object.values(json.links)].filter((h) => h.startsWith("http://localhost/"));
    expect(new Set(own)).toEqual(
      new Set([
        "http://localhost/cdn-cgi/errors",
        "http://localhost/openapi.json",
        "http://localhost/zones",
        "http://localhost/zones/{zone}/analytics",
      ]),
    );
    for (const href of new Set(own)) {
      // The zone list needs the token the page asks for; the template names the zone created above.
      const url = href.replace("{zone}", ZONE);
      const res = await get(url, url.endsWith("/zones") ? ADMIN : { Accept: "text/html" });
      expect(res.status, url).toBe(200);
      await res.body?.cancel();
    }
    // The page's script links each listed zone to `/zones/{name}/analytics`: each of them answers.
    const zones = await (await get("http://localhost/zones?per_page=50", ADMIN)).json<Envelope<{ name: string }[]>>();
    expect(zones.result.map((z) => z.name)).toContain(ZONE);
    for (const z of zones.result) {
      const res = await get(`http://localhost/zones/${encodeURIComponent(z.name)}/analytics`);
      expect(res.status, z.name).toBe(200);
      await res.body?.cancel();
    }
    expect(page).toContain('"/zones/" + encodeURIComponent(z.name) + "/analytics"');
  });

  it("HEAD answers the headers without a body; another method is the API's (401 without a token)", async () => {
    const head = await exports.default.fetch("http://localhost/", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    expect(await head.text()).toBe("");
    const post = await exports.default.fetch("http://localhost/", { method: "POST" });
    expect(post.status).toBe(401);
    await post.body?.cancel();
    // With a token, `/` is no route of the API: its 404, not the page.
    const posted = await exports.default.fetch("http://localhost/", { method: "POST", headers: ADMIN });
    expect(posted.status).toBe(404);
    await posted.body?.cancel();
  });
});

describe("the root of any other host is zone traffic", () => {
  it("a configured zone's / is its origin's answer", async () => {
    const res = await get(`http://${ZONE}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Origin")).toBe("yes");
    expect(await res.json<{ url: string }>()).toMatchObject({ url: "/" });
  });

  it("an unknown host's / is 1001, and an IP literal's is 1003, not the front door", async () => {
    const unknown = await get("http://no-such-zone.example/", { Accept: "application/json" });
    expect(unknown.status).toBe(409);
    expect(await unknown.json<{ error_code: number }>()).toMatchObject({ error_code: 1001 });
    const ip = await get("http://127.0.0.1/", { Accept: "application/json" });
    expect(ip.status).toBe(403);
    expect(await ip.json<{ error_code: number }>()).toMatchObject({ error_code: 1003 });
  });
});
