/**
 * The public pages are entries of the route table (src/app.ts, kit/types.ts `PageRoute`), served by the mount to GET
 * and HEAD before authentication, on the path without `/client/v4`; anything else on their paths is the API's.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api } from "../../../../src/app";

const ACCOUNT = "0123456789abcdef0123456789abcdef";
const PAGES = ["/", "/zones/pages-table.example/analytics", `/accounts/${ACCOUNT}/analytics`];

const call = (path: string, method = "GET"): Promise<Response> =>
  exports.default.fetch(`http://localhost${path}`, { method, headers: { Accept: "text/html" } });

describe("the route table's pages", () => {
  it("lists the front door and the two analytics pages, apart from the API routes", () => {
    expect(api.pages.map((page) => page.path)).toEqual(["/", "/zones/:zone/analytics", "/accounts/:account/analytics"]);
    const apiPaths = new Set(api.routes.map((route) => route.path));
    for (const page of api.pages) expect(apiPaths.has(page.path), page.path).toBe(false);
  });

  it("serves each page to GET and HEAD without a token", async () => {
    for (const path of PAGES) {
      for (const method of ["GET", "HEAD"]) {
        const res = await call(path, method);
        expect(res.status, `${method} ${path}`).toBe(200);
        expect(res.headers.get("Content-Type"), `${method} ${path}`).toBe("text/html; charset=utf-8");
        const body = await res.text();
        expect(body === "", `${method} ${path}`).toBe(method === "HEAD");
      }
    }
  });

  it("leaves other methods, the /client/v4 paths and paths naming nothing to the API (401 without a token)", async () => {
    const apiPaths: [string, string][] = [
      ...PAGES.map((path): [string, string] => ["POST", path]),
      ["GET", "/client/v4/zones/pages-table.example/analytics"],
      ["GET", `/client/v4/accounts/${ACCOUNT}/analytics`],
      ["GET", "/zones/not%20a%20zone/analytics"],
      ["GET", "/accounts/not-an-account/analytics"],
    ];
    for (const [method, path] of apiPaths) {
      const res = await call(path, method);
      expect(res.status, `${method} ${path}`).toBe(401);
      await res.body?.cancel();
    }
  });
});
