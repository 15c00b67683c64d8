/**
 * The service endpoints (docs/errors.md) through the real Worker: the reference list and pages, 404 problems for
 * unknown or malformed codes and paths, 405 with `Allow`, HEAD, and the zone-traffic placeholder's 1001.
 */
import { exports } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CATALOG } from "../../../src/errors/catalog";
import { parseCode, serviceRoute } from "../../../src/edge/service-endpoints";
import { catalogEntry } from "../../../src/errors/catalog";
import { countRequestWork } from "../support/string-work";

const get = (path: string, accept?: string, method = "GET", host = "localhost") =>
  exports.default.fetch(`http://${host}${path}`, { method, headers: accept === undefined ? {} : { Accept: accept } });

function expectProblemHeaders(res: Response, status: number, contentType: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get("Content-Type")).toBe(contentType);
  expect(res.headers.get("Vary")).toBe("Accept");
  expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
}

async function expectJsonProblem(res: Response, status: number, title: string): Promise<void> {
  expectProblemHeaders(res, status, "application/problem+json; charset=utf-8");
  const body = await res.json<Record<string, unknown>>();
  expect(Object.keys(body)).toEqual(["type", "title", "status", "detail"]);
  expect(body).toMatchObject({ type: "about:blank", title, status });
  expect(typeof body.detail).toBe("string");
}

const BAD_CODES = [
  "0522",
  "-1",
  "1e3",
  "99999999999999999999",
  "%00",
  "522.0",
  "%20522",
  "+522",
  "0x20a",
  "522%00",
  "abc",
  "9999",
  "1021",
  "527",
  "530",
  "0",
  "00",
  "５２２",
  "522;x",
  encodeURIComponent("522 "),
  "9".repeat(10_000),
];

describe("bad codes → 404 RFC 9457 problem, never a crash (docs/errors.md)", () => {
  it.each(BAD_CODES.map((c) => [c.length > 40 ? `${c.slice(0, 12)}… (${c.length} chars)` : c, c]))(
    "/cdn-cgi/error/%s",
    async (_label, code) => {
      await expectJsonProblem(await get(`/cdn-cgi/error/${code}`, "application/problem+json"), 404, "Not Found");
      await expectJsonProblem(await get(`/cdn-cgi/errors/${code}`, "application/problem+json"), 404, "Not Found");
    },
  );

  it("a 10 KB path of junk under the prefix is a 404 problem", async () => {
    await expectJsonProblem(
      await get(`/cdn-cgi/${"x/%ff".repeat(2_000)}`, "application/problem+json"),
      404,
      "Not Found",
    );
  });

  it.each([
    ["application/json", "application/json; charset=utf-8"],
    ["text/markdown", "text/markdown; charset=utf-8"],
    ["text/html", "text/html; charset=utf-8"],
    [undefined, "text/html; charset=utf-8"],
  ])("the problem is negotiated: Accept %s → %s, without edge fields", async (accept, contentType) => {
    const res = await get("/cdn-cgi/error/0522", accept);
    expectProblemHeaders(res, 404, contentType);
    const text = await res.text();
    expect(text).not.toMatch(/edge_error|ray_id|error_code/);
    if (contentType.startsWith("application/json"))
      expect(JSON.parse(text)).toMatchObject({ type: "about:blank", status: 404 });
    if (contentType.startsWith("text/markdown")) {
      const front = /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? "";
      expect(parse(front)).toMatchObject({ type: "about:blank", title: "Not Found", status: 404 });
    }
    if (contentType.startsWith("text/html")) expect(text.match(/<h1>/g)).toHaveLength(1);
  });
});

describe("unknown paths and methods", () => {
  it.each([
    "/cdn-cgi",
    "/cdn-cgi/",
    "/cdn-cgi/nope",
    "/cdn-cgi/error",
    "/cdn-cgi/error/522/extra",
    "/cdn-cgi/errors/522/x",
  ])("%s → 404 problem", async (path) => {
    await expectJsonProblem(await get(path, "application/problem+json"), 404, "Not Found");
  });

  it.each([
    ["POST", "/cdn-cgi/error/522"],
    ["PUT", "/cdn-cgi/errors"],
    ["DELETE", "/cdn-cgi/errors/522"],
    ["PATCH", "/cdn-cgi/error/1015"],
    ["OPTIONS", "/cdn-cgi/error/522"],
  ])("%s %s → 405 with Allow: GET, HEAD", async (method, path) => {
    const res = await get(path, "application/problem+json", method);
    expect(res.headers.get("Allow")).toBe("GET, HEAD");
    await expectJsonProblem(res, 405, "Method Not Allowed");
  });
});

