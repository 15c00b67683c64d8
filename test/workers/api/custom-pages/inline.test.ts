/** The asset inliner alone (src/api/custom-pages/inline.ts): what it rewrites, and what it leaves as written. */
import { describe, expect, it } from "vitest";
import { cssLinks, dataUri, inlineCss, inlinePage, pageLinks } from "../../../../src/api/custom-pages/inline";

const resolver = {
  stylesheet: (ref: string) => (ref === "a.css" ? "p{color:red}</style><script>alert(1)</script>" : null),
  dataUri: (ref: string) => (ref === "i.png" ? "data:image/png;base64,AA==" : null),
};

describe("inlining a custom error asset", () => {
  it("finds stylesheets, images and url()s, not in comments or scripts", () => {
    const html =
      '<!-- <link rel="stylesheet" href="c.css"> --><script>var s = "<img src=s.png>";</script>' +
      "<LINK REL='Stylesheet alternate' HREF='a.css'><link rel=icon href=f.ico>" +
      '<img alt="a > b" src="i.png"><style>b{background:url( \'x.png\' )}</style>';
    expect(pageLinks(html)).toEqual({ stylesheets: ["a.css"], images: ["i.png"], cssUrls: ["x.png"] });
  });

  it("rewrites a stylesheet link to <style>, escaping a </style in it; an image src to its data: URI", () => {
    const out = inlinePage(
      '<link href="a.css" rel="stylesheet"><img alt="a > b" src="i.png" srcset="i2.png 2x"/>',
      resolver,
    );
    expect(out).toBe(
      '<style>p{color:red}<\\/style><script>alert(1)</script></style><img src="data:image/png;base64,AA==" alt="a > b" />',
    );
  });

  it("leaves what the resolver does not answer exactly as written", () => {
    const html = '<link rel="stylesheet" href="https://other.example/x.css"><img src="data:image/gif;base64,R0">';
    expect(inlinePage(html, resolver)).toBe(html);
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
});
