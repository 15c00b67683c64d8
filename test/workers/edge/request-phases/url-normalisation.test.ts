/**
 * URL normalisation before rules (docs/rules-language.md), through the Worker with config written through
 * the real API and a real loopback origin that echoes the request line it received (test/servers/http-origin.ts).
 * Published behaviour followed: developers.cloudflare.com/rules/normalization/ (how-it-works, settings, examples).
 *
 * Note on the runtime: the WHATWG URL parser that builds `request.url` already removes `.`/`..` (and `%2e`
 * spellings) and turns `\` into `/` for http(s), whatever the zone's setting (the published platform likewise
 * applies "essential" normalisation even when the feature is off). What the setting adds is the rest: decoding of
 * unreserved characters, upper-case hex, merged slashes (cloudflare type).
 */
import { describe, expect, it } from "vitest";
import {
  expectGeneratedError,
  expectForwarded,
  loopback,
  ports,
  putZone,
  sendTraffic,
  uniqueZone,
} from "../../support/origin";
import { api, entrypoint } from "../../support/envelope";

/** The README's firewall rule (fixtures/example-zone.json). */
const README_ADMIN_RULE = 'starts_with(http.request.uri.path, "/admin")';

async function zoneWith(
  setting: { scope: string; type: string } | null,
  firewall: readonly string[] = [README_ADMIN_RULE],
  customErrors: readonly unknown[] = [],
): Promise<string> {
  const zone = uniqueZone("urlnorm");
  await putZone(zone, { origin: loopback(ports.http) });
  if (setting) expect((await api("PUT", `/zones/${zone}/url_normalization`, setting)).status).toBe(200);
  if (firewall.length > 0) {
    const rules = firewall.map((expression) => ({ expression, action: "block" }));
    expect((await api("PUT", entrypoint(zone, "http_request_firewall_custom"), { rules })).status).toBe(200);
  }
  if (customErrors.length > 0) {
    expect((await api("PUT", entrypoint(zone, "http_custom_errors"), { rules: customErrors })).status).toBe(200);
  }
  return zone;
}

async function expectBlocked(zone: string, path: string): Promise<void> {
  await expectGeneratedError(await sendTraffic(`http://${zone}${path}`), 1020).catch((e: unknown) => {
    throw new Error(`${path} was not blocked: ${String(e)}`);
  });
}

describe("the README's /admin firewall rule under each setting", () => {
  // Blocked whatever the setting: the runtime's URL parser already resolved these (module comment).
  const ALWAYS = ["/admin", "/admin/users", "/x/../admin", "/x/%2e%2e/admin", "/./admin", "\\admin", "/x/..\\admin"];
  // Blocked because of normalisation: unreserved characters decoded, successive slashes merged (cloudflare type).
  const BY_DECODING = ["/%61dmin", "/%61%64%6D%69%6E", "/a%64min/x"];
  const BY_MERGING = ["//admin", "/.//admin", "///%61dmin", "/\\admin"];
  // Never blocked by this rule: the path's case is kept; %25 and %2F are not decoded (RFC 3986 §2.4: reserved).
  const NEVER = ["/ADMIN", "/Admin", "/%2561dmin", "/x/..%2fadmin", "/x/..%2Fadmin", "/%2fadmin"];

  it("default (no setting stored: incoming, cloudflare)", async () => {
    const zone = await zoneWith(null);
    for (const path of [...ALWAYS, ...BY_DECODING, ...BY_MERGING]) await expectBlocked(zone, path);
    for (const path of NEVER) await expectForwarded(zone, path);
  });

  it("incoming + rfc3986: decoding applies, slashes are not merged", async () => {
    const zone = await zoneWith({ scope: "incoming", type: "rfc3986" });
    for (const path of [...ALWAYS, ...BY_DECODING]) await expectBlocked(zone, path);
    for (const path of ["//admin", "/.//admin", ...NEVER]) await expectForwarded(zone, path);
  });

  it("both + cloudflare: rules block the same paths as incoming", async () => {
    const zone = await zoneWith({ scope: "both", type: "cloudflare" });
    for (const path of [...ALWAYS, ...BY_DECODING, ...BY_MERGING]) await expectBlocked(zone, path);
  });

  it("none: only what the runtime's URL parser resolved is blocked", async () => {
    const zone = await zoneWith({ scope: "none", type: "cloudflare" });
    for (const path of ALWAYS) await expectBlocked(zone, path);
    for (const path of [...BY_DECODING, "//admin", "/.//admin"]) await expectForwarded(zone, path);
  });

  it("the documented cover for what normalisation leaves encoded: a rule on %2F, %5C and %25", async () => {
    // After normalisation every percent-encoding is upper-case, so one spelling of each is enough.
    const zone = await zoneWith(null, [
      README_ADMIN_RULE,
      'http.request.uri.path contains "%2F" or http.request.uri.path contains "%5C" or ' +
        'http.request.uri.path contains "%25"',
    ]);
    for (const path of ["/%2561dmin", "/x/..%2fadmin", "/x/..%2Fadmin", "/x/..%5cadmin", "/%252561dmin"]) {
      await expectBlocked(zone, path);
    }
    await expectForwarded(zone, "/ADMIN");
  });
});

