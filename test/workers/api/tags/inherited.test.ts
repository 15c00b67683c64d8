/** Inherited tags (docs/tags-api.md "Inherited tags"): zone → zone ruleset, account defaults → zone resources. */
import { describe, expect, it } from "vitest";
import { putZone, uniqueZone } from "../../support/origin";
import { call, errorCode, newAccount, type Resource } from "../../support/tags";

async function setup() {
  const zone = uniqueZone("inherit");
  const account = newAccount();
  await putZone(zone, { origin: "http://o.example", account: { id: account } });
  const zput = (type: string, id: string, tags: Record<string, string>) =>
    call("PUT", `/zones/${zone}/tags`, { body: { resource_type: type, resource_id: id, tags } });
  // The account-wide defaults: the tags of the account's own `account` resource.
  await call("PUT", `/accounts/${account}/tags`, {
    body: { resource_type: "account", resource_id: account, tags: { owner: "platform", team: "core", tier: "1" } },
  });
  await zput("zone", zone, { team: "payments", env: "prod" });
  await zput("zone_ruleset", "rs-own", { env: "staging", rule: "waf" });
  await zput("zone_ruleset", "rs-plain", { rule: "rl" });
  return { zone, account };
}

describe("effective tags", () => {
  it("GET ?effective=true says which tags are inherited and from where; own tags win, then the zone's", async () => {
    const { zone, account } = await setup();
    const res = await call<Resource & { inherited_tags: unknown }>(
      "GET",
      `/zones/${zone}/tags?resource_type=zone_ruleset&resource_id=rs-own&effective=true`,
    );
    expect(res.body?.result.tags).toEqual({ env: "staging", rule: "waf" });
    expect(res.body?.result.inherited_tags).toEqual({
      team: { value: "payments", from: { resource_type: "zone", resource_id: zone } },
      owner: { value: "platform", from: { resource_type: "account", resource_id: account } },
      tier: { value: "1", from: { resource_type: "account", resource_id: account } },
    });
    // Without the opt-in, the published shape, unchanged.
    const plain = await call<Record<string, unknown>>(
      "GET",
      `/zones/${zone}/tags?resource_type=zone_ruleset&resource_id=rs-own`,
    );
    expect(plain.body?.result).not.toHaveProperty("inherited_tags");
  });

  it("filters match effective tags only with effective=true", async () => {
    const { account } = await setup();
    const ids = async (query: string) =>
      (await call<Resource[]>("GET", `/accounts/${account}/tags/resources?${query}`)).body?.result.map(
        (r) => `${r.type}:${r.id}`,
      );
    // team=payments: only the zone has it as its own tag; its rulesets inherit it.
    expect(await ids("tag=team=payments")).toHaveLength(1);
    expect(await ids("tag=team=payments&effective=true")).toEqual([
      expect.stringMatching(/^zone:/),
      "zone_ruleset:rs-own",
      "zone_ruleset:rs-plain",
    ]);
    // env: rs-own overrides the zone's prod with staging.
    expect(await ids("tag=env=prod&effective=true&type=zone_ruleset")).toEqual(["zone_ruleset:rs-plain"]);
    expect(await ids("tag=env!=prod&effective=true&type=zone_ruleset")).toEqual(["zone_ruleset:rs-own"]);
    // Account defaults reach zone resources (not other account resources, nor the account itself twice).
    expect(await ids("tag=tier&effective=true&tag=!rule")).toEqual([
      "account:" + account,
      expect.stringMatching(/^zone:/),
    ]);
    expect(await ids("tag=!owner&effective=true")).toEqual([]);
    const listed = await call<(Resource & { inherited_tags: Record<string, unknown> })[]>(
      "GET",
      `/accounts/${account}/tags/resources?effective=true&type=zone_ruleset`,
    );
    expect(Object.keys(listed.body?.result[1]?.inherited_tags ?? {}).sort()).toEqual(["env", "owner", "team", "tier"]);
  });

  it("refuses a malformed effective and its combination with case_insensitive (1007); 20 filters still bound", async () => {
    const { account } = await setup();
    expect(errorCode(await call("GET", `/accounts/${account}/tags/resources?effective=yes`))).toBe(1007);
    expect(
      errorCode(await call("GET", `/accounts/${account}/tags/resources?effective=true&case_insensitive=true`)),
    ).toBe(1007);
    const twenty = Array.from({ length: 20 }, (_, i) => `tag=${i % 2 ? "k" + i : "k" + i + "=a,b,c,d,e,f,g,h,i,j"}`);
    const ok = await call(
      "GET",
      `/accounts/${account}/tags/resources?effective=true&${twenty.join("&")}&type=zone&id=x`,
    );
    expect(ok.status).toBe(200);
    const tooMany = await call("GET", `/accounts/${account}/tags/resources?effective=true&${twenty.join("&")}&tag=x`);
    expect(errorCode(tooMany)).toBe(1010);
  });
});
