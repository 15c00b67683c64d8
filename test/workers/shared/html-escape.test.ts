/** The one HTML escaper (src/shared/html-escape.ts): error pages, the analytics page and inlined assets use it. */
import { describe, expect, it } from "vitest";
import { escapeHtml } from "../../../src/shared/html-escape";

describe("escapeHtml", () => {
  it("escapes the five characters that end a text run or a quoted attribute, or start a reference", () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;",
    );
  });

  it("returns text without any of them unchanged (the same string)", () => {
    const text = "shop.example — ☃ ünïcödé / 1+1=2";
    expect(escapeHtml(text)).toBe(text);
    expect(escapeHtml("")).toBe("");
  });

  it("is safe to interpolate in an element body and in either quoted attribute", () => {
    const hostile = `"'><script>alert(1)</script>&`;
    const escaped = escapeHtml(hostile);
    expect(escaped).not.toMatch(/[<>"']/);
    expect(escaped.replace(/&(amp|lt|gt|quot|#39);/g, "")).not.toContain("&");
  });
});
