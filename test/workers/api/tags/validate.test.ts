/** Pure validation, ETag and cursor decoding (docs/tags-api.md). */
import { describe, expect, it } from "vitest";
import type { Result } from "../../../../src/shared/result";
import { toApiFailure } from "../../../../src/api/tags/api-failure";
import { decodeCursor } from "../../../../src/state/tags/cursor";
import type { TagFailure } from "../../../../src/state/tags/errors";
import { canonicalJson, EMPTY_TAGS_ETAG, etagOf } from "../../../../src/state/tags/etag";
import { codePointLength, compareCodePoints, isWellFormed } from "../../../../src/state/tags/text";
import {
  parseDeleteBody,
  parseFilter,
  parseIfMatch,
  parsePutBody,
  parseResourceQuery,
  validateKey,
} from "../../../../src/api/tags/validate";

const ASTRAL_LETTER = "\u{1D400}"; // MATHEMATICAL BOLD CAPITAL A (Lu), 2 UTF-16 units
/** The wire code a result would be answered with (validation returns domain kinds; the edge maps them). */
const code = <T>(r: Result<T, TagFailure>): number | undefined => (r.ok ? 0 : toApiFailure(r.error).errors[0]?.code);

describe("tag keys (docs/tags-api.md: L, Mn, Mc, Nd, _ . -; ≤256 code points)", () => {
  it.each([
    ["environment", 0],
    ["team_name", 0],
    ["cost-center", 0],
    ["owner.email", 0],
    ["env123", 0],
    ["हिन्दी", 0], // Hindi: Lo Mc Lo Mn Lo Mc — needs the marks
    ["ที่ดิน", 0], // Thai: Lo Mn Mn Lo Mn Lo
    ["தமிழ்", 0],
    ["שָׁלוֹם", 0],
    ["cafe\u0301", 0], // NFD é
    ["日本語カタカナー", 0],
    ["٣٤٥", 0],
    [ASTRAL_LETTER + "\u{1D7CF}", 0], // math bold A and bold digit one (Nd)
    ["", 1014],
    ["env name", 1014],
    ["team@work", 1014],
    ["env🚀", 1014],
    ["Ⅻ", 1014], // Nl
    ["x²", 1014], // No
    ["a\u200Db", 1014], // ZWJ (Cf)
    ["a\u00A0b", 1014], // NBSP
    ["a\uD800", 1014], // lone surrogate
    ["k=v", 1014],
    ["k,v", 1014],
    ["a".repeat(256), 0],
    ["a".repeat(257), 1011],
    [ASTRAL_LETTER.repeat(256), 0], // 512 UTF-16 units, 256 code points
    [ASTRAL_LETTER.repeat(257), 1011],
    ["@".repeat(300), 1014], // characters are checked before length
  ])("%j → %i", (key, expected) => {
    expect(code(validateKey(key))).toBe(expected);
  });
});

describe("code points and order", () => {
  it("counts code points, not UTF-16 units", () => {
    expect(codePointLength("a" + ASTRAL_LETTER + "b")).toBe(3);
    expect(codePointLength("\uD800x")).toBe(2);
    expect(isWellFormed("a\uDC00")).toBe(false);
    expect(isWellFormed(ASTRAL_LETTER)).toBe(true);
  });
  it("orders astral characters after U+FFxx, unlike JS <", () => {
    const fullwidthA = "\uFF21";
    expect(ASTRAL_LETTER < fullwidthA).toBe(true); // UTF-16 order
    expect(compareCodePoints(ASTRAL_LETTER, fullwidthA)).toBe(1); // code point order (SQLite BINARY on UTF-8)
    expect(compareCodePoints("ab", "abc")).toBe(-1);
    expect(compareCodePoints("ab", "ab")).toBe(0);
  });
});