describe("what the origin receives", () => {
  const PATH = "/echo//a/%61b/%7e/x%2fy?q=%61&r=//";

  it("incoming (the default): the original path and query", async () => {
    const zone = await zoneWith(null, []);
    expect(await expectForwarded(zone, PATH)).toBe(PATH);
  });

  it("both + cloudflare: the normalised path, the query as sent", async () => {
    const zone = await zoneWith({ scope: "both", type: "cloudflare" }, []);
    expect(await expectForwarded(zone, PATH)).toBe("/echo/a/ab/~/x%2Fy?q=%61&r=//");
  });

  it("both + rfc3986: the normalised path keeps successive slashes", async () => {
    const zone = await zoneWith({ scope: "both", type: "rfc3986" }, []);
    expect(await expectForwarded(zone, PATH)).toBe("/echo//a/ab/~/x%2Fy?q=%61&r=//");
  });

  it("none: the original", async () => {
    const zone = await zoneWith({ scope: "none", type: "rfc3986" }, []);
    expect(await expectForwarded(zone, PATH)).toBe(PATH);
  });

  it("with rules that pass the request, the origin still gets the original under incoming", async () => {
    const zone = await zoneWith(null);
    expect(await expectForwarded(zone, "/echo//%61dmin")).toBe("/echo//%61dmin");
  });
});

describe("custom error rules see the normalised path too", () => {
  const serve = (expression: string) => ({
    expression,
    action: "serve_error",
    action_parameters: { content: "custom", content_type: "text/plain" },
  });

  it("on a generated error (1020) and on an origin's error", async () => {
    const zone = await zoneWith(
      null,
      [README_ADMIN_RULE],
      [serve('http.request.uri.path in {"/admin" "/status/404"}')],
    );
    expect(await (await sendTraffic(`http://${zone}//%61dmin`)).text()).toBe("custom");
    // Under `incoming` the origin gets `/status/%34%30%34` as sent, which is not its 404 mode: no error, so no
    // custom error rule runs even though the rule would match the normalised path.
    expect(await (await sendTraffic(`http://${zone}/status/%34%30%34`)).text()).not.toBe("custom");
    expect(await (await sendTraffic(`http://${zone}/status/404`)).text()).toBe("custom");
  });

  it("under both, the origin gets the normalised path, so its error is the one the rule saw", async () => {
    const zone = await zoneWith(
      { scope: "both", type: "cloudflare" },
      [],
      [serve('http.request.uri.path eq "/status/404"')],
    );
    expect(await (await sendTraffic(`http://${zone}/status//%34%30%34`)).text()).toBe("custom");
  });

  it("raw.http.request.uri.path keeps the original for rules that want it", async () => {
    const zone = await zoneWith(null, ['raw.http.request.uri.path eq "//%61dmin"']);
    await expectBlocked(zone, "//%61dmin");
    expect(await expectForwarded(zone, "/%61dmin")).toBe("/%61dmin");
  });
});

