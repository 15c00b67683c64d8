/**
 * `PUT /zones/{zone}/bundle` (docs/config-as-code.md "Planning", "Applying"): a bundle read and put back is no
 * change; one rule inserted is one `create`; a stale `If-Match` is 412 and changes nothing; a bundle with one bad
 * section changes nothing and names the section and field; what a plan says is what the apply does.
 */
import { describe, expect, it } from "vitest";
import { api, apiOk } from "../../support/envelope";
import { exampleZone } from "./support";

interface Change {
  readonly action: string;
  readonly ref?: string | null;
  readonly id?: string | null;
  readonly name?: string;
  readonly key?: string;
  readonly index?: number;
  readonly fields?: string[];
}
interface Plan {
  readonly changes: number;
  readonly sections: Record<string, Change[]>;
}
type Bundle = Record<string, unknown> & {
  rulesets: Record<string, { rules: Record<string, unknown>[] }>;
  settings: Record<string, unknown>;
  tags?: Record<string, string>;
  alert_policies: Record<string, Record<string, unknown>>;
};

const read = async (zone: string) => {
  const answer = await api<Bundle>("GET", `/zones/${zone}/bundle`);
  expect(answer.status).toBe(200);
  return { bundle: answer.body.result, text: answer.text, etag: answer.headers.get("ETag") ?? "" };
};
const put = (zone: string, bundle: unknown, query = "", headers: Record<string, string> = {}) =>
  api<Plan>("PUT", `/zones/${zone}/bundle${query}`, bundle, {
    Authorization: "Bearer test-admin-token",
    ...headers,
  });

