/**
 * The request phases on real zone traffic (docs/producers.md): config written through the real API
 * (`access_rules`, the two request-phase rulesets), requests sent through the Worker's own `fetch` handler to a
 * real loopback origin, counters in the real `RATE_LIMITER` object. The clock is `Date.now()`, which the tests
 * move with a spy (the handler reads it once per request and hands it to the phases as a value).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../../../src/index";
import type { RateLimiter } from "../../../../src/state/rate-limiter/rate-limiter";
import { expectGeneratedError, loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { api, entrypoint } from "../../support/envelope";

afterEach(() => vi.restoreAllMocks());

interface Sent {
  readonly ip?: string;
  readonly country?: string;
  readonly accept?: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
}

/** One request of zone traffic through the Worker's handler (`env` replaceable to break a binding). */
async function send(zone: string, path: string, sent: Sent = {}, bindings: Env = env): Promise<Response> {
  const headers: Record<string, string> = { Accept: sent.accept ?? "application/json", ...sent.headers };
  if (sent.ip !== undefined) headers["CF-Connecting-IP"] = sent.ip;
  // `request.cf` is set by the edge; workerd lets a test build a Request carrying it.
  const cf = sent.country === undefined ? undefined : { country: sent.country };
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://${zone}${path}`, { method: sent.method ?? "GET", headers, cf }),
    bindings,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

/** The `result` of an access-rules or ruleset answer (`null` on a failure). */
type RuleList = { rules: Record<string, unknown>[] } | null;

const block = (expression: string, extra: Record<string, unknown> = {}) => ({ expression, action: "block", ...extra });
const limit = (expression: string, requests: number, mitigation = 30, period = 60) =>
  block(expression, {
    ratelimit: { characteristics: ["ip.src"], period, requests_per_period: requests, mitigation_timeout: mitigation },
  });

interface ZoneRules {
  readonly plan?: string;
  readonly access?: readonly unknown[];
  readonly firewall?: readonly unknown[];
  readonly ratelimit?: readonly unknown[];
  readonly customErrors?: readonly unknown[];
  readonly page1000?: string;
}

/** A zone in front of the healthy loopback origin, with the given rules written through the API. */
async function zoneWith(rules: ZoneRules): Promise<string> {
  const zone = uniqueZone("producers");
  await putZone(zone, { plan: rules.plan ?? "pro", origin: loopback(ports.http) });
  const put = async (path: string, body: unknown) => {
    const res = await api("PUT", path, body);
    expect(res.status, JSON.stringify(res.body.errors)).toBe(200);
  };
  if (rules.access) await put(`/zones/${zone}/access_rules`, { rules: rules.access });
  if (rules.firewall) await put(entrypoint(zone, "http_request_firewall_custom"), { rules: rules.firewall });
  if (rules.ratelimit) await put(entrypoint(zone, "http_ratelimit"), { rules: rules.ratelimit });
  if (rules.customErrors) await put(entrypoint(zone, "http_custom_errors"), { rules: rules.customErrors });
  if (rules.page1000)
    await put(`/zones/${zone}/custom_pages/1000_errors`, { state: "customized", content: rules.page1000 });
  return zone;
}

const ipRule = (target: string, value: string) => ({ mode: "block", configuration: { target, value } });

async function expectOrigin(res: Response): Promise<void> {
  expect(res.status, await res.clone().text()).toBe(200);
  expect(res.headers.get("Ray-ID")).toBeNull(); // the origin's answer, not a generated error
  await res.body?.cancel();
}

/** Moves `Date.now()` (the Worker's clock) to `at` for the requests that follow. */
function clockAt(at: number): void {
  vi.spyOn(Date, "now").mockReturnValue(at);
}

describe("each producer end to end: code, status, headers, negotiated body", () => {
  const standard = (): Promise<string> =>
    zoneWith({
      access: [ipRule("ip", "198.51.100.4"), ipRule("ip_range", "203.0.113.0/24"), ipRule("country", "kp")],
      firewall: [block('http.request.uri.path eq "/admin"')],
      ratelimit: [limit('http.request.uri.path eq "/login"', 3, 30, 30)],
    });

  it("a client that matches nothing reaches the origin", async () => {
    const zone = await standard();
    await expectOrigin(await send(zone, "/", { ip: "192.0.2.1", country: "DE" }));
  });

  it("1006: the client address (or its range) is blocked, 403", async () => {
    const zone = await standard();
    for (const ip of ["198.51.100.4", "203.0.113.200"]) {
      const body = await expectGeneratedError(await send(zone, "/", { ip }), 1006);
      expect(body.status).toBe(403);
      expect(body.zone).toBe(zone);
    }
  });

  it("1009: the client's country is blocked, 403, in every negotiated format", async () => {
    const zone = await standard();
    await expectGeneratedError(await send(zone, "/", { ip: "192.0.2.1", country: "KP" }), 1009);
    const md = await send(zone, "/", { ip: "192.0.2.1", country: "KP", accept: "text/markdown" });
    expect(md.status).toBe(403);
    expect(md.headers.get("Content-Type")).toMatch(/^text\/markdown/);
    expect(await md.text()).toMatch(/^---\n[\s\S]*error_code: 1009\n/);
    const html = await send(zone, "/", { ip: "192.0.2.1", country: "KP", accept: "text/html" });
    expect(html.status).toBe(403);
    expect(html.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(await html.text()).toContain("1009");
    const problem = await send(zone, "/", { country: "KP", accept: "application/problem+json" });
    expect(problem.headers.get("Content-Type")).toMatch(/^application\/problem\+json/);
    expect((await problem.json<{ error_code: number }>()).error_code).toBe(1009);
  });

  it("1020: a firewall rule blocks, 403; HEAD carries GET's Content-Length and no body", async () => {
    const zone = await standard();
    const body = await expectGeneratedError(await send(zone, "/admin", { ip: "192.0.2.1" }), 1020);
    expect(body.status).toBe(403);
    const get = await send(zone, "/admin", { ip: "192.0.2.1" });
    const length = (await get.arrayBuffer()).byteLength;
    const head = await send(zone, "/admin", { ip: "192.0.2.1", method: "HEAD" });
    expect(head.status).toBe(403);
    // Two errors differ only in ray and time, which have fixed widths.
    expect(Number(head.headers.get("Content-Length"))).toBe(length);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it("1015: N requests pass, request N+1 is blocked with Retry-After in header and body", async () => {
    const zone = await standard();
    const t0 = Date.now();
    clockAt(t0);
    for (let i = 0; i < 3; i++) await expectOrigin(await send(zone, "/login", { ip: "192.0.2.7" }));
    const res = await send(zone, "/login", { ip: "192.0.2.7" });
    expect(res.headers.get("Retry-After")).toBe("30");
    const body = (await expectGeneratedError(res, 1015)) as unknown as { retry_after: number; retryable: boolean };
    expect(res.status).toBe(429);
    expect(body).toMatchObject({ retry_after: 30, retryable: true });
  });

  it("ip.src is CF-Connecting-IP only: X-Forwarded-For never names the client, a list is no address", async () => {
    const zone = await standard();
    await expectOrigin(await send(zone, "/", { headers: { "X-Forwarded-For": "198.51.100.4" } }));
    await expectOrigin(await send(zone, "/", { ip: "198.51.100.4, 192.0.2.1" }));
    await expectGeneratedError(await send(zone, "/", { ip: " 198.51.100.4 " }), 1006);
  });
});

describe("order: IP access → firewall → rate limiting, each short-circuiting", () => {
  it("a request matching all three gets 1006; without the address, 1020; blocked requests are not counted", async () => {
    const zone = await zoneWith({
      access: [ipRule("ip", "198.51.100.4")],
      firewall: [block('http.request.uri.path eq "/admin"')],
      ratelimit: [limit("true", 2)],
    });
    const t0 = Date.now();
    clockAt(t0);
    for (let i = 0; i < 5; i++) {
      await expectGeneratedError(await send(zone, "/admin", { ip: "198.51.100.4" }), 1006);
      await expectGeneratedError(await send(zone, "/admin", { ip: "192.0.2.9" }), 1020);
    }
    // None of the ten blocked requests reached the counter: both clients still have their 2 requests.
    for (const ip of ["192.0.2.9", "192.0.2.9"]) await expectOrigin(await send(zone, "/", { ip }));
    await expectGeneratedError(await send(zone, "/", { ip: "192.0.2.9" }), 1015);
  });
});

describe("rate limiting over time (docs/producers.md)", () => {
  it("Retry-After decreases with the clock, is ≥ 1 and rounded up; the client is allowed again after it", async () => {
    const zone = await zoneWith({ ratelimit: [limit("true", 2, 30, 30)] });
    const t0 = Date.now();
    const at = async (ms: number) => {
      clockAt(t0 + ms);
      return send(zone, "/", { ip: "192.0.2.20" });
    };
    await expectOrigin(await at(0));
    await expectOrigin(await at(100));
    // Blocked at t0+200 until t0+30,200.
    const seen: string[] = [];
    for (const ms of [200, 10_000, 20_199, 30_000, 30_199]) {
      const res = await at(ms);
      expect(res.status).toBe(429);
      seen.push(res.headers.get("Retry-After") ?? "");
      await res.body?.cancel();
    }
    expect(seen).toEqual(["30", "21", "11", "1", "1"]);
    // The block and the period are over: an allowance of 2 (the blocked requests were not counted).
    await expectOrigin(await at(30_200));
    await expectOrigin(await at(30_300));
    expect((await at(30_400)).status).toBe(429);
  });

  it("two clients are counted apart; another zone's counter is its own", async () => {
    const rules = { ratelimit: [limit("true", 1)] };
    const [a, b] = [await zoneWith(rules), await zoneWith(rules)];
    const t0 = Date.now();
    clockAt(t0);
    await expectOrigin(await send(a, "/", { ip: "192.0.2.1" }));
    await expectGeneratedError(await send(a, "/", { ip: "192.0.2.1" }), 1015);
    await expectOrigin(await send(a, "/", { ip: "192.0.2.2" }));
    await expectOrigin(await send(a, "/", { ip: "2001:db8::2" }));
    await expectOrigin(await send(b, "/", { ip: "192.0.2.1" }));
  });

  it("a failing counter object fails open: traffic flows, the failure is logged", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const zone = await zoneWith({ ratelimit: [limit("true", 1)] });
    // A namespace of another class: every `hit` call throws inside the runtime's RPC layer.
    const broken = { ...env, RATE_LIMITER: env.TAG_STORE as unknown as DurableObjectNamespace<RateLimiter> };
    for (let i = 0; i < 3; i++) await expectOrigin(await send(zone, "/", { ip: "192.0.2.1" }, broken));
    // The same zone with the working binding does limit: the flow above is the failure's doing.
    clockAt(Date.now());
    await expectOrigin(await send(zone, "/", { ip: "192.0.2.1" }));
    await expectGeneratedError(await send(zone, "/", { ip: "192.0.2.1" }), 1015);
    const events = logged.mock.calls.map((c) => (JSON.parse(String(c[0])) as { event: string }).event);
    expect(events.filter((e) => e === "rate_limiter_unavailable")).toHaveLength(3);
  });
});

describe("precedence with custom error rules and pages (docs/custom-errors.md)", () => {
  const PAGE = "<html><head><title>Blocked</title></head><body>Go away ::EDGE_ERROR_1000S_BOX::</body></html>";
  const RULE = {
    expression: "edge.response.1xxx_code eq 1020",
    action: "serve_error",
    action_parameters: { content: '{"blocked":"by firewall"}', content_type: "application/json", status_code: 451 },
  };

  it("a matching custom rule wins, the 1000-class page serves the rest, Retry-After survives both", async () => {
    const zone = await zoneWith({
      access: [ipRule("ip", "198.51.100.4")],
      firewall: [block('http.request.uri.path eq "/admin"')],
      ratelimit: [limit('http.request.uri.path eq "/login"', 1, 20, 20)],
      customErrors: [RULE],
      page1000: PAGE,
    });
    const ruled = await send(zone, "/admin", { ip: "192.0.2.1" });
    expect(ruled.status).toBe(451);
    expect(await ruled.text()).toBe('{"blocked":"by firewall"}');
    const paged = await send(zone, "/", { ip: "198.51.100.4" });
    expect(paged.status).toBe(403);
    expect(paged.headers.get("Content-Type")).toMatch(/^text\/html/);
    const html = await paged.text();
    expect(html).toContain("Go away");
    expect(html).toContain("1006");
    clockAt(Date.now());
    await expectOrigin(await send(zone, "/login", { ip: "192.0.2.1" }));
    const limited = await send(zone, "/login", { ip: "192.0.2.1" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("Retry-After")).toBe("20");
    expect(await limited.text()).toContain("Go away");
  });

  it("on free, rules and pages stored before a downgrade are not served; the producers still are", async () => {
    const zone = await zoneWith({ firewall: [block("true")], customErrors: [RULE], page1000: PAGE });
    await putZone(zone, { plan: "free", origin: loopback(ports.http) });
    const res = await send(zone, "/", { ip: "192.0.2.1" });
    await expectGeneratedError(res, 1020);
  });
});

describe("plan limits on free (docs/custom-errors.md): 5 firewall rules and 1 rate-limiting rule evaluated", () => {
  it("rules stored on a paid plan past the free limits stop blocking after a downgrade", async () => {
    const firewall = [1, 2, 3, 4, 5, 6].map((n) => block(`http.request.uri.path eq "/fw${n}"`));
    const ratelimit = [limit('http.request.uri.path eq "/a"', 1), limit('http.request.uri.path eq "/b"', 1)];
    const zone = await zoneWith({ firewall, ratelimit });
    clockAt(Date.now());
    await expectGeneratedError(await send(zone, "/fw6", { ip: "192.0.2.1" }), 1020);
    await putZone(zone, { plan: "free", origin: loopback(ports.http) });
    await expectGeneratedError(await send(zone, "/fw5", { ip: "192.0.2.1" }), 1020);
    await expectOrigin(await send(zone, "/fw6", { ip: "192.0.2.1" }));
    for (let i = 0; i < 3; i++) await expectOrigin(await send(zone, "/b", { ip: "192.0.2.1" }));
    await expectOrigin(await send(zone, "/a", { ip: "192.0.2.1" }));
    await expectGeneratedError(await send(zone, "/a", { ip: "192.0.2.1" }), 1015);
  });

  it("the free plan refuses a sixth firewall rule and a second rate-limiting rule at write time", async () => {
    const zone = uniqueZone("free-limits");
    await putZone(zone, { plan: "free", origin: loopback(ports.http) });
    const six = await api("PUT", entrypoint(zone, "http_request_firewall_custom"), {
      rules: Array.from({ length: 6 }, () => block("true")),
    });
    expect(six.status).toBe(400);
    expect(six.body.errors.map((e) => e.code)).toEqual([20021]);
    expect(six.body.errors[0]?.message).toBe(
      "rules: at most 5 rules in http_request_firewall_custom on the free plan (docs/custom-errors.md)",
    );
    const two = await api("PUT", entrypoint(zone, "http_ratelimit"), { rules: [limit("true", 1), limit("true", 2)] });
    expect(two.status).toBe(400);
    expect(two.body.errors.map((e) => e.code)).toEqual([20021]);
  });
});

describe("GET/PUT /zones/{zone}/access_rules", () => {
  it("an unwritten list is empty; values are normalised; a presented list PUTs back unchanged", async () => {
    const zone = uniqueZone("access");
    await putZone(zone, { origin: loopback(ports.http) });
    expect((await api("GET", `/zones/${zone}/access_rules`)).body.result).toEqual({ rules: [] });
    const put = await api<RuleList>("PUT", `/zones/${zone}/access_rules`, {
      rules: [
        ipRule("ip", "2001:DB8:0::1"),
        { ...ipRule("ip_range", "198.51.100.77/24"), notes: "scanner" },
        ipRule("country", "de"),
      ],
    });
    expect(put.status).toBe(200);
    const rules = put.body.result?.rules ?? [];
    expect(rules.map((r) => r.configuration)).toEqual([
      { target: "ip", value: "2001:db8::1" },
      { target: "ip_range", value: "198.51.100.0/24" },
      { target: "country", value: "DE" },
    ]);
    expect(rules[1]).toMatchObject({ mode: "block", notes: "scanner" });
    expect(rules[1]?.id).toMatch(/^[0-9a-f]{32}$/);
    const got = await api("GET", `/zones/${zone}/access_rules`);
    expect(got.body.result).toEqual(put.body.result);
    const again = await api("PUT", `/zones/${zone}/access_rules`, got.body.result);
    expect(again.body.result).toEqual(put.body.result);
  });

  it("a write is visible to traffic on the writing isolate at once, and an empty list unblocks", async () => {
    const zone = await zoneWith({});
    await expectOrigin(await send(zone, "/", { ip: "192.0.2.66" }));
    expect((await api("PUT", `/zones/${zone}/access_rules`, { rules: [ipRule("ip", "192.0.2.66")] })).status).toBe(200);
    await expectGeneratedError(await send(zone, "/", { ip: "192.0.2.66" }), 1006);
    expect((await api("PUT", `/zones/${zone}/access_rules`, { rules: [] })).status).toBe(200);
    await expectOrigin(await send(zone, "/", { ip: "192.0.2.66" }));
  });

  it.each<[string, unknown, RegExp]>([
    ["not an object", [1], /body must be a JSON object/],
    ["an unknown field", { rules: [], extra: 1 }, /extra is not a field/],
    [
      "a challenge mode",
      { rules: [{ mode: "challenge", configuration: { target: "ip", value: "192.0.2.1" } }] },
      /mode/,
    ],
    ["a CIDR as ip", { rules: [ipRule("ip", "192.0.2.0/24")] }, /ip_range/],
    ["a /7 range", { rules: [ipRule("ip_range", "10.0.0.0/7")] }, /\/8 to \/32/],
    ["a three-letter country", { rules: [ipRule("country", "DEU")] }, /two-letter/],
    ["a duplicate", { rules: [ipRule("ip", "192.0.2.1"), ipRule("ip", "192.0.2.1")] }, /same configuration/],
    ["too many rules", { rules: Array.from({ length: 10_001 }, () => ({})) }, /at most 10000/],
  ])("invalid config is refused with nothing stored: %s", async (_name, body, message) => {
    const zone = await zoneWith({ access: [ipRule("ip", "198.51.100.4")] });
    const before = await api("GET", `/zones/${zone}/access_rules`);
    const res = await api("PUT", `/zones/${zone}/access_rules`, body);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]?.code).toBe(20026);
    expect(res.body.errors.map((e) => e.message).join("\n")).toMatch(message);
    expect((await api("GET", `/zones/${zone}/access_rules`)).body).toEqual(before.body);
    await expectGeneratedError(await send(zone, "/", { ip: "198.51.100.4" }), 1006);
  });

  it("invalid request-phase rulesets are refused with nothing stored and traffic unchanged", async () => {
    const zone = await zoneWith({ firewall: [block('http.request.uri.path eq "/admin"')] });
    const bad = await api("PUT", entrypoint(zone, "http_request_firewall_custom"), {
      rules: [block('http.request.uri.path eq "/x"'), block("http.response.code eq 500")],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e) => e.code)).toEqual([20021]);
    expect(bad.body.errors[0]?.message).toMatch(/^rules\[1\]\.expression: 1:1: /);
    const badLimit = await api("PUT", entrypoint(zone, "http_ratelimit"), { rules: [limit("true", 1, 0)] });
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.errors.map((e) => e.code)).toEqual([20021]);
    expect((await api<RuleList>("GET", entrypoint(zone, "http_ratelimit"))).body.result?.rules).toEqual([]);
    await expectGeneratedError(await send(zone, "/admin", { ip: "192.0.2.1" }), 1020);
    await expectOrigin(await send(zone, "/x", { ip: "192.0.2.1" }));
  });

  it("needs a token with zones:read / zones:write; an unknown zone is 404", async () => {
    const anonymous = await exports.default.fetch("http://localhost/zones/nowhere.example/access_rules");
    expect(anonymous.status).toBe(401);
    await anonymous.body?.cancel();
    const missing = await api("PUT", "/zones/nowhere-at-all.example/access_rules", { rules: [] });
    expect(missing.status).toBe(404);
  });
});

describe("the example zone of `npm run dev` (fixtures/example-zone.json)", () => {
  it("its firewall rule, rate limit and IP access rule answer what the README says", async () => {
    const example = (await import("../../../../fixtures/example-zone.json")).default as {
      rulesets: Record<string, unknown>;
      access_rules: unknown;
    };
    const zone = uniqueZone("example");
    await putZone(zone, { plan: "pro", origin: loopback(ports.http) });
    for (const [phase, ruleset] of Object.entries(example.rulesets))
      expect((await api("PUT", entrypoint(zone, phase), ruleset)).status).toBe(200);
    expect((await api("PUT", `/zones/${zone}/access_rules`, example.access_rules)).status).toBe(200);
    await expectGeneratedError(await send(zone, "/admin/users"), 1020);
    await expectGeneratedError(await send(zone, "/", { ip: "198.51.100.7" }), 1006);
    clockAt(Date.now());
    for (let i = 0; i < 5; i++) await expectOrigin(await send(zone, "/api/hello"));
    const limited = await send(zone, "/api/hello");
    expect(limited.headers.get("Retry-After")).toBe("20");
    await expectGeneratedError(limited, 1015);
    await expectOrigin(await send(zone, "/hello"));
  });
});
