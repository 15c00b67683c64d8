/**
 * The example zone as `npm run dev` seeds it (scripts/dev.mjs: `PUT /zones/shop.example` with the fixture's
 * settings): it belongs to an account, so the account-scoped features answer for it instead of 409 (1027, the zone
 * has no account): zone tags, and the account's listing of its zones.
 */
import { describe, expect, it } from "vitest";
import example from "../../../../fixtures/example-zone.json";
import { api, apiOk } from "../../support/envelope";
import { uniqueZone } from "../../support/origin";

describe("the example zone's settings", () => {
  it("name an account; a zone written with them has tags and is listed under that account", async () => {
    const account = example.settings.account.id;
    expect(account).toMatch(/^[0-9a-f]{32}$/);
    const zone = uniqueZone("shop");
    await apiOk("PUT", `/zones/${zone}`, { ...example.settings, origin: "http://127.0.0.1:9" });
    const tagged = await api("PUT", `/zones/${zone}/tags`, {
      resource_type: "zone",
      resource_id: zone,
      tags: { env: "dev" },
    });
    expect(tagged.status).toBe(200);
    const listed = await apiOk<{ name: string }[]>("GET", `/zones?account.id=${account}&name=${zone}`);
    expect(listed.result.map((z) => z.name)).toEqual([zone]);
  });
});