describe("hostile URLs cost linear work (docs/configuration.md)", () => {
  // itty-router's Router.fetch built `request.query` with one `[].concat` per repeated key: quadratic, ~4 s of CPU
  // for this URL before any handler ran. The endpoints read no query, so 8× the keys may cost at most about 8× the
  // work, counted (test/workers/support/string-work.ts `countRequestWork`), not timed: quadratic would be 64×.
  it("40,000 repeated query keys", async () => {
    const send = (keys: number) =>
      countRequestWork(() => get(`/cdn-cgi/error/522?${"a=1&".repeat(keys)}`, "application/json"));
    // The first request of an isolate fills its caches (about a million units): not part of either count.
    await (await send(5_000)).value.body?.cancel();
    const small = await send(5_000);
    const large = await send(40_000);
    expect(large.value.status).toBe(522);
    expect(await large.value.json()).toMatchObject({ error_code: 522 });
    await small.value.body?.cancel();
    expect(large.units).toBeLessThanOrEqual(8.5 * small.units + 10_000);
  });

  it("a long run of slashes before the last segment", async () => {
    const send = (slashes: number) =>
      countRequestWork(() => get(`/cdn-cgi/errors${"/".repeat(slashes)}x`, "application/problem+json"));
    await (await send(12_500)).value.body?.cancel();
    const small = await send(12_500);
    const large = await send(100_000);
    await small.value.body?.cancel();
    await expectJsonProblem(large.value, 404, "Not Found");
    expect(large.units).toBeLessThanOrEqual(8.5 * small.units + 10_000);
  });
});

