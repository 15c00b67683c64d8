/**
 * `PATCH /zones/{zone}` (docs/configuration.md "Editing a zone") through the real Worker, writer and KV: the official
 * client (`cloudflare` npm package) edits, reads and lists zones; the fields given replace the stored ones and
 * `null` resets one to its default; the merged settings are validated by the validator of `PUT` (400, 1004, one
 * error per field), an API-host origin is refused, a zone not configured is 404, a dry run stores nothing, and the
 * account scope of the writing token holds as for `PUT`.
 */
import Cloudflare from "cloudflare";
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { tokenDigestHex } from "../../../../src/api/kit/auth";
import worker from "../../../../src/index";
import { api, apiOk } from "../../support/envelope";
import { uniqueZone } from "../../support/origin";

const client = new Cloudflare({
  apiToken: "test-admin-token",
  baseURL: "http://localhost/client/v4",
  fetch: (url, init) => exports.default.fetch(url, init),
  maxRetries: 0,
});

const ORIGIN = "http://127.0.0.1:9";
const ACCOUNT = "0123456789abcdef0123456789abcdef";

interface ZoneResult {
  readonly zone: string;
  readonly plan: string;
  readonly origin: string;
  readonly account?: { readonly id: string };
  readonly connect_timeout: number;
  readonly read_timeout: number;
  readonly max_request_header_bytes: number;
  readonly version: number;
}

/** The settings of a zone as `GET /zones/{zone}` shows them. */
async function read(zone: string): Promise<ZoneResult> {
  return (await apiOk<ZoneResult>("GET", `/zones/${zone}`)).result;
}

describe("the official client edits, reads and lists zones", () => {
  it("zones.edit patches some fields, zones.get reads them back, zones.list pages over them", async () => {
    const zone_id = uniqueZone("sdk-patch");
    await apiOk("PUT", `/zones/${zone_id}`, { plan: "pro", origin: ORIGIN, read_timeout: 5 });
    // The client's `ZoneEditParams` names the published fields; this service's own settings ride in the same body.
    const params: Cloudflare.Zones.ZoneEditParams & { plan: string; account: { id: string } } = {
      zone_id,
      plan: "business",
      account: { id: ACCOUNT },
    };
    const edited = (await client.zones.edit(params)) as unknown as ZoneResult;
    expect(edited).toMatchObject({ zone: zone_id, plan: "business", origin: ORIGIN, read_timeout: 5 });
    expect(edited.account).toEqual({ id: ACCOUNT });

    const got = (await client.zones.get({ zone_id })) as unknown as ZoneResult;
    expect(got).toEqual(edited);

    const names: string[] = [];
    for await (const zone of client.zones.list({ per_page: 1 })) names.push(zone.name);
    expect(names).toContain(zone_id);
    const listed = [];
    for await (const zone of client.zones.list({ per_page: 50 })) if (zone.name === zone_id) listed.push(zone);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: zone_id, name: zone_id, status: "active", account: { id: ACCOUNT } });
    expect(listed[0]!.plan).toMatchObject({ legacy_id: "business" });
  });

  it("the client sees a refused edit as its 400, with the field named", async () => {
    const zone_id = uniqueZone("sdk-refused");
    await apiOk("PUT", `/zones/${zone_id}`, { plan: "pro", origin: ORIGIN });
    // What the published zone edit sends: fields this service does not have are refused, never ignored.
    await expect(client.zones.edit({ zone_id, paused: true })).rejects.toMatchObject({
      status: 400,
      errors: [{ code: 1004, message: "Invalid zone setting: paused is not a zone setting" }],
    });
    expect((await read(zone_id)).plan).toBe("pro");
  });
});

