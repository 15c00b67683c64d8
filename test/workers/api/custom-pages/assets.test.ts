/**
 * Custom error assets (docs/configuration.md `/zones/{zone}/custom_pages/assets`; docs/custom-errors.md "Custom error assets"):
 * the API with its published shapes, fetching through the zone's origin (real servers on 127.0.0.1:
 * test/servers/http-origin.ts `/asset/*`, raw-origin.ts `/hang`), inlining, limits, dry runs and hostile input.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { tokenDigestHex } from "../../../../src/api/kit/auth";
import worker from "../../../../src/index";
import { ASSET_PNG } from "../../../servers/context";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { api as apiCall, type Envelope as V4Envelope } from "../../support/envelope";

type Envelope<T = Record<string, unknown>> = V4Envelope<T | null>;

interface Asset {
  readonly name: string;
  readonly description: string;
  readonly url: string;
  readonly last_updated: string;
  readonly size_bytes: number;
}

/** The shared `api`, its result an object unless told otherwise (`null` on a failure). */
const api = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
  apiCall<T | null>(method, path, body);

/**
 * A zone whose origin is the loopback http origin (or `origin`). Its read timeout (3 s) bounds a whole asset, page and
 * resources; it is generous so that a loaded machine's slow fetch of a healthy page is not a timeout by chance.
 */
async function zone(plan = "pro", origin = loopback(ports.http), extra: Record<string, unknown> = {}): Promise<string> {
  const name = uniqueZone("assets");
  await putZone(name, { plan, origin, connect_timeout: 2, read_timeout: 3, ...extra });
  return name;
}

const create = (z: string, body: Record<string, unknown>, query = "") =>
  api<Asset>("POST", `/zones/${z}/custom_pages/assets${query}`, body);

const errorOf = (r: { body: Envelope<unknown> }) => r.body.errors[0];

const PNG_URI = `data:image/png;base64,${btoa(String.fromCharCode(...ASSET_PNG))}`;

