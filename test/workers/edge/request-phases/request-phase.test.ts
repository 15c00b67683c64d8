/**
 * The request phases together (docs/producers.md): IP access → firewall → rate limiting, short-circuiting, plan limits
 * on `free` (docs/custom-errors.md), compile once per version, and the outcome fed to the real error pipeline (code, status,
 * Retry-After in header and body, negotiated format).
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseSettings } from "../../../../src/shared/settings";
import { errorResponse } from "../../../../src/errors/pipeline";
import {
  compileFirewall,
  compileRequestPhase,
  type RequestPhaseConfig,
} from "../../../../src/edge/request-phases/compile";
import { compiledOf } from "../../../../src/edge/compiled-zone";
import { resetOverBudgetLog } from "../../../../src/rules/over-budget-log";
import { firstMatch, requestContext } from "../../../../src/rules/rule-list";
import { rulesetSection } from "../../../../src/state/zone/rulesets/stored";
import { parseDocument } from "../../../../src/state/zone/store";
import { ZONE_DOC_SCHEMA, type Zone } from "../../../../src/state/zone/schema";
import { requestPhase, type RequestPhaseOutcome } from "../../../../src/edge/request-phases/request-phase";
import { parseAccessRules } from "../../../../src/state/zone/access-rules/validate";
import type { RateLimitRuleInput } from "../../../../src/state/zone/rulesets/ratelimit";

afterEach(() => vi.restoreAllMocks());

let zones = 0;
const newZone = () => `rp-${++zones}-${Math.random().toString(36).slice(2, 8)}.example`;

const accessRules = (() => {
  const parsed = parseAccessRules({
    rules: [
      { mode: "block", configuration: { target: "ip_range", value: "203.0.113.0/24" } },
      { mode: "block", configuration: { target: "country", value: "KP" } },
    ],
  });
  if (!parsed.ok) throw new Error("fixture");
  return parsed.value;
})();

const fw = (id: string, expression: string, enabled = true) => ({ id, expression, action: "block", enabled });
const rl = (id: string, expression: string, requests = 2): RateLimitRuleInput => ({
  id,
  expression,
  action: "block",
  ratelimit: { characteristics: ["ip.src"], period: 42, requests_per_period: requests, mitigation_timeout: 42 },
});

const config = (extra: Partial<RequestPhaseConfig> = {}): RequestPhaseConfig => ({
  plan: "pro",
  accessRules,
  firewall: { rules: [fw("fw-admin", 'http.request.uri.path eq "/admin"'), fw("fw-off", "true", false)] },
  rateLimits: { rules: [rl("rl-login", 'http.request.uri.path eq "/login"')] },
  ...extra,
});

function request(path: string, ip = "192.0.2.1", country?: string, accept = "application/json"): Request {
  // `request.cf` is set by the edge; workerd lets a test build a Request carrying it.
  const cf = country === undefined ? undefined : { country };
  return new Request(`https://shop.example${path}`, { headers: { "CF-Connecting-IP": ip, Accept: accept }, cf });
}

/** The outcome without the rules that counted it (rate-limit-fields.test.ts covers those). */
async function run(
  cfg: RequestPhaseConfig,
  req: Request,
  zone: string,
  now = Date.now(),
): Promise<RequestPhaseOutcome> {
  const outcome = await requestPhase(compileRequestPhase(cfg), req, { env, zone, now });
  if (outcome.kind === "pass") return { kind: "pass" };
  const { rateLimits: _counted, ...rest } = outcome;
  return rest;
}

describe("each producer and its code", () => {
  it("1006 for a blocked address, 1009 for a blocked country, 1020 for a firewall rule, 1015 past the limit", async () => {
    const zone = newZone();
    expect(await run(config(), request("/", "203.0.113.9"), zone)).toMatchObject({ kind: "error", code: 1006 });
    expect(await run(config(), request("/", "192.0.2.1", "KP"), zone)).toMatchObject({ kind: "error", code: 1009 });
    expect(await run(config(), request("/admin"), zone)).toMatchObject({
      kind: "error",
      code: 1020,
      cause: expect.stringContaining("fw-admin") as unknown,
    });
    expect(await run(config(), request("/"), zone)).toEqual({ kind: "pass" });
    const t0 = Date.now();
    expect(await run(config(), request("/login"), zone, t0)).toEqual({ kind: "pass" });
    expect(await run(config(), request("/login"), zone, t0)).toEqual({ kind: "pass" });
    expect(await run(config(), request("/login"), zone, t0)).toEqual({
      kind: "error",
      code: 1015,
      retryAfter: 42,
      cause: expect.stringContaining("rl-login") as unknown,
      ruleId: "rl-login",
    });
  });

  it("a disabled firewall rule never blocks", async () => {
    const compiled = compileFirewall({ rules: [fw("off", "true", false)] }, Infinity);
    expect(compiled.rules).toEqual([]);
  });
});