describe("PUT /zones/{zone}/bundle", () => {
  it("a bundle read and put back is an empty plan and no write; the bytes stay the same", async () => {
    const zone = await exampleZone("bundle-rt");
    const before = await read(zone);
    const planned = await put(zone, before.bundle, "?plan=true", { "If-Match": before.etag });
    expect(planned.status).toBe(200);
    expect(planned.body.result).toEqual({ changes: 0, sections: {} });
    expect(planned.headers.get("ETag")).toBe(before.etag);
    const applied = await put(zone, before.bundle, "", { "If-Match": before.etag });
    expect(applied.body.result).toEqual({ changes: 0, sections: {} });
    const zoneVersion = (await apiOk<{ version: number }>("GET", `/zones/${zone}`)).result.version;
    const again = await put(zone, before.bundle);
    expect(again.body.result.changes).toBe(0);
    // Nothing was written: the zone's version did not move.
    expect((await apiOk<{ version: number }>("GET", `/zones/${zone}`)).result.version).toBe(zoneVersion);
    expect((await read(zone)).text).toBe(before.text);
  });

  it("one rule inserted is one create, applied as planned; the rules after it are not changed", async () => {
    const zone = await exampleZone("bundle-insert");
    const before = await read(zone);
    const phase = "http_request_firewall_custom";
    const existing = before.bundle.rulesets[phase]?.rules ?? [];
    const added = {
      expression: 'http.request.uri.path eq "/wp-login.php"',
      action: "block",
      description: "No WordPress",
    };
    const edited = structuredClone(before.bundle);
    edited.rulesets[phase] = { rules: [added, ...existing] };
    const planned = await put(zone, edited, "?plan=true");
    expect(planned.status).toBe(200);
    expect(planned.body.result).toEqual({
      changes: 1,
      sections: { [`rulesets.${phase}`]: [{ action: "create", ref: null, index: 0 }] },
    });
    // Planning stored nothing.
    expect((await read(zone)).text).toBe(before.text);
    const applied = await put(zone, edited, "", { "If-Match": before.etag });
    expect(applied.status).toBe(200);
    expect(applied.body.result).toEqual(planned.body.result);
    const after = await read(zone);
    expect(after.etag).not.toBe(before.etag);
    expect(applied.headers.get("ETag")).toBe(after.etag);
    const rules = after.bundle.rulesets[phase]?.rules ?? [];
    expect(rules).toHaveLength(existing.length + 1);
    expect(rules[0]).toMatchObject({ ...added, enabled: true, ref: expect.stringMatching(/^[0-9a-f]{32}$/) as string });
    expect(rules.slice(1)).toEqual(existing);
    // The zone now matches: planning the same bundle as read is empty.
    expect((await put(zone, after.bundle, "?plan=true")).body.result.changes).toBe(0);
  });

  it("names each change: settings fields, a rule's fields and position, tags, policies, access rules", async () => {
    const zone = await exampleZone("bundle-many");
    const { bundle } = await read(zone);
    const edited = structuredClone(bundle);
    edited.settings = { ...bundle.settings, read_timeout: 42 };
    const phase = "http_custom_errors";
    const [first, ...rest] = bundle.rulesets[phase]?.rules ?? [];
    edited.rulesets[phase] = { rules: [...rest, { ...first, description: "changed" }] };
    edited.tags = { env: "staging", owner: "ops" };
    const [policyId] = Object.keys(bundle.alert_policies);
    edited.alert_policies = {
      "new-policy": {
        name: "Many errors",
        kind: "threshold",
        metric: "errors",
        window_minutes: 5,
        above: 100,
        webhook: { url: "https://hooks.example.com/x" },
      },
    };
    edited.access_rules = { rules: [] };
    const planned = await put(zone, edited, "?plan=true");
    expect(planned.status).toBe(200);
    const sections = planned.body.result.sections;
    expect(sections.settings).toEqual([{ action: "update", fields: ["read_timeout"] }]);
    const ruleChanges = sections[`rulesets.${phase}`] ?? [];
    expect(ruleChanges).toContainEqual({
      action: "update",
      ref: first?.ref,
      fields: rest.length > 0 ? ["description", "position"] : ["description"],
    });
    expect(sections.tags).toEqual([
      { action: "update", key: "env" },
      { action: "create", key: "owner" },
      { action: "delete", key: "team" },
    ]);
    expect(sections.alert_policies).toEqual([
      { action: "create", id: "new-policy" },
      { action: "delete", id: policyId },
    ]);
    expect(sections.access_rules).toEqual([
      { action: "delete", id: (bundle.access_rules as { rules: { id: string }[] }).rules[0]?.id },
    ]);
    const applied = await put(zone, edited);
    expect(applied.status).toBe(200);
    const after = await read(zone);
    expect(after.bundle.settings.read_timeout).toBe(42);
    expect(after.bundle.tags).toEqual({ env: "staging", owner: "ops" });
    const policies = Object.values(after.bundle.alert_policies);
    expect(policies.map((p) => p.name)).toEqual(["Many errors"]);
    expect(after.text).not.toMatch(/whsec_/);
    // Applying it again: the new policy has its own id now; keyed by it, the plan is empty.
    expect((await put(zone, after.bundle, "?plan=true")).body.result.changes).toBe(0);
  });

  it("a stale If-Match is 412 and changes nothing", async () => {
    const zone = await exampleZone("bundle-stale");
    const before = await read(zone);
    await apiOk("PATCH", `/zones/${zone}`, { read_timeout: 30 });
    const moved = await read(zone);
    const edited = { ...before.bundle, settings: { ...before.bundle.settings, connect_timeout: 5 } };
    const refused = await put(zone, edited, "", { "If-Match": before.etag });
    expect(refused.status).toBe(412);
    expect(refused.body.errors[0]?.code).toBe(20151);
    expect((await read(zone)).text).toBe(moved.text);
  });

  it("a bundle with one bad section changes nothing and names the section and field", async () => {
    const zone = await exampleZone("bundle-bad");
    const before = await read(zone);
    // Settings valid, telemetry's endpoint not: nothing is applied.
    const badTelemetry = {
      ...before.bundle,
      settings: { ...before.bundle.settings, read_timeout: 12 },
      telemetry: { otlp: { endpoint: "ftp://otlp.example.net/v1/traces", protocol: "http/json", headers: {} } },
    };
    const refused = await put(zone, badTelemetry);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]?.code).toBe(20150);
    expect(refused.body.errors[0]?.message).toMatch(/^Invalid bundle: telemetry\.otlp\.endpoint /);
    // A rule that does not compile: refused by the rulesets API's own validator, its section named.
    const phase = "http_request_firewall_custom";
    const badRule = structuredClone(before.bundle);
    badRule.settings = { ...before.bundle.settings, read_timeout: 12 };
    badRule.rulesets[phase] = {
      rules: [
        ...(before.bundle.rulesets[phase]?.rules ?? []),
        { expression: "http.request.uri.path eq", action: "block" },
      ],
    };
    const ruleRefused = await put(zone, badRule);
    expect(ruleRefused.status).toBe(400);
    expect(ruleRefused.body.errors[0]?.code).toBe(20021);
    expect(ruleRefused.body.errors[0]?.message).toMatch(
      new RegExp(`^Bundle section rulesets\\.${phase}: rules\\[1\\]\\.expression: `),
    );
    // A field the schema refuses: named by its path.
    const unknown = await put(zone, { ...before.bundle, settings: { ...before.bundle.settings, colour: "red" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]?.message).toBe("Invalid bundle: settings.colour is not a zone setting");
    expect((await read(zone)).text).toBe(before.text);
  });

  it("refuses tags beside a move to another account; the move alone applies and reads back as planned", async () => {
    const zone = await exampleZone("bundle-move");
    const before = await read(zone);
    const other = { id: "fedcba9876543210fedcba9876543210" };
    const withTags = { ...before.bundle, settings: { ...before.bundle.settings, account: other } };
    const refused = await put(zone, withTags, "", { "If-Match": before.etag });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]?.code).toBe(20150);
    expect(refused.body.errors[0]?.message).toMatch(/^Invalid bundle: tags cannot be given in a bundle that moves/);
    expect((await read(zone)).text).toBe(before.text);
    // Without tags the move applies; the bundle read after it (the new account's tags) puts back as no change.
    const { tags: _left, ...withoutTags } = withTags;
    const applied = await put(zone, withoutTags, "", { "If-Match": before.etag });
    expect(applied.status).toBe(200);
    const after = await read(zone);
    expect(after.bundle.settings.account).toEqual(other);
    expect((await put(zone, after.bundle, "?plan=true")).body.result).toEqual({ changes: 0, sections: {} });
  });

  it("keeps telemetry secrets shown as set, and refuses a set header with no value stored", async () => {
    const zone = await exampleZone("bundle-secret");
    const before = await read(zone);
    const telemetry = before.bundle.telemetry as { otlp: Record<string, unknown>; sample: unknown };
    const edited = {
      ...before.bundle,
      telemetry: { ...telemetry, otlp: { ...telemetry.otlp, protocol: "http/json" } },
    };
    const planned = await put(zone, edited, "?plan=true");
    expect(planned.body.result.sections.telemetry).toEqual([{ action: "update", fields: ["otlp"] }]);
    expect((await put(zone, edited)).status).toBe(200);
    const after = await read(zone);
    expect((after.bundle.telemetry as { otlp: { headers: unknown } }).otlp.headers).toEqual({ "x-api-key": "set" });
    const unknownSecret = {
      ...before.bundle,
      telemetry: { ...telemetry, otlp: { ...telemetry.otlp, headers: { "x-other": "set" } } },
    };
    const refused = await put(zone, unknownSecret);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]?.message).toMatch(/^Invalid bundle: telemetry\.otlp\.headers\.x-other is "set"/);
  });
});
