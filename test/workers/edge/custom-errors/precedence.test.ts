/**
 * Precedence of docs/custom-errors.md (docs/custom-errors.md scenario table) through the real Worker: zone traffic to an origin
 * that refuses connections (a real 521), origin error responses, and both preview endpoints, which must answer
 * exactly what traffic gets.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN, loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { CUSTOM_CONTENT_POLICY } from "../../../../src/errors/headers";
import { apiFetch, apiOk } from "../../support/envelope";

const PAGE_500 =
  "<!DOCTYPE html><html><head><title>Shop is down</title></head><body><p>Sorry! ray ::RAY_ID:: ip ::CLIENT_IP:: geo ::GEO::</p>::EDGE_ERROR_500S_BOX::</body></html>";
const JSON_RULE = {
  expression: 'any(http.request.headers["accept"][*] contains "application/json") and http.response.code eq 521',
  action: "serve_error",
  action_parameters: { content: '{"shop":"down","ray":"::RAY_ID::"}', content_type: "application/json" },
};

/**
 * An operator's content carries the sandbox policy (docs/custom-errors.md "Operator content runs sandboxed"): script
 * allowed, the same origin never (`allow-same-origin` would give the content the serving host's origin back).
 */
function expectSandboxed(res: Response): void {
  const policy = res.headers.get("Content-Security-Policy") ?? "";
  expect(policy).toBe(CUSTOM_CONTENT_POLICY);
  expect(policy.split(/\s+/)).toEqual(expect.arrayContaining(["sandbox", "allow-scripts"]));
  expect(policy).not.toContain("allow-same-origin");
}

interface Config {
  readonly plan?: string;
  readonly page?: boolean;
  readonly rules?: readonly unknown[];
}

/** A zone whose origin refuses connections (521), configured as asked. */
async function zoneWith(config: Config): Promise<string> {
  const zone = uniqueZone("precedence");
  await putZone(zone, { plan: config.plan ?? "pro", origin: loopback(ports.closed), connect_timeout: 2 });
  if (config.rules) {
    await apiOk("PUT", `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`, { rules: config.rules });
  }
  if (config.page) {
    await apiOk("PUT", `/zones/${zone}/custom_pages/500_errors`, { state: "customized", content: PAGE_500 });
  }
  return zone;
}

const traffic = (zone: string, accept?: string, extra: Record<string, string> = {}) =>
  exports.default.fetch(`http://${zone}/checkout`, { headers: { ...(accept ? { Accept: accept } : {}), ...extra } });

type Expected = "default-json" | "default-markdown" | "default-html" | "page" | "rule";

async function kindOf(res: Response): Promise<Expected> {
  const type = res.headers.get("Content-Type") ?? "";
  const body = await res.text();
  if (body.startsWith('{"shop":"down"')) return "rule";
  if (body.includes("Shop is down")) return "page";
  if (type.startsWith("application/json")) return "default-json";
  if (type.startsWith("text/markdown")) return "default-markdown";
  return "default-html";
}

describe("docs/custom-errors.md scenario table (docs/custom-errors.md)", () => {
  const rows: [string, Config, [Expected, Expected, Expected, Expected]][] = [
    ["no page, no rules", {}, ["default-json", "default-markdown", "default-html", "default-html"]],
    ["page only", { page: true }, ["page", "page", "page", "page"]],
    ["rule (JSON clients) only", { rules: [JSON_RULE] }, ["rule", "default-markdown", "default-html", "default-html"]],
    ["rule + page", { rules: [JSON_RULE], page: true }, ["rule", "page", "page", "page"]],
    [
      "rule + page on free: both kept, neither served",
      { plan: "free" },
      ["default-json", "default-markdown", "default-html", "default-html"],
    ],
  ];
  it.each(rows)("%s", async (_name, config, expected) => {
    const zone = await zoneWith(config);
    const accepts = ["application/json", "text/markdown", "text/html", undefined];
    const got: Expected[] = [];
    for (const accept of accepts) {
      const res = await traffic(zone, accept);
      expect(res.status).toBe(521);
      expect(res.headers.get("Ray-ID")).toMatch(/^[0-9a-f]{16}$/);
      got.push(await kindOf(res));
    }
    expect(got).toEqual(expected);
  });

  it("a downgrade to free keeps rules and pages but stops serving them; an upgrade serves them again", async () => {
    const zone = await zoneWith({ rules: [JSON_RULE], page: true });
    expect(await kindOf(await traffic(zone, "application/json"))).toBe("rule");
    await putZone(zone, { plan: "free", origin: loopback(ports.closed), connect_timeout: 2 });
    expect(await kindOf(await traffic(zone, "application/json"))).toBe("default-json");
    expect(await kindOf(await traffic(zone, "text/html"))).toBe("default-html");
    await putZone(zone, { plan: "pro", origin: loopback(ports.closed), connect_timeout: 2 });
    expect(await kindOf(await traffic(zone, "application/json"))).toBe("rule");
  });

  it("removing the page restores negotiation for every client", async () => {
    const zone = await zoneWith({ page: true });
    expect(await kindOf(await traffic(zone, "application/json"))).toBe("page");
    await apiOk("PUT", `/zones/${zone}/custom_pages/500_errors`, { state: "default" });
    expect(await kindOf(await traffic(zone, "application/json"))).toBe("default-json");
  });
});