describe("GET/PUT/DELETE /zones/{zone}/url_normalization", () => {
  it("defaults, replace, read back, reset", async () => {
    const zone = uniqueZone("urlnormapi");
    await putZone(zone, { origin: loopback(ports.http) });
    const path = `/zones/${zone}/url_normalization`;
    expect(await api("GET", path)).toMatchObject({
      status: 200,
      body: { success: true, errors: [], result: { scope: "incoming", type: "cloudflare" } },
    });
    expect(await api("PUT", path, { scope: "both", type: "rfc3986" })).toMatchObject({
      status: 200,
      body: { success: true, result: { scope: "both", type: "rfc3986" } },
    });
    expect((await api("GET", path)).body.result).toEqual({ scope: "both", type: "rfc3986" });
    const removed = await api("DELETE", path);
    expect(removed.status).toBe(204);
    expect(removed.text).toBe("");
    expect((await api("GET", path)).body.result).toEqual({ scope: "incoming", type: "cloudflare" });
  });

  it("a change applies to the next request (the writing isolate sees it at once)", async () => {
    const zone = await zoneWith({ scope: "none", type: "cloudflare" });
    await expectForwarded(zone, "/%61dmin");
    expect(
      (await api("PUT", `/zones/${zone}/url_normalization`, { scope: "incoming", type: "cloudflare" })).status,
    ).toBe(200);
    await expectBlocked(zone, "/%61dmin");
    expect((await api("DELETE", `/zones/${zone}/url_normalization`)).status).toBe(204);
    await expectBlocked(zone, "/%61dmin");
  });

  it.each([
    [{ scope: "all", type: "cloudflare" }, ["scope must be one of incoming, both, none"]],
    [{ scope: "both", type: "RFC3986" }, ["type must be one of cloudflare, rfc3986"]],
    [{ scope: "both" }, ["type must be one of cloudflare, rfc3986"]],
    [{}, ["scope must be one of", "type must be one of"]],
    [{ scope: "both", type: "cloudflare", extra: 1 }, ["extra is not a url_normalization setting"]],
    [[], ["body must be a JSON object"]],
    ["null", ["body must be a JSON object"]],
  ])("400 with code 20027 naming each wrong field: %j", async (body, messages) => {
    const zone = uniqueZone("urlnormbad");
    await putZone(zone, { origin: loopback(ports.http) });
    const res = await api("PUT", `/zones/${zone}/url_normalization`, body);
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.errors.every((e) => e.code === 20027)).toBe(true);
    for (const m of messages) expect(res.body.errors.map((e) => e.message).join("\n")).toContain(m);
    // Nothing stored.
    expect((await api("GET", `/zones/${zone}/url_normalization`)).body.result).toEqual({
      scope: "incoming",
      type: "cloudflare",
    });
  });

  it("malformed JSON is 400; an unknown zone 404; no token 401; a bad zone name 400", async () => {
    const zone = uniqueZone("urlnormerr");
    await putZone(zone, { origin: loopback(ports.http) });
    const malformed = await api("PUT", `/zones/${zone}/url_normalization`, "{");
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors.map((e) => e.code)).toEqual([10002]);
    for (const method of ["GET", "PUT", "DELETE"]) {
      const body = method === "PUT" ? { scope: "both", type: "rfc3986" } : undefined;
      const res = await api(method, `/zones/nowhere-${zone}/url_normalization`, body);
      expect(res.status, method).toBe(404);
      expect((await api(method, `/zones/${zone}/url_normalization`, undefined, {})).status, method).toBe(401);
    }
    const badName = await api("GET", "/zones/not_a_host!/url_normalization");
    expect(badName.status).toBe(400);
    expect(badName.body.errors.map((e) => e.code)).toEqual([7003]);
    expect((await api("GET", `/client/v4/zones/${zone}/url_normalization`)).status).toBe(200);
  });
});
