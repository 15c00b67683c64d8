/**
 * `GET /zones/{zone}/bundle` (docs/config-as-code.md "The bundle"): every section, deterministic bytes, a strong
 * ETag that moves only with the configuration, and no secret.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../../src/index";
import { tokenDigestHex } from "../../../../src/api/kit/auth";
import example from "../../../../fixtures/example-zone.json";
import { api, apiOk, entrypoint } from "../../support/envelope";
import { uniqueZone } from "../../support/origin";
import { exampleZone, TELEMETRY_SECRET } from "./support";

interface Bundle {
  readonly zone: string;
  readonly settings: Record<string, unknown>;
  readonly rulesets: Record<string, { rules: Record<string, unknown>[] }>;
  readonly custom_pages: Record<string, { state: string; content?: string }>;
  readonly custom_assets: Record<string, unknown>;
  readonly access_rules: { rules: Record<string, unknown>[] };
  readonly url_normalization: unknown;
  readonly telemetry: { otlp: { headers: Record<string, string> } } | null;
  readonly alert_policies: Record<string, Record<string, unknown>>;
  readonly tags?: Record<string, string>;
}

const bundleOf = (zone: string) => api<Bundle>("GET", `/zones/${zone}/bundle`);

describe("GET /zones/{zone}/bundle", () => {
  it("shows every section of the example zone, rules by ref, without stamps or secrets", async () => {
    const zone = await exampleZone();
    const read = await bundleOf(zone);
    expect(read.status).toBe(200);
    const b = read.body.result;
    expect(Object.keys(b)).toEqual([
      "access_rules",
      "alert_policies",
      "custom_assets",
      "custom_pages",
      "rulesets",
      "settings",
      "tags",
      "telemetry",
      "url_normalization",
      "zone",
    ]);
    expect(b.zone).toBe(zone);
    expect(b.settings).toMatchObject({ plan: "pro", origin: "http://127.0.0.1:9", account: example.settings.account });
    const firewall = b.rulesets.http_request_firewall_custom?.rules ?? [];
    expect(firewall).toHaveLength(1);
    const { ref, ...rule } = firewall[0] ?? {};
    expect(ref).toMatch(/^[0-9a-f]{32}$/);
    expect(rule).toEqual({
      action: "block",
      description: example.rulesets.http_request_firewall_custom.rules[0]?.description,
      enabled: true,
      expression: example.rulesets.http_request_firewall_custom.rules[0]?.expression,
    });
    // The ref is the rule's id in the rulesets API.
    const listed = await apiOk<{ rules: { id: string }[] }>("GET", entrypoint(zone, "http_request_firewall_custom"));
    expect(ref).toBe(listed.result.rules[0]?.id);
    expect(b.custom_pages["500_errors"]).toEqual({ state: "customized", content: example.custom_pages["500_errors"] });
    expect(b.custom_pages["1000_errors"]).toEqual({ state: "default" });
    const [accessRule, ...others] = b.access_rules.rules;
    const { id, ...shown } = accessRule ?? {};
    expect(others).toEqual([]);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(shown).toEqual(example.access_rules.rules[0]);
    expect(b.url_normalization).toBeNull();
    expect(b.telemetry?.otlp.headers).toEqual({ "x-api-key": "set" });
    const policies = Object.values(b.alert_policies);
    expect(policies).toHaveLength(1);
    expect(policies[0]).toMatchObject({ name: "Origin failing", kind: "threshold" });
    expect(Object.keys(policies[0]?.webhook as object)).toEqual(["url"]);
    expect(b.tags).toEqual({ env: "production", team: "shop" });
    expect(read.text).not.toContain(TELEMETRY_SECRET);
    expect(read.text).not.toMatch(/whsec_|last_updated|modified_on|"version"|"state":\{/);
  });

  it("is the same bytes and ETag on every read, and a change moves both", async () => {
    const zone = await exampleZone();
    const first = await bundleOf(zone);
    const second = await bundleOf(zone);
    expect(second.text).toBe(first.text);
    const etag = first.headers.get("ETag");
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(second.headers.get("ETag")).toBe(etag);
    // A write that changes nothing (the same settings again) stamps a new version, not a new bundle.
    await apiOk("PUT", `/zones/${zone}`, { ...example.settings, origin: "http://127.0.0.1:9" });
    const same = await bundleOf(zone);
    expect(same.text).toBe(first.text);
    expect(same.headers.get("ETag")).toBe(etag);
    await apiOk("PATCH", `/zones/${zone}`, { read_timeout: 30 });
    const changed = await bundleOf(zone);
    expect(changed.headers.get("ETag")).not.toBe(etag);
    expect(changed.body.result.settings.read_timeout).toBe(30);
  });

  it("leaves tags out for a token without tags:read, and answers 404 for a zone not configured", async () => {
    const missing = await bundleOf(uniqueZone("none"));
    expect(missing.status).toBe(404);
    const tagged = await exampleZone();
    const tokens = [
      { name: "zones-only", sha256: await tokenDigestHex("tok-zones"), zones: [tagged], permissions: ["zones:read"] },
    ];
    const request = new Request(`http://localhost/zones/${tagged}/bundle`, {
      headers: { Authorization: "Bearer tok-zones" },
    });
    const scoped = await worker.fetch(
      request,
      { ...env, API_TOKENS: JSON.stringify(tokens) },
      createExecutionContext(),
    );
    expect(scoped.status).toBe(200);
    const withoutTags = (await scoped.json<{ result: Bundle }>()).result;
    expect(withoutTags.tags).toBeUndefined();
    expect(withoutTags.settings).toEqual((await bundleOf(tagged)).body.result.settings);
    const zone = uniqueZone("plain");
    await apiOk("PUT", `/zones/${zone}`, { plan: "free", origin: "http://127.0.0.1:9" });
    const plain = await bundleOf(zone);
    expect(plain.body.result.tags).toBeUndefined();
    expect(plain.body.result.rulesets).toEqual({
      http_custom_errors: { rules: [] },
      http_request_firewall_custom: { rules: [] },
      http_ratelimit: { rules: [] },
    });
  });
});
