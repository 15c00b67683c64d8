/**
 * Maintenance mode (docs/fewer-errors.md "Maintenance mode"), through the real Worker with a real origin on
 * 127.0.0.1 whose connections are counted: a request `allow` does not match gets 1200 (503) in the negotiated format
 * with the zone's `Retry-After`, and the origin gets no connection; a matched request goes through; custom error
 * rules and pages apply as to any error.
 */
import { describe, expect, it } from "vitest";
import { apiOk } from "../../support/envelope";
import { expectGeneratedError, sendTraffic, zoneFor } from "../../support/origin";
import { switchedOrigin } from "../../support/switchboard";

const OFFICE = "203.0.113.7";
const MAINTENANCE = { enabled: true, retry_after: 600, allow: `ip.src in {${OFFICE}}` };

describe("maintenance mode", () => {
  it("answers 1200 (503) at once with the zone's Retry-After, and the origin gets no connection", async () => {
    const origin = await switchedOrigin();
    const zone = await zoneFor("mt-on", origin.url, { maintenance: MAINTENANCE });
    const res = await sendTraffic(`http://${zone}/shop`, { Accept: "application/json" });
    const body = await expectGeneratedError(res, 1200);
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("600");
    expect(body).toMatchObject({ retry_after: 600, request_reached_origin: false });
    expect(res.headers.get("Proxy-Status")).toBe('edge-errors; error=proxy_internal_response; details="maintenance"');
    const html = await sendTraffic(`http://${zone}/shop`, { Accept: "text/html" });
    expect(html.status).toBe(503);
    expect(html.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(html.headers.get("Retry-After")).toBe("600");
    await html.text();
    const markdown = await sendTraffic(`http://${zone}/shop`, { Accept: "text/markdown" });
    expect(markdown.headers.get("Content-Type")).toMatch(/^text\/markdown/);
    await markdown.text();
    expect(await origin.stats()).toMatchObject({ connections: 0, requests: 0 });
  });

  it("lets a request `allow` matches through to the origin", async () => {
    const origin = await switchedOrigin();
    const zone = await zoneFor("mt-allow", origin.url, { maintenance: MAINTENANCE });
    const office = await sendTraffic(`http://${zone}/shop`, { "CF-Connecting-IP": OFFICE });
    expect(office.status).toBe(200);
    expect(await office.text()).toMatch(/^\/shop #1 /);
    const visitor = await sendTraffic(`http://${zone}/shop`, { "CF-Connecting-IP": "198.51.100.9" });
    expect(visitor.status).toBe(503);
    await visitor.text();
    expect((await origin.stats()).requests).toBe(1);
  });

  it("does nothing while not enabled, and a PATCH turns it on and off", async () => {
    const origin = await switchedOrigin();
    const zone = await zoneFor("mt-off", origin.url, { maintenance: { ...MAINTENANCE, enabled: false } });
    expect((await sendTraffic(`http://${zone}/a`)).status).toBe(200);
    await apiOk("PATCH", `/zones/${zone}`, { maintenance: { enabled: true, retry_after: 120 } });
    const on = await sendTraffic(`http://${zone}/a`, { "CF-Connecting-IP": OFFICE });
    expect(on.status).toBe(503);
    expect(on.headers.get("Retry-After")).toBe("120");
    await on.text();
    await apiOk("PATCH", `/zones/${zone}`, { maintenance: null });
    expect((await sendTraffic(`http://${zone}/a`)).status).toBe(200);
    expect((await origin.stats()).requests).toBe(2);
  });

  it("is answered by the zone's custom error rule, as any error", async () => {
    const origin = await switchedOrigin();
    const zone = await zoneFor("mt-rule", origin.url, { maintenance: MAINTENANCE });
    await apiOk("PUT", `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`, {
      rules: [
        {
          expression: "edge.response.1xxx_code eq 1200",
          action: "serve_error",
          action_parameters: { content: "<h1>Back soon</h1>", content_type: "text/html" },
        },
      ],
    });
    const res = await sendTraffic(`http://${zone}/`, { Accept: "text/html" });
    expect(res.status).toBe(503);
    expect(await res.text()).toBe("<h1>Back soon</h1>");
    expect(res.headers.get("Retry-After")).toBe("600");
    expect(res.headers.get("Proxy-Status")).toMatch(/details="maintenance"/);
    expect(await origin.stats()).toMatchObject({ connections: 0 });
  });

  it("is answered by the zone's 1xxx error page, as any 1xxx error", async () => {
    const origin = await switchedOrigin();
    const zone = await zoneFor("mt-page", origin.url, { maintenance: MAINTENANCE });
    const content =
      "<html><head><title>Closed</title></head><body><p>Shop closed for maintenance.</p>::EDGE_ERROR_1000S_BOX::</body></html>";
    await apiOk("PUT", `/zones/${zone}/custom_pages/1000_errors`, { state: "customized", content });
    const res = await sendTraffic(`http://${zone}/`, { Accept: "text/html" });
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("Shop closed for maintenance.");
    expect(res.headers.get("Retry-After")).toBe("600");
  });
});
