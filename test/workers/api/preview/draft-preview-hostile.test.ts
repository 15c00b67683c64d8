/**
 * `POST /zones/{zone}/preview` on hostile input: drafts over the limits (validated exactly as writes are:
 * `parseRuleset`, `parsePageBody`), unknown fields, bad described requests. Each is refused with a precise 400 (or
 * the write's own 403/413), and nothing is stored: the zone's version, ruleset and pages are unchanged after all.
 */
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { apiFetch, apiOk, type Envelope } from "../../support/envelope";
import { ADMIN, loopback, ports, putZone, uniqueZone } from "../../support/origin";

const RULE = {
  expression: "http.response.code eq 521",
  action: "serve_error",
  action_parameters: { content: "saved", content_type: "text/plain" },
};
const PAGE = "<!DOCTYPE html><html><head><title>t</title></head><body>::EDGE_ERROR_500S_BOX::</body></html>";

let zone = "";
let freeZone = "";
/**
 * The cases run on four zones in turn: each token's draft previews of one zone are bounded (a burst of 20, then 2 per
 * second: src/api/explain/bound.ts), and this file sends some 50 in a few seconds.
 */
const pool: string[] = [];
let turn = 0;
const nextZone = (): string => pool[turn++ % pool.length] ?? zone;

async function post(target: string, body: unknown, headers: Record<string, string> = ADMIN): Promise<Response> {
  return exports.default.fetch(`http://localhost/zones/${target}/preview`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function snapshot(target: string): Promise<string> {
  const zoneRes = await apiFetch("GET", `/zones/${target}`);
  const rules = await apiFetch("GET", `/zones/${target}/rulesets/phases/http_custom_errors/entrypoint`);
  const pages = await apiFetch("GET", `/zones/${target}/custom_pages/500_errors`);
  return JSON.stringify([await zoneRes.json(), await rules.json(), await pages.json()]);
}

beforeAll(async () => {
  for (let i = 0; i < 4; i++) {
    const name = uniqueZone("hostile");
    await putZone(name, { origin: loopback(ports.closed) });
    await apiOk("PUT", `/zones/${name}/rulesets/phases/http_custom_errors/entrypoint`, {
      rules: [RULE],
    });
    pool.push(name);
  }
  zone = pool[0] ?? "";
  freeZone = uniqueZone("hostile-free");
  await putZone(freeZone, { plan: "free", origin: loopback(ports.closed) });
});

const ok = { code: 521 };
const rules = (n: number) => Array.from({ length: n }, () => RULE);

/** [name, body, status, v4 code, a part of the (first) message]. */
const CASES: [string, unknown, number, number, string][] = [
  ["body not an object", [1], 400, 20030, "body: must be a JSON object"],
  ["unknown top-level field", { request: ok, save: true }, 400, 20030, "save: is not a preview field"],
  ["no request", {}, 400, 20030, "request: must be an object"],
  ["draft not an object", { draft: [], request: ok }, 400, 20030, "draft: must be an object"],
  ["unknown draft field", { draft: { rule: [] }, request: ok }, 400, 20030, "draft.rule: is not a draft field"],
  ["unknown page", { draft: { pages: { "404_errors": {} } }, request: ok }, 400, 20030, "draft.pages.404_errors"],
  [
    "draft over the plan's rule limit (pro: 25)",
    { draft: { rules: rules(26) }, request: ok },
    400,
    20021,
    "draft.rules: at most 25 rules in http_custom_errors on the pro plan",
  ],
  [
    "a draft rule that does not compile",
    { draft: { rules: [{ ...RULE, expression: "http.response.code eq" }] }, request: ok },
    400,
    20021,
    "draft.rules[0].expression: 1:",
  ],
  [
    "a draft rule's content over 10,240 bytes",
    {
      draft: { rules: [{ ...RULE, action_parameters: { content: "x".repeat(10_241), content_type: "text/plain" } }] },
      request: ok,
    },
    400,
    20021,
    "draft.rules[0].action_parameters.content: must be a string of 1 to 10240 bytes",
  ],
  [
    "an unknown field in a draft rule",
    { draft: { rules: [{ ...RULE, asset_name: "x" }] }, request: ok },
    400,
    20021,
    "draft.rules[0].asset_name: is not a rule field",
  ],
  [
    "a draft page without its box token",
    { draft: { pages: { "500_errors": { state: "customized", content: "<html><head></head></html>" } } }, request: ok },
    400,
    20023,
    "draft.pages.500_errors.content: must contain the 500_errors box token",
  ],
  [
    "a draft page with two box tokens",
    {
      draft: { pages: { "500_errors": { state: "customized", content: PAGE + "::EDGE_ERROR_500S_BOX::" } } },
      request: ok,
    },
    400,
    20023,
    "found it 2 times",
  ],
  ["unknown request field", { request: { ...ok, body: "x" } }, 400, 20030, "request.body: is not a field"],
  ["bad method", { request: { ...ok, method: "TRACE" } }, 400, 20030, "request.method: must be one of GET"],
  ["bad scheme", { request: { ...ok, scheme: "ftp" } }, 400, 20030, "request.scheme: must be http or https"],
  ["relative path", { request: { ...ok, path: "checkout" } }, 400, 20030, "request.path: must start with /"],
  ["path with a space", { request: { ...ok, path: "/a b" } }, 400, 20030, "request.path: must start with /"],
  ["path with a fragment", { request: { ...ok, path: "/a#b" } }, 400, 20030, "request.path"],
  ["path too long", { request: { ...ok, path: `/${"a".repeat(8192)}` } }, 400, 20030, "at most 8192 characters"],
  ["headers not an object", { request: { ...ok, headers: ["a"] } }, 400, 20030, "request.headers: must be an object"],
  ["a bad header name", { request: { ...ok, headers: { "a b": "1" } } }, 400, 20030, "is not a header name"],
  ["a header value with CR LF", { request: { ...ok, headers: { "X-A": "1\r\nX-B: 2" } } }, 400, 20030, "control"],
  ["a Host header", { request: { ...ok, headers: { Host: "evil.example" } } }, 400, 20030, "request.headers.Host"],
  [
    "a CF-Connecting-IP header",
    { request: { ...ok, headers: { "cf-connecting-ip": "1.2.3.4" } } },
    400,
    20030,
    "give client_ip",
  ],
  [
    "too many headers",
    { request: { ...ok, headers: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`x-${i}`, "1"])) } },
    400,
    20030,
    "at most 100 headers",
  ],
  [
    "headers over 65,536 bytes",
    {
      request: {
        ...ok,
        headers: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`x-${i}`, "a".repeat(8000)])),
      },
    },
    400,
    20030,
    "at most 65536 bytes",
  ],
  ["a bad client_ip", { request: { ...ok, client_ip: "1.2.3" } }, 400, 20030, "request.client_ip: must be an IPv4"],
  ["a bad country", { request: { ...ok, country: "de" } }, 400, 20030, "request.country: must be a two-letter"],
  ["neither code nor origin", { request: { path: "/" } }, 400, 20030, "give exactly one of code"],
  ["both code and origin", { request: { code: 521, origin: { failure: "refused" } } }, 400, 20030, "exactly one"],
  ["a code not in the catalog", { request: { code: 999 } }, 400, 20030, "must be an error code of the catalog"],
  ["a code as a string", { request: { code: "521" } }, 400, 20030, "must be an error code of the catalog"],
  [
    "an unknown origin failure",
    { request: { origin: { failure: "dns" } } },
    400,
    20030,
    "request.origin.failure: must be one of refused",
  ],
  ["an origin failure with a body", { request: { origin: { failure: "refused", body: "x" } } }, 400, 20030, "takes no"],
  ["origin status 99", { request: { origin: { status: 99 } } }, 400, 20030, "from 200 to 599"],
  ["origin status 600", { request: { origin: { status: 600 } } }, 400, 20030, "from 200 to 599"],
  ["origin with neither", { request: { origin: {} } }, 400, 20030, "give exactly one of status"],
  [
    "an origin body over 65,536 characters",
    { request: { origin: { status: 503, body: "x".repeat(65_537) } } },
    400,
    20030,
    "at most 65536 characters",
  ],
  ["not JSON", "{", 400, 10002, "Request body is not valid JSON"],
];

