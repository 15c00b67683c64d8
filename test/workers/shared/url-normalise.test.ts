/**
 * The URL normaliser alone (src/shared/url-normalise.ts; docs/rules-language.md), table-driven against the
 * published reference (developers.cloudflare.com/rules/normalization/how-it-works/ and …/examples/) and the
 * paths of the issue.
 */
import { describe, expect, it } from "vitest";
import { normalisePath, removeDotSegments, type UrlNormalizationType } from "../../../src/shared/url-normalise";
import { countStringWork } from "../support/string-work";

/** [input, rfc3986, cloudflare] */
const TABLE: readonly (readonly [string, string, string])[] = [
  // The published examples (…/normalization/examples/).
  ["/hello", "/hello", "/hello"],
  ["/%68ello", "/hello", "/hello"],
  ["/%68ello//pa\\th", "/hello//pa%5Cth", "/hello/pa/th"],
  ["/hello//../path", "/hello/path", "/path"],
  ["/hello/\\../path", "/hello/%5C../path", "/path"],
  // The bypasses of a `/admin` rule.
  ["/%61dmin", "/admin", "/admin"],
  ["/%2561dmin", "/%2561dmin", "/%2561dmin"], // %25 is not unreserved: one decoding pass only
  ["//admin", "//admin", "/admin"],
  ["/x/..%2fadmin", "/x/..%2Fadmin", "/x/..%2Fadmin"], // %2F is reserved: stays encoded, so no dot segment
  ["/x/../admin", "/admin", "/admin"],
  ["/.//admin", "//admin", "/admin"],
  ["\\admin", "%5Cadmin", "/admin"],
  ["/ADMIN", "/ADMIN", "/ADMIN"], // case of the path is never changed
  ["/x/%2e%2e/admin", "/admin", "/admin"], // decoded first, then a dot segment
  ["/x/.%2E/admin", "/admin", "/admin"],
  ["/%2e/admin", "/admin", "/admin"],
  // Encoded separators stay encoded, hex digits upper-cased.
  ["/a%2fb", "/a%2Fb", "/a%2Fb"],
  ["/a%2Fb", "/a%2Fb", "/a%2Fb"],
  ["/a%5cb", "/a%5Cb", "/a%5Cb"],
  ["/a%00b", "/a%00b", "/a%00b"],
  // Overlong UTF-8 forms of `/` are bytes, not slashes: upper-cased, never decoded.
  ["/a%c0%afb", "/a%C0%AFb", "/a%C0%AFb"],
  ["/a%e0%80%afb", "/a%E0%80%AFb", "/a%E0%80%AFb"],
  // Mixed-case encodings of unreserved characters decode; of others, upper-case.
  ["/%7e%7Euser", "/~~user", "/~~user"],
  ["/%41%62%2D%5f%2e", "/Ab-_.", "/Ab-_."],
  ["/a%3ab%3Bc", "/a%3Ab%3Bc", "/a%3Ab%3Bc"],
  ["/%20x", "/%20x", "/%20x"],
  // Literal bytes outside the kept set are encoded (UTF-8).
  ["/a b", "/a%20b", "/a%20b"],
  ["/caf\u00e9", "/caf%C3%A9", "/caf%C3%A9"],
  ["/a|b^c", "/a%7Cb%5Ec", "/a%7Cb%5Ec"],
  ["/\u{1f600}", "/%F0%9F%98%80", "/%F0%9F%98%80"],
  // Reserved characters stay as they are.
  ["/a:b@c!$&'()*+,;=", "/a:b@c!$&'()*+,;=", "/a:b@c!$&'()*+,;="],
  // Dot segments at the start, the end, and past the root.
  ["/./a", "/a", "/a"],
  ["/../a", "/a", "/a"],
  ["/../../../etc/passwd", "/etc/passwd", "/etc/passwd"],
  ["/a/.", "/a/", "/a/"],
  ["/a/..", "/", "/"],
  ["/a/b/..", "/a/", "/a/"],
  ["/.", "/", "/"],
  ["/..", "/", "/"],
  ["/a/./b/../c/", "/a/c/", "/a/c/"],
  ["/...", "/...", "/..."],
  ["/.hidden/..x", "/.hidden/..x", "/.hidden/..x"],
  // A `%` that encodes nothing is itself encoded, so it never pairs up with what follows (idempotent).
  ["/%zz", "/%25zz", "/%25zz"],
  ["/a%", "/a%25", "/a%25"],
  ["/a%4", "/a%254", "/a%254"],
  ["/%%41", "/%25A", "/%25A"],
  ["/%%341", "/%2541", "/%2541"],
  ["/%g1%41", "/%25g1A", "/%25g1A"],
  // Already normal.
  ["/", "/", "/"],
  ["/a/b/", "/a/b/", "/a/b/"],
];

describe("normalisePath: the published types, table-driven", () => {
  it.each(TABLE)("%s → rfc3986 %s, cloudflare %s", (input, rfc, cf) => {
    expect(normalisePath(input, "rfc3986")).toBe(rfc);
    expect(normalisePath(input, "cloudflare")).toBe(cf);
  });

  it("is idempotent on every row (normalising a normalised path changes nothing)", () => {
    for (const [input] of TABLE) {
      for (const type of ["rfc3986", "cloudflare"] as const satisfies readonly UrlNormalizationType[]) {
        const once = normalisePath(input, type);
        expect(normalisePath(once, type), `${type} ${input}`).toBe(once);
      }
    }
  });

  it("always answers an absolute path", () => {
    for (const [input] of TABLE) {
      expect(normalisePath(input.startsWith("/") ? input : `/${input}`, "cloudflare")).toMatch(/^\//);
    }
  });
});

describe("linear time on long paths", () => {
  const cases: readonly (readonly [string, (n: number) => string])[] = [
    ["dot segments", (n) => "/a/..".repeat(n)],
    ["encoded dots", (n) => "/%2e%2e/x".repeat(n)],
    ["slashes", (n) => "/".repeat(n * 5) + "x"],
    ["backslashes", (n) => "\\".repeat(n * 5)],
    ["invalid percents", (n) => "%".repeat(n * 5)],
    ["literal bytes", (n) => "\u00e9".repeat(n * 5)],
  ];
  it.each(cases)("%s: 8× the input costs 8× the work, not 64×", (_label, make) => {
    // Counted, not timed (test/workers/support/string-work.ts): the same input always costs the same units, so a
    // busy machine can neither fail this test nor make a quadratic scan pass it.
    const work = (n: number): number => {
      const input = make(n);
      const { units } = countStringWork(() => normalisePath(input, "cloudflare"));
      expect(units).toBeGreaterThanOrEqual(input.length); // the meter saw the scan
      return units;
    };
    const small = work(2_000);
    const large = work(16_000);
    // Linear: 8× (less the fixed part); quadratic would be 64×.
    expect(large / small).toBeLessThanOrEqual(8.5);
  });

  it("a 1 MiB path of dot segments normalises to the root", () => {
    expect(normalisePath("/a/..".repeat(200_000), "rfc3986")).toBe("/");
  });
});

describe("removeDotSegments (RFC 3986 §5.2.4 examples)", () => {
  it.each([
    ["/a/b/c/./../../g", "/a/g"],
    ["/mid/content=5/../6", "/mid/6"],
    ["/a/b/c", "/a/b/c"],
  ])("%s → %s", (input, expected) => {
    expect(removeDotSegments(input)).toBe(expected);
  });
});
