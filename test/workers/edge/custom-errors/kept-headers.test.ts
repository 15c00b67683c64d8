/**
 * docs/errors.md "Headers": every answer to a generated error keeps the error's headers whoever wrote its body (a
 * custom error rule's content, a custom error page, a custom error asset, an overlay), `Content-Type` (and, for
 * operator content, the CSP) aside: `Proxy-Status` naming the code, `Retry-After`, the retry verdicts, `Ray-ID`,
 * `Cache-Control`, `nosniff`, `Server-Timing`. Zone traffic to an origin that refuses connections (a real 521), GET
 * and HEAD, and the `/cdn-cgi/error/{code}` preview, through the real Worker.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { api, apiOk } from "../../support/envelope";

const rulesPath = (zone: string) => `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`;

type Writer = "rule" | "page" | "asset" | "overlay";

/** A zone whose origin refuses connections, with its 521 answered by `writer`. */
async function zoneAnsweredBy(writer: Writer): Promise<string> {
  const zone = uniqueZone(`kept-${writer}`);
  await putZone(zone, { plan: "pro", origin: loopback(ports.http), connect_timeout: 2 });
  if (writer === "asset") {
    const made = await api("POST", `/zones/${zone}/custom_pages/assets`, {
      name: "down",
      url: `http://${zone}/asset/page.html`,
    });
    expect(made.status, made.text).toBe(200);
  }
  await putZone(zone, { plan: "pro", origin: loopback(ports.closed), connect_timeout: 2 });
  const rule = (action_parameters: Record<string, unknown>) => ({
    expression: "http.response.code eq 521",
    action: "serve_error",
    action_parameters,
  });
  switch (writer) {
    case "rule":
      // A rule may change the status too: the error's headers stay.
      await apiOk("PUT", rulesPath(zone), {
        rules: [rule({ content: '{"shop":"down"}', content_type: "application/json", status_code: 503 })],
      });
      break;
    case "page":
      await apiOk("PUT", `/zones/${zone}/custom_pages/500_errors`, {
        state: "customized",
        content:
          "<!DOCTYPE html><html><head><title>Down</title></head><body><p>Down</p>::EDGE_ERROR_500S_BOX::</body></html>",
      });
      break;
    case "asset":
      await apiOk("PUT", rulesPath(zone), { rules: [rule({ asset_name: "down" })] });
      break;
    case "overlay":
      await apiOk("PUT", rulesPath(zone), { rules: [rule({ overlay: { detail: "The shop is being restocked." } })] });
      break;
  }
  return zone;
}

/** docs/errors.md "Headers" of a 521 (retryable, 120 s), whoever wrote the body. */
function expectErrorHeaders(res: Response, origin: boolean): void {
  expect(res.headers.get("Proxy-Status")).toBe('edge-errors; error=connection_refused; details="521 origin_down"');
  expect(res.headers.get("Retry-After")).toBe("120");
  expect(res.headers.get("x-should-retry")).toBe("true");
  expect(res.headers.get("retry-after-ms")).toBe("120000");
  expect(res.headers.get("Ray-ID")).toMatch(/^[0-9a-f]{16}$/);
  expect(res.headers.get("Cache-Control")).toBe("private, no-store");
  expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  expect(res.headers.get("Vary")).toBe("Accept, Accept-Language");
  const timing = res.headers.get("Server-Timing");
  expect(timing).toMatch(origin ? /^edge;dur=\d+, origin;dur=\d+;desc="connect-refused"$/ : /^edge;dur=\d+$/);
}

describe.each(["rule", "page", "asset", "overlay"] as const)("a 521 answered by a custom %s", (writer) => {
  it("keeps the error's headers on GET and HEAD, in traffic and on the preview", async () => {
    const zone = await zoneAnsweredBy(writer);
    for (const method of ["GET", "HEAD"]) {
      const res = await exports.default.fetch(`http://${zone}/checkout`, {
        method,
        headers: { Accept: "application/json" },
      });
      expect(res.status).toBe(writer === "rule" ? 503 : 521);
      expectErrorHeaders(res, true);
      const body = await res.text();
      if (method === "HEAD") expect(body).toBe("");
      else if (writer === "rule") expect(body).toBe('{"shop":"down"}');
      else if (writer === "overlay") expect(body).toContain("The shop is being restocked.");
      else expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    }
    const preview = await exports.default.fetch(`http://${zone}/cdn-cgi/error/521`, {
      headers: { Accept: "application/json" },
    });
    expectErrorHeaders(preview, false);
  });
});
