/**
 * `GET/PUT /zones/{zone}/rulesets/phases/{phase}/entrypoint` (docs/custom-errors.md, docs/producers.md, docs/configuration.md) through the real Worker, the
 * real zone writer and real KV: published shapes, plan gating, limits, exact expression positions, nothing stored
 * on a refusal, and concurrent writes that lose nothing.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { uniqueZone } from "../../support/origin";
import { api as apiCall } from "../../support/envelope";

interface Rule {
  id: string;
  ref: string;
  version: string;
  expression: string;
  action: string;
  enabled: boolean;
  last_updated: string;
  action_parameters?: Record<string, unknown>;
}
interface Ruleset {
  id: string;
  kind: string;
  phase: string;
  version: string;
  rules: Rule[];
}

/** The shared `api`, its result a ruleset unless told otherwise (`null` on a failure). */
const api = <T = Ruleset>(method: string, path: string, body?: unknown) => apiCall<T | null>(method, path, body);

async function zone(plan = "pro"): Promise<string> {
  const name = uniqueZone("rulesets");
  expect((await api("PUT", `/zones/${name}`, { plan, origin: "http://o.example" })).status).toBe(200);
  return name;
}

const entry = (z: string, phase = "http_custom_errors") => `/zones/${z}/rulesets/phases/${phase}/entrypoint`;
const serve = (expression: string, content = '{"error":true}', extra: Record<string, unknown> = {}) => ({
  expression,
  action: "serve_error",
  action_parameters: { content, content_type: "application/json", ...extra },
});

describe("custom error rules: shapes and history", () => {
  it("stores a ruleset and answers it in the published shape; GET returns the same", async () => {
    const z = await zone();
    const put = await api("PUT", entry(z), {
      rules: [serve('edge.response.error_type eq "5xx"', "{}", { status_code: 503 })],
    });
    expect(put.status).toBe(200);
    const ruleset = put.body.result!;
    expect(ruleset).toMatchObject({ kind: "zone", phase: "http_custom_errors", version: "1" });
    expect(ruleset.rules[0]).toMatchObject({
      version: "1",
      expression: 'edge.response.error_type eq "5xx"',
      action: "serve_error",
      enabled: true,
      action_parameters: { content: "{}", content_type: "application/json", status_code: 503 },
    });
    expect(ruleset.rules[0]?.id).toMatch(/^[0-9a-f]{32}$/);
    expect(ruleset.rules[0]?.ref).toBe(ruleset.rules[0]?.id);
    expect((await api("GET", entry(z))).body.result).toEqual(ruleset);
  });

  it("a rule sent back with its id keeps its version when unchanged and bumps it when changed", async () => {
    const z = await zone();
    const first = (await api("PUT", entry(z), { rules: [serve("true"), serve("not true")] })).body.result!;
    const [a, b] = first.rules;
    const secondRes = await api("PUT", entry(z), {
      rules: [
        { ...serve("true"), id: a!.id },
        { ...serve('http.host eq "x"'), id: b!.id },
      ],
    });
    expect(secondRes.body.errors).toEqual([]);
    const second = secondRes.body.result!;
    expect(second.version).toBe("2");
    expect(second.rules.map((r) => [r.id, r.version])).toEqual([
      [a!.id, "1"],
      [b!.id, "2"],
    ]);
  });

  it("an empty phase answers an empty ruleset (version 0); an unknown zone 404", async () => {
    const z = await zone();
    expect((await api("GET", entry(z, "http_ratelimit"))).body.result).toMatchObject({ version: "0", rules: [] });
    expect((await api("GET", entry("no-such-zone.example"))).status).toBe(404);
  });
});

