/**
 * The official client (`cloudflare` npm package, exact-pinned devDependency) drives every endpoint of the Rulesets
 * API (docs/configuration.md; docs/rulesets-api.md) against the real Worker, real zone writer and real KV, inside workerd:
 * its `fetch` is the Worker's own, so nothing leaves the process. Every call is the client's as published; what it
 * returns is read through its own types.
 */
import Cloudflare from "cloudflare";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { putZone, uniqueZone } from "../../support/origin";

const client = new Cloudflare({
  apiToken: "test-admin-token",
  baseURL: "http://localhost/client/v4",
  fetch: (url, init) => exports.default.fetch(url, init),
  maxRetries: 0,
});

async function zone(): Promise<string> {
  const name = uniqueZone("client");
  await putZone(name, { origin: "http://o.example" });
  return name;
}

const serve = (expression: string, content: string) => ({
  expression,
  action: "serve_error" as const,
  action_parameters: { content, content_type: "application/json" as const, status_code: 503 },
});

const ids = (ruleset: unknown): string[] => ((ruleset as { rules: { id: string }[] }).rules ?? []).map((r) => r.id);
const expressions = (ruleset: unknown): string[] =>
  ((ruleset as { rules: { expression: string }[] }).rules ?? []).map((r) => r.expression);
interface Shown {
  id: string;
  version: string;
  name: string;
  phase: string;
  kind: string;
}
const shown = (ruleset: unknown): Shown => ruleset as Shown;

