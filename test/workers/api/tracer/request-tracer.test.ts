/**
 * `POST /accounts/{account_id}/request-tracer/trace` (docs/custom-errors.md "Request tracer"), driven by the official client's
 * `requestTracers.traces.create` against the real Worker, writer and KV, with a real origin on 127.0.0.1. A table
 * of requests is served for real and traced (the origin contacted), and each trace agrees with what traffic got:
 * the same status and the phase or rule that answered. Also: rate-limiting rules are evaluated and never counted,
 * the origin is not contacted unless asked, an account reaches only its own zones, a token only its scope.
 */
import Cloudflare from "cloudflare";
import type { TraceCreateResponse, TraceItem } from "cloudflare/resources/request-tracers/traces";
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { tokenDigestHex } from "../../../../src/api/kit/auth";
import worker from "../../../../src/index";
import { api, apiOk, entrypoint } from "../../support/envelope";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";

const A = "a".repeat(31) + "1";
const B = "b".repeat(31) + "2";

const client = new Cloudflare({
  apiToken: "test-admin-token",
  baseURL: "http://localhost/client/v4",
  fetch: (url, init) => exports.default.fetch(url, init),
  maxRetries: 0,
});

let scopedEnv: Env;
/** A client whose token reaches only account A's zones, through an env holding that token. */
let clientOfA: Cloudflare;

beforeAll(async () => {
  const tokens = [
    {
      name: "reader-a",
      sha256: await tokenDigestHex("tok-trace-a"),
      accounts: [A],
      zones: [],
      permissions: ["zones:read"],
    },
  ];
  scopedEnv = { ...env, API_TOKENS: JSON.stringify(tokens) };
  clientOfA = new Cloudflare({
    apiToken: "tok-trace-a",
    baseURL: "http://localhost/client/v4",
    fetch: (url, init) => worker.fetch(new Request(url, init), scopedEnv, createExecutionContext()),
    maxRetries: 0,
  });
});

const serve = (expression: string, content: string, status: number) => ({
  expression,
  action: "serve_error",
  action_parameters: { content, content_type: "application/json", status_code: status },
});

/** A zone of account A in front of the test origin, with a rule of every phase. */
async function tracedZone(account = A): Promise<string> {
  const zone = uniqueZone("trace");
  await putZone(zone, { origin: loopback(ports.http), account: { id: account } });
  await apiOk("PUT", `/zones/${zone}/access_rules`, {
    rules: [
      { mode: "block", configuration: { target: "ip_range", value: "198.51.100.0/24" } },
      { mode: "block", configuration: { target: "country", value: "KP" } },
    ],
  });
  await apiOk("PUT", entrypoint(zone, "http_request_firewall_custom"), {
    rules: [{ expression: 'starts_with(http.request.uri.path, "/admin")', action: "block", description: "admin" }],
  });
  await apiOk("PUT", entrypoint(zone, "http_ratelimit"), {
    rules: [
      {
        expression: 'http.request.uri.path eq "/echo/limited"',
        action: "block",
        description: "one per minute",
        ratelimit: { characteristics: ["ip.src"], period: 60, requests_per_period: 1, mitigation_timeout: 60 },
      },
    ],
  });
  await apiOk("PUT", entrypoint(zone, "http_custom_errors"), {
    rules: [
      serve('edge.response.1xxx_code eq 1020 and http.request.uri.path ne ""', '{"rule":"firewall"}', 403),
      serve('http.response.code eq 404 and starts_with(http.request.uri.path, "/status/")', '{"rule":"gone"}', 410),
    ],
  });
  return zone;
}

const step = (trace: TraceItem[] | undefined, name: string): TraceItem | undefined =>
  trace?.find((item) => item.step_name === name);
const matchedRules = (item: TraceItem | undefined): string[] =>
  (item?.trace ?? []).filter((r) => r.matched).map((r) => r.description ?? r.step_name ?? "");