describe("order: IP access → firewall → rate limiting, each short-circuiting", () => {
  it("an IP access block wins over a matching firewall rule", async () => {
    expect(await run(config(), request("/admin", "203.0.113.1"), newZone())).toMatchObject({ code: 1006 });
  });

  it("a firewall block wins over rate limiting, and the blocked request is not counted", async () => {
    const zone = newZone();
    const cfg = config({
      firewall: { rules: [fw("fw-bot", 'http.request.uri.query contains "bot"')] },
      rateLimits: { rules: [rl("rl-all", "true", 1)] },
    });
    const t0 = Date.now();
    for (let i = 0; i < 5; i++) expect(await run(cfg, request("/?bot"), zone, t0)).toMatchObject({ code: 1020 });
    expect(await run(cfg, request("/"), zone, t0)).toEqual({ kind: "pass" });
    expect(await run(cfg, request("/"), zone, t0)).toMatchObject({ code: 1015 });
  });

  it("a zone without rules compiles to nothing and passes", async () => {
    const compiled = compileRequestPhase({ plan: "free" });
    expect(compiled).toEqual({ access: null, firewall: null, rateLimits: null, problems: [] });
    expect(await requestPhase(compiled, request("/"), { env: {}, zone: "z.example", now: 0 })).toEqual({
      kind: "pass",
    });
  });
});

describe("plan limits on free (docs/custom-errors.md)", () => {
  const six = { rules: Array.from({ length: 6 }, (_, i) => fw(`fw${i}`, `http.request.uri.path eq "/r${i}"`)) };

  it("only the first 5 enabled firewall rules are evaluated on free; all on pro", async () => {
    const zone = newZone();
    expect(await run(config({ plan: "free", firewall: six }), request("/r4"), zone)).toMatchObject({ code: 1020 });
    expect(await run(config({ plan: "free", firewall: six }), request("/r5"), zone)).toEqual({ kind: "pass" });
    expect(await run(config({ plan: "pro", firewall: six }), request("/r5"), zone)).toMatchObject({ code: 1020 });
    // Disabled rules do not use up the allowance.
    const withDisabled = { rules: [fw("off", "true", false), ...six.rules.slice(1)] };
    expect(await run(config({ plan: "free", firewall: withDisabled }), request("/r5"), zone)).toMatchObject({
      code: 1020,
    });
  });

  it("only the first rate-limiting rule is evaluated on free", async () => {
    const zone = newZone();
    const cfg = (plan: RequestPhaseConfig["plan"]) =>
      config({
        plan,
        rateLimits: { rules: [rl("first", 'http.request.uri.path eq "/a"', 1), rl("second", "true", 1)] },
      });
    const t0 = Date.now();
    for (let i = 0; i < 3; i++)
      expect(await run(cfg("free"), request("/b", "192.0.2.10"), zone, t0)).toEqual({ kind: "pass" });
    await run(cfg("pro"), request("/b", "192.0.2.11"), zone, t0);
    expect(await run(cfg("pro"), request("/b", "192.0.2.11"), zone, t0)).toMatchObject({
      code: 1015,
      cause: expect.stringContaining("second") as unknown,
    });
  });
});

describe("over-budget rules fail closed, reported", () => {
  it("a firewall rule over the evaluation budget blocks: it is the first match, logged once", () => {
    // The real nested join(split(…)), stored as if written before the write-time check refused it: the
    // engine reports it as an outcome, never a throw, and the rule list makes it a match in the request phases.
    resetOverBudgetLog();
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const level = (x: string): string => `join(split(${x}, "a", 128), ${x})`;
    const compiled = compileFirewall(
      {
        rules: [fw("boom", `len(${level(level("http.user_agent"))}) > 0`), fw("next", 'http.host eq "shop.example"')],
      },
      Infinity,
    );
    const req = new Request("https://shop.example/", { headers: { "User-Agent": "a".repeat(227) } });
    expect(firstMatch(compiled, requestContext(req), "shop.example")?.id).toBe("boom");
    expect(logged).toHaveBeenCalledTimes(1);
    expect(JSON.parse(String(logged.mock.calls[0]?.[0]))).toMatchObject({
      event: "rule_over_budget",
      zone: "shop.example",
      phase: "http_request_firewall_custom",
      rule: "boom",
      cause: expect.stringMatching(/join\(\) would be \d+ bytes, over/) as unknown,
    });
  });

  it("through the request phases: 1020 names the over-budget rule; a rate-limiting rule over budget counts", async () => {
    resetOverBudgetLog();
    vi.spyOn(console, "error").mockImplementation(() => {});
    const level = (x: string): string => `join(split(${x}, "a", 128), ${x})`;
    const boom = `len(${level(level("http.user_agent"))}) > 0`;
    const padded = (ip: string) =>
      new Request("https://shop.example/", { headers: { "User-Agent": "a".repeat(227), "CF-Connecting-IP": ip } });
    const zone = newZone();
    const blocked: RequestPhaseConfig = { plan: "pro", firewall: { rules: [fw("boom", boom)] } };
    expect(await run(blocked, padded("192.0.2.30"), zone, Date.now())).toMatchObject({
      kind: "error",
      code: 1020,
      cause: expect.stringContaining("boom") as unknown,
    });
    // A limit of 1: the first over-budget request counts, the second is over the limit.
    const counted: RequestPhaseConfig = { plan: "pro", rateLimits: { rules: [rl("boom-rl", boom, 1)] } };
    const t0 = Date.now();
    expect(await run(counted, padded("192.0.2.31"), zone, t0)).toEqual({ kind: "pass" });
    expect(await run(counted, padded("192.0.2.31"), zone, t0)).toMatchObject({ code: 1015 });
  });

  it("a stored rule that does not compile is reported once when compiled, and skipped", () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const zone = newZone();
    const doc = zoneWith(zone, 1, [fw("bad", "http.nope eq 1"), fw("ok", "true")]);
    const a = compiledOf(doc);
    compiledOf(doc);
    expect(a.phases.firewall?.rules.map((r) => r.id)).toEqual(["ok"]);
    expect(logged).toHaveBeenCalledTimes(1);
    expect(JSON.parse(String(logged.mock.calls[0]?.[0]))).toMatchObject({
      event: "rule_unusable",
      rule: "bad",
      version: 1,
    });
  });
});

