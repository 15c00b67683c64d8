/**
 * `Proxy-Status` (RFC 9209, docs/errors.md) and the HTML island (docs/errors.md) through the real Worker:
 * every catalog code × every format and HEAD carries this service's name and the code's registered error type,
 * read with a real RFC 8941 parser (`structured-headers`); a custom rule's or page's answer keeps it; an origin's own
 * error passed through carries none; `details` never names the origin's address.
 */
import { parseList, Token, type Item } from "structured-headers";
import { describe, expect, it } from "vitest";
import { CATALOG } from "../../../src/errors/catalog";
import { PROXY_ERROR_TYPES, PROXY_NAME } from "../../../src/errors/proxy-status";
import { loopback, ports, putZone, uniqueZone } from "../support/origin";
import { apiOk } from "../support/envelope";
import { workerFetch } from "../support/worker-fetch";

const ACCEPTS = ["application/json", "application/problem+json", "text/markdown", "text/html"] as const;

/** The one member of the header, parsed as an sf-list (RFC 8941 §3.1). */
function member(res: Response): { name: string; error: string; details: string | undefined } {
  const value = res.headers.get("Proxy-Status");
  expect(value, "Proxy-Status present").not.toBeNull();
  const list = parseList(value ?? "");
  expect(list).toHaveLength(1);
  const [name, params] = list[0] as Item;
  expect(name).toBeInstanceOf(Token);
  const error = params.get("error");
  expect(error).toBeInstanceOf(Token);
  const details = params.get("details");
  return {
    name: (name as Token).toString(),
    error: (error as Token).toString(),
    details: typeof details === "string" ? details : undefined,
  };
}

describe("Proxy-Status on every generated error (docs/errors.md)", () => {
  it("every catalog code has a registered RFC 9209 error type, and nothing else does", () => {
    expect(Object.keys(PROXY_ERROR_TYPES).map(Number).sort()).toEqual(CATALOG.map((e) => e.code).sort());
  });

  it.each(CATALOG.map((e) => [e.code, e] as const))("%i: every format and HEAD", async (code, entry) => {
    for (const accept of ACCEPTS) {
      for (const method of ["GET", "HEAD"]) {
        const res = await workerFetch(`http://localhost/cdn-cgi/error/${code}`, {
          method,
          headers: { Accept: accept },
        });
        await res.body?.cancel();
        expect(res.status).toBe(entry.status);
        expect(member(res)).toEqual({
          name: PROXY_NAME,
          error: PROXY_ERROR_TYPES[code],
          details: `${code} ${entry.errorName}`,
        });
      }
    }
  });
});

describe("Proxy-Status on zone traffic", () => {
  it("a real 521 says connection_refused and never the origin's address", async () => {
    const zone = uniqueZone("proxy-status");
    await putZone(zone, { origin: loopback(ports.closed), connect_timeout: 0.5 });
    const res = await workerFetch(`http://${zone}/x`, { headers: { Accept: "application/json" } });
    await res.body?.cancel();
    expect(res.status).toBe(521);
    expect(member(res).error).toBe("connection_refused");
    const raw = res.headers.get("Proxy-Status") ?? "";
    expect(raw).not.toContain("127.0.0.1");
    expect(raw).not.toContain(String(ports.closed));
  });

  it("kept when a custom rule or the zone's page answers", async () => {
    const zone = uniqueZone("proxy-status-custom");
    await putZone(zone, { origin: loopback(ports.closed), connect_timeout: 0.5 });
    await apiOk("PUT", `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`, {
      rules: [
        {
          expression: 'any(http.request.headers["accept"][*] contains "application/json")',
          action: "serve_error",
          action_parameters: { content: '{"down":true}', content_type: "application/json" },
        },
      ],
    });
    await apiOk("PUT", `/zones/${zone}/custom_pages/500_errors`, {
      state: "customized",
      content: "<!DOCTYPE html><html><head><title>Down</title></head><body>::EDGE_ERROR_500S_BOX::</body></html>",
    });
    const ruled = await workerFetch(`http://${zone}/x`, { headers: { Accept: "application/json" } });
    expect(await ruled.text()).toBe('{"down":true}');
    expect(member(ruled).error).toBe("connection_refused");
    const paged = await workerFetch(`http://${zone}/x`, { method: "HEAD" });
    expect(paged.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(member(paged).details).toBe("521 origin_down");
  });

  it("an origin's own error response passed through carries none", async () => {
    const zone = uniqueZone("proxy-status-origin");
    await putZone(zone, { origin: loopback(ports.http) });
    const res = await workerFetch(`http://${zone}/status/503-json`);
    await res.body?.cancel();
    expect(res.status).toBe(503);
    expect(res.headers.get("Proxy-Status")).toBeNull();
  });
});

describe("the HTML island (docs/errors.md)", () => {
  it.each(CATALOG.map((e) => e.code))("%i: the page carries the 17 fields the JSON body has", async (code) => {
    const res = await workerFetch(`http://localhost/cdn-cgi/error/${code}`, {
      headers: { Accept: "text/html" },
    });
    const page = await res.text();
    const m = /<script type="application\/problem\+json" id="edge-error">([^<]*)<\/script>/.exec(page);
    expect(m, "island present").not.toBeNull();
    const island = JSON.parse(m?.[1] ?? "") as Record<string, unknown>;
    const jsonRes = await workerFetch(`http://localhost/cdn-cgi/error/${code}`, {
      headers: { Accept: "application/json" },
    });
    const json = await jsonRes.json<Record<string, unknown>>();
    const varying = ["ray_id", "instance", "timestamp"];
    expect(Object.keys(island)).toEqual(Object.keys(json));
    for (const key of Object.keys(json)) if (!varying.includes(key)) expect(island[key], key).toEqual(json[key]);
    expect(island.ray_id).toBe(res.headers.get("Ray-ID"));
  });
});
