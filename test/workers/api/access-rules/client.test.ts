/**
 * IP access rules at the published path (docs/producers.md "IP access rules"), driven by the official client
 * (`cloudflare` npm package, `firewall.accessRules`) against the real Worker, writer and KV: create, list (paginated,
 * filtered), get, edit, delete; the rules it writes are the ones `/zones/{zone}/access_rules` shows and the ones
 * zone traffic enforces (one list); the validation and envelope answers of the single-rule endpoints.
 */
import Cloudflare from "cloudflare";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, apiOk } from "../../support/envelope";
import { uniqueZone } from "../../support/origin";

const client = new Cloudflare({
  apiToken: "test-admin-token",
  baseURL: "http://localhost/client/v4",
  fetch: (url, init) => exports.default.fetch(url, init),
  maxRetries: 0,
});

const ORIGIN = "http://127.0.0.1:9";

async function newZone(label: string): Promise<string> {
  const zone = uniqueZone(label);
  await apiOk("PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN, connect_timeout: 0.3, read_timeout: 0.5 });
  return zone;
}

const rules = (zone: string): string => `/zones/${zone}/firewall/access_rules/rules`;

describe("the official client drives the IP access rules API", () => {
  it("create, list (every page), get, edit, delete; the alias and traffic see the same list", async () => {
    const zone_id = await newZone("ar-client");
    const created = await client.firewall.accessRules.create({
      zone_id,
      mode: "block",
      configuration: { target: "ip", value: "198.51.100.4" },
      notes: "abuse, ticket 42",
    });
    expect(created.id).toMatch(/^[0-9a-f]{32}$/);
    expect(created).toEqual({
      id: created.id,
      mode: "block",
      allowed_modes: ["block"],
      configuration: { target: "ip", value: "198.51.100.4" },
      notes: "abuse, ticket 42",
    });
    const range = await client.firewall.accessRules.create({
      zone_id,
      mode: "block",
      configuration: { target: "ip_range", value: "2001:DB8:0:0:0:0:0:0/32" },
    });
    expect(range.configuration).toEqual({ target: "ip_range", value: "2001:db8::/32" });
    expect(range.notes).toBe("");
    const country = await client.firewall.accessRules.create({
      zone_id,
      mode: "block",
      configuration: { target: "country", value: "aq" },
      notes: "Attack 26/02",
    });

    // Page by page, as the client follows them (per_page 1: three pages, then an empty one ends it).
    const ids: string[] = [];
    for await (const rule of client.firewall.accessRules.list({ zone_id, per_page: 1 })) ids.push(rule.id);
    expect(ids).toEqual([created.id, range.id, country.id]);
    const page = await client.firewall.accessRules.list({ zone_id, per_page: 2, page: 2 });
    expect(page.result.map((r) => r.id)).toEqual([country.id]);
    expect(page.result_info).toEqual({ page: 2, per_page: 2, count: 1, total_count: 3, total_pages: 2 });
    const byNotes = await client.firewall.accessRules.list({ zone_id, notes: "ATTACK" });
    expect(byNotes.result.map((r) => r.id)).toEqual([country.id]);
    const byTarget = await client.firewall.accessRules.list({
      zone_id,
      configuration: { target: "ip_range" },
    });
    expect(byTarget.result.map((r) => r.id)).toEqual([range.id]);

    expect(await client.firewall.accessRules.get(created.id, { zone_id })).toEqual(created);
    const edited = await client.firewall.accessRules.edit(created.id, {
      zone_id,
      mode: "block",
      configuration: { target: "ip", value: "198.51.100.5" },
    });
    expect(edited).toEqual({ ...created, configuration: { target: "ip", value: "198.51.100.5" } });

    // One list: the whole-list alias shows what the published path wrote, and traffic enforces it.
    const alias = await apiOk<{ rules: { id: string }[] }>("GET", `/zones/${zone_id}/access_rules`);
    expect(alias.result.rules.map((r) => r.id)).toEqual([created.id, range.id, country.id]);
    const blocked = await exports.default.fetch(`http://${zone_id}/`, {
      headers: { "CF-Connecting-IP": "198.51.100.5", Accept: "application/json" },
    });
    expect(blocked.status).toBe(403);
    expect(await blocked.json()).toMatchObject({ error_code: 1006 });

    expect(await client.firewall.accessRules.delete(created.id, { zone_id })).toEqual({ id: created.id });
    await expect(client.firewall.accessRules.get(created.id, { zone_id })).rejects.toMatchObject({ status: 404 });
    const after = await exports.default.fetch(`http://${zone_id}/`, {
      headers: { "CF-Connecting-IP": "198.51.100.5", Accept: "application/json" },
    });
    expect((await after.json<{ error_code: number }>()).error_code).not.toBe(1006);
  });

  it("a rule written through the alias is read, edited and deleted at the published path", async () => {
    const zone_id = await newZone("ar-alias");
    const put = await apiOk<{ rules: { id: string }[] }>("PUT", `/zones/${zone_id}/access_rules`, {
      rules: [{ mode: "block", configuration: { target: "country", value: "AQ" } }],
    });
    const id = put.result.rules[0]!.id;
    const edited = await client.firewall.accessRules.edit(id, {
      zone_id,
      mode: "block",
      configuration: { target: "country", value: "AQ" },
      notes: "edited",
    });
    expect(edited.notes).toBe("edited");
    const alias = await apiOk<{ rules: { notes: string }[] }>("GET", `/zones/${zone_id}/access_rules`);
    expect(alias.result.rules[0]!.notes).toBe("edited");
    await client.firewall.accessRules.delete(id, { zone_id });
    expect((await apiOk<{ rules: unknown[] }>("GET", `/zones/${zone_id}/access_rules`)).result.rules).toEqual([]);
  });
});

describe("single-rule writes: validation and envelope", () => {
  it("refuses a bad rule with 400 (20026) naming the field, as the whole-list write does; nothing stored", async () => {
    const zone = await newZone("ar-bad");
    const cases: [unknown, string[]][] = [
      [{ mode: "challenge", configuration: { target: "ip", value: "192.0.2.1" } }, ["mode must be one of: block"]],
      [
        { mode: "block", configuration: { target: "ip", value: "192.0.2.0/24" } },
        ["configuration.value must be one IPv4 or IPv6 address (a range needs target ip_range)"],
      ],
      [
        { mode: "block", configuration: { target: "asn", value: "AS13335" } },
        ["configuration.target must be one of: ip, ip_range, country"],
      ],
      [{ mode: "block" }, ["configuration must be an object {target, value}"]],
      [
        { mode: "block", configuration: { target: "ip", value: "192.0.2.1" }, id: "0".repeat(32), paused: true },
        ["id is not a field of an access rule", "paused is not a field of an access rule"],
      ],
      [[1], ["body must be a JSON object {mode, configuration, notes?}"]],
    ];
    for (const [body, messages] of cases) {
      const answer = await api("POST", rules(zone), body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.errors).toEqual(messages.map((message) => ({ code: 20026, message })));
    }
    expect((await apiOk<unknown[]>("GET", rules(zone))).result).toEqual([]);
  });

  it("refuses a second rule of one configuration, on create and on edit", async () => {
    const zone = await newZone("ar-dup");
    const first = await apiOk<{ id: string }>("POST", rules(zone), {
      mode: "block",
      configuration: { target: "ip", value: "2001:db8::1" },
    });
    const dup = await api("POST", rules(zone), {
      mode: "block",
      configuration: { target: "ip", value: "2001:DB8:0::1" },
    });
    expect(dup.status).toBe(400);
    expect(dup.body.errors).toEqual([
      {
        code: 20026,
        message: `configuration is already the configuration of access rule ${first.result.id} (ip 2001:db8::1)`,
      },
    ]);
    const second = await apiOk<{ id: string }>("POST", rules(zone), {
      mode: "block",
      configuration: { target: "ip", value: "2001:db8::2" },
    });
    const edit = await api("PATCH", `${rules(zone)}/${second.result.id}`, {
      configuration: { target: "ip", value: "2001:db8::1" },
    });
    expect(edit.status).toBe(400);
    // Editing a rule to its own configuration is no duplicate.
    const same = await api("PATCH", `${rules(zone)}/${first.result.id}`, { notes: "kept" });
    expect(same.status).toBe(200);
  });

  it("answers 404 (20071) for an unknown or malformed rule id, 404 (1001) for a zone not configured", async () => {
    const zone = await newZone("ar-404");
    for (const [method, id] of [
      ["GET", "0".repeat(32)],
      ["PATCH", "0".repeat(32)],
      ["DELETE", "0".repeat(32)],
      ["GET", "not-an-id"],
      ["DELETE", "%3Cscript%3E"],
    ] as const) {
      const answer = await api(method, `${rules(zone)}/${id}`, method === "PATCH" ? { notes: "x" } : undefined);
      expect(answer.status, `${method} ${id}`).toBe(404);
      expect(answer.body.errors[0]?.code).toBe(20071);
    }
    const missing = await api("GET", rules(uniqueZone("ar-none")));
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0]?.code).toBe(1001);
  });

  it("refuses an unknown, repeated or malformed list parameter with 400 (20070)", async () => {
    const zone = await newZone("ar-query");
    for (const query of [
      "?per_page=0",
      "?per_page=1001",
      "?page=x",
      "?page=1&page=2",
      "?order=notes",
      "?match=some",
      "?direction=up",
      "?mode=allow",
      "?configuration.target=host",
      "?name=x",
    ]) {
      const answer = await api("GET", `${rules(zone)}${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.errors[0]?.code).toBe(20070);
    }
    // The field first, then the rule its schema states (the same bound the OpenAPI parameter shows).
    const range = await api("GET", `${rules(zone)}?per_page=1001`);
    expect(range.body.errors).toEqual([{ code: 20070, message: "per_page must be an integer from 1 to 1000" }]);
    const target = await api("GET", `${rules(zone)}?configuration.target=host`);
    expect(target.body.errors[0]?.message).toBe("configuration.target must be one of ip, ip_range, country, asn, ip6");
    const last = await api("GET", `${rules(zone)}?page=5&per_page=1000&order=mode&direction=desc&match=any`);
    expect(last.status).toBe(200);
  });

  it("?dry_run=true validates a create, edit or delete as the write and stores nothing", async () => {
    const zone = await newZone("ar-dry");
    const rehearsed = await apiOk("POST", `${rules(zone)}?dry_run=true`, {
      mode: "block",
      configuration: { target: "ip", value: "192.0.2.1" },
    });
    expect(rehearsed.result).toBeNull();
    expect((await apiOk<unknown[]>("GET", rules(zone))).result).toEqual([]);
    const rule = await apiOk<{ id: string }>("POST", rules(zone), {
      mode: "block",
      configuration: { target: "ip", value: "192.0.2.1" },
    });
    await apiOk("DELETE", `${rules(zone)}/${rule.result.id}?dry_run=true`);
    expect((await apiOk<unknown[]>("GET", rules(zone))).result).toHaveLength(1);
    const refused = await api("PATCH", `${rules(zone)}/${rule.result.id}?dry_run=true`, { mode: "whitelist" });
    expect(refused.status).toBe(400);
  });

  it("parallel creates of one zone all land (the writer applies each to the list as it is then)", async () => {
    const zone = await newZone("ar-parallel");
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        api("POST", rules(zone), { mode: "block", configuration: { target: "ip", value: `192.0.2.${i + 1}` } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect((await apiOk<unknown[]>("GET", `${rules(zone)}?per_page=50`)).result).toHaveLength(10);
  });
});