describe("filters (docs/tags-api.md)", () => {
  it.each([
    ["env", { kind: "has", key: "env" }],
    ["env=prod", { kind: "equals", key: "env", values: ["prod"] }],
    ["env=prod,staging", { kind: "equals", key: "env", values: ["prod", "staging"] }],
    ["env=", { kind: "equals", key: "env", values: [""] }],
    ["!archived", { kind: "lacks", key: "archived" }],
    ["region!=us-west-1", { kind: "notEquals", key: "region", values: ["us-west-1"] }],
    ["region!=a,b", { kind: "notEquals", key: "region", values: ["a", "b"] }],
    ["k=a=b", { kind: "equals", key: "k", values: ["a=b"] }],
    ["k=a b", { kind: "equals", key: "k", values: ["a b"] }],
  ])("%j parses", (raw, expected) => {
    const parsed = parseFilter(raw);
    expect(parsed).toEqual({ ok: true, value: expected });
  });

  it.each([
    ["", 1007],
    ["!", 1007],
    ["!k=v", 1007],
    ["!!k", 1007],
    ["=v", 1007],
    ["!=v", 1007],
    ["k!=", 1007],
    ["k=a,,b", 1007],
    ["k=a,", 1007],
    ["k=\uD800", 1007],
    ["bad key=v", 1014],
    ["env🚀", 1014],
    ["a".repeat(257) + "=v", 1011],
    ["k=" + Array.from({ length: 10 }, (_, i) => `v${i}`).join(","), 0],
    ["k=" + Array.from({ length: 11 }, (_, i) => `v${i}`).join(","), 1013],
    ["k=" + "v".repeat(1024), 0],
    ["k=" + "v".repeat(1025), 1012],
    ["k=" + ASTRAL_LETTER.repeat(1024), 0],
    ["k=" + ASTRAL_LETTER.repeat(1025), 1012],
    ["bad key=" + "v,".repeat(20) + "v", 1014], // key before value count
    ["k=" + "v,".repeat(11) + "v".repeat(1025), 1013], // count before length
  ])("%j → %i", (raw, expected) => {
    expect(code(parseFilter(raw))).toBe(expected);
  });

  const query = (pairs: [string, string][]) => parseResourceQuery(new URLSearchParams(pairs));
  it("allows 20 filters, refuses 21 with 1010 before looking at any filter", () => {
    expect(code(query(Array.from({ length: 20 }, (): [string, string] => ["tag", "env"])))).toBe(0);
    expect(code(query(Array.from({ length: 21 }, (): [string, string] => ["tag", "bad key"])))).toBe(1010);
  });
  it("checks filters in order, then type (1006), then id/name (1003)", () => {
    expect(
      code(
        query([
          ["tag", "k=a,,b"],
          ["tag", "bad key"],
        ]),
      ),
    ).toBe(1007);
    expect(
      code(
        query([
          ["tag", "bad key"],
          ["tag", "k=a,,b"],
        ]),
      ),
    ).toBe(1014);
    expect(
      code(
        query([
          ["tag", "bad key"],
          ["type", "nope"],
        ]),
      ),
    ).toBe(1014);
    expect(code(query([["type", "nope"]]))).toBe(1006);
    expect(code(query([["type", "dns_record"]]))).toBe(0); // zone-level types are known in filters
    expect(code(query(Array.from({ length: 51 }, (_, i): [string, string] => ["id", `r${i}`])))).toBe(1003);
    // More than 50 ids is refused as such, even when one of them is malformed too (docs/tags-api.md "Errors").
    expect(query(Array.from({ length: 51 }, (_, i): [string, string] => ["id", i === 3 ? "" : `r${i}`]))).toEqual({
      ok: false,
      error: { kind: "resource-required", why: "at most 50 id parameters" },
    });
    expect(code(query([["name", "x".repeat(257)]]))).toBe(1003);
    expect(code(query([["case_insensitive", "yes"]]))).toBe(1007);
  });
  it("folds filters for case_insensitive", () => {
    const parsed = query([
      ["tag", "Env=PROD"],
      ["case_insensitive", "true"],
      ["name", "Web"],
    ]);
    expect(parsed.ok && parsed.value).toMatchObject({
      filters: [{ kind: "equals", key: "env", values: ["prod"] }],
      name: "web",
      caseInsensitive: true,
    });
  });
});