describe("parseCode: a canonical decimal code of at most 6 digits that exists", () => {
  // The definition parseCode implements without a regular expression.
  const reference = (segment: string) => {
    if (segment.length > 6 || !/^[1-9][0-9]*$/.test(segment)) return { ok: false, error: "malformed" };
    const entry = catalogEntry(Number(segment));
    return entry ? { ok: true, value: entry } : { ok: false, error: "unknown" };
  };

  it.each([...BAD_CODES, "", "522", "1015", "5", "0", "00", "9999", "999999", "1000000", "52a", "５２２", "522 "])(
    "%j",
    (segment) => {
      expect(parseCode(segment)).toEqual(reference(segment));
    },
  );

  it("agrees with the definition on any string of digits, signs and letters", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-z+\-. ]{0,8}$/), fc.string({ maxLength: 8 }), (digits, any) => {
        expect(parseCode(digits)).toEqual(reference(digits));
        expect(parseCode(any)).toEqual(reference(any));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("serviceRoute: the path shapes of docs/errors.md, prefix matched literally", () => {
  it.each([
    ["/cdn-cgi/error/522", "/cdn-cgi", { kind: "error", code: "522" }],
    ["/cdn-cgi/error/522//", "/cdn-cgi", { kind: "error", code: "522" }],
    ["/cdn-cgi/errors", "/cdn-cgi", { kind: "errors" }],
    ["/cdn-cgi/errors/", "/cdn-cgi", { kind: "errors" }],
    ["/cdn-cgi/errors/1015", "/cdn-cgi", { kind: "errors-code", code: "1015" }],
    ["/cdn-cgi", "/cdn-cgi", { kind: "unknown" }],
    ["/cdn-cgi/", "/cdn-cgi", { kind: "unknown" }],
    ["/cdn-cgi//errors", "/cdn-cgi", { kind: "unknown" }],
    ["/cdn-cgi/error//522", "/cdn-cgi", { kind: "unknown" }],
    ["/cdn-cgi/error/", "/cdn-cgi", { kind: "unknown" }],
    ["/cdn-cgi/Errors", "/cdn-cgi", { kind: "unknown" }],
    ["/cdn-cgiX/errors", "/cdn-cgi", { kind: "unknown" }],
    ["/_e(1)+/errors/522", "/_e(1)+", { kind: "errors-code", code: "522" }],
    ["/_e1/errors/522", "/_e(1)+", { kind: "unknown" }],
    ["/a.b/errors", "/a.b", { kind: "errors" }],
    ["/aXb/errors", "/a.b", { kind: "unknown" }],
  ])("%s under %s", (path, prefix, expected) => {
    expect(serviceRoute(path, prefix)).toEqual(expected);
  });
});

describe("/cdn-cgi/errors (reference of every code)", () => {
  it("JSON: one entry per code, with its type URI on the requested zone", async () => {
    const res = await get("/cdn-cgi/errors", "application/json", "GET", "shop.example");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json; charset=utf-8");
    const list = await res.json<Record<string, unknown>[]>();
    expect(list.map((e) => e.error_code)).toEqual(CATALOG.map((e) => e.code));
    for (const [i, e] of CATALOG.entries()) {
      expect(list[i]).toMatchObject({
        type: `http://shop.example/cdn-cgi/errors/${e.code}`,
        title: `Error ${e.code}: ${e.title}`,
        status: e.status,
        error_name: e.errorName,
        error_category: e.category,
        retryable: e.retryAfter !== null,
      });
      expect(list[i]?.retry_after).toBe(e.retryAfter ?? undefined);
    }
  });

  it("Markdown: a table with one row per code", async () => {
    const res = await get("/cdn-cgi/errors", "text/markdown");
    expect(res.headers.get("Content-Type")).toBe("text/markdown; charset=utf-8");
    const rows = (await res.text()).split("\n").filter((l) => /^\| \[\d+\]/.test(l));
    expect(rows).toHaveLength(CATALOG.length);
    expect(rows[0]).toContain("| [500](http://localhost/cdn-cgi/errors/500) | 500 |");
  });

  it("HTML: one line per code, grouped by class and category, and one h1", async () => {
    const res = await get("/cdn-cgi/errors");
    expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    const html = await res.text();
    const codes = [...html.matchAll(/<li data-code="(\d+)">/g)].map((m) => Number(m[1]));
    expect([...codes].sort((a, b) => a - b)).toEqual(CATALOG.map((e) => e.code));
    expect(html.match(/<h1>/g)).toHaveLength(1);
    expect(html).not.toContain("<table");
    expect(html.indexOf("<h2>5xx errors</h2>")).toBeLessThan(html.indexOf("<h2>1xxx errors</h2>"));
    expect(html).toContain("<h3>Rate limiting</h3>");
  });

  it("HEAD: headers only", async () => {
    const res = await get("/cdn-cgi/errors", "application/json", "HEAD");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json; charset=utf-8");
    expect(await res.text()).toBe("");
  });

  it.each(["/cdn-cgi/errors", "/cdn-cgi/errors/522", "/cdn-cgi/errors/9999", "/cdn-cgi/nope"])(
    "HEAD %s carries the Content-Length of GET (input 7)",
    async (path) => {
      for (const accept of ["application/json", "text/markdown", "text/html"]) {
        const head = await get(path, accept, "HEAD");
        const full = await get(path, accept);
        expect(head.status).toBe(full.status);
        expect(head.headers.get("Content-Length"), `${path} ${accept}`).toBe(
          String((await full.arrayBuffer()).byteLength),
        );
      }
    },
  );
});

describe("/cdn-cgi/errors/{code} (reference page: the target of `type`)", () => {
  it.each(CATALOG.map((e) => [e.code, e] as const))(
    "%i: the type URI of an error resolves to its reference",
    async (code, e) => {
      const error = await (await get(`/cdn-cgi/error/${code}`, "application/json")).json<{ type: string }>();
      const ref = await exports.default.fetch(error.type, { headers: { Accept: "application/json" } });
      expect(ref.status).toBe(200);
      expect(await ref.json()).toMatchObject({
        error_code: code,
        status: e.status,
        error_name: e.errorName,
        detail: e.detail,
      });
    },
  );

  it("Markdown and HTML representations", async () => {
    const md = await (await get("/cdn-cgi/errors/1015", "text/markdown")).text();
    const front = /^---\n([\s\S]*?)\n---\n/.exec(md)?.[1] ?? "";
    expect(parse(front)).toMatchObject({
      error_code: 1015,
      error_name: "rate_limited",
      retryable: true,
      retry_after: 30,
    });
    expect(md).toContain("## What You Should Do");
    const html = await (await get("/cdn-cgi/errors/1015", "text/html")).text();
    expect(html).toContain("<h1>Error 1015: You are being rate limited</h1>");
    expect(html).toContain("<strong>Wait and retry.</strong>");
  });
});

describe("zone traffic without config (placeholder until the origin issue) → structured 1001", () => {
  it("answers 1001 through the pipeline, with the zone and a type on that zone", async () => {
    const res = await exports.default.fetch("http://Shop.Example:8080/some/path?q=1", {
      headers: { Accept: "application/json" },
    });
    expect(res.status).toBe(409);
    const body = await res.json<Record<string, unknown>>();
    expect(body).toMatchObject({
      error_code: 1001,
      error_name: "dns_resolution_error",
      error_category: "dns",
      zone: "shop.example",
      type: "http://shop.example:8080/cdn-cgi/errors/1001",
      retryable: false,
      edge_error: true,
    });
    expect(res.headers.get("Ray-ID")).toBe(body.ray_id);
  });
});

describe("unusual hosts through the Worker", () => {
  it.each([
    ["http://bücher.example", "xn--bcher-kva.example"],
    ["http://UPPER.Example", "upper.example"],
    ["http://a_b.example", "a_b.example"],
    ["http://[::1]:8787", "[::1]"],
  ])("%s → zone %s in every format, escaped in HTML", async (origin, zone) => {
    const json = await exports.default.fetch(`${origin}/cdn-cgi/error/1020`, {
      headers: { Accept: "application/json" },
    });
    expect(await json.json()).toMatchObject({ zone, error_code: 1020 });
    const md = await (
      await exports.default.fetch(`${origin}/cdn-cgi/error/1020`, { headers: { Accept: "text/markdown" } })
    ).text();
    expect((parse(/^---\n([\s\S]*?)\n---\n/.exec(md)?.[1] ?? "") as { zone: string }).zone).toBe(zone);
    const html = await (await exports.default.fetch(`${origin}/cdn-cgi/error/1020`)).text();
    expect(html).toContain(`<dt>Website</dt><dd>${zone}</dd>`);
  });
});
