/**
 * The 2026 additions to the Rules language through the Worker (docs/rules-language.md "2026 additions"):
 * a firewall rule comparing two fields, written through the real API, against a real loopback origin. The
 * published example (developers.cloudflare.com/changelog/post/2026-10-01-dynamic-comparison-values/) compares the
 * normalised path with the raw one: `http.request.uri.path ne raw.http.request.uri.path` is true exactly when URL
 * normalisation changed the path. With the zone's default setting (`cloudflare` type, scope `incoming`:
 * docs/rules-language.md "URL normalisation") successive slashes are merged, so `//admin` is `/admin` to the rules
 * and `//admin` in `raw.`; the WHATWG URL parser keeps `//` in a path, so the difference reaches the rules.
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

/** Writes the zone's firewall: one blocking rule per expression. */
function putFirewall(zone: string, expressions: readonly string[]) {
  return api("PUT", entrypoint(zone, "http_request_firewall_custom"), {
    rules: expressions.map((expression) => ({ expression, action: "block" })),
  });
}

async function zoneWith(expressions: readonly string[]): Promise<string> {
  const zone = uniqueZone("dyncmp");
  await putZone(zone, { origin: loopback(ports.http) });
  expect((await putFirewall(zone, expressions)).status).toBe(200);
  return zone;
}

describe("a firewall rule comparing two fields (http.request.uri.path ne raw.http.request.uri.path)", () => {
  it("blocks a request whose path the normalisation changed, and passes a normal one", async () => {
    const zone = await zoneWith(["http.request.uri.path ne raw.http.request.uri.path"]);
    for (const path of ["//admin", "/a//b", "/%61dmin", "/x/%7euser"]) {
      await expectGeneratedError(await sendTraffic(`http://${zone}${path}`), 1020).catch((e: unknown) => {
        throw new Error(`${path} was not blocked: ${String(e)}`);
      });
    }
    for (const path of ["/admin", "/", "/a/b?x=1", "/x/%2F"]) {
      expect(await expectForwarded(zone, path)).toBe(path);
    }
  });

  it("coalesce() and a function result on the right, as published", async () => {
    const zone = await zoneWith([
      'http.request.uri.path ne coalesce(http.request.uri.args["expected_path"][0], "/") and http.request.uri.path ne "/open"',
    ]);
    expect(await expectForwarded(zone, "/")).toBe("/");
    expect(await expectForwarded(zone, "/p?expected_path=/p")).toBe("/p?expected_path=/p");
    await expectGeneratedError(await sendTraffic(`http://${zone}/p?expected_path=/q`), 1020);
    await expectGeneratedError(await sendTraffic(`http://${zone}/p`), 1020);
  });

  it("refuses mismatched types and 33 concat() arguments when written, naming the position", async () => {
    const zone = uniqueZone("dyncmp");
    await putZone(zone, { origin: loopback(ports.http) });
    const mismatch = await putFirewall(zone, ["http.request.uri.path eq len(http.request.uri.path)"]);
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors[0]?.message).toMatch(
      /^rules\[0\]\.expression: 1:26: expected a value of type Bytes \(the type of the left side\), got Int/,
    );
    const args = Array.from({ length: 33 }, () => "http.host").join(", ");
    const tooMany = await putFirewall(zone, [`concat(${args}) eq "x"`]);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0]?.message).toMatch(/concat\(\) takes 1 to 32 arguments, got 33/);
    const contains = await putFirewall(zone, ["http.request.uri.path contains raw.http.request.uri.path"]);
    expect(contains.status).toBe(400);
    expect(contains.body.errors[0]?.message).toMatch(/allowed only with eq, ne, lt, le, gt, ge/);
  });
});