describe("custom error assets: create, inline, read, list", () => {
  it("fetches the page through the zone's origin and inlines its stylesheets and images (published shape)", async () => {
    const z = await zone();
    const made = await create(z, {
      name: "down_page",
      description: "Origin down",
      url: `https://${z}/asset/page.html`,
    });
    expect(made.status, made.text).toBe(200);
    const html = (await env.CONFIG.get(`zone:${z}:asset:down_page`))!;
    const result = made.body.result;
    expect(result).toMatchObject({
      name: "down_page",
      description: "Origin down",
      url: `https://${z}/asset/page.html`,
      size_bytes: new TextEncoder().encode(html).byteLength,
    });
    expect(Object.keys(result ?? {})).toEqual(["name", "description", "url", "last_updated", "size_bytes"]);
    expect(result?.last_updated).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
    // The linked stylesheet became a <style> (media kept), its url() resolved against the stylesheet's own URL.
    expect(html).toContain(`<style media="screen">h1{color:red}.dot{background:url("${PNG_URI}")}</style>`);
    // The page's own <style> url(bg.png), resolved against the page.
    expect(html).toContain(`body{background:url("${PNG_URI}")}`);
    // The <img src> became a data: URI; its srcset (more files from the origin) is dropped, other attributes kept.
    expect(html).toContain(`<img src="${PNG_URI}" alt="logo">`);
    expect(html).not.toContain("srcset");
    // Another host is out of scope: left as written, never fetched.
    expect(html).toContain('<link rel="stylesheet" href="https://fonts.other.example/font.css">');
    // Tokens are kept for serving time; UTF-8 is kept.
    expect(html).toContain("Ray ::RAY_ID:: \u00e9");
    const got = await api<Asset>("GET", `/zones/${z}/custom_pages/assets/down_page`);
    expect(got.body.result).toEqual(made.body.result);
  });

  it("accepts a page the origin answers with 404 (published since 2025-06-09)", async () => {
    const z = await zone();
    const made = await create(z, { name: "nf", url: `http://${z}/asset/404.html` });
    expect(made.status, made.text).toBe(200);
    expect(made.body.result).toMatchObject({ name: "nf", description: "" });
    expect(await env.CONFIG.get(`zone:${z}:asset:nf`)).toContain("Not here (origin 404)");
  });

  it("lists by name with page-number pagination", async () => {
    const z = await zone();
    for (const name of ["b_page", "a_page", "c_page"])
      expect((await create(z, { name, url: `http://${z}/asset/404.html` })).status).toBe(200);
    const first = await api<Asset[]>("GET", `/zones/${z}/custom_pages/assets?per_page=2`);
    expect(first.body.result?.map((a) => a.name)).toEqual(["a_page", "b_page"]);
    expect(first.body.result_info).toEqual({ page: 1, per_page: 2, count: 2, total_count: 3, total_pages: 2 });
    const second = await api<Asset[]>("GET", `/zones/${z}/custom_pages/assets?per_page=2&page=2`);
    expect(second.body.result?.map((a) => a.name)).toEqual(["c_page"]);
    // Any other parameter is ignored, even repeated; a repeated page parameter is not.
    const other = await api<Asset[]>("GET", `/zones/${z}/custom_pages/assets?per_page=2&x=1&x=2`);
    expect(other.status).toBe(200);
    expect(other.body.result_info).toEqual({ page: 1, per_page: 2, count: 2, total_count: 3, total_pages: 2 });
    const twice = await api("GET", `/zones/${z}/custom_pages/assets?per_page=2&per_page=3`);
    expect(twice.status).toBe(400);
    const bad = await api("GET", `/zones/${z}/custom_pages/assets?per_page=0`);
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toEqual({ code: 20050, message: "per_page must be given once, as an integer from 1 to 100" });
  });

  it("PUT fetches again, with the same URL (refetch), and keeps the name", async () => {
    const z = await zone();
    const id = Math.random().toString(36).slice(2);
    const url = `http://www.${z}/asset/counter.html?id=${id}`;
    expect((await create(z, { name: "counted", url })).status).toBe(200);
    expect(await env.CONFIG.get(`zone:${z}:asset:counted`)).toContain(`fetch 1 host www.${z}`);
    const again = await api<Asset>("PUT", `/zones/${z}/custom_pages/assets/counted`, { description: "again", url });
    expect(again.status, again.text).toBe(200);
    expect(again.body.result).toMatchObject({ name: "counted", description: "again", url });
    expect(await env.CONFIG.get(`zone:${z}:asset:counted`)).toContain("fetch 2");
    const renamed = await api("PUT", `/zones/${z}/custom_pages/assets/counted`, { name: "other", url });
    expect(renamed.status).toBe(400);
    expect(errorOf(renamed)?.message).toBe(
      'Invalid custom asset: name must be "counted" (an asset\'s name cannot change)',
    );
    const unknown = await api("PUT", `/zones/${z}/custom_pages/assets/nope`, { url });
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown)).toEqual({ code: 20051, message: `No custom asset named "nope" in ${z}` });
  });

  it("refuses a second asset of the same name (409) and names over the plan's limit", async () => {
    const z = await zone();
    expect((await create(z, { name: "one", url: `http://${z}/asset/404.html` })).status).toBe(200);
    const twice = await create(z, { name: "one", url: `http://${z}/asset/404.html` });
    expect(twice.status).toBe(409);
    expect(errorOf(twice)?.code).toBe(20052);
  });
});