interface Row {
  readonly name: string;
  readonly path: string;
  readonly ip?: string;
  readonly country?: string;
  /** The phase that blocked, the custom error rule that answered (by description), and the status. */
  readonly blockedBy: string | null;
  readonly status: number;
  readonly body?: string;
}

const TABLE: readonly Row[] = [
  { name: "passes to the origin", path: "/echo/ok", blockedBy: null, status: 200 },
  { name: "a blocked address (1006)", path: "/echo/x", ip: "198.51.100.9", blockedBy: "ip_access", status: 403 },
  { name: "a blocked country (1009)", path: "/echo/x", country: "KP", blockedBy: "ip_access", status: 403 },
  {
    name: "a firewall block, answered by a rule",
    path: "/admin/users",
    blockedBy: "http_request_firewall_custom",
    status: 403,
    body: '{"rule":"firewall"}',
  },
  {
    name: "the origin's 404, rewritten by a rule",
    path: "/status/404",
    blockedBy: null,
    status: 410,
    body: '{"rule":"gone"}',
  },
  { name: "the origin's 503, passed through", path: "/status/503-json", blockedBy: null, status: 503 },
];

async function trace(zone: string, row: Row, extra: Record<string, unknown> = {}): Promise<TraceCreateResponse> {
  const params = {
    account_id: A,
    method: "GET",
    url: `http://${zone}${row.path}`,
    headers: { Accept: "application/json", ...(row.ip ? { "CF-Connecting-IP": row.ip } : {}) },
    ...(row.country ? { context: { geoloc: { iso_code: row.country } } } : {}),
    origin: { contact: true },
    ...extra,
  };
  return client.requestTracers.traces.create(params);
}

describe("traces agree with real traffic over a table of requests", () => {
  it.each(TABLE)("$name", async (row) => {
    const zone = await tracedZone();
    const traced = await trace(zone, row);
    const real = await exports.default.fetch(`http://${zone}${row.path}`, {
      headers: { Accept: "application/json", ...(row.ip ? { "CF-Connecting-IP": row.ip } : {}) },
      ...(row.country ? { cf: { country: row.country } } : {}),
    });
    const text = await real.text();
    expect(traced.status_code, row.name).toBe(real.status);
    expect(real.status).toBe(row.status);
    if (row.body !== undefined) expect(text).toBe(row.body);
    expect(traced.trace?.map((t) => t.step_name)).toEqual(
      expect.arrayContaining([
        "url_normalization",
        "ip_access",
        "http_request_firewall_custom",
        "http_ratelimit",
        "origin",
      ]),
    );
    for (const phase of ["ip_access", "http_request_firewall_custom"])
      expect(step(traced.trace, phase)?.matched, phase).toBe(row.blockedBy === phase);
    expect(step(traced.trace, "origin")?.matched).toBe(row.blockedBy === null);
    const rules = step(traced.trace, "http_custom_errors");
    if (row.body !== undefined) expect(rules?.matched).toBe(true);
    else if (rules !== undefined) expect(rules.matched).toBe(false);
  });
});

