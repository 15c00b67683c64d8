/**
 * The evaluation-budget work (2026-11-23) (docs/custom-errors.md: a page holds its class's box token at most once, "a stored page never renders
 * past a documented size"): a page stored before the write-time check, with the token many times over, renders at
 * most one box and stays under MAX_RENDERED_PAGE_BYTES (docs/custom-errors.md "Maximum rendered size").
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_RENDERED_PAGE_BYTES } from "../../../../src/edge/custom-errors/apply";
import { CATALOG } from "../../../../src/errors/catalog";
import { errorFields, footerText } from "../../../../src/errors/fields";
import { withRetryGuidance } from "../../../../src/errors/pipeline";
import { MAX_BOX_BYTES, renderHtmlBox } from "../../../../src/errors/render-html";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { apiOk } from "../../support/envelope";

const utf8 = new TextEncoder();
const bytes = (text: string): number => utf8.encode(text).byteLength;
const countOf = (text: string, part: string): number => text.split(part).length - 1;

async function zoneWithPage(id: "500_errors" | "1000_errors", content: string): Promise<string> {
  const zone = uniqueZone("box");
  await putZone(zone, { plan: "pro", origin: loopback(ports.closed), connect_timeout: 2 });
  await apiOk("PUT", `/zones/${zone}/custom_pages/${id}`, { state: "customized", content });
  return zone;
}

describe("a page stored with its box token many times (before the write-time check)", () => {
  it("renders one box, the other tokens removed, under the documented maximum", async () => {
    const zone = await zoneWithPage(
      "500_errors",
      "<html><head><title>Old page</title></head><body>::EDGE_ERROR_500S_BOX::</body></html>",
    );
    // Written straight to the page's KV key, as a page accepted by an older release would be; no error has read
    // the page yet, so the isolate's page cache does not hold the valid one.
    const tokens = Array.from({ length: 2_000 }, (_, i) =>
      i % 2 === 0 ? "::EDGE_ERROR_500S_BOX::" : "::CLOUDFLARE_ERROR_500S_BOX::",
    ).join("<br>");
    const stored = `<html><head><title>Old page</title></head><body>${tokens}</body></html>`;
    await env.CONFIG.put(`zone:${zone}:page:500_errors`, stored);

    const res = await exports.default.fetch(`http://${zone}/`, { headers: { Accept: "text/html" } });
    expect(res.status).toBe(521);
    const body = await res.text();
    expect(body).toContain("Old page");
    expect(countOf(body, "<edge-error-box ")).toBe(1);
    expect(countOf(body, "ERROR_500S_BOX::")).toBe(0);
    expect(bytes(body)).toBeLessThanOrEqual(bytes(stored) + MAX_BOX_BYTES);
    expect(bytes(body)).toBeLessThan(MAX_RENDERED_PAGE_BYTES);
  });

  it("the largest box of any code, with the longest zone name, is within MAX_BOX_BYTES", () => {
    const zone = `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`;
    let largest = 0;
    for (const entry of CATALOG) {
      // The longest Retry-After the pipeline sends (2^31 − 1 s, pipeline.ts `retryAfterOf`): the most digits, in
      // the header's place and in the guidance that names it (1015's says it five times).
      const retryAfter = entry.retryAfter === null ? null : 2_147_483_647;
      const fields = errorFields(withRetryGuidance(entry, retryAfter), {
        type: `https://${zone}/cdn-cgi/errors/${entry.code}`,
        rayId: "0123456789abcdef",
        timestamp: "2026-04-24T09:22:40Z",
        zone,
        retryAfter,
        footer: footerText("the edge"),
        reachedOrigin: false,
      });
      largest = Math.max(largest, bytes(renderHtmlBox(fields)));
    }
    expect(largest).toBeLessThanOrEqual(MAX_BOX_BYTES);
    console.log(`largest box: ${largest} bytes (MAX_BOX_BYTES ${MAX_BOX_BYTES})`);
  });
});
