/**
 * Escaping by default (docs/errors.md; style.md Addendum): the `html` template escapes every interpolation, `raw`
 * and nested fragments pass as is, lists join, and hostile text can never become markup, in a body or an attribute.
 */
import { describe, expect, it } from "vitest";
import { Html, html, join, raw } from "../../../src/errors/html";

const HOSTILE = [
  `<script>alert(1)</script>`,
  `"><img src=x onerror=alert(1)>`,
  `' onmouseover='alert(1)`,
  `&lt;already-escaped&gt; &amp;`,
  `</title><svg onload=alert(1)>`,
  `<!-- -->`,
  "`${x}`",
];

describe("html`...`", () => {
  it.each(HOSTILE)("escapes %j in a body", (text) => {
    const out = html`<p>${text}</p>`.toString();
    expect(out.slice(3, -4)).not.toMatch(/[<>"']/);
    expect(out).toMatch(/^<p>[^<>]*<\/p>$/);
    // Decoding the escaped text gives back exactly the input: nothing is lost or doubled.
    expect(decode(out.slice(3, -4))).toBe(text);
  });

  it.each(HOSTILE)("escapes %j in quoted attributes (double and single)", (text) => {
    const out = html`<a href="${text}" title='${text}'>x</a>`.toString();
    expect(out).toMatch(/^<a href="[^"<>']*" title='[^"<>']*'>x<\/a>$/);
  });

  it("escapes & so an entity in the input stays text", () => {
    expect(html`${"&amp;"}`.toString()).toBe("&amp;amp;");
  });

  it("nests fragments without escaping them twice", () => {
    const inner = html`<b>${"<i>"}</b>`;
    expect(html`<p>${inner}</p>`.toString()).toBe("<p><b>&lt;i&gt;</b></p>");
    expect(html`<div>${html`<p>${inner}</p>`}</div>`.toString()).toBe("<div><p><b>&lt;i&gt;</b></p></div>");
  });

  it("joins arrays (nested too) and escapes their strings", () => {
    const items = ["a<", "b&"].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${items}</ul>`.toString()).toBe("<ul><li>a&lt;</li><li>b&amp;</li></ul>");
    expect(html`${["<", [html`<br>`, ">"]]}`.toString()).toBe("&lt;<br>&gt;");
    expect(join([html`<i>1</i>`, "2<"], "\n").toString()).toBe("<i>1</i>\n2&lt;");
  });

  it("prints numbers, and nothing for false, null and undefined", () => {
    expect(html`${0}|${522}|${false}|${null}|${undefined}|${""}`.toString()).toBe("0|522||||");
  });

  it("raw() marks a trusted fragment; only the module makes Html values", () => {
    expect(html`${raw("<svg></svg>")}`.toString()).toBe("<svg></svg>");
    // @ts-expect-error the constructor needs the module's private token
    expect(() => new Html("<script>", Symbol("Html"))).toThrow(TypeError);
  });

  it("a string that looks like an Html value is still escaped", () => {
    const fake = { toString: () => "<b>" } as unknown as string;
    expect(html`${String(fake)}`.toString()).toBe("&lt;b&gt;");
  });
});

function decode(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");
}
