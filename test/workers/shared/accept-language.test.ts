/**
 * `Accept-Language` (RFC 9110 §12.5.4) as a priority list and RFC 4647 §3.4 lookup (src/shared/accept-language.ts),
 * with a table of its own: the generic rules, apart from the errors' languages (test/workers/errors/languages.test.ts).
 */
import { describe, expect, it } from "vitest";
import { languagePriorityList, lookupLanguage, type LanguageTable } from "../../../src/shared/accept-language";

const TABLE: LanguageTable<string> = {
  tags: new Map<string, string | null>([
    ["en", "en"],
    ["de", "de"],
    ["pt-br", "pt-BR"],
    ["pt", "pt-BR"],
    ["zh-cn", "zh-CN"],
    ["zh", "zh-CN"],
    ["zh-tw", null],
    ["zh-hant", null],
  ]),
  fallback: "en",
};

describe("lookupLanguage", () => {
  it.each([
    [null, "en"],
    ["", "en"],
    ["*", "en"],
    ["fr", "en"],
    ["pt-BR", "pt-BR"],
    ["pt-PT", "pt-BR"],
    ["zh-Hans-CN", "zh-CN"],
    ["zh-TW", "en"],
    ["zh-Hant-TW, de;q=0.5", "de"],
    ["zh-TW, zh;q=0.5", "zh-CN"],
    ["de-CH-1996", "de"],
    ["de-x-private", "de"],
    ["x-klingon, de", "de"],
    ["fr;q=0.9, de;q=0.9", "de"],
    ["de;q=0.8, pt;q=0.9", "pt-BR"],
    ["de;q=0.001", "de"],
    ["de;q=1.000", "de"],
    ["de;q=1.5, pt", "pt-BR"],
    ["de;q=0.1234, pt", "pt-BR"],
    ["  de ; q = 0.5 , pt;q=0.4", "de"],
    ["de-CH;q=1, de;q=0", "en"],
    ["toolongsubtag, de", "de"],
    ["d e, de", "de"],
  ] as const)("%j → %s", (header, expected) => {
    expect(lookupLanguage(header, TABLE)).toBe(expected);
  });

  it("a wildcard alone or last means the fallback; followed by ranges it is skipped", () => {
    expect(lookupLanguage("fr, *", TABLE)).toBe("en");
    expect(lookupLanguage("*, de", TABLE)).toBe("de");
  });

  it("reads the priority list stably: equal weights keep the header's order, refusals apart", () => {
    const { wanted, refused } = languagePriorityList("a;q=0.5, b, c;q=0.5, d;q=0, e");
    expect(wanted.map((r) => r.range)).toEqual(["b", "e", "a", "c"]);
    expect([...refused]).toEqual(["d"]);
  });
});