describe("refusals name the problem and store nothing", () => {
  async function refused(z: string, phase: string, body: unknown, status: number, code: number, message: RegExp) {
    const before = await env.CONFIG.get(`zone:${z}`);
    const res = await api("PUT", entry(z, phase), body);
    expect(res.status).toBe(status);
    expect(res.body.success).toBe(false);
    expect(
      res.body.errors.some((e) => e.code === code && message.test(e.message)),
      JSON.stringify(res.body.errors),
    ).toBe(true);
    expect(await env.CONFIG.get(`zone:${z}`)).toBe(before);
  }

  it("an invalid expression: rule index, 1-based line and column, what was expected", async () => {
    const z = await zone();
    await refused(
      z,
      "http_custom_errors",
      { rules: [serve("true"), serve('http.host eq "a"\nand (')] },
      400,
      20021,
      /^rules\[1\]\.expression: 2:6: /,
    );
    await refused(
      z,
      "http_custom_errors",
      { rules: [serve("http.nope eq 1")] },
      400,
      20021,
      /^rules\[0\]\.expression: 1:1: .*http\.nope/,
    );
    await refused(
      z,
      "http_custom_errors",
      { rules: [serve('http.host matches "(?=a)"')] },
      400,
      20021,
      /^rules\[0\]\.expression: 1:/,
    );
  });

  it("the response fields are not available to the request phases", async () => {
    const z = await zone();
    await refused(
      z,
      "http_request_firewall_custom",
      { rules: [{ expression: "http.response.code eq 500", action: "block" }] },
      400,
      20021,
      /rules\[0\]\.expression: 1:1:/,
    );
  });

  it.each<[string, unknown, RegExp]>([
    ["content over 10,240 bytes", { rules: [serve("true", "x".repeat(10_241))] }, /action_parameters\.content/],
    ["empty content", { rules: [serve("true", "")] }, /action_parameters\.content/],
    [
      "another content type",
      { rules: [{ ...serve("true"), action_parameters: { content: "x", content_type: "image/png" } }] },
      /content_type/,
    ],
    ["status_code 600", { rules: [serve("true", "x", { status_code: 600 })] }, /status_code/],
    ["status_code 399", { rules: [serve("true", "x", { status_code: 399 })] }, /status_code/],
    ["the wrong action", { rules: [{ expression: "true", action: "block" }] }, /action/],
    ["an unknown rule field", { rules: [{ ...serve("true"), colour: "red" }] }, /rules\[0\]\.colour/],
    ["rules not an array", { rules: {} }, /rules/],
    ["a malformed id", { rules: [{ ...serve("true"), id: "x" }] }, /rules\[0\]\.id/],
  ])("%s", async (_name, body, message) => {
    await refused(await zone(), "http_custom_errors", body, 400, 20021, message);
  });

  it("malformed JSON → 400, an unknown phase → 400, nothing stored", async () => {
    const z = await zone();
    const before = await env.CONFIG.get(`zone:${z}`);
    const malformed = await api("PUT", entry(z), "{nope");
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors.map((e) => e.code)).toEqual([10002]);
    const unknown = await api("PUT", entry(z, "http_nope"), { rules: [] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]?.code).toBe(20022);
    expect(await env.CONFIG.get(`zone:${z}`)).toBe(before);
  });

  it("lists at most 20 errors (20021) and counts the rest in one more line (one capped issue list)", async () => {
    const z = await zone();
    const rules = Array.from({ length: 25 }, () => ({ expression: "nope ==", action: "block" }));
    const res = await api("PUT", entry(z, "http_request_firewall_custom"), { rules });
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveLength(21);
    expect(res.body.errors.every((e) => e.code === 20021)).toBe(true);
    expect(res.body.errors[0]?.message).toMatch(/^rules\[0\]\.expression: 1:/);
    expect(res.body.errors[20]?.message).toBe("and 5 more errors not listed");
  });

  it("free plan: custom error rules 403 (1100); at most 5 firewall rules and 1 rate-limiting rule", async () => {
    const z = await zone("free");
    await refused(z, "http_custom_errors", { rules: [serve("true")] }, 403, 1100, /free plan/);
    const block = { expression: "true", action: "block" };
    expect((await api("PUT", entry(z, "http_request_firewall_custom"), { rules: Array(5).fill(block) })).status).toBe(
      200,
    );
    await refused(z, "http_request_firewall_custom", { rules: Array(6).fill(block) }, 400, 20021, /at most 5 rules/);
    const limit = {
      ...block,
      ratelimit: { characteristics: ["ip.src"], period: 10, requests_per_period: 5, mitigation_timeout: 60 },
    };
    expect((await api("PUT", entry(z, "http_ratelimit"), { rules: [limit] })).status).toBe(200);
    await refused(z, "http_ratelimit", { rules: [limit, limit] }, 400, 20021, /at most 1 rules/);
  });

  it("pro plan: at most 25 custom error rules", async () => {
    const z = await zone("pro");
    expect((await api("PUT", entry(z), { rules: Array(25).fill(serve("true")) })).status).toBe(200);
    await refused(z, "http_custom_errors", { rules: Array(26).fill(serve("true")) }, 400, 20021, /at most 25 rules/);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ["period 0", { period: 0 }, /ratelimit\.period/],
    ["mitigation over 3600 s", { mitigation_timeout: 3601 }, /ratelimit\.mitigation_timeout/],
    ["an unsupported characteristic", { characteristics: ["cf.unique_visitor_id"] }, /ratelimit\.characteristics\[0\]/],
    ["no characteristic", { characteristics: [] }, /ratelimit\.characteristics/],
    ["a repeated characteristic", { characteristics: ["ip.src", "ip.src"] }, /must not repeat/],
    ["an upper-case header name", { characteristics: ['http.request.headers["X-Key"]'] }, /lower-case/],
    ["a fractional count", { requests_per_period: 1.5 }, /ratelimit\.requests_per_period/],
  ])("rate limiting: %s", async (_name, change, message) => {
    const ratelimit = {
      characteristics: ["ip.src"],
      period: 10,
      requests_per_period: 5,
      mitigation_timeout: 60,
      ...change,
    };
    await refused(
      await zone(),
      "http_ratelimit",
      { rules: [{ expression: "true", action: "block", ratelimit }] },
      400,
      20021,
      message,
    );
  });
});

describe("concurrent writes of one zone lose nothing (docs/configuration.md)", () => {
  it("three phases and a settings change written at once all land", async () => {
    const z = await zone("business");
    const limit = { characteristics: ["ip.src"], period: 10, requests_per_period: 5, mitigation_timeout: 60 };
    const results = await Promise.all([
      api("PUT", entry(z), { rules: [serve("true")] }),
      api("PUT", entry(z, "http_request_firewall_custom"), { rules: [{ expression: "true", action: "block" }] }),
      api("PUT", entry(z, "http_ratelimit"), { rules: [{ expression: "true", action: "block", ratelimit: limit }] }),
      api("PUT", `/zones/${z}`, { plan: "business", origin: "http://other.example" }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    for (const phase of ["http_custom_errors", "http_request_firewall_custom", "http_ratelimit"]) {
      expect((await api("GET", entry(z, phase))).body.result?.rules).toHaveLength(1);
    }
    const stored = JSON.parse((await env.CONFIG.get(`zone:${z}`)) ?? "{}") as Record<string, unknown>;
    expect(stored).toMatchObject({ version: 5, settings: { origin: "http://other.example" } });
  });
});
