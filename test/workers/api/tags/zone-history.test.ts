/**
 * The history of a zone's resources at `GET /zones/{zone_id}/tags/history` (docs/tags-api.md "History"): the entries
 * the account's history keeps for the zone (or one of its zone rulesets), in the same shape, newest first, with
 * keyset cursors. The writes go through the official client's `resourceTagging.zoneTags` (it has no history
 * method: the listing is read with plain requests).
 */
import Cloudflare from "cloudflare";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../../../src/state/tags/history";
import { putZone, uniqueZone } from "../../support/origin";
import { allPages, call, errorCode, newAccount, put, worker } from "../../support/tags";

const client = new Cloudflare({
  apiToken: "test-admin-token",
  baseURL: "http://localhost/client/v4",
  fetch: (url, init) => exports.default.fetch(url, init),
  maxRetries: 0,
});

async function accountZone(): Promise<{ zone: string; account: string }> {
  const zone = uniqueZone("tag-history");
  const account = newAccount();
  await putZone(zone, { origin: "http://o.example", account: { id: account } });
  return { zone, account };
}

const zoneHistory = (zone: string, query = "") =>
  call<HistoryEntry[]>("GET", `/client/v4/zones/${zone}/tags/history${query}`);
const strip = (e: HistoryEntry) => ({
  via: e.via,
  type: e.resource_type,
  key: e.key,
  before: e.before,
  after: e.after,
});

describe("GET /zones/{zone_id}/tags/history", () => {
  it("lists the zone's own changes by default and a zone ruleset's on request, as the account's history has them", async () => {
    const { zone, account } = await accountZone();
    await client.resourceTagging.zoneTags.update({
      zone_id: zone,
      resource_type: "zone",
      resource_id: zone,
      tags: { team: "web", env: "prod" },
    });
    await call("PATCH", `/zones/${zone}/tags`, {
      body: { resource_type: "zone", resource_id: zone, tags: { team: "payments", env: null } },
    });
    await client.resourceTagging.zoneTags.update({
      zone_id: zone,
      resource_type: "zone_ruleset",
      resource_id: "rs1",
      tags: { owner: "sre" },
    });
    await put(account, worker("api", { team: "web" })); // the account's other resources are not the zone's
    await client.resourceTagging.zoneTags.delete({ zone_id: zone });

    const own = await zoneHistory(zone);
    expect(own.status).toBe(200);
    expect(own.body?.result.map(strip)).toEqual([
      { via: "delete", type: "zone", key: "team", before: "payments", after: null },
      { via: "patch", type: "zone", key: "team", before: "web", after: "payments" },
      { via: "patch", type: "zone", key: "env", before: "prod", after: null },
      { via: "put", type: "zone", key: "team", before: null, after: "web" },
      { via: "put", type: "zone", key: "env", before: null, after: "prod" },
    ]);
    expect(own.body?.result_info).toMatchObject({ count: 5, per_page: 100, cursor: null, cursors: { after: null } });

    // The same entries, field for field, as the account-wide listing has them for this resource.
    const accountWide = (await call<HistoryEntry[]>("GET", `/accounts/${account}/tags/history`)).body?.result ?? [];
    const ofZone = accountWide.filter((e) => e.resource_type === "zone" && e.resource_id === zone);
    expect(own.body?.result).toEqual(ofZone);
    for (const e of own.body?.result ?? []) {
      expect(e).toMatchObject({ resource_id: zone, zone_id: zone, token_name: "admin" });
    }
    // Naming the zone itself is the default.
    expect((await zoneHistory(zone, `?resource_type=zone&resource_id=${zone}`)).body?.result).toEqual(own.body?.result);

    const ruleset = await zoneHistory(zone, "?resource_type=zone_ruleset&resource_id=rs1");
    expect(ruleset.body?.result.map((e) => [e.resource_type, e.resource_id, e.zone_id, e.key, e.after])).toEqual([
      ["zone_ruleset", "rs1", zone, "owner", "sre"],
    ]);
  });

  it("pages with keyset cursors (100 a page), bound to the zone route's resource", async () => {
    const { zone, account } = await accountZone();
    const tags = Object.fromEntries(Array.from({ length: 130 }, (_, i) => [`k${String(i).padStart(3, "0")}`, "v"]));
    await client.resourceTagging.zoneTags.update({ zone_id: zone, resource_type: "zone", resource_id: zone, tags });
    const pages = await allPages<HistoryEntry>(`/zones/${zone}/tags/history`);
    expect(pages.map((p) => p.length)).toEqual([100, 30]);
    const ids = pages.flat().map((e) => Number(e.id));
    expect(new Set(ids).size).toBe(130);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(pages.flat().map((e) => e.key)).size).toBe(130);

    // A cursor of another query (the account-wide listing, or the zone ruleset's) is refused here: 1017.
    await put(account, worker("w", Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`w${i}`, "v"]))));
    const foreign = (await call("GET", `/accounts/${account}/tags/history`)).body?.result_info?.cursor;
    expect(typeof foreign).toBe("string");
    const refused = await zoneHistory(zone, `?cursor=${encodeURIComponent(String(foreign))}`);
    expect([refused.status, errorCode(refused)]).toEqual([400, 1017]);
    const mine = (await zoneHistory(zone)).body?.result_info?.cursor;
    const elsewhere = await zoneHistory(zone, `?resource_type=zone_ruleset&resource_id=rs1&cursor=${mine}`);
    expect([elsewhere.status, errorCode(elsewhere)]).toEqual([400, 1017]);
  });

  it("refuses what GET of the zone's tags refuses, with its codes", async () => {
    const { zone } = await accountZone();
    const cases: [string, number, number][] = [
      ["?resource_type=worker&resource_id=api", 400, 1006],
      ["?resource_type=zone&resource_id=other.example", 400, 1003],
      ["?resource_type=zone_ruleset", 400, 1003],
      [`?resource_type=zone&resource_id=${zone}&worker_id=w`, 400, 1003],
      ["?cursor=not-a-cursor", 400, 1017],
    ];
    for (const [query, status, code] of cases) {
      const res = await zoneHistory(zone, query);
      expect([query, res.status, errorCode(res)]).toEqual([query, status, code]);
    }
    const unknown = await zoneHistory(uniqueZone("tag-history-none"));
    expect([unknown.status, errorCode(unknown)]).toEqual([404, 1001]);
    const lone = uniqueZone("tag-history-lone");
    await putZone(lone, { origin: "http://o.example" });
    const noAccount = await zoneHistory(lone);
    expect([noAccount.status, errorCode(noAccount)]).toEqual([409, 1027]);
  });
});
