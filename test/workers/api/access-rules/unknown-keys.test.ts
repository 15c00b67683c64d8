/**
 * Every unknown-key listing is capped (src/shared/validation.ts `IssueList`; docs/producers.md "IP access rules",
 * docs/configuration.md "API error codes"): `PUT …/access_rules` without `rules` and with 140,001 unknown keys used to
 * answer 140,001 errors (8.6 MB); it answers the first 50 and one line counting the rest, `rules must be an array`
 * first. The same holds inside a rule and its configuration, for 10,000 bad rules, and on the other validators
 * (rulesets, draft preview), whose listings stop at 20.
 */
import { beforeAll, describe, expect, it, vi } from "vitest";
import { ACCESS_RULE_LIMITS } from "../../../../src/state/zone/access-rules/validate";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { api } from "../../support/envelope";

// Bodies of 1–1.5 MB are parsed and validated several times per test.
vi.setConfig({ testTimeout: 60_000 });

/**
 * `{"_0":0,"_1":0,…}` with `n` keys: short (base 36), so 140,001 fit the access rules' body limit; the `_` keeps them
 * off every known field (`id` is 481 in base 36).
 */
const manyKeys = (n: number, extra = ""): string =>
  `{${extra}${Array.from({ length: n }, (_, i) => `"_${i.toString(36)}":0`).join(",")}}`;

let zone = "";

beforeAll(async () => {
  zone = uniqueZone("unknown-keys");
  await putZone(zone, { plan: "enterprise", origin: loopback(ports.closed) });
});

describe("PUT …/access_rules: unknown keys are listed up to the cap, then counted", () => {
  it("140,001 unknown keys and no rules: `rules` first, 49 keys, then one line counting the rest", async () => {
    const { status, text, body: envelope } = await api("PUT", `/zones/${zone}/access_rules`, manyKeys(140_001));
    expect(status).toBe(400);
    const cap = ACCESS_RULE_LIMITS.maxReported;
    expect(envelope.errors).toHaveLength(cap + 1);
    expect(envelope.errors[0]).toEqual({ code: 20026, message: "rules must be an array" });
    expect(envelope.errors[1]).toEqual({ code: 20026, message: "_0 is not a field of the body" });
    expect(envelope.errors[cap]).toEqual({ code: 20026, message: `and ${140_002 - cap} more errors not listed` });
    expect(text.length).toBeLessThan(8_000);
  });

  it("unknown keys inside a rule and inside its configuration are capped too", async () => {
    const configuration = manyKeys(60_000, '"target":"ip","value":"192.0.2.1",');
    const body = `{"rules":[{"mode":"block","configuration":${configuration},${manyKeys(60_000).slice(1)}]}`;
    const { status, text, body: envelope } = await api("PUT", `/zones/${zone}/access_rules`, body);
    expect(status).toBe(400);
    expect(envelope.errors).toHaveLength(ACCESS_RULE_LIMITS.maxReported + 1);
    expect(envelope.errors[0]?.message).toBe("rules[0]._0 is not a field of an access rule");
    expect(envelope.errors.at(-1)?.message).toBe(
      `and ${120_000 - ACCESS_RULE_LIMITS.maxReported} more errors not listed`,
    );
    expect(text.length).toBeLessThan(8_000);
  });

  it("10,000 bad rules: every rule is checked, 50 listed, the rest counted exactly", async () => {
    const rules = Array.from({ length: 10_000 }, () => ({
      mode: "block",
      configuration: { target: "ip", value: "x" },
    }));
    const { status, body: envelope } = await api("PUT", `/zones/${zone}/access_rules`, JSON.stringify({ rules }));
    expect(status).toBe(400);
    expect(envelope.errors[0]?.message).toBe(
      "rules[0].configuration.value must be one IPv4 or IPv6 address (a range needs target ip_range)",
    );
    expect(envelope.errors.at(-1)?.message).toBe(
      `and ${10_000 - ACCESS_RULE_LIMITS.maxReported} more errors not listed`,
    );
  });
});

describe("the other validators: unknown keys listed up to 20, then counted", () => {
  it("a ruleset rule with 100,000 unknown keys (PUT …/entrypoint)", async () => {
    const rule = manyKeys(100_000, '"expression":"true","action":"block",');
    const {
      status,
      text,
      body: envelope,
    } = await api(
      "PUT",
      `/zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`,
      `{"rules":[${rule}]}`,
    );
    expect(status).toBe(400);
    expect(envelope.errors).toHaveLength(21);
    expect(envelope.errors[0]).toEqual({ code: 20021, message: "rules[0]._0: is not a rule field" });
    expect(envelope.errors[20]).toEqual({ code: 20021, message: "and 99980 more errors not listed" });
    expect(text.length).toBeLessThan(4_000);
  });

  it("a draft preview's described request with 100,000 unknown keys (POST …/preview)", async () => {
    const request = manyKeys(100_000, '"code":521,');
    const { status, text, body: envelope } = await api("POST", `/zones/${zone}/preview`, `{"request":${request}}`);
    expect(status).toBe(400);
    expect(envelope.errors).toHaveLength(21);
    expect(envelope.errors[0]).toEqual({ code: 20030, message: "request._0: is not a field of a described request" });
    expect(envelope.errors[20]).toEqual({ code: 20030, message: "and 99980 more errors not listed" });
    expect(text.length).toBeLessThan(4_000);
  });
});
