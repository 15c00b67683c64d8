/** The asset inliner alone (src/api/asset-fetch/inline.ts): what it rewrites, and what it leaves as written. */
import { describe, expect, it } from "vitest";
import { cssLinks, dataUri, inlineCss, inlinePage, pageLinks } from "../../../../src/api/asset-fetch/inline";

const image = (ref: string): string | null => (ref === "i.png" ? "data:image/png;base64,AA==" : null);
const resolver = {
  stylesheet: (ref: string) =>
    ref === "a.css"
      ? { css: "p{color:red;background:url(i.png)}</style><script>alert(1)</script>", dataUri: image }
      : null,
  dataUri: image,
};

/** The inlined page, asserting it was not stopped. */
function inlined(html: string, limit?: number): string {
  const out = inlinePage(html, resolver, limit);
  if (out.kind !== "inlined") throw new Error(`stopped at ${out.atLeast}`);
  return out.html;
}

describe("inlining a custom error asset", () => {
  it("finds stylesheets, images and url()s, not in comments or scripts", () => {
    const html =
      '<!-- <link rel="stylesheet" href="c.css"> --><script>var s = "<img src=s.png>";</script>' +
      "<LINK REL='Stylesheet alternate' HREF='a.css'><link rel=icon href=f.ico>" +
      '<img alt="a > b" src="i.png"><style>b{background:url( \'x.png\' )}</style>';
    expect(pageLinks(html)).toEqual({ stylesheets: ["a.css"], images: ["i.png"], cssUrls: ["x.png"] });
  });

  it("rewrites a stylesheet link to <style>, escaping a </style in it; an image src to its data: URI", () => {
    const out = inlined('<link href="a.css" rel="stylesheet"><img alt="a > b" src="i.png" srcset="i2.png 2x"/>');
    expect(out).toBe(
      '<style>p{color:red;background:url("data:image/png;base64,AA==")}<\\/style><script>alert(1)</script></style>' +
        '<img src="data:image/png;base64,AA==" alt="a > b" />',
    );
  });

  it("leaves what the resolver does not answer exactly as written", () => {
    const html = '<link rel="stylesheet" href="https://other.example/x.css"><img src="data:image/gif;base64,R0">';
    expect(inlined(html)).toBe(html);
  });

  it("rewrites CSS url()s in every quoting, keeping the ones it cannot resolve", () => {
    expect(cssLinks("a{b:url(\"q.png\")} c{d:url('r.png')} e{f:url(s.png)} g{h:url(#frag)}")).toEqual([
      "q.png",
      "r.png",
      "s.png",
      "#frag",
    ]);
    expect(inlineCss("a{b:url(i.png)} c{d:url(#frag)}", resolver.dataUri)).toBe(
      'a{b:url("data:image/png;base64,AA==")} c{d:url(#frag)}',
    );
  });

  it("makes data: URIs from the response's type, or octet-stream for one that is not a plain type", () => {
    expect(dataUri("image/svg+xml; charset=utf-8", new Uint8Array([60, 62]))).toBe("data:image/svg+xml;base64,PD4=");
    expect(dataUri('text/html"><script>', new Uint8Array([1]))).toBe("data:application/octet-stream;base64,AQ==");
    expect(dataUri(null, new Uint8Array([]))).toBe("data:application/octet-stream;base64,");
  });

  it("counts the output as it is written and stops past the limit, wherever the references are", () => {
    const big = `data:image/png;base64,${"A".repeat(683_000)}`;
    const many = {
      stylesheet: (ref: string) =>
        ref === "s.css" ? { css: ".a{background:url(b.png)}".repeat(200), dataUri: () => big } : null,
      dataUri: (ref: string) => (ref === "b.png" ? big : null),
    };
    for (const html of [
      '<img src="b.png">'.repeat(200),
      `<style>${".a{background:url(b.png)}".repeat(200)}</style>`,
      '<link rel="stylesheet" href="s.css">'.repeat(200),
    ]) {
      const out = inlinePage(html, many, 1_500_000);
      // Stopped by the piece that passed the limit: the 136 MB page is never built.
      expect(out).toEqual({ kind: "too-large", atLeast: expect.any(Number) as number });
      if (out.kind === "too-large") expect(out.atLeast).toBeLessThanOrEqual(1_500_000 + big.length + 100);
    }
  });

  it("the limit is exact: a page of the limit's length is inlined, one character less refuses it", () => {
    const html = '<p>x</p><img src="i.png">';
    const full = inlined(html);
    expect(inlined(html, full.length)).toBe(full);
    expect(inlinePage(html, resolver, full.length - 1)).toEqual({ kind: "too-large", atLeast: full.length });
    expect(inlineCss("a{b:url(i.png)}", image, 10)).toBeNull();
  });
});
