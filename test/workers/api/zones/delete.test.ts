/**
 * Deleting a zone deletes everything it owned (docs/configuration.md "Deleting a zone"), through the real Worker,
 * real KV and real Durable Objects: its error records (ZoneAnalytics, wiped) and its rate-limit counters (named by
 * the zone's incarnation, which a zone created again under the name never shares). A re-created name starts empty:
 * no counts, no paths, no Ray lookup, fresh limits.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { apiFetch, apiOk, type Envelope } from "../../support/envelope";

const LIMIT_RULE_ID = "4c1a2b3d4e5f60718293a4b5c6d7e8f9";

async function ok(res: Response): Promise<void> {
  expect(res.status, await res.clone().text()).toBe(200);
  await res.body?.cancel();
}

/** The zone in front of the healthy origin, its login limited to 2 requests per 60 s per client address. */
async function configure(zone: string): Promise<void> {
  await putZone(zone, { origin: loopback(ports.http) });
  await apiOk("PUT", `/zones/${zone}/rulesets/phases/http_ratelimit/entrypoint`, {
    rules: [
      {
        // The same rule id in both lives of the zone: without the incarnation its counters would be the same.
        id: LIMIT_RULE_ID,
        expression: 'http.request.uri.path eq "/login"',
        action: "block",
        ratelimit: {
          characteristics: ["ip.src"],
          period: 60,
          requests_per_period: 2,
          mitigation_timeout: 60,
          counting: "exact",
        },
      },
    ],
  });
}

const login = (zone: string): Promise<Response> =>
  exports.default.fetch(`http://${zone}/login`, {
    headers: { Accept: "application/json", "CF-Connecting-IP": "198.51.100.23" },
  });

interface Counts {
  readonly total: number;
  readonly top_paths: readonly { path: string; count: number }[];
}

async function counts(zone: string): Promise<{ status: number; result: Counts | null }> {
  const res = await apiFetch("GET", `/zones/${zone}/analytics/errors`);
  const body = await res.json<Envelope<Counts | null>>();
  return { status: res.status, result: body.result };
}

/** Waits until the zone's recorded total reaches `expected` (records are written after the response, batched). */
async function settled(zone: string, expected: number): Promise<number> {
  let total = 0;
  for (let i = 0; i < 60 && total < expected; i++) {
    total = (await counts(zone)).result?.total ?? 0;
    if (total < expected) await new Promise((r) => setTimeout(r, 100));
  }
  return total;
}

describe("DELETE /zones/{zone} deletes everything the zone owned", () => {
  it("records and rate-limit counters of the deleted zone are not found by the zone created again", async () => {
    const zone = uniqueZone("reborn");
    await configure(zone);

    // The first life: two logins pass, the third is limited (1015), and the limit and an origin error are recorded.
    await ok(await login(zone));
    await ok(await login(zone));
    const limited = await login(zone);
    expect(limited.status).toBe(429);
    const ray = limited.headers.get("Ray-ID")!;
    await limited.body?.cancel();
    const origin503 = await exports.default.fetch(`http://${zone}/status/503-json`);
    await origin503.body?.cancel();
    expect(await settled(zone, 2)).toBe(2);
    expect((await counts(zone)).result?.top_paths.map((p) => p.path).sort()).toEqual(["/login", "/status/503-json"]);
    const found = await apiOk<{ path: string }>("GET", `/zones/${zone}/errors/${ray}`);
    expect(found.result.path).toBe("/login");

    await apiOk("DELETE", `/zones/${zone}`);
    // Gone for its reader too: the zone is not configured.
    expect((await apiFetch("GET", `/zones/${zone}/errors/${ray}`)).status).toBe(404);

    // The second life, configured exactly as the first.
    await configure(zone);
    expect(await counts(zone)).toEqual({
      status: 200,
      result: expect.objectContaining({ total: 0, top_paths: [] }) as unknown,
    });
    const lookup = await apiFetch("GET", `/zones/${zone}/errors/${ray}`);
    expect(lookup.status).toBe(404);
    await lookup.body?.cancel();
    // Fresh limits: the client blocked in the first life (blocked for 60 s) passes twice again.
    await ok(await login(zone));
    await ok(await login(zone));
    const again = await login(zone);
    expect(again.status).toBe(429);
    await again.body?.cancel();
  });

  it("the zone's incarnation: the version it was created at, kept by every write, new for a zone created again", async () => {
    const zone = uniqueZone("incarnation");
    await configure(zone);
    const first = JSON.parse((await env.CONFIG.get(`zone:${zone}`)) ?? "null") as Record<string, number>;
    expect(first.incarnation).toBe(1);
    expect(first.version).toBe(2);
    await apiOk("DELETE", `/zones/${zone}`);
    await configure(zone);
    const second = JSON.parse((await env.CONFIG.get(`zone:${zone}`)) ?? "null") as Record<string, number>;
    // Versions never repeat for a name (the writer's counter survives the delete), so neither do incarnations.
    expect(second.incarnation).toBe(3);
    expect(second.version).toBe(4);
  });

  it("a dry run deletes nothing, records included", async () => {
    const zone = uniqueZone("dry-delete");
    await configure(zone);
    await ok(await login(zone));
    await ok(await login(zone));
    const limited = await login(zone);
    const ray = limited.headers.get("Ray-ID")!;
    await limited.body?.cancel();
    expect(await settled(zone, 1)).toBe(1);
    await apiOk("DELETE", `/zones/${zone}?dry_run=true`);
    expect((await counts(zone)).result?.total).toBe(1);
    expect((await apiFetch("GET", `/zones/${zone}/errors/${ray}`)).status).toBe(200);
  });
});