describe("every phase as a TraceItem", () => {
  it("rate-limiting rules are evaluated and not counted when the origin is not contacted: traced thrice, traffic still passes", async () => {
    const zone = await tracedZone();
    const row: Row = { name: "limited", path: "/echo/limited", ip: "192.0.2.1", blockedBy: null, status: 200 };
    for (let i = 0; i < 3; i++) {
      const traced = await trace(zone, row, { origin: { status: 200 } });
      expect(traced.status_code).toBe(200);
      const limits = step(traced.trace, "http_ratelimit");
      expect(limits?.matched).toBe(true);
      expect(matchedRules(limits)).toEqual(["one per minute"]);
      expect(limits?.trace?.[0]).toMatchObject({
        action: "block",
        expression: 'http.request.uri.path eq "/echo/limited"',
      });
    }
    // One request per minute: had a trace counted, this first real request would be over the limit.
    const first = await exports.default.fetch(`http://${zone}/echo/limited`, {
      headers: { "CF-Connecting-IP": "192.0.2.1" },
    });
    expect(first.status).toBe(200);
    const second = await exports.default.fetch(`http://${zone}/echo/limited`, {
      headers: { "CF-Connecting-IP": "192.0.2.1" },
    });
    expect(second.status).toBe(429);
  });

  it("a trace that contacts the origin is counted by the rate-limiting rules: the second is 1015, the origin not contacted", async () => {
    const zone = await tracedZone();
    const row: Row = { name: "limited", path: "/echo/limited", ip: "192.0.2.7", blockedBy: null, status: 200 };
    const first = await trace(zone, row);
    expect(first.status_code).toBe(200);
    expect(step(first.trace, "http_ratelimit")?.description).toMatch(/^counted/);
    const second = await trace(zone, row);
    expect(second.status_code).toBe(429);
    expect(step(second.trace, "origin")).toMatchObject({ matched: false });
    expect(step(second.trace, "origin")?.description).toContain("rate-limiting rule");
    expect(step(second.trace, "default")?.description).toMatch(/^the structured error 1015/);
    // The traces spent the client's one request a minute: traffic from the same address is refused.
    const real = await exports.default.fetch(`http://${zone}/echo/limited`, {
      headers: { "CF-Connecting-IP": "192.0.2.7" },
    });
    expect(real.status).toBe(429);
  });

  it("origin.contact sends GET and HEAD only (400, 20085) and needs zones:write (403, 10001)", async () => {
    const zone = await tracedZone();
    for (const method of ["DELETE", "POST", "PUT", "PATCH", "OPTIONS"]) {
      const answer = await api("POST", `/accounts/${A}/request-tracer/trace`, {
        method,
        url: `http://${zone}/admin-off/users/1`,
        origin: { contact: true },
      });
      expect(answer.status, method).toBe(400);
      expect(answer.body.errors.map((e) => [e.code, e.message.split(":")[0]])).toEqual([[20085, "origin.contact"]]);
    }
    const head = await trace(
      zone,
      { name: "head", path: "/echo/ok", blockedBy: null, status: 200 },
      { method: "HEAD" },
    );
    expect(head.status_code).toBe(200);
    await expect(
      clientOfA.requestTracers.traces.create({
        account_id: A,
        method: "GET",
        url: `http://${zone}/echo/ok`,
        origin: { contact: true },
      } as Parameters<typeof clientOfA.requestTracers.traces.create>[0]),
    ).rejects.toMatchObject({ status: 403 });
  });

  it("an origin's huge error body is read only as far as it is kept (64 KiB), the rest cancelled", async () => {
    const zone = await tracedZone();
    const id = `big-${Math.random().toString(36).slice(2)}`;
    const traced = await trace(zone, { name: "big", path: `/big-error?id=${id}&mb=30`, blockedBy: null, status: 500 });
    expect(traced.status_code).toBe(500);
    // What the origin managed to write: the trace read 64 KiB, the loopback socket buffers some more; reading the
    // whole body (as `response.text()` did) takes all 30 MiB.
    await new Promise((r) => setTimeout(r, 200));
    const written = Number(await (await fetch(`${loopback(ports.http)}/progress?id=${id}`)).text());
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(12 * 1024 * 1024);
  });

  it("the origin is not contacted unless asked: no status_code; a described failure gets the answer traffic would", async () => {
    const zone = await tracedZone();
    const row: Row = { name: "x", path: "/echo/ok", blockedBy: null, status: 200 };
    const untouched = await trace(zone, row, { origin: undefined });
    expect(untouched.status_code).toBeUndefined();
    expect(step(untouched.trace, "origin")).toMatchObject({ matched: false });
    expect(step(untouched.trace, "http_custom_errors")).toBeUndefined();
    const failed = await trace(zone, row, { origin: { failure: "connect-timeout" } });
    expect(failed.status_code).toBe(522);
    expect(step(failed.trace, "default")).toMatchObject({ matched: true });
    const described = await trace(zone, { ...row, path: "/status/x" }, { origin: { status: 404 } });
    expect(described.status_code).toBe(410);
    expect(matchedRules(step(described.trace, "http_custom_errors"))).toEqual([""]);
  });

  it("each rule is an item with matched, expression and action; URL normalisation says the path rules see", async () => {
    const zone = await tracedZone();
    const traced = await trace(zone, { name: "x", path: "/%61dmin/users", blockedBy: null, status: 403 });
    expect(step(traced.trace, "url_normalization")).toMatchObject({ matched: true });
    expect(step(traced.trace, "url_normalization")?.description).toContain('"/admin/users"');
    const firewall = step(traced.trace, "http_request_firewall_custom");
    expect(firewall).toMatchObject({ type: "ruleset", kind: "zone", matched: true });
    expect(firewall?.trace?.[0]).toMatchObject({
      type: "rule",
      matched: true,
      action: "block",
      expression: 'starts_with(http.request.uri.path, "/admin")',
      description: "admin",
    });
    const access = step(traced.trace, "ip_access");
    expect(access?.trace?.map((r) => [r.expression, r.matched])).toEqual([
      ["ip.src in {198.51.100.0/24}", false],
      ['ip.src.country eq "KP"', false],
    ]);
  });
});

