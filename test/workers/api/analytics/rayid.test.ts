/**
 * The Ray lookup at the published path, driven by the official client (`cloudflare` 7.3.0, `logs.RayID.get`) against
 * the real Worker: the record as a Logpull line with `fields` and `timestamps`, every phase's outcome, refusals in
 * the envelope; and the same lookup at `/zones/{zone}/errors/{ray}` (one implementation).
 */
import Cloudflare from "cloudflare";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../../src/index";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { apiFetch, apiOk, entrypoint } from "../../support/envelope";

const client = new Cloudflare({
  apiToken: "test-admin-token",
  baseURL: "http://localhost/client/v4",
  fetch: (url, init) => exports.default.fetch(url, init),
  maxRetries: 0,
});

const FW = "f1000000000000000000000000000001";
const RULE = "c1000000000000000000000000000002";

async function send(zone: string, path: string, headers: Record<string, string>, country?: string): Promise<string> {
  const ctx = createExecutionContext();
  const init: RequestInit = { headers };
  const res = await worker.fetch(
    new Request(`http://${zone}${path}`, country ? { ...init, cf: { country } } : init),
    env,
    ctx,
  );
  await res.body?.cancel();
  await waitOnExecutionContext(ctx);
  return res.headers.get("Ray-ID") ?? "";
}

/** Waits for the record (written after the response). */
async function recorded(zone: string, ray: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    if ((await apiFetch("GET", `/zones/${zone}/errors/${ray}`)).status === 200) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function blockedZone(): Promise<{ zone: string; blocked: string; ruled: string; at: number }> {
  const zone = uniqueZone("rayid");
  await putZone(zone, { origin: loopback(ports.closed), connect_timeout: 0.5 });
  await apiOk("PUT", entrypoint(zone, "http_request_firewall_custom"), {
    rules: [{ id: FW, expression: 'http.request.uri.path eq "/admin"', action: "block" }],
  });
  await apiOk("PUT", entrypoint(zone, "http_custom_errors"), {
    rules: [
      {
        id: RULE,
        expression: 'http.request.uri.path eq "/down"',
        action: "serve_error",
        action_parameters: { content: "down", content_type: "text/plain" },
      },
    ],
  });
  const at = Date.now();
  const blocked = await send(zone, "/admin", { Accept: "application/json", "CF-Connecting-IP": "192.0.2.5" }, "FR");
  const ruled = await send(zone, "/down", { Accept: "text/html" });
  await recorded(zone, blocked);
  await recorded(zone, ruled);
  return { zone, blocked, ruled, at };
}

describe("GET /zones/{zone_id}/logs/rayids/{ray_id} through the official client", () => {
  it("a firewall block: the published fields, this service's own, and every phase's outcome", async () => {
    const { zone, blocked, at } = await blockedZone();
    const line = (await client.logs.RayID.get(blocked, { zone_id: zone })) as Record<string, unknown>;
    expect(line).toMatchObject({
      RayID: blocked,
      ClientRequestHost: zone,
      ClientRequestMethod: "GET",
      ClientRequestURI: "/admin",
      ClientRequestPath: "/admin",
      ClientCountry: "fr",
      EdgeResponseStatus: 403,
      OriginResponseStatus: 0,
      SecurityAction: "block",
      SecurityRuleID: FW,
      EdgeErrorCode: 1020,
      EdgeErrorSource: "edge",
      EdgeErrorAnsweredBy: "default",
      EdgeResponseFormat: "json",
      ClientAcceptFamily: "json",
      ClientAddressClass: "ipv4",
    });
    const ns = line.EdgeStartTimestamp as number;
    expect(ns).toBeGreaterThanOrEqual(at * 1e6);
    expect(ns).toBeLessThan((at + 60_000) * 1e6);
    expect(line.EdgePhases).toEqual([
      { phase: "ip_access", outcome: "none" },
      { phase: "firewall", outcome: "blocked", code: 1020, rule_id: FW },
      { phase: "rate_limit", outcome: "not-reached" },
      { phase: "origin", outcome: "not-reached" },
      { phase: "custom_error_rules", outcome: "no-match" },
      { phase: "custom_page", outcome: "not-run" },
      { phase: "default", outcome: "answered" },
    ]);
  });

  it("fields and timestamps as published; the envelope lookup shows the same phases", async () => {
    const { zone, ruled } = await blockedZone();
    const some = (await client.logs.RayID.get(ruled, {
      zone_id: zone,
      fields: "RayID,EdgeStartTimestamp,EdgePhases",
      timestamps: "rfc3339",
    })) as Record<string, unknown>;
    expect(Object.keys(some).sort()).toEqual(["EdgePhases", "EdgeStartTimestamp", "RayID"]);
    expect(some.EdgeStartTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const unix = (await client.logs.RayID.get(ruled, {
      zone_id: zone,
      fields: "EdgeStartTimestamp",
      timestamps: "unix",
    })) as {
      EdgeStartTimestamp: number;
    };
    expect(unix.EdgeStartTimestamp).toBe(Math.floor(Date.parse(some.EdgeStartTimestamp as string) / 1000));
    const phases = [
      { phase: "ip_access", outcome: "none" },
      { phase: "firewall", outcome: "passed" },
      { phase: "rate_limit", outcome: "none" },
      { phase: "origin", outcome: "failed", code: 521, failure: "refused" },
      { phase: "custom_error_rules", outcome: "matched", rule_id: RULE },
      { phase: "custom_page", outcome: "not-run" },
      { phase: "default", outcome: "not-run" },
    ];
    expect(some.EdgePhases).toEqual(phases);
    const envelope = await apiOk<Record<string, unknown>>("GET", `/zones/${zone}/errors/${ruled}`);
    expect(envelope.result).toMatchObject({
      ray: ruled,
      code: 521,
      answered_by: "rule",
      answer_id: RULE,
      accept: "html",
      client_address: "none",
      phases,
    });
    expect(envelope.result).not.toHaveProperty("detail");
  });

  it("refusals: an unknown field, a bad timestamps value, an unknown ray (404), a malformed ray (400)", async () => {
    const { zone, blocked } = await blockedZone();
    const refused = async (call: Promise<unknown>, status: number, code: number, words: RegExp) => {
      const error = await call.then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Cloudflare.APIError);
      const apiError = error as InstanceType<typeof Cloudflare.APIError>;
      expect(apiError.status).toBe(status);
      const body = apiError.error as { errors: { code: number; message: string }[] };
      expect(body.errors[0]?.code).toBe(code);
      expect(body.errors[0]?.message).toMatch(words);
    };
    await refused(client.logs.RayID.get(blocked, { zone_id: zone, fields: "RayID,ClientIP" }), 400, 20090, /ClientIP/);
    await refused(
      client.logs.RayID.get(blocked, { zone_id: zone, fields: "RayID, EdgePhases" }),
      400,
      20090,
      /whitespace/,
    );
    const bad = client.logs.RayID.get(blocked, { zone_id: zone, timestamps: "weekly" as "unix" });
    await refused(bad, 400, 20090, /timestamps/);
    await refused(client.logs.RayID.get("0123456789abcdef", { zone_id: zone }), 404, 10404, /No error/);
    await refused(client.logs.RayID.get("not-a-ray", { zone_id: zone }), 400, 10101, /16 lower-case hex/);
  });
});
