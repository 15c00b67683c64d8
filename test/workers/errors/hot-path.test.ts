/**
 * The error-path performance work (2026-11-22) shortcuts on the error path give exactly what the long way gave: `type` without a second URL parse
 * equals `new URL(path, request.url)`, the hand-built log line is the JSON object it always was, and the header
 * record sends the same headers as the `Headers` object it replaced.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseSettings } from "../../../src/shared/settings";
import { catalogEntry } from "../../../src/errors/catalog";
import { chooseErrorFormat } from "../../../src/errors/format";
import { errorHeaders } from "../../../src/errors/headers";
import { errorResponse, typeUri } from "../../../src/errors/pipeline";

afterEach(() => vi.restoreAllMocks());

const URLS = [
  "http://localhost/cdn-cgi/error/522",
  "https://shop.example:8443/a/b?x=1#frag",
  "http://user:pa%20ss@shop.example/",
  "http://[2001:db8::1]:8080/x/y/",
  "https://xn--bcher-kva.example/%E2%98%83?q=%22",
  "http://127.0.0.1:8787/../../etc",
];
const BASES = [
  "/cdn-cgi/errors",
  "/_edge/errors",
  "docs/errors",
  "/a.b/c-d_e~f",
  "/./x",
  "/x/../y",
  "//other.example/e",
  "/sp%20ace", // a space is invalid in ERROR_DOCS_BASE (src/shared/settings.ts); its encoding is not
  "/ünï",
];

describe("typeUri without a second URL parse", () => {
  it.each(URLS)("equals new URL(path, %s) for every kind of base", (requestUrl) => {
    const href = new Request(requestUrl).url; // what the Worker sees: a serialised URL
    for (const base of BASES) {
      const settings = parseSettings({ ERROR_DOCS_BASE: base });
      const path = base.startsWith("/") ? base : `/${base}`;
      expect(typeUri(522, href, settings), `${base} on ${href}`).toBe(new URL(`${path}/522`, href).href);
    }
    expect(typeUri(522, href, parseSettings({}))).toBe(new URL("/cdn-cgi/errors/522", href).href);
  });

  it("an absolute ERROR_DOCS_BASE is used as is", () => {
    expect(typeUri(1015, "http://a.example/", parseSettings({ ERROR_DOCS_BASE: "https://docs.example/e" }))).toBe(
      "https://docs.example/e/1015",
    );
  });
});

describe("the log line", () => {
  it.each([undefined, 'quote " backslash \\ newline \n tab \t', "snow ☃ and \u0000 and \u2028", ""])(
    "is the JSON object {event, ray, zone, code, status, cause} for cause %j",
    async (cause) => {
      const logged = vi.spyOn(console, "warn").mockImplementation(() => {}); // 522: a warning (levelOf)
      const request = new Request("http://odd.example/", { headers: { Accept: "application/json" } });
      const res = (
        await errorResponse(
          { code: 522, request, ...(cause === undefined ? {} : { cause }) },
          { settings: parseSettings({}), zone: 'odd"zone\\.example' },
        )
      ).response;
      const line = String(logged.mock.calls[0]?.[0]);
      expect(JSON.parse(line)).toEqual({
        event: "edge_error",
        ray: res.headers.get("Ray-ID"),
        zone: 'odd"zone\\.example',
        code: 522,
        status: 522,
        cause: cause ?? null,
      });
      expect(Object.keys(JSON.parse(line) as object)).toEqual(["event", "ray", "zone", "code", "status", "cause"]);
    },
  );
});

describe("the header record", () => {
  it("sends the docs/errors.md headers, Retry-After only when retryable, Content-Length on HEAD", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(console, "log").mockImplementation(() => {});
    const scope = { settings: parseSettings({}), zone: "shop.example" };
    const get = (await errorResponse({ code: 522, request: new Request("http://shop.example/") }, scope)).response;
    expect([...get.headers.keys()].sort()).toEqual(
      [
        "cache-control",
        "content-language",
        "content-security-policy",
        "content-type",
        "proxy-status",
        "ray-id",
        "retry-after",
        "retry-after-ms",
        "server-timing",
        "vary",
        "x-content-type-options",
        "x-should-retry",
      ].sort(),
    );
    const blocked = (await errorResponse({ code: 1020, request: new Request("http://shop.example/") }, scope)).response;
    expect(blocked.headers.has("Retry-After")).toBe(false);
    expect(blocked.headers.has("retry-after-ms")).toBe(false);
    expect(blocked.headers.get("x-should-retry")).toBe("false");
    const head = (
      await errorResponse({ code: 522, request: new Request("http://shop.example/", { method: "HEAD" }) }, scope)
    ).response;
    expect(Number(head.headers.get("Content-Length"))).toBe((await get.arrayBuffer()).byteLength);
  });
});

describe("the prototype Response", () => {
  it.each(["application/json", "application/problem+json", "text/markdown", "text/html"])(
    "sends the same status, headers and body as the header record would (%s)",
    async (accept) => {
      vi.spyOn(console, "error").mockImplementation(() => {});
      vi.spyOn(console, "log").mockImplementation(() => {});
      const scope = { settings: parseSettings({}), zone: "shop.example" };
      for (const [code, retryAfter] of [
        [522, undefined],
        [1020, undefined],
        [1015, undefined],
        [1015, 7],
        [1015, 7],
        [500, undefined],
      ] as const) {
        const request = new Request("http://shop.example/x", { headers: { accept } });
        const event = retryAfter === undefined ? { code, request } : { code, request, retryAfter };
        const res = (await errorResponse(event, scope)).response; // the CSP is known from the first error on: prototyped
        const ray = res.headers.get("Ray-ID") ?? "";
        const body = await res.text();
        const record = await errorHeaders(chooseErrorFormat(accept), {
          code,
          rayId: ray,
          retryAfter: res.headers.has("Retry-After") ? Number(res.headers.get("Retry-After")) : null,
          serverTiming: res.headers.get("Server-Timing"),
          language: "en",
        });
        const expected = new Response(body, { status: res.status, headers: record });
        expect([...res.headers]).toEqual([...expected.headers]);
        expect(res.status).toBe(catalogEntry(code)?.status);
        if (retryAfter !== undefined) expect(res.headers.get("Retry-After")).toBe(String(retryAfter));
        expect(JSON.stringify([...res.headers])).toContain(ray);
      }
    },
  );
});
