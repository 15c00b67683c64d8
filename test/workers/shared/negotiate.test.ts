import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { chooseErrorFormat, chooseErrorFormatUncached, type ErrorFormat } from "../../../src/errors/format";
import { negotiate, type NegotiationTable } from "../../../src/shared/negotiate";
import { countStringWork } from "../support/string-work";

const CONTENT_TYPE: Record<ErrorFormat, string> = {
  json: "application/json; charset=utf-8",
  "problem+json": "application/problem+json; charset=utf-8",
  markdown: "text/markdown; charset=utf-8",
  html: "text/html; charset=utf-8",
};

const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/** Every row of the docs/negotiation.md table, verbatim (`null` = no Accept header). */
const DOCUMENTED_TABLE: readonly (readonly [string | null, ErrorFormat])[] = [
  ["application/json", "json"],
  ["application/problem+json", "problem+json"],
  ["application/json, text/markdown;q=0.9", "json"],
  ["text/markdown", "markdown"],
  ["text/markdown, application/json", "markdown"],
  ["text/markdown, text/html;q=0.9", "markdown"],
  ["text/*", "markdown"],
  ["text/html", "html"],
  ["*/*", "html"],
  [null, "html"],
  ["", "html"],
  [BROWSER, "html"],
  ["application/json, */*", "json"],
  ["text/markdown, */*", "markdown"],
  ["application/problem+json, application/json", "problem+json"],
  ["Application/JSON; Charset=UTF-8", "json"],
  ["application/json;q=0, */*", "html"],
  ["image/png", "html"],
  ["*/*, application/json", "json"],
  ["text/*, application/json", "json"],
  ["*/*, text/*", "markdown"],
];

/** Rules of docs/negotiation.md beyond the table, one line of intent each. */
const RULES: readonly (readonly [string, string, ErrorFormat])[] = [
  // q=0 is "not acceptable", also under a matching wildcard
  ["q=0 on the only named type", "application/json;q=0", "html"],
  ["q=0 excludes markdown even though text/* matches", "text/markdown;q=0, text/*", "html"],
  ["q=0 excludes html under */*: server order picks json", "text/html;q=0, */*", "json"],
  ["q=0 on */* leaves a named type", "*/*;q=0, text/markdown", "markdown"],
  ["everything q=0 falls back to html", "*/*;q=0", "html"],
  ["q=0.000 is zero", "application/json;q=0.000", "html"],
  ["a lower but non-zero q still counts", "application/json;q=0.001", "json"],
  ["text/* at q=0 excludes both text types", "text/*;q=0, application/problem+json;q=0.1", "problem+json"],
  ["application/* default is json", "application/*", "json"],
  ["application/* at q=0 excludes both JSON types", "application/*;q=0, text/markdown;q=0.1", "markdown"],
  // highest q wins, whatever the position or specificity
  ["higher q beats earlier position", "text/markdown;q=0.5, application/json", "json"],
  ["higher q wildcard beats lower q exact", "application/json;q=0.5, text/*", "markdown"],
  ["thousandths are compared exactly", "application/json;q=0.501, text/markdown;q=0.5", "json"],
  ["q=1 equals q=1.000", "text/markdown;q=1.000, application/json;q=1", "markdown"],
  // specificity breaks q ties: exact > type/* > */*
  ["exact beats type/* at equal q", "text/*;q=0.5, application/problem+json;q=0.5", "problem+json"],
  ["type/* beats */* at equal q", "*/*;q=0.5, text/*;q=0.5", "markdown"],
  ["the most specific range decides an offer's q", "text/*;q=0.9, text/html;q=0.1, text/markdown;q=0.2", "markdown"],
  ["a specific higher q overrides the wildcard's", "*/*;q=0.1, text/html", "html"],
  // order of appearance breaks remaining ties
  ["first of two exact types", "application/problem+json, text/markdown", "problem+json"],
  ["first of two exact types (reversed)", "text/markdown, application/problem+json", "markdown"],
  ["first of two wildcards at equal q and specificity", "application/*, text/*", "json"],
  ["first of two wildcards (reversed)", "text/*, application/*", "markdown"],
  // duplicates of one range: the higher q, then the first
  ["duplicate range takes the higher q", "text/html;q=0.2, application/json;q=0.5, text/html", "html"],
  // case and whitespace
  ["upper-case type", "TEXT/MARKDOWN", "markdown"],
  ["upper-case Q", "application/json;Q=0, TEXT/*", "markdown"],
  ["spaces and tabs around separators", " \t application/json \t ; \t q=0.5 \t , \t text/markdown;q=0.4 ", "json"],
  ["no spaces at all", "text/markdown;q=0.4,application/json;q=0.5", "json"],
  ["other parameters are ignored", 'text/html;level=1;charset="utf-8", application/json', "html"],
  ["quoted parameter with a comma and escaped quote", 'text/markdown;x="a,\\"b", application/json', "markdown"],
  ["empty parameters are allowed (RFC 9110 §5.6.6)", "application/json;;q=0.5;, text/markdown;q=0.4", "json"],
  ["empty list elements are skipped", ",, ,application/json,,", "json"],
];