describe("compile once per version", () => {
  it("the same version is the same compiled object, also when re-read; a new version recompiles", () => {
    const zone = newZone();
    const a = compiledOf(zoneWith(zone, 7, [fw("x", "true")]));
    expect(compiledOf(zoneWith(zone, 7, [fw("x", "true")]))).toBe(a);
    const b = compiledOf(zoneWith(zone, 8, []));
    expect(b).not.toBe(a);
    expect(b.phases.firewall).toBeNull();
    expect(b.hasPhases).toBe(false);
  });
});

/** A parsed zone document (as the zone cache holds it) with these firewall rules. */
function zoneWith(zone: string, version: number, rules: readonly ReturnType<typeof fw>[]): Zone {
  const parsed = parseDocument(zone, {
    schema: ZONE_DOC_SCHEMA,
    version,
    zone,
    modified_on: "2026-11-23T00:00:00Z",
    settings: { plan: "pro", origin: "http://127.0.0.1:9" },
    [rulesetSection("http_request_firewall_custom")]: {
      id: "rs",
      version: "1",
      last_updated: "",
      rules: rules.map((r) => ({ ...r, version: "1", description: "", last_updated: "2026-11-23T00:00:00Z" })),
    },
  });
  if (!parsed.ok) throw new Error(parsed.error.cause);
  return parsed.value;
}

describe("through the error pipeline", () => {
  const settings = parseSettings({});

  it("1015 with the dynamic Retry-After in header and body; 403 for 1006 / 1009 / 1020; negotiated", async () => {
    const zone = newZone();
    const t0 = Date.now();
    const cfg = config({ rateLimits: { rules: [rl("rl", "true", 1)] } });
    await run(cfg, request("/"), zone, t0);
    expect(await run(cfg, request("/"), zone, t0)).toMatchObject({ code: 1015, retryAfter: 42 });
    const outcome = await run(cfg, request("/"), zone, t0 + 2500);
    expect(outcome).toMatchObject({ kind: "error", code: 1015, retryAfter: 40 });
    if (outcome.kind !== "error") throw new Error("unreachable");
    const res = (
      await errorResponse(
        { code: outcome.code, request: request("/"), retryAfter: outcome.retryAfter, cause: outcome.cause },
        { settings, zone },
      )
    ).response;
    expect(res.status).toBe(429);
    expect(res.headers.get("Retry-After")).toBe("40");
    const body = await res.json<{ error_code: number; retry_after: number; zone: string }>();
    expect(body).toMatchObject({ error_code: 1015, retry_after: 40, zone });

    for (const [req, code] of [
      [request("/", "203.0.113.7", undefined, "text/markdown"), 1006],
      [request("/", "192.0.2.1", "KP", "text/markdown"), 1009],
      [request("/admin", "192.0.2.1", undefined, "text/markdown"), 1020],
    ] as const) {
      const o = await run(cfg, req, newZone());
      expect(o).toMatchObject({ kind: "error", code });
      if (o.kind !== "error") continue;
      const r = (await errorResponse({ code: o.code, request: req, cause: o.cause }, { settings, zone })).response;
      expect(r.status).toBe(403);
      expect(r.headers.get("Content-Type")).toMatch(/^text\/markdown/);
      expect(r.headers.get("Retry-After")).toBeNull();
      expect(await r.text()).toContain(`error_code: ${code}`);
    }
  });
});
