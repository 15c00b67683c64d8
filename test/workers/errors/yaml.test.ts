/**
 * The YAML scalar emitter (src/errors/yaml.ts): every value reads back as exactly the original through the `yaml`
 * package, under YAML 1.2 (core schema) and YAML 1.1 (where `yes`, `on`, `~` are not strings), including the
 * hostile strings of docs/errors.md and arbitrary strings from fast-check.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { yamlScalar } from "../../../src/errors/yaml";

function readBack(value: string, quote = false, version: "1.1" | "1.2" = "1.2"): unknown {
  const doc = `key: ${yamlScalar(value, { quote })}\nnext: 1\n`;
  return (parse(doc, { version, strict: true, uniqueKeys: true }) as { key: unknown }).key;
}

const HOSTILE = [
  "",
  " ",
  "plain words",
  "a: b",
  "a #comment",
  "#start",
  "---",
  "--- \n...",
  "line one\nline two",
  "ends with newline\n",
  "\nstarts with newline",
  "  indented first line\nsecond",
  "tab\there",
  "quote \" and ' and \\",
  "'single'",
  '"double"',
  "true",
  "False",
  "yes",
  "NO",
  "on",
  "~",
  "null",
  "123",
  "0x1F",
  "1e3",
  ".inf",
  "-",
  "- item",
  "? key",
  "[flow]",
  "{a: 1}",
  "&anchor",
  "*alias",
  "!tag",
  "|",
  ">",
  "%directive",
  "@at",
  "`tick`",
  "unicode: 日本語 ü 🎉",
  "control \u0000\u0001\u0007\u001b\u007f\u0085\u2028\u2029\ufeff",
  "crlf\r\nline",
  "lone surrogate \ud800 end",
  "trailing space ",
  "multi\n\n  indented\n\nlines",
  "line with spaces only\n   \nafter",
  "shop.example",
  "xn--bcher-kva.example",
  "9f140b785e57c458",
  "0123456789012345",
  "2026-04-24T09:22:40Z",
];

describe("yamlScalar round trip", () => {
  it.each(HOSTILE.map((s) => [JSON.stringify(s), s]))(
    "%s reads back exactly (1.2 and 1.1, plain or quoted)",
    (_label, s) => {
      expect(readBack(s)).toBe(s);
      expect(readBack(s, true)).toBe(s);
      expect(readBack(s, false, "1.1")).toBe(s);
    },
  );

  it("quote: true always gives a double-quoted scalar", () => {
    for (const s of ["9f140b785e57c458", "2026-04-24T09:22:40Z", "shop.example"])
      expect(yamlScalar(s, { quote: true })).toMatch(/^".*"$/);
  });

  it("keeps readable prose plain and multi-line prose as a literal block", () => {
    expect(yamlScalar("connection_timeout")).toBe("connection_timeout");
    expect(yamlScalar("a\nb")).toBe("|-\n  a\n  b");
  });

  it("numbers and booleans are emitted as YAML numbers and booleans", () => {
    expect(parse(`a: ${yamlScalar(120)}\nb: ${yamlScalar(true)}\nc: ${yamlScalar(false)}`)).toEqual({
      a: 120,
      b: true,
      c: false,
    });
  });

  it("any string reads back exactly (fast-check, full UTF-16 including lone surrogates)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 80 }),
        (s) => readBack(s) === s && readBack(s, false, "1.1") === s,
      ),
      { numRuns: 2000 },
    );
    // 2,000 runs take ~1 s alone; a machine shared with other test runs once needed more than the 5 s default.
  }, 30_000);

  it("strings made of YAML's special characters read back exactly (fast-check)", () => {
    const special = fc.constantFrom(
      ..."-?:,[]{}#&*!|>'\"%@` \n\t\r\\.~0123456789abcyYnNeE".split(""),
      "---",
      "...",
      ": ",
      " #",
    );
    fc.assert(
      fc.property(fc.array(special, { maxLength: 20 }), (parts) => {
        const s = parts.join("");
        return readBack(s) === s && readBack(s, false, "1.1") === s;
      }),
      { numRuns: 3000 },
    );
  });
});