describe("the official client drives the Rulesets API", () => {
  it("create, list, get, update, add/edit/delete a rule, versions, delete", async () => {
    const zone_id = await zone();
    const created = shown(
      await client.rulesets.create({
        zone_id,
        kind: "zone",
        name: "Custom errors",
        description: "Ours",
        phase: "http_custom_errors",
        rules: [serve('http.request.uri.path eq "/a"', '{"a":1}')],
      }),
    );
    expect(created).toMatchObject({ kind: "zone", phase: "http_custom_errors", version: "1", name: "Custom errors" });
    expect(created.id).toMatch(/^[0-9a-f]{32}$/);

    const listed = [];
    for await (const ruleset of client.rulesets.list({ zone_id })) listed.push(ruleset);
    expect(listed).toEqual([
      {
        id: created.id,
        name: "Custom errors",
        description: "Ours",
        kind: "zone",
        phase: "http_custom_errors",
        version: "1",
        last_updated: expect.any(String) as string,
      },
    ]);
    expect(await client.rulesets.get(created.id, { zone_id })).toEqual(created);
    // The entry point is the same ruleset, with the same ids.
    expect(await client.rulesets.phases.get("http_custom_errors", { zone_id })).toEqual(created);

    // Add at index 1 (first), then one after it, then one last (no position).
    const [a] = ids(created);
    const v2 = await client.rulesets.rules.create(created.id, {
      zone_id,
      ...serve('http.request.uri.path eq "/b"', '{"b":1}'),
      position: { index: 1 },
    });
    expect(shown(v2).version).toBe("2");
    const [b] = ids(v2);
    expect(ids(v2)).toEqual([b, a]);
    const v3 = await client.rulesets.rules.create(created.id, {
      zone_id,
      ...serve('http.request.uri.path eq "/c"', '{"c":1}'),
      position: { after: b! },
    });
    const c = ids(v3)[1];
    expect(ids(v3)).toEqual([b, c, a]);
    const v4 = await client.rulesets.rules.create(created.id, {
      zone_id,
      ...serve('http.request.uri.path eq "/d"', '{"d":1}'),
    });
    const d = ids(v4)[3];
    expect(ids(v4)).toEqual([b, c, a, d]);

    // Move (position only: the definition is kept), then a new definition in place.
    const v5 = await client.rulesets.rules.edit(d!, { zone_id, ruleset_id: created.id, position: { before: "" } });
    expect(ids(v5)).toEqual([d, b, c, a]);
    expect(expressions(v5)[0]).toBe('http.request.uri.path eq "/d"');
    const v6 = await client.rulesets.rules.edit(c!, {
      zone_id,
      ruleset_id: created.id,
      ...serve('http.request.uri.path eq "/c2"', '{"c":2}'),
    });
    expect(ids(v6)).toEqual([d, b, c, a]);
    const edited = (v6 as { rules: { id: string; version: string; expression: string }[] }).rules[2];
    expect(edited).toMatchObject({ id: c, version: "2", expression: 'http.request.uri.path eq "/c2"' });
    const v7 = await client.rulesets.rules.delete(b!, { zone_id, ruleset_id: created.id });
    expect(ids(v7)).toEqual([d, c, a]);
    expect(shown(v7).version).toBe("7");

    // Replace the whole ruleset by id.
    const v8 = shown(
      await client.rulesets.update(created.id, {
        zone_id,
        kind: "zone",
        name: "Renamed",
        phase: "http_custom_errors",
        rules: [{ id: a!, ...serve('http.request.uri.path eq "/a"', '{"a":1}') }],
      }),
    );
    expect(v8).toMatchObject({ id: created.id, version: "8", name: "Renamed" });
    expect(ids(v8)).toEqual([a]);

    // Versions: one per write, oldest first; each as it was.
    const versions = [];
    for await (const v of client.rulesets.versions.list(created.id, { zone_id })) versions.push(v);
    expect(versions.map((v) => v.version)).toEqual(["1", "2", "3", "4", "5", "6", "7", "8"]);
    expect(versions.every((v) => v.id === created.id && v.kind === "zone")).toBe(true);
    expect(versions[0]?.name).toBe("Custom errors");
    expect(versions[7]?.name).toBe("Renamed");
    const v3again = await client.rulesets.versions.get("3", { zone_id, ruleset_id: created.id });
    expect(v3again).toEqual(v3);
    const phaseVersions = [];
    for await (const v of client.rulesets.phases.versions.list("http_custom_errors", { zone_id })) {
      phaseVersions.push(v);
    }
    expect(phaseVersions).toEqual(versions);
    expect(await client.rulesets.phases.versions.get("5", { zone_id, ruleset_phase: "http_custom_errors" })).toEqual(
      v5,
    );

    // Delete a past version: gone, numbers never reused; the current one cannot be deleted.
    await client.rulesets.versions.delete("3", { zone_id, ruleset_id: created.id });
    await expect(client.rulesets.versions.get("3", { zone_id, ruleset_id: created.id })).rejects.toMatchObject({
      status: 404,
    });
    await expect(client.rulesets.versions.delete("8", { zone_id, ruleset_id: created.id })).rejects.toMatchObject({
      status: 400,
    });
    const after = [];
    for await (const v of client.rulesets.versions.list(created.id, { zone_id })) after.push(v.version);
    expect(after).toEqual(["1", "2", "4", "5", "6", "7", "8"]);
    const v9 = await client.rulesets.rules.delete(a!, { zone_id, ruleset_id: created.id });
    expect(shown(v9).version).toBe("9");

    // Delete the ruleset: gone with its versions; the phase can be created again (a new id).
    await client.rulesets.delete(created.id, { zone_id });
    await expect(client.rulesets.get(created.id, { zone_id })).rejects.toMatchObject({ status: 404 });
    await expect(client.rulesets.versions.list(created.id, { zone_id })).rejects.toMatchObject({ status: 404 });
    const list = [];
    for await (const r of client.rulesets.list({ zone_id })) list.push(r);
    expect(list).toEqual([]);
    const again = shown(
      await client.rulesets.create({ zone_id, kind: "zone", name: "Again", phase: "http_custom_errors" }),
    );
    expect(again.id).not.toBe(created.id);
    expect(again.version).toBe("1");
  });

  it("dry_run on every write: result null (204 stays 204), nothing stored, no version", async () => {
    const zone_id = await zone();
    const base = shown(
      await client.rulesets.phases.update("http_request_firewall_custom", {
        zone_id,
        rules: [{ expression: 'http.request.uri.path eq "/x"', action: "block" }],
      }),
    );
    const [x] = ids(base);
    const dry = { zone_id, dry_run: true };
    expect(
      await client.rulesets.create({
        ...dry,
        kind: "zone",
        name: "Limits",
        phase: "http_ratelimit",
        rules: [],
      }),
    ).toBeNull();
    expect(
      await client.rulesets.update(base.id, {
        ...dry,
        kind: "zone",
        name: "N",
        phase: "http_request_firewall_custom",
        rules: [],
      }),
    ).toBeNull();
    expect(
      await client.rulesets.rules.create(base.id, {
        ...dry,
        expression: 'http.request.uri.path eq "/y"',
        action: "block",
      }),
    ).toBeNull();
    expect(
      await client.rulesets.rules.edit(x!, {
        ...dry,
        ruleset_id: base.id,
        expression: 'http.request.uri.path eq "/z"',
        action: "block",
      }),
    ).toBeNull();
    expect(await client.rulesets.rules.delete(x!, { ...dry, ruleset_id: base.id })).toBeNull();
    expect(await client.rulesets.phases.update("http_request_firewall_custom", { ...dry, rules: [] })).toBeNull();
    await client.rulesets.versions.delete("1", { ...dry, ruleset_id: base.id }).catch((e: unknown) => e);
    await client.rulesets.delete(base.id, dry);
    // Nothing changed: same ruleset, one version, one ruleset listed.
    expect(await client.rulesets.get(base.id, { zone_id })).toEqual(base);
    const versions = [];
    for await (const v of client.rulesets.versions.list(base.id, { zone_id })) versions.push(v.version);
    expect(versions).toEqual(["1"]);
    const list = [];
    for await (const r of client.rulesets.list({ zone_id })) list.push(r.id);
    expect(list).toEqual([base.id]);
    // A dry run that would fail fails as the write would (validation is the write's own).
    await expect(
      client.rulesets.rules.create(base.id, { ...dry, expression: "http.nope eq 1", action: "block" }),
    ).rejects.toMatchObject({ status: 400 });
  });
});
