/**
 * The `RateLimit-Policy` and `RateLimit` fields (docs/producers.md "RateLimit fields"), read with a real structured
 * field parser (`structured-headers`): on every answer of a request a rate-limiting rule counted (the origin's 200,
 * the origin's own error, a generated 521, the 1015 block, HEAD), agreeing with `Retry-After` on a block; absent on
 * zones without such rules and on requests no rule matched. Config through the real API, traffic through the
 * Worker's handler, counters in the real `RATE_LIMITER` objects, a loopback origin.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { parseList, type Item } from "structured-headers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../../../src/index";
import { api, entrypoint } from "../../support/envelope";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";

afterEach(() => vi.restoreAllMocks());

async function send(zone: string, path: string, method = "GET"): Promise<Response> {
  const ctx = createExecutionContext();
  const headers = { Accept: "application/json", "CF-Connecting-IP": "192.0.2.7" };
  const res = await worker.fetch(new Request(`http://${zone}${path}`, { method, headers }), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** A zone in front of `origin` with one rate-limiting rule; returns the zone and the rule's id. */
async function limited(
  ratelimit: Record<string, unknown>,
  options: { expression?: string; origin?: string } = {},
): Promise<{ zone: string; id: string }> {
  const zone = uniqueZone("rl-fields");
  // Generous timeouts: no test here waits for one, and a loaded machine must not turn the origin's answer into a 524.
  await putZone(zone, { origin: options.origin ?? loopback(ports.http), connect_timeout: 5, read_timeout: 10 });
  const res = await api<{ rules: { id: string }[] }>("PUT", entrypoint(zone, "http_ratelimit"), {
    rules: [
      {
        expression: options.expression ?? "true",
        action: "block",
        ratelimit: { characteristics: ["ip.src"], period: 60, mitigation_timeout: 30, ...ratelimit },
      },
    ],
  });
  expect(res.status, JSON.stringify(res.body.errors)).toBe(200);
  return { zone, id: res.body.result.rules[0]!.id };
}

/** A field parsed as an RFC 9651 List: [name, parameters] per member. */
function members(res: Response, field: string): [string, Record<string, unknown>][] {
  const value = res.headers.get(field);
  expect(value, field).not.toBeNull();
  return parseList(value!).map((m) => {
    const [name, params] = m as Item;
    expect(typeof name).toBe("string"); // the draft's policy names are sf-strings
    return [name as string, Object.fromEntries(params)];
  });
}

function clockAt(at: number): void {
  vi.spyOn(Date, "now").mockReturnValue(at);
}

