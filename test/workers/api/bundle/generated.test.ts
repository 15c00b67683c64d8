/**
 * Generated zones (fast-check): whatever the configuration, a zone written from a bundle reads back as a bundle that,
 * put back, plans no change and writes nothing, and reads back byte-identical (docs/config-as-code.md "Planning").
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { api, apiOk } from "../../support/envelope";
import { uniqueZone } from "../../support/origin";

interface Plan {
  readonly changes: number;
  readonly sections: Record<string, unknown[]>;
}

const text = fc.string({ maxLength: 40 });
const path = fc.stringMatching(/^\/[a-z0-9]{1,12}$/);

const firewallRule = fc.record(
  {
    expression: path.map((p) => `starts_with(http.request.uri.path, "${p}")`),
    action: fc.constant("block"),
    description: text,
    enabled: fc.boolean(),
  },
  { requiredKeys: ["expression", "action"] },
);

const customErrorRule = fc.record({
  expression: fc.constantFrom('edge.response.error_type eq "5xx"', "http.response.code eq 502", "true"),
  action: fc.constant("serve_error"),
  action_parameters: fc.record({
    content: text.map((t) => JSON.stringify({ error: t })),
    content_type: fc.constant("application/json"),
    status_code: fc.integer({ min: 500, max: 599 }),
  }),
  description: text,
});

const accessRule = fc.record(
  {
    mode: fc.constant("block"),
    configuration: fc.oneof(
      fc.ipV4().map((value) => ({ target: "ip", value })),
      fc.constantFrom("AQ", "FR", "JP").map((value) => ({ target: "country", value })),
    ),
    notes: text,
  },
  { requiredKeys: ["mode", "configuration"] },
);

const bundle = fc.record(
  {
    settings: fc.record(
      {
        plan: fc.constantFrom("pro", "business", "enterprise"),
        origin: fc.constant("http://127.0.0.1:9"),
        read_timeout: fc.integer({ min: 1, max: 6000 }),
        retry_hints: fc.constantFrom("published", "agent", "auto"),
        languages: fc.uniqueArray(fc.constantFrom("en", "de", "fr", "ja"), { minLength: 1, maxLength: 4 }),
      },
      { requiredKeys: ["plan", "origin"] },
    ),
    rulesets: fc.record({
      http_request_firewall_custom: fc.record({ rules: fc.array(firewallRule, { maxLength: 5 }) }),
      http_custom_errors: fc.record({ rules: fc.array(customErrorRule, { maxLength: 3 }) }),
    }),
    access_rules: fc.record({
      rules: fc.uniqueArray(accessRule, { maxLength: 5, selector: (r) => JSON.stringify(r.configuration) }),
    }),
    url_normalization: fc.option(
      fc.record({ scope: fc.constantFrom("incoming", "both", "none"), type: fc.constantFrom("rfc3986", "cloudflare") }),
      { nil: null },
    ),
  },
  { requiredKeys: ["settings"] },
);

describe("generated zones", () => {
  it("pull → apply → pull is byte-identical and the plan is empty", async () => {
    await fc.assert(
      fc.asyncProperty(bundle, async (generated) => {
        const zone = uniqueZone("generated");
        await apiOk("PUT", `/zones/${zone}`, { plan: "pro", origin: "http://127.0.0.1:9" });
        const written = await api<Plan>("PUT", `/zones/${zone}/bundle`, generated);
        expect(written.status, written.text).toBe(200);
        const pulled = await api<Record<string, unknown>>("GET", `/zones/${zone}/bundle`);
        const version = (await apiOk<{ version: number }>("GET", `/zones/${zone}`)).result.version;
        const plan = await api<Plan>("PUT", `/zones/${zone}/bundle?plan=true`, pulled.body.result);
        expect(plan.body.result, JSON.stringify(plan.body.result)).toEqual({ changes: 0, sections: {} });
        const applied = await api<Plan>("PUT", `/zones/${zone}/bundle`, pulled.body.result, {
          Authorization: "Bearer test-admin-token",
          "If-Match": pulled.headers.get("ETag") ?? "",
        });
        expect(applied.body.result.changes).toBe(0);
        expect((await apiOk<{ version: number }>("GET", `/zones/${zone}`)).result.version).toBe(version);
        const again = await api("GET", `/zones/${zone}/bundle`);
        expect(again.text).toBe(pulled.text);
        // The generated settings, defaults left out, are the zone's now (its rules and access rules had no ids:
        // sent again, they would be new ones).
        const settings = { settings: generated.settings };
        expect((await api<Plan>("PUT", `/zones/${zone}/bundle?plan=true`, settings)).body.result.changes).toBe(0);
      }),
      { numRuns: 12 },
    );
  });
});
