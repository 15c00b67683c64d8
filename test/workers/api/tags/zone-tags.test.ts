/**
 * Zone tags at the published `/zones/{zone_id}/tags` (docs/tags-api.md "Zone tags"), driven by the official client
 * (`cloudflare` npm package, `resourceTagging.zoneTags`) against the real Worker, zone writer and TagStore.
 */
import Cloudflare from "cloudflare";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../../../src/state/tags/history";
import { putZone, uniqueZone } from "../../support/origin";
import { call, errorCode, newAccount, type Resource } from "../../support/tags";

const client = new Cloudflare({
  apiToken: "test-admin-token",
  baseURL: "http://localhost/client/v4",
  fetch: (url, init) => exports.default.fetch(url, init),
  maxRetries: 0,
});

async function accountZone(): Promise<{ zone: string; account: string }> {
  const zone = uniqueZone("tagged");
  const account = newAccount();
  await putZone(zone, { origin: "http://o.example", account: { id: account } });
  return { zone, account };
}

describe("the official client's zoneTags", () => {
  it("puts, gets and deletes a zone's tags, stored with its account's tags", async () => {
    const { zone, account } = await accountZone();
    const put = await client.resourceTagging.zoneTags.update({
      zone_id: zone,
      resource_type: "zone",
      resource_id: zone,
      tags: { team: "payments", env: "prod" },
    });
    expect(put).toMatchObject({ id: zone, type: "zone", zone_id: zone, tags: { env: "prod", team: "payments" } });
    const got = await client.resourceTagging.zoneTags.get({ zone_id: zone, resource_type: "zone", resource_id: zone });
    expect(got).toEqual(put);
    // A zone ruleset of the zone, with If-Match (the empty set's ETag: "only if untagged").
    await client.resourceTagging.zoneTags.update({
      zone_id: zone,
      resource_type: "zone_ruleset",
      resource_id: "rs1",
      tags: { team: "payments" },
      "If-Match": '"v1:RBNvo1WzZ4oRRq0W9-hkng"',
    });
    // The account's listings and filters see them.
    const listed = await call<Resource[]>("GET", `/accounts/${account}/tags/resources?tag=team=payments`);
    expect(listed.body?.result.map((r) => [r.type, r.id, (r as { zone_id?: string }).zone_id])).toEqual([
      ["zone", zone, zone],
      ["zone_ruleset", "rs1", zone],
    ]);
    expect((await call("GET", `/accounts/${account}/tags/values/team?type=zone`)).body?.result).toEqual(["payments"]);
    await client.resourceTagging.zoneTags.delete({ zone_id: zone });
    const after = await client.resourceTagging.zoneTags.get({
      zone_id: zone,
      resource_type: "zone",
      resource_id: zone,
    });
    expect(after.tags).toEqual({});
  });

  it("answers 404 for a zone not configured, 409 (1027) for a zone without an account, 1006 for other types", async () => {
    const missing = uniqueZone("nowhere");
    await expect(
      client.resourceTagging.zoneTags.get({ zone_id: missing, resource_type: "zone", resource_id: missing }),
    ).rejects.toMatchObject({ status: 404 });
    const orphan = uniqueZone("orphan");
    await putZone(orphan, { origin: "http://o.example" });
    const res = await call("GET", `/zones/${orphan}/tags?resource_type=zone&resource_id=${orphan}`);
    expect(res.status).toBe(409);
    expect(errorCode(res)).toBe(1027);
    const { zone } = await accountZone();
    expect(errorCode(await call("GET", `/zones/${zone}/tags?resource_type=dns_record&resource_id=x`))).toBe(1006);
    expect(errorCode(await call("GET", `/zones/${zone}/tags?resource_type=worker&resource_id=x`))).toBe(1006);
    // The zone's own resource_id is the zone.
    expect(
      errorCode(
        await call("PUT", `/zones/${zone}/tags`, { body: { resource_type: "zone", resource_id: "other", tags: {} } }),
      ),
    ).toBe(1002);
  });

  it("PATCHes zone tags and holds PUT's limits there (1011, 1012, 1014, 1016)", async () => {
    const { zone, account } = await accountZone();
    const body = (tags: Record<string, string | null>) => ({ resource_type: "zone", resource_id: zone, tags });
    await call("PUT", `/zones/${zone}/tags`, { body: body({ a: "1", b: "2" }) });
    const patched = await call<Resource>("PATCH", `/zones/${zone}/tags`, { body: body({ b: null, c: "3" }) });
    expect(patched.body?.result.tags).toEqual({ a: "1", c: "3" });
    expect(errorCode(await call("PATCH", `/zones/${zone}/tags`, { body: body({ ["k".repeat(257)]: "" }) }))).toBe(1011);
    expect(errorCode(await call("PUT", `/zones/${zone}/tags`, { body: body({ k: "v".repeat(1025) }) }))).toBe(1012);
    expect(errorCode(await call("PATCH", `/zones/${zone}/tags`, { body: body({ "a b": "" }) }))).toBe(1014);
    // The zone's tags count against its account's 10,000.
    const many = Object.fromEntries(Array.from({ length: 9_998 }, (_, i) => [`k${i}`, ""]));
    expect(
      (
        await call("PUT", `/accounts/${account}/tags`, {
          body: { resource_type: "worker", resource_id: "w", tags: many },
        })
      ).status,
    ).toBe(200);
    const over = await call("PATCH", `/zones/${zone}/tags`, { body: body({ d: "4" }) });
    expect(over.status).toBe(400);
    expect(errorCode(over)).toBe(1016);
  });

  it("deleting the zone removes its tags, with zone-deleted history entries", async () => {
    const { zone, account } = await accountZone();
    await call("PUT", `/zones/${zone}/tags`, {
      body: { resource_type: "zone", resource_id: zone, tags: { team: "t" } },
    });
    await call("PUT", `/zones/${zone}/tags`, {
      body: { resource_type: "zone_ruleset", resource_id: "r", tags: { x: "" } },
    });
    expect((await call("DELETE", `/zones/${zone}`)).status).toBe(200);
    expect((await call("GET", `/accounts/${account}/tags/resources`)).body?.result).toEqual([]);
    const history = await call<HistoryEntry[]>("GET", `/accounts/${account}/tags/history`);
    expect(
      history.body?.result.slice(0, 2).map((e) => [e.via, e.resource_type, e.key, e.before, e.after, e.zone_id]),
    ).toEqual([
      ["zone-deleted", "zone_ruleset", "x", "", null, zone],
      ["zone-deleted", "zone", "team", "t", null, zone],
    ]);
  });
});