describe("RateLimit-Policy and RateLimit on zone traffic", () => {
  it("exact counting: every allowed answer counts down; the block says r=0 and t = Retry-After", async () => {
    const { zone, id } = await limited({ requests_per_period: 3, counting: "exact" });
    clockAt(Date.now());
    for (const left of [2, 1, 0]) {
      const res = await send(zone, "/");
      expect(res.status).toBe(200);
      await res.body?.cancel();
      expect(members(res, "RateLimit-Policy")).toEqual([[id, { q: 3, w: 60 }]]);
      // The request's bucket leaves the window a period later: t = 60.
      expect(members(res, "RateLimit")).toEqual([[id, { r: left, t: 60 }]]);
    }
    for (const method of ["GET", "HEAD"]) {
      const res = await send(zone, "/", method);
      expect(res.status).toBe(429);
      await res.body?.cancel();
      const retryAfter = Number(res.headers.get("Retry-After"));
      expect(retryAfter).toBe(60); // the window outlasts the 30 s mitigation
      expect(members(res, "RateLimit-Policy")).toEqual([[id, { q: 3, w: 60 }]]);
      expect(members(res, "RateLimit")).toEqual([[id, { r: 0, t: retryAfter }]]);
    }
  });

  it("approximate counting (leases): the quota as this isolate knows it", async () => {
    const { zone, id } = await limited({ requests_per_period: 100 });
    clockAt(Date.now());
    const seen: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await send(zone, "/");
      await res.body?.cancel();
      seen.push(members(res, "RateLimit")[0]);
    }
    // The first request took a lease of 1; the next leases count until their expiry (≤ 1 s later) + the period.
    expect(seen).toEqual([
      [id, { r: 99, t: 60 }],
      [id, { r: 98, t: 61 }],
      [id, { r: 97, t: 61 }],
      [id, { r: 96, t: 61 }],
    ]);
  });

  it("on the origin's own error and on a generated 521 too", async () => {
    const own = await limited({ requests_per_period: 10, counting: "exact" });
    const notFound = await send(own.zone, "/status/404");
    expect(notFound.status).toBe(404);
    await notFound.body?.cancel();
    expect(members(notFound, "RateLimit")).toEqual([[own.id, { r: 9, t: 60 }]]);

    const down = await limited({ requests_per_period: 10, counting: "exact" }, { origin: loopback(ports.closed) });
    const refused = await send(down.zone, "/");
    expect(refused.status).toBe(521);
    await refused.body?.cancel();
    expect(members(refused, "RateLimit-Policy")).toEqual([[down.id, { q: 10, w: 60 }]]);
    expect(members(refused, "RateLimit")).toEqual([[down.id, { r: 9, t: 60 }]]);
  });

  it("at most five members: the blocking rule's, then those with the fewest requests left", async () => {
    const zone = uniqueZone("rl-many");
    await putZone(zone, { plan: "enterprise", origin: loopback(ports.http) });
    // 16 counted rules; rule i admits 1000 - i requests, so the last rules have the fewest left. Rule 10 admits 1, so
    // the request it blocks was counted by 11 rules, more than fit too. Each counted rule is one call to its counter
    // object, given 1 s before the request goes on without that rule's count
    // (src/edge/request-phases/rate-limit/check.ts): 150 rules (150 calls a request) failed this test once on a loaded
    // machine and passed alone.
    const rules = Array.from({ length: 16 }, (_, i) => ({
      expression: "true",
      action: "block",
      ratelimit: {
        characteristics: ["ip.src"],
        period: 60,
        mitigation_timeout: 30,
        requests_per_period: i === 10 ? 1 : 1000 - i,
        counting: "exact",
      },
    }));
    const stored = await api<{ rules: { id: string }[] }>("PUT", entrypoint(zone, "http_ratelimit"), { rules });
    expect(stored.status, JSON.stringify(stored.body.errors)).toBe(200);
    const ids = stored.body.result.rules.map((r) => r.id);
    clockAt(Date.now());
    const first = await send(zone, "/");
    expect(first.status).toBe(200);
    await first.body?.cancel();
    expect(members(first, "RateLimit").map(([name, p]) => [ids.indexOf(name), p.r])).toEqual([
      [10, 0],
      [15, 984],
      [14, 985],
      [13, 986],
      [12, 987],
    ]);
    expect(members(first, "RateLimit-Policy").map(([name]) => ids.indexOf(name))).toEqual([10, 15, 14, 13, 12]);
    const blocked = await send(zone, "/");
    expect(blocked.status).toBe(429);
    await blocked.body?.cancel();
    const sent = members(blocked, "RateLimit").map(([name, p]) => [ids.indexOf(name), p.r]);
    expect(sent[0]).toEqual([10, 0]);
    expect(sent.length).toBeLessThanOrEqual(5);
    for (const field of ["RateLimit-Policy", "RateLimit"]) {
      expect(blocked.headers.get(field)!.length, field).toBeLessThan(400);
    }
  });

  it("absent when no rule counted the request, and on zones without rate-limiting rules", async () => {
    const { zone } = await limited({ requests_per_period: 10 }, { expression: 'http.request.uri.path eq "/api"' });
    const other = await send(zone, "/");
    expect(other.status).toBe(200);
    await other.body?.cancel();
    const plain = uniqueZone("rl-none");
    await putZone(plain, { origin: loopback(ports.http) });
    const res = await send(plain, "/");
    await res.body?.cancel();
    for (const r of [other, res]) {
      expect(r.headers.get("RateLimit-Policy")).toBeNull();
      expect(r.headers.get("RateLimit")).toBeNull();
    }
  });
});