/** Malformed members are skipped, never fatal: each header ends in a valid member that must win. */
const MALFORMED: readonly (readonly [string, string])[] = [
  ["double semicolon alone", ";;, application/json"],
  ["type without subtype", "text, application/json"],
  ["subtype without type", "/json, application/json"],
  ["slash only", "/, application/json"],
  ["empty q", "text/markdown;q=, application/json;q=0.9"],
  ["q with four decimals", "text/markdown;q=1.0000, application/json;q=0.9"],
  ["q with four decimals below one", "text/markdown;q=0.1234, application/json;q=0.01"],
  ["q above one", "text/markdown;q=1.5, application/json;q=0.9"],
  ["q of two", "text/markdown;q=2, application/json;q=0.9"],
  ["negative q", "text/markdown;q=-1, application/json;q=0.9"],
  ["alphabetic q", "text/markdown;q=abc, application/json;q=0.9"],
  ["q with exponent", "text/markdown;q=1e-1, application/json;q=0.01"],
  ["q with leading dot", "text/markdown;q=.5, application/json;q=0.1"],
  ["quoted q", 'text/markdown;q="0.5", application/json;q=0.1'],
  ["two q parameters", "text/markdown;q=0.5;q=0.9, application/json;q=0.1"],
  ["space around equals", "text/markdown;q = 0.5, application/json;q=0.1"],
  ["parameter without value", "text/markdown;charset=, application/json;q=0.1"],
  ["parameter without equals", "text/markdown;charset, application/json;q=0.1"],
  ["garbage after the range", "text/markdown garbage, application/json;q=0.1"],
  ["wildcard type with a subtype", "*/markdown, application/json;q=0.1"],
  ["star inside a subtype", "text/mark*, application/json;q=0.1"],
  ["star inside a type", "te*t/*, application/json;q=0.1"],
  ["non-ASCII bytes", "t\u00e9xt/markdown, \u00ff\u00fe/\u0080, application/json;q=0.1"],
  ["control characters", "text/\u0000markdown, \u0007, application/json;q=0.1"],
  ["three slashes", "text/markdown/x, application/json;q=0.1"],
  ["DEL and brackets", "text/[markdown], \u007f/\u007f, application/json;q=0.1"],
  ["a character that lower-cases into ASCII (KELVIN SIGN)", "text/mar\u212Adown, application/json;q=0.1"],
];

describe("docs/negotiation.md table (chooseErrorFormat)", () => {
  it.each(DOCUMENTED_TABLE)("Accept %j → %s", (accept, format) => {
    expect(chooseErrorFormat(accept)).toEqual({ format, contentType: CONTENT_TYPE[format] });
    expect(chooseErrorFormatUncached(accept)).toEqual({ format, contentType: CONTENT_TYPE[format] });
  });
});

describe("docs/negotiation.md table through the real Worker (GET /cdn-cgi/error/522)", () => {
  it.each(DOCUMENTED_TABLE)("Accept %j → %s", async (accept, format) => {
    const headers: Record<string, string> = accept === null ? {} : { Accept: accept };
    const res = await exports.default.fetch("http://localhost/cdn-cgi/error/522", { headers });
    await res.arrayBuffer();
    expect(res.status).toBe(522);
    expect(res.headers.get("Content-Type")).toBe(CONTENT_TYPE[format]);
    expect(res.headers.get("Vary")).toBe("Accept, Accept-Language");
  });

  it("a 64 KiB Accept header is negotiated, not refused", async () => {
    const accept = `${"application/xml;q=0.9, ".repeat(3000)}text/markdown;q=0.95`;
    expect(accept.length).toBeGreaterThan(64 * 1024);
    const res = await exports.default.fetch("http://localhost/cdn-cgi/error/522", { headers: { Accept: accept } });
    expect(res.status).toBe(522);
    expect(res.headers.get("Content-Type")).toBe(CONTENT_TYPE.markdown);
    expect(await res.text()).toMatch(/^---\n/);
  });
});