describe("hostile drafts and described requests: a precise refusal, nothing stored", () => {
  it.each(CASES)("%s", async (_name, body, status, code, message) => {
    const zone = nextZone();
    const before = await snapshot(zone);
    const res = await post(zone, body);
    const envelope = await res.json<Envelope>();
    expect(res.status, JSON.stringify(envelope)).toBe(status);
    expect(envelope.success).toBe(false);
    expect(envelope.errors[0]?.code, JSON.stringify(envelope)).toBe(code);
    expect(envelope.errors.map((e) => e.message).join("\n")).toContain(message);
    expect(await snapshot(zone)).toBe(before);
  });

  it("many issues are listed up to 20, then counted", async () => {
    const headers = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`bad name ${i}`, "1"]));
    const res = await post(zone, { request: { ...ok, headers } });
    const envelope = await res.json<Envelope>();
    expect(res.status).toBe(400);
    expect(envelope.errors).toHaveLength(21);
    expect(envelope.errors[20]?.message).toBe("and 10 more errors not listed");
  });

  it("a body over 1 MiB is 413; a free zone's draft rules are 403 1100, as the write would be", async () => {
    const big = await post(zone, { request: ok, pad: "x".repeat(1024 * 1024) });
    expect(big.status).toBe(413);
    await big.body?.cancel();
    const before = await snapshot(freeZone);
    const free = await post(freeZone, { draft: { rules: [RULE] }, request: ok });
    expect(free.status).toBe(403);
    expect((await free.json<Envelope>()).errors[0]?.code).toBe(1100);
    const page = await post(freeZone, {
      draft: { pages: { "500_errors": { state: "customized", content: PAGE } } },
      request: ok,
    });
    expect(page.status).toBe(403);
    await page.body?.cancel();
    expect(await snapshot(freeZone)).toBe(before);
  });

  it("authentication and the zone: 401 without a token, 404 for a zone not configured, 400 for a bad name", async () => {
    const anonymous = await post(zone, { request: ok }, {});
    expect(anonymous.status).toBe(401);
    await anonymous.body?.cancel();
    const missing = await post(uniqueZone("nowhere"), { request: ok });
    expect(missing.status).toBe(404);
    expect((await missing.json<Envelope>()).errors[0]?.code).toBe(1001);
    const bad = await post("bad_name!", { request: ok });
    expect(bad.status).toBe(400);
    await bad.body?.cancel();
  });

  it("?dry_run is refused (10003): the preview stores nothing, a rehearsal of it would answer nothing", async () => {
    const res = await apiFetch("POST", `/zones/${zone}/preview?dry_run=true`, { request: ok });
    expect(res.status).toBe(400);
    expect((await res.json<Envelope>()).errors[0]?.code).toBe(10003);
  });

  it("a valid draft stores nothing either: the saved rule still answers traffic", async () => {
    const before = await snapshot(zone);
    const res = await post(zone, {
      draft: { rules: [{ ...RULE, action_parameters: { content: "draft", content_type: "text/plain" } }] },
      request: ok,
    });
    expect(res.status).toBe(200);
    expect((await res.json<Envelope<{ response: { body: string } }>>()).result.response.body).toBe("draft");
    expect(await snapshot(zone)).toBe(before);
    const traffic = await exports.default.fetch(`http://${zone}/`);
    expect(await traffic.text()).toBe("saved");
  });
});