describe("what a rule or page answer carries", () => {
  it("a rule: its content and type, the error's status unless status_code, Ray-ID, Cache-Control and Vary kept", async () => {
    const zone = await zoneWith({
      rules: [{ ...JSON_RULE, action_parameters: { ...JSON_RULE.action_parameters, status_code: 503 } }],
    });
    const res = await traffic(zone, "application/json");
    expect(res.status).toBe(503);
    expect(res.headers.get("Content-Type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    expect(res.headers.get("Vary")).toBe("Accept, Accept-Language");
    expect(res.headers.get("Retry-After")).toBe("120"); // 521's, kept
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("Proxy-Status")).toContain("edge-errors"); // still the service's error (docs/errors.md)
    // Our page's policy is not the operator's content's: a rule's answer carries the sandbox instead (apply.ts
    // `customHeaders`): script may run, but in an opaque origin, never the serving host's.
    expectSandboxed(res);
    const ray = res.headers.get("Ray-ID");
    expect(await res.json()).toEqual({ shop: "down", ray });
  });

  it("a page: text/html whatever Accept, the default box in place, tokens only from validated values", async () => {
    const zone = await zoneWith({ page: true });
    const res = await traffic(zone, "application/json", { "CF-Connecting-IP": "203.0.113.7" });
    expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    expectSandboxed(res); // the operator's page may carry its own policy too; ours only sandboxes it
    expect(res.headers.get("Ray-ID")).toMatch(/^[0-9a-f]{16}$/);
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    const html = await res.text();
    expect(html).toContain(`ray ${res.headers.get("Ray-ID")} ip 203.0.113.7 geo `);
    expect(html).toContain('<div class="edge-error-box">');
    expect(html).not.toContain("::EDGE_ERROR_500S_BOX::");
    const hostile = await traffic(zone, "text/html", { "CF-Connecting-IP": "<script>alert(1)</script>" });
    const text = await hostile.text();
    expect(text).toContain("ip  geo");
    expect(text).not.toContain("<script>");
  });

  it("rule order: the first enabled matching rule wins; disabled rules are skipped", async () => {
    const first = {
      ...JSON_RULE,
      expression: "true",
      action_parameters: { content: "first", content_type: "text/plain" },
    };
    const second = {
      ...JSON_RULE,
      expression: "true",
      action_parameters: { content: "second", content_type: "text/plain" },
    };
    const zone = await zoneWith({ rules: [{ ...first, enabled: false }, second, first] });
    expect(await (await traffic(zone, "text/html")).text()).toBe("second");
  });

  it("rule order holds with guarded rules (indexed by path and code) around unguarded ones", async () => {
    const serve = (expression: string, content: string) => ({
      expression,
      action: "serve_error",
      action_parameters: { content, content_type: "text/plain" },
    });
    const guarded = [
      serve('http.request.uri.path eq "/other"', "other path"),
      serve("http.response.code eq 522", "code 522"),
      serve('any(http.request.headers["x-never"][*] eq "1")', "unguarded, no match"),
      serve('http.request.uri.path eq "/checkout" and http.response.code eq 521', "path and code"),
      serve("true", "catch-all"),
    ];
    expect(await (await traffic(await zoneWith({ rules: guarded }), "text/html")).text()).toBe("path and code");
    const catchAllFirst = [guarded[4], ...guarded.slice(0, 4)];
    expect(await (await traffic(await zoneWith({ rules: catchAllFirst }), "text/html")).text()).toBe("catch-all");
    const onlyMisses = guarded.slice(0, 3);
    const res = await traffic(await zoneWith({ rules: onlyMisses }), "application/json");
    expect(res.status).toBe(521);
    expect((await res.json<{ error_code: number }>()).error_code).toBe(521);
  });

  it("rules match on the 1xxx code and error type: 1038 (headers over the zone's limit) served by a 1xxx rule", async () => {
    const zone = uniqueZone("1xxx");
    await putZone(zone, { plan: "pro", origin: loopback(ports.closed), max_request_header_bytes: 1024 });
    const rule = {
      expression: 'edge.response.1xxx_code eq 1038 and cf.response.error_type eq "1xxx"',
      action: "serve_error",
      action_parameters: { content: "headers too big", content_type: "text/plain" },
    };
    await apiOk("PUT", `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`, { rules: [rule] });
    const res = await traffic(zone, "text/html", { "X-Big": "a".repeat(2000) });
    expect(res.status).toBe(431);
    expect(await res.text()).toBe("headers too big");
  });
});

describe("rules on the origin's own error responses (docs/custom-errors.md)", () => {
  it("an origin 503 matched by a rule: content replaced, origin headers kept except encoding, length, range, ETag", async () => {
    const zone = uniqueZone("origin-503");
    await putZone(zone, { plan: "pro", origin: loopback(ports.http) });
    const rule = {
      expression: 'http.response.code eq 503 and edge.response.error_type eq ""',
      action: "serve_error",
      action_parameters: { content: "maintenance", content_type: "text/plain" },
    };
    await apiOk("PUT", `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`, { rules: [rule] });
    const res = await exports.default.fetch(`http://${zone}/status/503-json`);
    expect(res.status).toBe(503);
    expect(await res.text()).toBe("maintenance");
    expect(res.headers.get("Ray-ID")).toMatch(/^[0-9a-f]{16}$/);
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    expect(res.headers.get("ETag")).toBeNull();
    expect(res.headers.get("Content-Type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("X-Origin")).not.toBeNull(); // the origin's other headers are kept
    expectSandboxed(res); // the rule's content replaces the origin's, so the policy is the operator content's
  });

  it("a page never replaces an origin's error; an unmatched origin error passes through unchanged", async () => {
    const zone = uniqueZone("origin-page");
    await putZone(zone, { plan: "pro", origin: loopback(ports.http) });
    await apiOk("PUT", `/zones/${zone}/custom_pages/500_errors`, { state: "customized", content: PAGE_500 });
    const res = await exports.default.fetch(`http://${zone}/status/503-json`);
    expect(res.status).toBe(503);
    expect(await res.text()).not.toContain("Shop is down");
    expect(res.headers.get("Ray-ID")).toBeNull();
  });
});

describe("preview equals the real answer (docs/errors.md, docs/configuration.md)", () => {
  const stable = (text: string) =>
    text.replace(/[0-9a-f]{16}/g, "RAY").replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, "TIME");
  it.each(["application/json", "text/markdown", "text/html"])(
    "Accept %s: /zones/{zone}/preview/521 = traffic",
    async (accept) => {
      const zone = await zoneWith({ rules: [JSON_RULE], page: true });
      const real = await traffic(zone, accept);
      const preview = await exports.default.fetch(`http://localhost/zones/${zone}/preview/521`, {
        headers: { ...ADMIN, Accept: accept },
      });
      expect(preview.status).toBe(real.status);
      expect(preview.headers.get("Content-Type")).toBe(real.headers.get("Content-Type"));
      // The preview answers on the API's own host: the rule's or page's content is sandboxed there as everywhere.
      expect(preview.headers.get("Content-Security-Policy")).toBe(real.headers.get("Content-Security-Policy"));
      const previewBody = await preview.text();
      expect(stable(previewBody)).toBe(stable(await real.text()));
      const head = await exports.default.fetch(`http://localhost/zones/${zone}/preview/521`, {
        method: "HEAD",
        headers: { ...ADMIN, Accept: accept },
      });
      expect(head.status).toBe(real.status);
    },
  );

  it("the preview needs a token; an unknown code is 404", async () => {
    const zone = await zoneWith({});
    expect((await exports.default.fetch(`http://localhost/zones/${zone}/preview/521`)).status).toBe(401);
    expect((await apiFetch("GET", `/zones/${zone}/preview/999`)).status).toBe(404);
  });
});

describe("the example zone of `npm run dev` (fixtures/example-zone.json)", () => {
  it("is accepted by the API and serves its rule to JSON clients and its page to browsers", async () => {
    const example = (await import("../../../../fixtures/example-zone.json")).default as {
      rulesets: Record<string, unknown>;
      custom_pages: Record<string, string>;
    };
    const zone = uniqueZone("example");
    await putZone(zone, { plan: "pro", origin: loopback(ports.closed), connect_timeout: 2 });
    for (const [phase, ruleset] of Object.entries(example.rulesets)) {
      await apiOk("PUT", `/zones/${zone}/rulesets/phases/${phase}/entrypoint`, ruleset);
    }
    for (const [id, content] of Object.entries(example.custom_pages)) {
      await apiOk("PUT", `/zones/${zone}/custom_pages/${id}`, { state: "customized", content });
    }
    const json = await traffic(zone, "application/json");
    expect(json.status).toBe(503);
    expect(await json.json()).toMatchObject({ error: "shop_unavailable", ray: json.headers.get("Ray-ID") });
    const html = await traffic(zone, "text/html");
    expect(html.status).toBe(521);
    expect(await html.text()).toContain("Shop Example is taking a break");
  });
});