describe("an account reaches only its own zones, a token only its scope", () => {
  it("another account's zone and an unknown host are 404 alike; a token of account A traces A's zones only", async () => {
    const other = await tracedZone(B);
    const answers = await Promise.all([
      api("POST", `/accounts/${A}/request-tracer/trace`, { method: "GET", url: `http://${other}/` }),
      api("POST", `/accounts/${A}/request-tracer/trace`, { method: "GET", url: "http://nowhere-trace.example/" }),
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.body.errors[0]?.code).toBe(1001);
    }
    const own = await tracedZone();
    const traced = await clientOfA.requestTracers.traces.create({
      account_id: A,
      method: "GET",
      url: `http://${own}/echo/ok`,
    });
    expect(step(traced.trace, "origin")).toMatchObject({ matched: false });
    await expect(
      clientOfA.requestTracers.traces.create({ account_id: B, method: "GET", url: `http://${other}/` }),
    ).rejects.toMatchObject({ status: 403 });
  });

  it("a refused body is 400 with code 20085, naming the field", async () => {
    const answer = await api("POST", `/accounts/${A}/request-tracer/trace`, {
      method: "BREW",
      url: "ftp://x.example/",
      origin: { contact: "yes" },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.errors.map((e) => e.code)).toEqual([20085, 20085, 20085]);
    expect(answer.body.errors.map((e) => e.message.split(":")[0])).toEqual(["method", "url", "origin.contact"]);
  });
});

describe("the draft preview runs the same request phases", () => {
  it("a described request the firewall blocks is previewed as the 1020 traffic gets, with every phase's outcome", async () => {
    const zone = await tracedZone();
    const shown = await apiOk<{
      error: { code: number };
      response: { status: number; body: string };
      trace: { request_phases: { blocked: { code: number } | null; firewall: { outcome: string } } };
    }>("POST", `/zones/${zone}/preview`, {
      request: { path: "/admin/users", headers: { Accept: "application/json" }, origin: { status: 200 } },
    });
    const real = await exports.default.fetch(`http://${zone}/admin/users`, { headers: { Accept: "application/json" } });
    expect(shown.result.error.code).toBe(1020);
    expect(shown.result.trace.request_phases.blocked?.code).toBe(1020);
    expect(shown.result.trace.request_phases.firewall.outcome).toBe("blocked");
    expect(shown.result.response.status).toBe(real.status);
    expect(shown.result.response.body).toBe(await real.text());
    const passed = await apiOk<{
      trace: { request_phases: { blocked: null; rate_limits: { matched: string[]; counted: boolean } } };
    }>("POST", `/zones/${zone}/preview`, { request: { path: "/echo/limited", code: 502 } });
    expect(passed.result.trace.request_phases).toMatchObject({ blocked: null, rate_limits: { counted: false } });
    expect(passed.result.trace.request_phases.rate_limits.matched).toHaveLength(1);
  });
});