describe("PATCH /zones/{zone}", () => {
  it("keeps what it does not name; null resets a field to its default", async () => {
    const zone = uniqueZone("patch");
    await apiOk("PUT", `/zones/${zone}`, {
      plan: "pro",
      origin: ORIGIN,
      connect_timeout: 2,
      read_timeout: 7,
      account: { id: ACCOUNT },
    });
    const before = await read(zone);
    const patched = await apiOk<ZoneResult>("PATCH", `/zones/${zone}`, { read_timeout: 9 });
    expect(patched.result).toMatchObject({ plan: "pro", origin: ORIGIN, connect_timeout: 2, read_timeout: 9 });
    expect(patched.result.account).toEqual({ id: ACCOUNT });
    expect(patched.result.version).toBe(before.version + 1);

    const reset = await apiOk<ZoneResult>("PATCH", `/client/v4/zones/${zone}`, {
      connect_timeout: null,
      account: null,
    });
    expect(reset.result.connect_timeout).toBe(19);
    expect(reset.result.read_timeout).toBe(9);
    expect(reset.result).not.toHaveProperty("account");
    expect(await read(zone)).toEqual(reset.result);
  });

  it("patches every setting PUT takes, retry_hints included; null gives it its default", async () => {
    const zone = uniqueZone("patch-hints");
    await apiOk("PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN });
    const agent = await apiOk<{ retry_hints: string }>("PATCH", `/zones/${zone}`, { retry_hints: "agent" });
    expect(agent.result.retry_hints).toBe("agent");
    const refused = await api("PATCH", `/zones/${zone}`, { retry_hints: "fast" });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 1004 });
    const reset = await apiOk<{ retry_hints: string }>("PATCH", `/zones/${zone}`, { retry_hints: null });
    expect(reset.result.retry_hints).toBe("published");
  });

  it("keeps the zone's sections (rules) as PUT does", async () => {
    const zone = uniqueZone("patch-sections");
    await apiOk("PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN });
    const rules = { rules: [{ mode: "block", configuration: { target: "ip", value: "192.0.2.1" } }] };
    await apiOk("PUT", `/zones/${zone}/access_rules`, rules);
    await apiOk("PATCH", `/zones/${zone}`, { plan: "business" });
    const after = await apiOk<{ rules: unknown[] }>("GET", `/zones/${zone}/access_rules`);
    expect(after.result.rules).toHaveLength(1);
  });

  it("?dry_run=true validates as the write, answers result: null and stores nothing", async () => {
    const zone = uniqueZone("patch-dry");
    await apiOk("PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN });
    const before = await read(zone);
    // A rehearsal answers `result: null`, as every dry run does (docs/configuration.md "Dry runs").
    const rehearsed = await apiOk<ZoneResult | null>("PATCH", `/zones/${zone}?dry_run=true`, { plan: "enterprise" });
    expect(rehearsed).toMatchObject({ success: true, result: null });
    expect(await read(zone)).toEqual(before);
    const refused = await api("PATCH", `/zones/${zone}?dry_run=true`, { plan: "gold" });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]?.code).toBe(1004);
  });

  it.each([
    ["a bad plan", { plan: "gold" }, ["Invalid zone setting: plan must be one of free, pro, business, enterprise"]],
    [
      "a timeout out of range",
      { read_timeout: 0 },
      ["Invalid zone setting: read_timeout must be a number from 0.05 to 6000"],
    ],
    ["an unknown field", { name: "x" }, ["Invalid zone setting: name is not a zone setting"]],
    [
      "a malformed account",
      { account: { id: "ACME" } },
      ["Invalid zone setting: account.id must be 32 lower-case hex characters"],
    ],
    ["a null origin (required)", { origin: null }, ["Invalid zone setting: origin must be a URL string"]],
    [
      "two bad fields",
      { plan: "gold", max_request_header_bytes: 1.5 },
      [
        "Invalid zone setting: plan must be one of free, pro, business, enterprise",
        "Invalid zone setting: max_request_header_bytes must be an integer from 1024 to 131072",
      ],
    ],
    ["a body that is no object", [1, 2], ["Invalid zone setting: body must be a JSON object"]],
    [
      "an API host as origin",
      { origin: "http://localhost:8787" },
      ["Invalid zone setting: origin must not be a host of API_HOSTS, on any port (docs/origin.md)"],
    ],
    [
      "an API host as fallback origin",
      { fallback_origin: "http://localhost:9" },
      ["Invalid zone setting: fallback_origin must not be a host of API_HOSTS, on any port (docs/origin.md)"],
    ],
  ])("refuses %s with 400, 1004, one error per field, and stores nothing", async (_, body, messages) => {
    const zone = uniqueZone("patch-bad");
    await apiOk("PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN });
    const before = await read(zone);
    const answer = await api("PATCH", `/zones/${zone}`, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, result: null });
    expect(answer.body.errors).toEqual(messages.map((message) => ({ code: 1004, message })));
    expect(await read(zone)).toEqual(before);
  });

  it("a key named __proto__ is an unknown field, not a prototype", async () => {
    const zone = uniqueZone("patch-proto");
    await apiOk("PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN });
    const answer = await api("PATCH", `/zones/${zone}`, '{"__proto__": {"plan": "free"}}');
    expect(answer.status).toBe(400);
    expect(answer.body.errors[0]?.message).toBe("Invalid zone setting: __proto__ is not a zone setting");
  });

  it("answers 404 (1001) for a zone not configured, and the envelope's 400s for a bad body", async () => {
    const missing = await api("PATCH", `/zones/${uniqueZone("nowhere")}`, { plan: "pro" });
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0]?.code).toBe(1001);
    const zone = uniqueZone("patch-json");
    await apiOk("PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN });
    const notJson = await api("PATCH", `/zones/${zone}`, "{plan:");
    expect(notJson.status).toBe(400);
    expect(notJson.body.errors[0]?.code).toBe(10002);
    const badName = await api("PATCH", "/zones/not_a_host", { plan: "pro" });
    expect(badName.status).toBe(400);
    expect(badName.body.errors[0]?.code).toBe(7003);
  });

  it("a token reaching the zone by its account may patch it, but not move it out of its accounts", async () => {
    const tokens = [
      {
        name: "by-account",
        sha256: await tokenDigestHex("tok-acct"),
        accounts: [ACCOUNT],
        zones: [],
        permissions: ["zones:read", "zones:write"],
      },
    ];
    const scoped = { ...env, API_TOKENS: JSON.stringify(tokens) };
    const patch = async (zone: string, body: unknown): Promise<number> => {
      const request = new Request(`http://localhost/zones/${zone}`, {
        method: "PATCH",
        headers: { Authorization: "Bearer tok-acct", "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      return (await worker.fetch(request, scoped, createExecutionContext())).status;
    };
    const zone = uniqueZone("patch-scope");
    await apiOk("PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN, account: { id: ACCOUNT } });
    expect(await patch(zone, { plan: "business" })).toBe(200);
    expect(await patch(zone, { account: null })).toBe(403);
    expect(await patch(zone, { account: { id: "f".repeat(32) } })).toBe(403);
    expect((await read(zone)).account).toEqual({ id: ACCOUNT });
    const other = uniqueZone("patch-other");
    await apiOk("PUT", `/zones/${other}`, { plan: "pro", origin: ORIGIN });
    expect(await patch(other, { account: { id: ACCOUNT } })).toBe(403);
  });
});
