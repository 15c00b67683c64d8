/** The lazy header map behind http.request.headers / http.response.headers (rules-language.md §3.4). */
import { describe, expect, it } from "vitest";
import { HeaderMap } from "../../../src/rules/fields/header-map";

describe("HeaderMap", () => {
  const headers = new Headers([
    ["Accept", "text/html"],
    ["X-Multi", "a"],
    ["X-Multi", "b"],
    ["Set-Cookie", "a=1"],
    ["Set-Cookie", "b=2"],
  ]);

  it("answers lower-case names only, even though Headers.get ignores case", () => {
    const map = new HeaderMap(headers);
    expect(map.get("accept")).toEqual(["text/html"]);
    expect(map.get("Accept")).toBeUndefined();
    expect(map.get("no such header")).toBeUndefined();
    expect(map.get("\u00e9")).toBeUndefined();
  });

  it("keeps one entry per Set-Cookie header and the joined value of other repeated headers", () => {
    const map = new HeaderMap(headers);
    expect(map.get("set-cookie")).toEqual(["a=1", "b=2"]);
    expect(map.get("x-multi")).toEqual(["a, b"]);
  });

  it("iterates every header in key order", () => {
    const map = new HeaderMap(headers);
    expect([...map.keys()]).toEqual(["accept", "set-cookie", "x-multi"]);
    expect(map.size).toBe(3);
    expect(map.get("accept")).toEqual(["text/html"]);
  });
});
