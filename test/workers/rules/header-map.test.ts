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

  it("answers the same when many names are looked up (past 4 distinct names it reads the whole list once)", () => {
    const many = new Headers([
      ...headers,
      ...Array.from({ length: 8 }, (_, i): [string, string] => [`X-H${i}`, `v${i}`]),
    ]);
    const names = ["x-h0", "x-h1", "missing-1", "x-h2", "missing-2", "Accept", "accept", "set-cookie", "x-multi"];
    const names2 = [...names, ...Array.from({ length: 8 }, (_, i) => `x-h${i}`), "\u00e9", "x-h7", "missing-3"];
    const oneByOne = names2.map((name) => new HeaderMap(many).get(name)); // a fresh map: never past the threshold
    const shared = new HeaderMap(many);
    expect(names2.map((name) => shared.get(name))).toEqual(oneByOne);
    expect(oneByOne).toContainEqual(["v7"]);
    expect(shared.get("set-cookie")).toEqual(["a=1", "b=2"]);
    expect(shared.get("Accept")).toBeUndefined();
  });

  it("iterates every header in key order", () => {
    const map = new HeaderMap(headers);
    expect([...map.keys()]).toEqual(["accept", "set-cookie", "x-multi"]);
    expect(map.size).toBe(3);
    expect(map.get("accept")).toEqual(["text/html"]);
  });
});
