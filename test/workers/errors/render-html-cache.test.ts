/**
 * Issue 12: the HTML page of an error is rendered once per (code, retry_after, footer) with markers in its four
 * per-occurrence places and then only spliced. The spliced page must be byte for byte the page the template tree
 * renders, for every code of the catalog, dynamic retry values and hostile per-occurrence values.
 */
import { describe, expect, it } from "vitest";
import { CATALOG } from "../../../src/errors/catalog";
import { errorFields, footerText } from "../../../src/errors/fields";
import { withRetryGuidance } from "../../../src/errors/pipeline";
import { renderHtml, renderPage } from "../../../src/errors/render-html";

const HOSTILE_ZONE = `<script>alert("z")</script>&'.example`;
const HOSTILE_TYPE = `https://x.example/"><img src=x onerror=alert(1)>`;

function fields(code: number, retry: number | null, zone: string, type: string, footer = footerText("the edge")) {
  const entry = CATALOG.find((e) => e.code === code)!;
  const retryAfter = entry.retryAfter === null ? null : (retry ?? entry.retryAfter);
  return errorFields(withRetryGuidance(entry, retryAfter), {
    type,
    rayId: Math.random().toString(16).slice(2, 18).padEnd(16, "0"),
    timestamp: "2026-11-22T16:00:00Z",
    zone,
    retryAfter,
    footer,
  });
}

describe("the spliced page equals the template tree's page", () => {
  it.each(CATALOG.map((e) => e.code))(
    "code %i, twice (the second from the cache), plain and hostile values",
    (code) => {
      for (const [zone, type] of [
        ["shop.example", `http://shop.example/cdn-cgi/errors/${code}`],
        [HOSTILE_ZONE, HOSTILE_TYPE],
        ["other.example", `http://other.example/cdn-cgi/errors/${code}`],
      ] as const) {
        const f = fields(code, null, zone, type);
        expect(renderHtml(f)).toBe(renderPage(f));
      }
    },
  );

  it("a dynamic Retry-After and another operator name are pages of their own", () => {
    for (const retry of [1, 2, 42, 3600]) {
      const f = fields(1015, retry, "shop.example", "http://shop.example/cdn-cgi/errors/1015");
      const page = renderHtml(f);
      expect(page).toBe(renderPage(f));
      expect(page).toContain(`try again in ${retry} ${retry === 1 ? "second" : "seconds"}`);
    }
    const f = fields(522, null, "shop.example", "http://x/", footerText(`Ops <"Team">`));
    expect(renderHtml(f)).toBe(renderPage(f));
    expect(renderHtml(f)).toContain("Ops &lt;&quot;Team&quot;&gt;");
  });

  it("hostile values are escaped in the spliced page", () => {
    const page = renderHtml(fields(522, null, HOSTILE_ZONE, HOSTILE_TYPE));
    expect(page).not.toContain("<script>alert");
    expect(page).not.toContain("<img src=x");
    expect(page).toContain("&lt;script&gt;alert(&quot;z&quot;)&lt;/script&gt;&amp;&#39;.example");
  });

  it("a footer carrying the marker character is rendered in full, never split on", () => {
    const f = fields(522, null, "shop.example", "http://x/", footerText("odd\u0001zone\u0001name"));
    expect(renderHtml(f)).toBe(renderPage(f));
  });
});