describe("PUT and DELETE bodies (docs/tags-api.md)", () => {
  it.each([
    [null, 1002],
    [[], 1002],
    ["x", 1002],
    [{ resource_id: "a", tags: {} }, 1002],
    [{ resource_type: "worker", tags: {} }, 1002],
    [{ resource_type: "worker", resource_id: "", tags: {} }, 1002],
    [{ resource_type: "worker", resource_id: "a", tags: [] }, 1002],
    [{ resource_type: "worker", resource_id: "a", tags: { k: 1 } }, 1002],
    [{ resource_type: "worker", resource_id: "a", tags: { k: "\uD800" } }, 1002],
    [{ resource_type: "worker", resource_id: "a", tag: {} }, 1002],
    [{ resource_type: "nope", resource_id: "a", tags: { "bad key": "v" } }, 1006],
    [{ resource_type: "dns_record", resource_id: "a", tags: {} }, 1006], // zone-level type on an account route
    [{ resource_type: "worker_version", resource_id: "v", tags: { "bad key": "" } }, 1002],
    [{ resource_type: "worker", resource_id: "a", worker_id: "w", tags: {} }, 1002],
    [{ resource_type: "worker", resource_id: "a", tags: { "bad key": "v".repeat(2000) } }, 1014],
    [{ resource_type: "worker", resource_id: "a", tags: { ["a".repeat(257)]: "v" } }, 1011],
    [{ resource_type: "worker", resource_id: "a", tags: { ok: "v".repeat(1025), "bad key": "" } }, 1014],
    [{ resource_type: "worker", resource_id: "a", tags: { ok: "v".repeat(1025) } }, 1012],
    [{ resource_type: "worker", resource_id: "a", tags: { ok: "v".repeat(1024), k2: "" } }, 0],
    [{ resource_type: "worker", resource_id: "a" }, 0],
    [{ resource_type: "worker_version", resource_id: "v", worker_id: "w", tags: { k: "" } }, 0],
  ])("PUT %j → %i", (body, expected) => {
    expect(code(parsePutBody(body))).toBe(expected);
  });

  it.each([
    [null, 1015],
    [{ resource_type: "worker" }, 1015],
    [{ resource_type: "worker", resource_id: "a", tags: {} }, 1015],
    [{ resource_type: "worker_version", resource_id: "a" }, 1015],
    [{ resource_type: "zone", resource_id: "a" }, 1006],
    [{ resource_type: "worker", resource_id: "a" }, 0],
  ])("DELETE %j → %i", (body, expected) => {
    expect(code(parseDeleteBody(body))).toBe(expected);
  });

  it("keeps __proto__ as an ordinary key", () => {
    const parsed = parsePutBody(JSON.parse('{"resource_type":"worker","resource_id":"a","tags":{"__proto__":"x"}}'));
    expect(parsed.ok && parsed.value.tags).toEqual([["__proto__", "x"]]);
  });
});

describe("ETag (docs/tags-api.md: v1 + base64url(SHA-256(JCS)[0..16]))", () => {
  it.each([
    [[], "v1:RBNvo1WzZ4oRRq0W9-hkng"],
    [[["env", "prod"]], "v1:_fZbwPys4tn6ogEHRin4tQ"],
    [
      [
        ["team", "engineering"],
        ["environment", "production"],
      ],
      "v1:4A2EQwB9GS6VEwLXh5kY3Q",
    ],
  ] as [[string, string][], string][])("%j → %s (the SDK's published examples)", async (tags, expected) => {
    expect(await etagOf(tags)).toBe(expected);
  });
  it("sorts members by UTF-16 units (RFC 8785 §3.2.3)", () => {
    expect(
      canonicalJson([
        ["\uFF21", "1"],
        [ASTRAL_LETTER, "2"],
      ]),
    ).toBe(`{"${ASTRAL_LETTER}":"2","\uFF21":"1"}`);
    expect(EMPTY_TAGS_ETAG).toBe("v1:RBNvo1WzZ4oRRq0W9-hkng");
  });
});

describe("If-Match (RFC 9110 §13.1.1)", () => {
  it.each([
    [null, null],
    ["*", { kind: "any" }],
    ['"v1:abc"', { kind: "tags", etags: ["v1:abc"] }],
    ["v1:abc", { kind: "tags", etags: ["v1:abc"] }],
    ['"a", "b"', { kind: "tags", etags: ["a", "b"] }],
    ['W/"a"', { kind: "tags", etags: [] }],
  ])("%j", (header, expected) => {
    expect(parseIfMatch(header)).toEqual(expected);
  });
});

describe("cursor decoding", () => {
  it.each(["", "abc", "a.b.c", "!!!.AAAAAAAAAAAAAAAAAAAAAA", "e30.AAAAAAAAAAAAAAAAAAAAAA", "x".repeat(20_000)])(
    "%j is invalid",
    (text) => {
      expect(decodeCursor(text, 1).ok).toBe(false);
    },
  );
});
