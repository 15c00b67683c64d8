/** The lazy header map behind http.request.headers / http.response.headers (docs/rules-language.md). */
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

  it("answers many lookups one by one exactly as the whole map read at once", () => {
    const many = new Headers([
      ...headers,
      ...Array.from({ length: 8 }, (_, i): [string, string] => [`X-H${i}`, `v${i}`]),
    ]);
    const names = ["x-h0", "x-h1", "missing-1", "x-h2", "missing-2", "Accept", "accept", "set-cookie", "x-multi"];
    const names2 = [...names, ...Array.from({ length: 8 }, (_, i) => `x-h${i}`), "\u00e9", "x-h7", "missing-3"];
    const whole = new HeaderMap(many);
    expect(whole.size).toBe(11); // reads the whole list first
    const oneByOne = new HeaderMap(many);
    expect(names2.map((name) => oneByOne.get(name))).toEqual(names2.map((name) => whole.get(name)));
    expect(oneByOne.get("x-h7")).toEqual(["v7"]);
    expect(oneByOne.get("set-cookie")).toEqual(["a=1", "b=2"]);
    expect(oneByOne.get("Accept")).toBeUndefined();
  });

  it("looks up to 16 names up one by one, then reads the whole list once", () => {
    let iterations = 0;
    class Counting extends Headers {
      override entries(): ReturnType<Headers["entries"]> {
        iterations++;
        return super.entries();
      }
      override [Symbol.iterator](): ReturnType<Headers["entries"]> {
        return this.entries();
      }
    }
    const counted = new Counting([
      ...headers,
      ...Array.from({ length: 20 }, (_, i): [string, string] => [`x-h${i}`, `v${i}`]),
    ]);
    const map = new HeaderMap(counted);
    for (let i = 0; i < 15; i++) expect(map.get(`x-h${i}`)).toEqual([`v${i}`]);
    expect(map.get("missing")).toBeUndefined(); // the 16th distinct name
    expect(map.get("x-h0")).toEqual(["v0"]); // already looked up
    expect(iterations).toBe(0);
    expect(map.get("x-h15")).toEqual(["v15"]); // the 17th: the whole list, once
    expect(map.get("x-h19")).toEqual(["v19"]);
    expect(map.get("set-cookie")).toEqual(["a=1", "b=2"]);
    expect(map.get("Accept")).toBeUndefined();
    expect(iterations).toBe(1);
    expect([...map.keys()]).toHaveLength(23);
    expect(iterations).toBe(1);
  });

  it("iterates every header in key order", () => {
    const map = new HeaderMap(headers);
    expect([...map.keys()]).toEqual(["accept", "set-cookie", "x-multi"]);
    expect(map.size).toBe(3);
    expect(map.get("accept")).toEqual(["text/html"]);
  });
});
