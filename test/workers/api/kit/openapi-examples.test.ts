/**
 * Every request schema of the OpenAPI document carries an `example`, and that example is accepted by its route
 *: sent with the admin token to a fresh zone (created from the `ZoneSettings` example) or a fresh
 * account, it answers success. A bound in a schema that drifted from its validator, or an example the validator
 * refuses, fails here.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { apiFetch, apiOk, type Envelope } from "../../support/envelope";
import { newAccount } from "../../support/tags";
import { loopback, ports, uniqueZone } from "../../support/origin";

interface Ref {
  readonly $ref?: string;
}
interface Operation {
  readonly operationId: string;
  readonly parameters?: readonly Ref[];
  readonly requestBody?: { readonly content: Record<string, { readonly schema: Ref }> };
}
interface Doc {
  readonly paths: Record<string, Record<string, unknown>>;
  readonly components: {
    readonly parameters: Record<string, { readonly name: string; readonly example?: string }>;
    readonly schemas: Record<string, { readonly example?: unknown }>;
  };
}

const refName = (ref: Ref | undefined): string => (ref?.$ref ?? "").split("/").pop() ?? "";

describe("OpenAPI request examples", () => {
  it("every request schema has an example, and its route accepts it", async () => {
    const doc = await (await exports.default.fetch("http://localhost/openapi.json")).json<Doc>();
    const zoneExample = doc.components.schemas.ZoneSettings?.example;
    expect(zoneExample, "ZoneSettings example").toBeDefined();
    const sent: string[] = [];
    for (const [template, item] of Object.entries(doc.paths)) {
      const shared = (item.parameters ?? []) as readonly Ref[];
      for (const [method, value] of Object.entries(item)) {
        if (method === "parameters") continue;
        const op = value as Operation;
        const schemaRef = op.requestBody?.content["application/json"]?.schema;
        if (schemaRef === undefined) continue;
        const schemaName = refName(schemaRef);
        const example = doc.components.schemas[schemaName]?.example;
        expect(example, `${op.operationId}: schema ${schemaName} has no example`).toBeDefined();

        const zone = uniqueZone(`example-${op.operationId.toLowerCase()}`);
        const account = newAccount();
        const params = [...shared, ...(op.parameters ?? [])].map((p) => doc.components.parameters[refName(p)]);
        // Zone sections need their zone: created from the ZoneSettings example (a paid plan, so every phase).
        if (template.startsWith("/zones/{zone}/") || (template === "/zones/{zone}" && method === "patch")) {
          expect((await apiFetch("PUT", `/zones/${zone}`, zoneExample)).status).toBe(200);
        }
        // A custom error asset is fetched from the zone's origin and must be on the zone's host (same scope): the
        // zone points at the test origin (which serves the example's path), and the example's host is the zone's.
        let body = example;
        if (template.startsWith("/zones/{zone}/custom_pages/assets")) {
          expect((await apiFetch("PUT", `/zones/${zone}`, { plan: "pro", origin: loopback(ports.http) })).status).toBe(
            200,
          );
          body = JSON.parse(JSON.stringify(example).replaceAll("shop.example", zone)) as unknown;
          if (template.includes("{asset_name}")) {
            const create = doc.components.schemas.CustomAssetCreate?.example;
            await apiOk(
              "POST",
              `/zones/${zone}/custom_pages/assets`,
              JSON.parse(JSON.stringify(create).replaceAll("shop.example", zone)),
            );
          }
        }
        // The request tracer reaches only the account's zones: one of the account's, named by the example's URL.
        if (template === "/accounts/{account_id}/request-tracer/trace") {
          const settings = { plan: "pro", origin: loopback(ports.http), account: { id: account } };
          expect((await apiFetch("PUT", `/zones/${zone}`, settings)).status).toBe(200);
          body = JSON.parse(JSON.stringify(example).replaceAll("shop.example", zone)) as unknown;
        }
        // A ruleset's paths need one of the zone's rulesets (and its rule): made from the create example.
        const ids: Record<string, string> = {};
        if (template.includes("{ruleset_id}")) {
          const created = await apiFetch(
            "POST",
            `/zones/${zone}/rulesets`,
            doc.components.schemas.RulesetCreateBody?.example,
          );
          const ruleset = (await created.json<Envelope<{ id: string; rules: { id: string }[] }>>()).result;
          ids.ruleset_id = ruleset?.id ?? "";
          ids.rule_id = ruleset?.rules[0]?.id ?? "";
        }
        // An IP access rule's paths need one of the zone's rules: made from the create example.
        if (template.includes("/firewall/access_rules/rules/{rule_id}")) {
          const created = await apiOk<{ id: string }>(
            "POST",
            `/zones/${zone}/firewall/access_rules/rules`,
            doc.components.schemas.AccessRuleCreate?.example,
          );
          ids.rule_id = created.result.id;
        }
        // An alert policy's paths need one of the zone's policies: made from the create example.
        if (template.includes("{alert_id}")) {
          const created = await apiFetch("POST", `/zones/${zone}/analytics/alerts`, example);
          ids.alert_id = (await created.json<Envelope<{ id: string }>>()).result?.id ?? "";
        }
        const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
          if (name === "zone") return zone;
          if (name === "account_id") return account;
          if (ids[name] !== undefined) return ids[name];
          const declared = params.find((p) => p?.name === name)?.example;
          expect(declared, `${op.operationId}: path parameter ${name} has no example`).toBeDefined();
          return encodeURIComponent(declared ?? "");
        });
        const res = await apiFetch(method.toUpperCase(), path, body);
        const text = await res.text();
        expect([200, 204], `${op.operationId} ${method.toUpperCase()} ${path}: ${text}`).toContain(res.status);
        if (res.status === 200) expect((JSON.parse(text) as Envelope).success, op.operationId).toBe(true);
        sent.push(op.operationId);
      }
    }
    // Every body-taking operation of the API, so a new one cannot slip past without an example.
    expect(sent.sort()).toEqual(
      [
        "deleteResourceTags",
        "previewDraft",
        "previewReplay",
        "putAccessRules",
        "createZoneAccessRule",
        "editZoneAccessRule",
        "createCustomAsset",
        "updateCustomAsset",
        "createRuleset",
        "updateRuleset",
        "createRulesetRule",
        "createRequestTrace",
        "editRulesetRule",
        "putCustomPage",
        "putPhaseEntrypoint",
        "putTelemetry",
        "putUrlNormalization",
        "putZoneAnalyticsSettings",
        "putZoneBundle",
        "patchZone",
        "createZoneAlert",
        "updateZoneAlert",
        "putZone",
        "setResourceTags",
        "patchResourceTags",
        "bulkEditTags",
        "setTagPolicy",
        "setZoneResourceTags",
        "patchZoneResourceTags",
      ].sort(),
    );
  });
});
