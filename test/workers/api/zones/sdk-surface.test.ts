/**
 * The published surface as the official client (cloudflare 7.3.0) calls it: `zones.list({name})` (the published
 * `name` filter), `resourceTagging.accountTags.delete` (which sends no body: the resource comes in the query), and a
 * `POST /zones` (the published way to create a zone) answered 405 with the way this API creates one.
 */
import Cloudflare from "cloudflare";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { apiOk, ADMIN } from "../../support/envelope";
import { putZone, uniqueZone } from "../../support/origin";

const client = new Cloudflare({
  apiToken: "test-admin-token",
  baseURL: "http://localhost/client/v4",
  fetch: (url, init) => exports.default.fetch(url, init),
  maxRetries: 0,
});

describe("zones.list({name})", () => {
  it("lists the one zone of that name (case-insensitive), none for an unknown name", async () => {
    const names = [uniqueZone("named"), uniqueZone("named")];
    for (const name of names) await putZone(name, { origin: "http://o.example" });
    const page = await client.zones.list({ name: names[1]!.toUpperCase() });
    expect(page.result.map((z) => z.name)).toEqual([names[1]]);
    const none = await client.zones.list({ name: `absent-${names[0]!}` });
    expect(none.result).toEqual([]);
  });

  it("a filter operator or a name given twice is refused (400, 20060), never read as a name", async () => {
    for (const query of ["name=contains:shop", "name=a.example&name=b.example"]) {
      const res = await exports.default.fetch(`http://localhost/zones?${query}`, { headers: ADMIN });
      expect(res.status).toBe(400);
      const body = await res.json<{ errors: { code: number; message: string }[] }>();
      expect(body.errors[0]?.code).toBe(20060);
    }
  });
});

describe("resourceTagging.accountTags.delete (no body)", () => {
  it("removes the tags of the resource named in the query; without one, 400 (1003)", async () => {
    const account_id = "1234567890abcdef1234567890abcdef";
    await apiOk("PUT", `/accounts/${account_id}/tags`, {
      resource_type: "r2_bucket",
      resource_id: "logs",
      tags: { env: "prod" },
    });
    await client.resourceTagging.accountTags.delete(
      { account_id },
      { query: { resource_type: "r2_bucket", resource_id: "logs" } },
    );
    const after = await client.resourceTagging.accountTags.get({
      account_id,
      resource_id: "logs",
      resource_type: "r2_bucket",
    });
    expect(after.tags).toEqual({});
    const error: unknown = await client.resourceTagging.accountTags.delete({ account_id }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Cloudflare.BadRequestError);
    expect((error as { errors: { code: number }[] }).errors[0]?.code).toBe(1003);
  });
});

describe("POST /zones", () => {
  it("405 with Allow, and the message says how a zone is created here", async () => {
    for (const path of ["/zones", "/client/v4/zones"]) {
      const res = await exports.default.fetch(`http://localhost${path}`, {
        method: "POST",
        headers: { ...ADMIN, "Content-Type": "application/json" },
        body: JSON.stringify({ name: "new.example", account: { id: "1234567890abcdef1234567890abcdef" } }),
      });
      expect(res.status).toBe(405);
      expect(res.headers.get("Allow")).toBe("GET");
      const body = await res.json<{ errors: { code: number; message: string }[] }>();
      expect(body.errors[0]?.message).toContain("PUT /zones/{zone}");
    }
  });
});