describe("custom error assets: refused precisely, nothing stored", () => {
  it("refuses an oversized page before reading it all (400, 20056)", async () => {
    const z = await zone();
    const big = await create(z, { name: "big", url: `http://${z}/asset/huge.html?kb=2000` });
    expect(big.status).toBe(400);
    expect(errorOf(big)?.code).toBe(20056);
    expect(errorOf(big)?.message).toMatch(
      /^The custom asset would be \d+ bytes \(.*\), over the limit of 1500000 bytes/,
    );
    // Just under the limit is stored.
    const fits = await create(z, { name: "fits", url: `http://${z}/asset/huge.html?kb=1400` });
    expect(fits.status, fits.text).toBe(200);
    expect(await env.CONFIG.get(`zone:${z}:asset:big`)).toBeNull();
  });

  it("200 references to one 500 KB image: 400 (20056) as soon as the inlined page passes the limit", async () => {
    const z = await zone("enterprise", loopback(ports.http), { read_timeout: 5 });
    const one = await create(z, { name: "one", url: `http://${z}/asset/repeat.html?n=1&kb=500` });
    expect(one.status, one.text).toBe(200);
    for (const via of ["img", "css", "sheet"]) {
      const many = await create(z, {
        name: `many_${via}`,
        url: `http://${z}/asset/repeat.html?n=200&kb=500&via=${via}`,
      });
      expect(many.status, many.text).toBe(400);
      expect(errorOf(many)?.code).toBe(20056);
      // Counted, not timed (a time compared with the one-reference page's failed at random on a busy machine): the
      // count stops within one piece past the limit (one data: URI of 500 KB is ~683,000 characters), not at the
      // 136 MB the whole page would be.
      const bytes = Number(/would be (\d+) bytes \(at least;/.exec(errorOf(many)?.message ?? "")?.[1]);
      expect(bytes).toBeGreaterThan(1_500_000);
      expect(bytes).toBeLessThan(1_500_000 + 700_000);
      expect(await env.CONFIG.get(`zone:${z}:asset:many_${via}`)).toBeNull();
    }
  });

  it("1,000 references (a page past the runtime's longest string) is the same 400, never a 500", async () => {
    const z = await zone("pro", loopback(ports.http), { read_timeout: 5 });
    const huge = await create(z, { name: "huge", url: `http://${z}/asset/repeat.html?n=1000&kb=500` });
    expect(huge.status, huge.text).toBe(400);
    expect(errorOf(huge)?.code).toBe(20056);
  });

  it("just under the limit, the same image twice is inlined and stored (an <img> twice, a stylesheet linked twice)", async () => {
    const z = await zone("pro", loopback(ports.http), { read_timeout: 5 });
    for (const via of ["img", "sheet"]) {
      const two = await create(z, { name: `two_${via}`, url: `http://${z}/asset/repeat.html?n=2&kb=500&via=${via}` });
      expect(two.status, two.text).toBe(200);
      const html = (await env.CONFIG.get(`zone:${z}:asset:two_${via}`))!;
      const uri = `data:image/png;base64,${btoa("\x07".repeat(500 * 1024))}`; // the origin's 500 KiB of 7s
      expect(html.split(uri)).toHaveLength(3);
      expect(two.body.result?.size_bytes).toBe(new TextEncoder().encode(html).byteLength);
      expect(two.body.result?.size_bytes).toBeLessThanOrEqual(1_500_000);
    }
  });

  it("answers a hanging origin with a precise error within the zone's read timeout", async () => {
    const z = await zone("pro", loopback(ports.raw), { read_timeout: 1 });
    const started = Date.now();
    const hung = await create(z, { name: "hang", url: `http://${z}/hang` });
    const took = Date.now() - started;
    expect(hung.status).toBe(400);
    expect(errorOf(hung)?.code).toBe(20055);
    expect(errorOf(hung)?.message).toMatch(
      new RegExp(
        `^Could not make a custom asset from http://${z.replace(/\./g, "\\.")}/hang: the zone's origin gave no response for the asset URL: error 524 `,
      ),
    );
    // A margin (the read timeout is 1 s); without the bound the asset would wait until vitest's 30 s timeout.
    expect(took).toBeLessThan(20_000);
  });

  it("bounds the whole asset by the zone's read timeout: a late image is a precise error", async () => {
    const z = await zone();
    const started = Date.now();
    const late = await create(z, { name: "late", url: `http://${z}/asset/slow-image.html` });
    expect(late.status).toBe(400);
    expect(errorOf(late)?.message).toContain("linked resource");
    // The late image answers after 20 s: the 3 s read timeout has 12 s of margin for a loaded machine and still
    // ends well before that answer.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("refuses a page whose stylesheet answers 404, a redirect, and an origin that refuses connections", async () => {
    const z = await zone();
    const broken = await create(z, { name: "broken", url: `http://${z}/asset/broken-link.html` });
    expect(errorOf(broken)).toEqual({
      code: 20055,
      message:
        `Could not make a custom asset from http://${z}/status/404: the origin answered 404 for a linked stylesheet ` +
        "or image (2xx needed); nothing was stored",
    });
    const moved = await create(z, { name: "moved", url: `http://${z}/redirect` });
    expect(errorOf(moved)?.message).toContain(
      "the origin answered 302 (a redirect to /elsewhere); redirects are not followed",
    );
    const closed = await zone("pro", loopback(ports.closed));
    const refused = await create(closed, { name: "refused", url: `http://${closed}/x.html` });
    expect(errorOf(refused)?.message).toContain("error 521");
    expect((await api<Asset[]>("GET", `/zones/${z}/custom_pages/assets`)).body.result).toEqual([]);
  });

  it.each([
    ["bad-name", { name: "bad-name", url: "http://Z/asset/404.html" }, "name", "may only contain letters"],
    ["a space", { name: "a b", url: "http://Z/asset/404.html" }, "name", "may only contain letters"],
    ["too long", { name: "a".repeat(201), url: "http://Z/asset/404.html" }, "name", "must be 1 to 200 characters"],
    ["javascript:", { name: "js", url: "javascript:alert(1)" }, "url", "must be an http or https URL, not javascript:"],
    ["credentials", { name: "cred", url: "http://user:pw@Z/a.html" }, "url", "must not contain credentials"],
    ["API host", { name: "api", url: "http://localhost/zones" }, "url", "a host of the management API"],
    ["API host, any port", { name: "api", url: "http://LOCALHOST:8787/" }, "url", "a host of the management API"],
    ["another host", { name: "other", url: "http://other.example/a.html" }, "url", "same scope only"],
    ["a suffix that is not a subdomain", { name: "suffix", url: "http://evilZ/a.html" }, "url", "same scope only"],
    ["an IP literal", { name: "ip", url: `http://127.0.0.1:${ports.http}/asset/404.html` }, "url", "same scope only"],
    ["no URL", { name: "nourl" }, "url", "is required"],
    ["an unknown field", { name: "x", url: "http://Z/", kind: "html" }, "kind", "is not a custom asset field"],
  ])("refuses %s (400, 20050)", async (_label, raw, field, message) => {
    const z = await zone();
    const body = JSON.parse(JSON.stringify(raw).replaceAll("Z", z)) as Record<string, unknown>;
    const refused = await create(z, body);
    expect(refused.status).toBe(400);
    expect(errorOf(refused)?.code).toBe(20050);
    expect(errorOf(refused)?.message).toContain(`Invalid custom asset: ${field} `);
    expect(errorOf(refused)?.message).toContain(message);
    expect((await api<Asset[]>("GET", `/zones/${z}/custom_pages/assets`)).body.result).toEqual([]);
  });

  it("refuses a hostile name in the path (400) and answers 404 for an unknown one", async () => {
    const z = await zone();
    expect((await api("GET", `/zones/${z}/custom_pages/assets/a%2Fb`)).status).toBe(400);
    expect((await api("DELETE", `/zones/${z}/custom_pages/assets/x-y`)).status).toBe(400);
    expect((await api("GET", `/zones/${z}/custom_pages/assets/missing`)).status).toBe(404);
  });

  it("applies the plan's limits: free none (403, 1100), pro 25 (400, 20053)", async () => {
    const free = await zone("free");
    const refused = await create(free, { name: "x", url: `http://${free}/asset/404.html` });
    expect(refused.status).toBe(403);
    expect(errorOf(refused)?.code).toBe(1100);
    const z = await zone();
    // 25 assets through the writer directly would skip the API's checks: fill through the API, cheaply (404 page).
    for (let i = 0; i < 25; i++)
      expect((await create(z, { name: `p${i}`, url: `http://${z}/asset/404.html` })).status).toBe(200);
    const over = await create(z, { name: "p25", url: `http://${z}/asset/404.html` });
    expect(over.status).toBe(400);
    expect(errorOf(over)).toEqual({
      code: 20053,
      message: "The pro plan allows at most 25 custom assets per zone; delete one first",
    });
  });

  it("dry_run fetches and validates, stores nothing (create, update, delete)", async () => {
    const z = await zone();
    const rehearsed = await create(z, { name: "dry", url: `http://${z}/asset/page.html` }, "?dry_run=true");
    expect(rehearsed.status, rehearsed.text).toBe(200);
    expect(rehearsed.body.result).toBeNull();
    expect(await env.CONFIG.get(`zone:${z}:asset:dry`)).toBeNull();
    expect((await api("GET", `/zones/${z}/custom_pages/assets/dry`)).status).toBe(404);
    // The fetch and the checks run as for the real write.
    const failing = await create(z, { name: "dry", url: `http://${z}/asset/huge.html` }, "?dry_run=true");
    expect(errorOf(failing)?.code).toBe(20056);
    expect((await create(z, { name: "real", url: `http://${z}/asset/404.html` })).status).toBe(200);
    const before = await env.CONFIG.get(`zone:${z}:asset:real`);
    const update = await api("PUT", `/zones/${z}/custom_pages/assets/real?dry_run=true`, {
      url: `http://${z}/asset/page.html`,
    });
    expect(update.status).toBe(200);
    expect(update.body.result).toBeNull();
    expect(await env.CONFIG.get(`zone:${z}:asset:real`)).toBe(before);
    const removal = await api("DELETE", `/zones/${z}/custom_pages/assets/real?dry_run=true`);
    expect(removal.status).toBe(204);
    expect((await api("GET", `/zones/${z}/custom_pages/assets/real`)).status).toBe(200);
    expect((await api("DELETE", `/zones/${z}/custom_pages/assets/real?dry_run=yes`)).status).toBe(400);
  });

  it("needs a token, zones:read to read and zones:write to write (a dry run too)", async () => {
    const z = await zone();
    const tokens = JSON.stringify([
      {
        name: "reader",
        sha256: await tokenDigestHex("tok-reader"),
        accounts: [],
        zones: [z],
        permissions: ["zones:read"],
      },
    ]);
    const as = async (method: string, path: string, token: string | null, body?: unknown): Promise<number> => {
      const res = await worker.fetch(
        new Request(`http://localhost${path}`, {
          method,
          headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), "Content-Type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
        { ...env, API_TOKENS: tokens },
        createExecutionContext(),
      );
      await res.body?.cancel();
      return res.status;
    };
    const body = { name: "x", url: `http://${z}/asset/404.html` };
    expect(await as("POST", `/zones/${z}/custom_pages/assets`, null, body)).toBe(401);
    expect(await as("GET", `/zones/${z}/custom_pages/assets`, "tok-reader")).toBe(200);
    expect(await as("POST", `/zones/${z}/custom_pages/assets`, "tok-reader", body)).toBe(403);
    expect(await as("POST", `/zones/${z}/custom_pages/assets?dry_run=true`, "tok-reader", body)).toBe(403);
    expect(await as("DELETE", `/zones/${z}/custom_pages/assets/x`, "tok-reader")).toBe(403);
  });
});
