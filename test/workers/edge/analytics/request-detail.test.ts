/**
 * What a record keeps of its request and its phases, through the real Worker (docs/analytics.md "Request detail"):
 * the `Accept` family, the client address class, and each phase's outcome with the rule that blocked, for an IP
 * access block (address and country), a firewall block, a rate-limit block, a limit refused before the phases, an
 * origin failure and an origin error answered by a rule.
 */
import { zoneLookup } from "../../../../src/state/analytics/fan-out";
import { DEFAULT_PLAN } from "../../../../src/state/analytics/shards";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../../src/index";
import { decodeDetail, type RequestDetail } from "../../../../src/state/analytics/request-detail";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { apiOk, entrypoint } from "../../support/envelope";

const FW = "f0000000000000000000000000000001";
const RL = "e0000000000000000000000000000002";
const RULE = "c0000000000000000000000000000003";

interface Sent {
  readonly path: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly country?: string;
}

async function send(zone: string, s: Sent): Promise<Response> {
  const ctx = createExecutionContext();
  const init: RequestInit = { method: s.method ?? "GET", headers: s.headers ?? {} };
  const request = new Request(`http://${zone}${s.path}`, s.country ? { ...init, cf: { country: s.country } } : init);
  const res = await worker.fetch(request, env, ctx);
  await res.body?.cancel();
  await waitOnExecutionContext(ctx);
  return res;
}

/** The stored detail of `ray` (the batch is written after the response; waited for). */
async function detailOf(zone: string, ray: string): Promise<RequestDetail | null> {
  for (let i = 0; i < 50; i++) {
    // The record is in the zone's shard its Ray ID names (docs/analytics.md "Shards").
    const record = await zoneLookup(env.ZONE_ANALYTICS, zone, DEFAULT_PLAN, ray);
    if (record !== null) return decodeDetail(record.detail);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no record of ${ray}`);
}

async function recorded(zone: string, s: Sent, status: number): Promise<RequestDetail | null> {
  const res = await send(zone, s);
  expect(res.status, s.path).toBe(status);
  return detailOf(zone, res.headers.get("Ray-ID") ?? "");
}

describe("the request detail of each kind of error", () => {
  it("request-phase blocks name their phase and rule; later phases were not reached", async () => {
    const zone = uniqueZone("detail-phases");
    await putZone(zone, { origin: loopback(ports.http) });
    await apiOk("PUT", `/zones/${zone}/access_rules`, {
      rules: [
        { mode: "block", configuration: { target: "ip", value: "198.51.100.4" } },
        { mode: "block", configuration: { target: "country", value: "KP" } },
      ],
    });
    const access = await apiOk<{ rules: { id: string; configuration: { target: string } }[] }>(
      "GET",
      `/zones/${zone}/access_rules`,
    );
    const [ipId, countryId] = access.result.rules.map((r) => r.id);
    await apiOk("PUT", entrypoint(zone, "http_request_firewall_custom"), {
      rules: [{ id: FW, expression: 'http.request.uri.path eq "/admin"', action: "block" }],
    });
    await apiOk("PUT", entrypoint(zone, "http_ratelimit"), {
      rules: [
        {
          id: RL,
          expression: 'http.request.uri.path eq "/login"',
          action: "block",
          ratelimit: { characteristics: ["ip.src"], period: 60, requests_per_period: 1, mitigation_timeout: 60 },
        },
      ],
    });

    expect(
      await recorded(
        zone,
        { path: "/", headers: { "CF-Connecting-IP": "198.51.100.4", Accept: "application/json" } },
        403,
      ),
    ).toEqual({
      accept: "json",
      client: "ipv4",
      ipAccess: "blocked",
      firewall: "not-reached",
      rateLimit: "not-reached",
      origin: { kind: "not-reached" },
      rules: "not-run",
      blockedBy: ipId,
    });
    expect(
      await recorded(zone, { path: "/", headers: { "CF-Connecting-IP": "10.1.2.3" }, country: "KP" }, 403),
    ).toMatchObject({ accept: "none", client: "private", ipAccess: "blocked", blockedBy: countryId });
    expect(
      await recorded(
        zone,
        { path: "/admin", headers: { "CF-Connecting-IP": "2001:db8::7", Accept: "text/markdown" } },
        403,
      ),
    ).toEqual({
      accept: "markdown",
      client: "ipv6",
      ipAccess: "passed",
      firewall: "blocked",
      rateLimit: "not-reached",
      origin: { kind: "not-reached" },
      rules: "not-run",
      blockedBy: FW,
    });
    const login = { path: "/login", headers: { "CF-Connecting-IP": "192.0.2.9", Accept: "image/png" } };
    expect((await send(zone, login)).status).toBe(200);
    expect(await recorded(zone, login, 429)).toEqual({
      accept: "other",
      client: "ipv4",
      ipAccess: "passed",
      firewall: "passed",
      rateLimit: "blocked",
      origin: { kind: "not-reached" },
      rules: "not-run",
      blockedBy: RL,
    });
  });

  it("origin failures, origin errors a rule answered, and a limit refused before every phase", async () => {
    const zone = uniqueZone("detail-origin");
    await putZone(zone, { origin: loopback(ports.closed), connect_timeout: 0.5, max_request_header_bytes: 1024 });
    const answered = uniqueZone("detail-answered");
    await putZone(answered, { origin: loopback(ports.http) });
    for (const z of [zone, answered])
      await apiOk("PUT", entrypoint(z, "http_custom_errors"), {
        rules: [
          {
            id: RULE,
            expression: 'http.request.uri.path eq "/status/404"',
            action: "serve_error",
            action_parameters: { content: "{}", content_type: "application/json" },
          },
        ],
      });
    expect(await recorded(zone, { path: "/x", headers: { Accept: "text/*" } }, 521)).toEqual({
      accept: "markdown",
      client: "none",
      ipAccess: "none",
      firewall: "none",
      rateLimit: "none",
      origin: { kind: "failed" },
      rules: "no-match",
      blockedBy: null,
    });
    expect(await recorded(zone, { path: "/big", headers: { Accept: "*/*", "X-Pad": "p".repeat(1500) } }, 431)).toEqual({
      accept: "html",
      client: "none",
      ipAccess: "not-reached",
      firewall: "not-reached",
      rateLimit: "not-reached",
      origin: { kind: "not-reached" },
      rules: "no-match",
      blockedBy: null,
    });
    const mcp = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    expect(await recorded(answered, { path: "/status/404", method: "POST", headers: mcp }, 404)).toEqual({
      accept: "mcp",
      client: "none",
      ipAccess: "none",
      firewall: "none",
      rateLimit: "none",
      origin: { kind: "responded", format: "text" },
      rules: "matched",
      blockedBy: null,
    });
  });
});
