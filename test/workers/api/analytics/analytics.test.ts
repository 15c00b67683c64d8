/**
 * The analytics API's refusals: each limit answers a precise 400 in the v4 envelope, another zone's
 * token gets 403 and never the record, and the page is a public shell under a strict CSP.
 */
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { tokenDigestHex } from "../../../../src/api/kit/auth";
import worker from "../../../../src/index";
import { ADMIN, loopback, ports, putZone, uniqueZone } from "../../support/origin";

const get = (path: string, headers: Record<string, string> = ADMIN) =>
  exports.default.fetch(`http://localhost${path}`, { headers });

async function failure(res: Response): Promise<{ code: number; message: string }> {
  const body = await res.json<{ success: boolean; errors: { code: number; message: string }[] }>();
  expect(body.success).toBe(false);
  return body.errors[0]!;
}

describe("GET /zones/{zone}/analytics/errors refusals", () => {
  it.each([
    ["?step=minute&since=0", 10102, /over the limit of 1440 minutes/],
    ["?step=hour&since=0", 10102, /over the limit of 840 hours/],
    ["?group_by=country", 10101, /unknown dimension "country"/],
    ["?group_by=code,source,format", 10101, /at most 2 dimensions/],
    ["?since=yesterday", 10101, /since must be an RFC 3339/],
    ["?step=second", 10101, /step must be one of minute, hour/],
    ["?code=%3Cscript%3E", 10101, /code must be a 3- or 4-digit/],
    ["?source=cdn", 10101, /source must be one of edge, origin/],
    ["?x=1", 10101, /^x is not a parameter of this query \(since, until/],
    ["?step=hour&step=minute", 10101, /^step must be given once$/],
    ["?since=1764000000&until=1763990000", 10101, /^since must be before until$/],
    [`?since=${"9".repeat(200)}`, 10101, /longer than 100 characters/],
  ])("%s → 400 %i", async (query, code, message) => {
    const zone = uniqueZone("an-api");
    await putZone(zone, { origin: loopback(ports.closed) });
    const res = await get(`/zones/${zone}/analytics/errors${query}`);
    expect(res.status).toBe(400);
    const e = await failure(res);
    expect(e.code).toBe(code);
    expect(e.message).toMatch(message);
  });

  it("every refused parameter is one error naming it, in the schema's order, unknown parameters first", async () => {
    const zone = uniqueZone("an-api");
    await putZone(zone, { origin: loopback(ports.closed) });
    const res = await get(`/zones/${zone}/analytics/errors?format=pdf&x=1&step=second&code=42`);
    expect(res.status).toBe(400);
    const body = await res.json<{ errors: { code: number; message: string }[] }>();
    expect(body.errors).toEqual([
      {
        code: 10101,
        message: "x is not a parameter of this query (since, until, step, code, source, answered_by, format, group_by)",
      },
      { code: 10101, message: "step must be one of minute, hour" },
      { code: 10101, message: "code must be a 3- or 4-digit error code" },
      { code: 10101, message: "format must be one of json, problem+json, markdown, html, text, xml, grpc, other" },
    ]);
  });

  it("an unknown zone is 404 (reading creates no storage)", async () => {
    const res = await get(`/zones/${uniqueZone("none")}/analytics/errors`);
    expect(res.status).toBe(404);
  });
});

describe("GET /zones/{zone}/errors/{ray}", () => {
  it("a malformed ray (control characters, 10 KB) is a 400 that quotes it escaped and bounded", async () => {
    const zone = uniqueZone("an-ray");
    await putZone(zone, { origin: loopback(ports.closed) });
    for (const ray of ["%00%0a%3Cb%3E", "x".repeat(10_000), "ABCDEF0123456789"]) {
      const res = await get(`/zones/${zone}/errors/${ray}`);
      expect(res.status).toBe(400);
      const text = await res.clone().text();
      expect(text.length).toBeLessThan(400);
      expect(text).not.toContain("<b>");
      expect((await failure(res)).message).toMatch(/16 lower-case hex/);
    }
  });

  it("a ray never recorded is 404; a token of another zone gets 403, never the record", async () => {
    const zone = uniqueZone("an-scope");
    await putZone(zone, { origin: loopback(ports.closed), connect_timeout: 0.3 });
    const traffic = await exports.default.fetch(`http://${zone}/`);
    const ray = traffic.headers.get("Ray-ID")!;
    await traffic.body?.cancel();
    expect((await get(`/zones/${zone}/errors/0000000000000000`)).status).toBe(404);
    // The record is written after the response (a batch, docs/analytics.md): wait until the admin sees it.
    let recorded = 0;
    for (let i = 0; i < 50 && recorded !== 200; i++) {
      const res = await get(`/zones/${zone}/errors/${ray}`);
      recorded = res.status;
      await res.body?.cancel();
      if (recorded !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(recorded).toBe(200);

    // Scoped tokens through the Worker, with API_TOKENS set for this call (as test/workers/api/kit/auth.test.ts).
    const scoped = JSON.stringify([
      { name: "mine", sha256: await tokenDigestHex("tok-mine"), zones: [zone], permissions: ["zones:read"] },
      {
        name: "other",
        sha256: await tokenDigestHex("tok-other"),
        zones: ["other.example"],
        permissions: ["zones:read"],
      },
      { name: "tags", sha256: await tokenDigestHex("tok-tags"), accounts: ["*"], permissions: ["tags:read"] },
    ]);
    const as = (token: string, path: string) =>
      worker.fetch(
        new Request(`http://localhost${path}`, { headers: { Authorization: `Bearer ${token}` } }),
        { ...env, API_TOKENS: scoped },
        createExecutionContext(),
      );
    for (const path of [`/zones/${zone}/analytics/errors`, `/zones/${zone}/errors/${ray}`]) {
      const mine = await as("tok-mine", path);
      expect(mine.status, path).toBe(200);
      expect(await mine.text()).toContain(zone);
      for (const token of ["tok-other", "tok-tags"]) {
        const refused = await as(token, path);
        const text = await refused.clone().text();
        expect(refused.status, `${token} ${path}`).toBe(403);
        expect((await failure(refused)).code).toBe(10001);
        // Never the record nor whether one exists: no ray, no count, no zone data in the refusal.
        expect(text).not.toContain(ray);
        expect(text).not.toContain('"total"');
      }
    }
    // A ray that was never recorded is refused the same way: 403 says nothing about existence.
    const unknown = await as("tok-other", `/zones/${zone}/errors/0000000000000000`);
    expect(unknown.status).toBe(403);
    await unknown.body?.cancel();
  });
});

describe("the page", () => {
  it("is public, holds no data, runs under a strict nonce CSP and escapes the zone", async () => {
    const zone = uniqueZone("an-page");
    const res = await exports.default.fetch(`http://localhost/zones/${zone}/analytics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    const csp = res.headers.get("Content-Security-Policy")!;
    expect(csp).toMatch(/default-src 'none'; script-src 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("connect-src 'self'");
    // The token typed here is reachable by no other page (docs/analytics.md "Who can reach the token").
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get("Cross-Origin-Opener-Policy")).toBe("same-origin");
    expect(res.headers.get("Cross-Origin-Resource-Policy")).toBe("same-origin");
    expect(res.headers.get("X-Frame-Options")).toBe("DENY");
    const html = await res.text();
    expect(html).toContain(`data-zone="${zone}"`);
    expect(html).toContain("sessionStorage");
    expect(html).not.toMatch(/\ssrc=|<link\b/); // nothing the browser would fetch on its own
    // Its one link is the front door's; top codes link to their reference once drawn, from this base and titles.
    expect([...html.matchAll(/\shref="([^"]*)"/g)].map((m) => m[1])).toEqual(["/"]);
    const catalog = /<script type="application\/json" id="catalog">([^<]*)<\/script>/.exec(html);
    const data = JSON.parse(catalog![1]!) as { reference: string; titles: Record<string, string> };
    expect(data.reference).toBe("http://localhost/cdn-cgi/errors/");
    expect(typeof data.titles["520"]).toBe("string");
    expect(typeof data.titles["1020"]).toBe("string");
    // With ERROR_DOCS_BASE set, a code's reference is there, as its errors' `type` is.
    const elsewhere = await worker.fetch(
      new Request(`http://localhost/zones/${zone}/analytics`),
      { ...env, ERROR_DOCS_BASE: "https://docs.example/errors/" },
      createExecutionContext(),
    );
    expect(await elsewhere.text()).toContain('"reference":"https://docs.example/errors/"');
    const hostile = await exports.default.fetch(`http://localhost/zones/%3Cscript%3E/analytics`);
    expect(hostile.status).toBe(401); // not a zone name: not the page, so the API's auth answers
    await hostile.body?.cancel();
  });
});