describe("negotiation rules (docs/negotiation.md)", () => {
  it.each(RULES)("%s: %j → %s", (_why, accept, format) => {
    expect(chooseErrorFormatUncached(accept).format).toBe(format);
  });
});

describe("malformed members are skipped", () => {
  it.each(MALFORMED)("%s: %j → json", (_why, accept) => {
    expect(chooseErrorFormatUncached(accept).format).toBe("json");
  });

  it.each([
    ["only garbage", "\u00ff\u00fe\u0000;;;==,,"],
    ["only an unterminated quoted parameter", 'application/json;x="abc, application/json'],
    ["only a malformed q", "application/json;q=abc"],
    ["a lone wildcard type", "*"],
  ])("%s falls back to html: %j", (_why, accept) => {
    expect(chooseErrorFormatUncached(accept).format).toBe("html");
  });
});

describe("negotiate() is generic", () => {
  const table: NegotiationTable<"image/png" | "image/webp" | "text/plain"> = {
    offers: ["image/png", "image/webp", "text/plain"],
    wildcardDefaults: { "image/*": "image/webp" },
    fallback: "text/plain",
  };

  it.each([
    [null, "image/png"], // absent = `*/*`, which has no default here: the server's first offer
    ["image/*", "image/webp"], // the wildcard's own default beats the server's order
    ["image/*, image/png", "image/png"], // exact beats the wildcard
    ["image/*;q=0.5, image/png;q=0.4", "image/webp"],
    ["image/webp;q=0, image/*", "image/png"], // default excluded: server order among the rest
    ["*/*", "image/png"], // no default for */*: the server's first offer
    ["video/*", "text/plain"], // nothing matches: the fallback
  ] as const)("%j → %s", (accept, expected) => {
    expect(negotiate(accept, table)).toBe(expected);
  });
});

describe("memo (per-isolate, bounded)", () => {
  it("gives the same answer from the memo as without it, across evictions", () => {
    // More distinct headers than the memo holds, each asked twice, so later rounds hit evicted keys.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 600; i++) {
        const accept = `text/markdown;q=0.${String(i % 1000).padStart(3, "0")}, application/json;q=0.5, x/y${i}`;
        expect(chooseErrorFormat(accept)).toEqual(chooseErrorFormatUncached(accept));
      }
    }
  });

  it("negotiates headers longer than the memo key limit every time, correctly", () => {
    const long = `${"x/y, ".repeat(400)}text/markdown`;
    expect(long.length).toBeGreaterThan(1024);
    expect(chooseErrorFormat(long).format).toBe("markdown");
    expect(chooseErrorFormat(long).format).toBe("markdown");
  });
});

describe("huge headers stay linear", () => {
  /** A realistic-looking header of about `bytes` bytes whose last member decides. */
  function headerOf(bytes: number): string {
    const filler = "application/xml;q=0.9;charset=utf-8, image/*;q=0.1, ";
    return `${filler.repeat(Math.ceil(bytes / filler.length))}text/markdown;q=0.95`;
  }

  it("a 64 KiB header still negotiates correctly", () => {
    const big = headerOf(64 * 1024);
    expect(big.length).toBeGreaterThanOrEqual(64 * 1024);
    expect(chooseErrorFormat(big).format).toBe("markdown");
  });

  it("many members: the last valid one can still win", () => {
    const many = `${"a/b;q=0.5,".repeat(10_000)}application/problem+json;q=0.6`;
    expect(chooseErrorFormat(many).format).toBe("problem+json");
    const manyWildcards = `${"*/*;q=0.1,".repeat(10_000)}text/*;q=0.1`;
    expect(chooseErrorFormat(manyWildcards).format).toBe("markdown");
  });

  it("parsing 64 KiB headers costs the same per byte as 1 KiB headers (quadratic would be 64× worse)", () => {
    // Counted, not timed (test/workers/support/string-work.ts): deterministic on a busy machine.
    const perByte = (accept: string): number => {
      const { value, units } = countStringWork(() => chooseErrorFormatUncached(accept));
      expect(value.format).toBe("markdown");
      expect(units).toBeGreaterThanOrEqual(accept.length); // the meter saw the scan
      return units / accept.length;
    };
    const small = perByte(headerOf(1024));
    const big = perByte(headerOf(64 * 1024));
    expect(big).toBeLessThanOrEqual(small * 1.1);
  });
});
