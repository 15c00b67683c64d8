/**
 * Sharded recording through the real Worker (docs/analytics.md "Shards", "Requests and drops", "Loss is counted"):
 * a mixed burst (structured defaults, a custom error rule's answers, firewall blocks, origin errors passed through,
 * healthy requests) sent in waves while the zone's shard count changes 1 → 4 → 2 is counted exactly by the fan-out,
 * every record sits in the shard its Ray ID names and is found by the Ray lookup; requests are counted so the error
 * rates agree with what was sent; a store made to fail on purpose gives drops the API counts.
 */
import { env, exports } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { failOnPurpose, restore } from "../../../../src/state/analytics/faults";
import { shardName, shardOfRay } from "../../../../src/state/analytics/shards";
import type { EncodedRecord } from "../../../../src/state/analytics/record";
import type { ZoneAnalytics } from "../../../../src/state/analytics/zone-analytics";
import { JSON_ACCEPT, loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { apiFetch, apiOk } from "../../support/envelope";

const RULE_ID = "fedcba9876543210fedcba9876543210";
const PAD = { "X-Pad": "p".repeat(1500) };

interface Series {
  group: Record<string, string | number>;
  total: number;
  rate: number | null;
}
interface Counts {
  total: number;
  requests: number;
  dropped: number;
  error_rate: number | null;
  shards: number;
  series: Series[];
  top_codes: { code: number; count: number; rate: number | null }[];
  top_paths: { path: string; count: number; rate: number | null }[];
}

async function counts(zone: string, query = ""): Promise<Counts> {
  const res = await apiFetch("GET", `/zones/${zone}/analytics/errors?${query}`);
  const body = await res.json<{ result: Counts }>();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.result;
}

/** Waits until the zone's analytics count `requests` requests and `errors` errors or drops (batched writes). */
async function settled(zone: string, requests: number, errors: number): Promise<Counts> {
  let last = await counts(zone);
  for (let i = 0; i < 80 && (last.requests < requests || last.total + last.dropped < errors); i++) {
    await new Promise((r) => setTimeout(r, 100));
    last = await counts(zone);
  }
  await new Promise((r) => setTimeout(r, 300)); // nothing more arrives later: exact, not at-least
  return counts(zone);
}

const byGroup = (c: Counts) => Object.fromEntries(c.series.map((s) => [Object.values(s.group).join("/"), s.total]));

/** Every record a shard object holds: its rays. */
async function raysIn(name: string): Promise<string[]> {
  const stub = env.ZONE_ANALYTICS.get(env.ZONE_ANALYTICS.idFromName(name));
  return runInDurableObject(stub, (_: ZoneAnalytics, state) =>
    state.storage.sql
      .exec<{ records: string }>("SELECT records FROM batches")
      .toArray()
      .flatMap((row) => (JSON.parse(row.records) as EncodedRecord[]).map((r) => r[0])),
  );
}

async function setShards(zone: string, shards: number): Promise<void> {
  const res = await apiFetch("PUT", `/zones/${zone}/analytics/settings`, { shards });
  expect(res.status).toBe(200);
}

/** One wave of the mixed burst; what each request should be recorded as. */
const WAVE: readonly { path: string; headers?: Record<string, string>; status: number; as: string | null }[] = [
  { path: "/", status: 200, as: null },
  { path: "/", status: 200, as: null },
  { path: "/big", headers: PAD, status: 431, as: "edge/default" },
  { path: "/big", headers: PAD, status: 431, as: "edge/default" },
  { path: "/blocked", status: 403, as: "edge/default" },
  { path: "/status/404", status: 404, as: "origin/rule" },
  { path: "/status/503-json", status: 503, as: "origin/origin" },
];

describe("a zone's records over N shards", () => {
  afterEach(() => {
    for (let i = 0; i < 4; i++) restore(shardName(zoneUnderFault, i));
  });

  it("a mixed burst while N changes 1 → 4 → 2: exact counts, each record in its shard, a Ray lookup for each", async () => {
    const zone = uniqueZone("shards");
    await putZone(zone, { origin: loopback(ports.http), max_request_header_bytes: 1024 });
    await apiOk("PUT", `/zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`, {
      rules: [{ expression: 'http.request.uri.path eq "/blocked"', action: "block" }],
    });
    await apiOk("PUT", `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`, {
      rules: [
        {
          id: RULE_ID,
          expression: "http.response.code eq 404",
          action: "serve_error",
          action_parameters: { content: "ruled", content_type: "text/plain" },
        },
      ],
    });
    const seen: { ray: string | null; shards: number }[] = [];
    let sent = 0;
    const expected: Record<string, number> = {};
    // Waves a lane apart (src/shared/ray.ts LANE_MS), so the records spread over the shards of each count.
    for (const shards of [1, 4, 4, 4, 2, 2]) {
      await setShards(zone, shards);
      const answers = await Promise.all(
        WAVE.map((w) =>
          exports.default.fetch(`http://${zone}${w.path}`, { headers: { ...JSON_ACCEPT, ...w.headers } }),
        ),
      );
      for (const [i, res] of answers.entries()) {
        await res.body?.cancel();
        const w = WAVE[i]!;
        expect(res.status, w.path).toBe(w.status);
        sent += 1;
        if (w.as !== null) {
          expected[w.as] = (expected[w.as] ?? 0) + 1;
          seen.push({ ray: res.headers.get("Ray-ID"), shards });
        }
      }
      await new Promise((r) => setTimeout(r, 1050));
    }
    const errors = Object.values(expected).reduce((a, b) => a + b, 0);
    const result = await settled(zone, sent, errors);
    expect(result.total).toBe(errors);
    expect(result.requests).toBe(sent);
    expect(result.dropped).toBe(0);
    expect(result.shards).toBe(4); // 2 now, 4 and 1 in force within retention: shards 0-3 asked
    expect(byGroup(await counts(zone, "group_by=source,answered_by"))).toEqual(expected);

    // Every record is in the shard its Ray ID names under the count in force when it was made, and only there.
    const held = new Map<string, number>();
    for (let i = 0; i < 4; i++) for (const ray of await raysIn(shardName(zone, i))) held.set(ray, i);
    expect(held.size).toBe(errors);
    for (const { ray, shards } of seen) {
      if (ray === null) continue; // an origin error passed through unchanged: its record's ray is its own
      expect(held.get(ray), ray).toBe(shardOfRay(ray, shards));
    }
    // The Ray lookup finds every record of the burst (the pass-through's included, by the ray it was stored under).
    for (const ray of held.keys()) {
      const res = await apiFetch("GET", `/zones/${zone}/errors/${ray}`);
      expect(res.status, ray).toBe(200);
      await res.body?.cancel();
    }

    // Rates: each series and code over the requests counted.
    const byCode = await counts(zone, "group_by=code");
    for (const s of byCode.series) expect(s.rate).toBeCloseTo(s.total / sent, 6);
    expect(byCode.error_rate).toBeCloseTo(errors / sent, 6);
    const top404 = byCode.top_codes.find((c) => c.code === 404);
    expect(top404).toEqual({ code: 404, count: 6, rate: Math.round((6 / sent) * 1e6) / 1e6 });
    const topBig = byCode.top_paths.find((p) => p.path === "/big");
    expect(topBig?.count).toBe(12);
    expect(topBig?.rate).toBeCloseTo(12 / sent, 6);

    // Zone deletion wipes every shard within retention.
    await apiOk("DELETE", `/zones/${zone}`);
    for (let i = 0; i < 4; i++) expect(await raysIn(shardName(zone, i))).toEqual([]);
  }, 60_000);

  it("error rates agree with the requests sent (all traffic counted, not only errors)", async () => {
    const zone = uniqueZone("rates");
    await putZone(zone, { origin: loopback(ports.http) });
    const paths = [...Array.from({ length: 15 }, () => "/"), ...Array.from({ length: 5 }, () => "/status/503-json")];
    for (const res of await Promise.all(paths.map((p) => exports.default.fetch(`http://${zone}${p}`)))) {
      await res.body?.cancel();
    }
    const result = await settled(zone, 20, 5);
    expect(result).toMatchObject({ requests: 20, total: 5, dropped: 0, error_rate: 0.25 });
    const bySource = await counts(zone, "group_by=source");
    expect(bySource.series).toEqual([expect.objectContaining({ group: { source: "origin" }, total: 5, rate: 0.25 })]);
  });

  let zoneUnderFault = "";

  it("a store made to fail: its records are counted as dropped, shown by the API, and never stored", async () => {
    const zone = uniqueZone("faulty");
    zoneUnderFault = zone;
    await putZone(zone, { origin: loopback(ports.http), max_request_header_bytes: 1024 });
    await setShards(zone, 2);
    // Shard 0 refuses every batch: a drop there is counted at once in shard 1.
    failOnPurpose(shardName(zone, 0));
    const rays: string[] = [];
    for (let wave = 0; wave < 3; wave++) {
      const answers = await Promise.all(
        Array.from({ length: 4 }, () =>
          exports.default.fetch(`http://${zone}/big`, { headers: { ...JSON_ACCEPT, ...PAD } }),
        ),
      );
      for (const res of answers) {
        await res.body?.cancel();
        expect(res.status).toBe(431);
        rays.push(res.headers.get("Ray-ID")!);
      }
      await new Promise((r) => setTimeout(r, 1050));
    }
    const lost = rays.filter((ray) => shardOfRay(ray, 2) === 0).length;
    let result = await settled(zone, 12 - 0, 12);
    expect(result).toMatchObject({ total: 12 - lost, dropped: lost });

    // Both shards refuse: nowhere takes the count, so the isolate keeps it and the next delivery carries it.
    failOnPurpose(shardName(zone, 1));
    for (const res of await Promise.all(
      Array.from({ length: 3 }, () =>
        exports.default.fetch(`http://${zone}/big`, { headers: { ...JSON_ACCEPT, ...PAD } }),
      ),
    )) {
      await res.body?.cancel();
    }
    // Past the tallies' window (recorder.ts TALLY_WAIT_MS), so the next request's count sends what is held.
    await new Promise((r) => setTimeout(r, 1100));
    restore(shardName(zone, 0));
    restore(shardName(zone, 1));
    await (await exports.default.fetch(`http://${zone}/`)).body?.cancel();
    result = await settled(zone, 16, 15);
    expect(result).toMatchObject({ total: 12 - lost, dropped: lost + 3, requests: 16 });
    const perMinute = await counts(zone, "step=minute");
    expect(perMinute.dropped).toBe(lost + 3);
    // A dropped record is not found by its ray.
    for (const ray of rays.filter((r) => shardOfRay(r, 2) === 0)) {
      const res = await apiFetch("GET", `/zones/${zone}/errors/${ray}`);
      expect(res.status).toBe(404);
      await res.body?.cancel();
    }
  }, 30_000);
});

describe("PUT /zones/{zone}/analytics/settings", () => {
  it("sets the shard count; refuses anything but an integer from 1 to 64 with 20100", async () => {
    const zone = uniqueZone("settings");
    await putZone(zone, { origin: loopback(ports.http) });
    const first = await apiFetch("GET", `/zones/${zone}/analytics/settings`);
    expect((await first.json<{ result: unknown }>()).result).toEqual({
      shards: 4,
      shards_in_force: [4],
      max_shards: 64,
    });
    const put = await apiFetch("PUT", `/zones/${zone}/analytics/settings`, { shards: 8 });
    expect((await put.json<{ result: unknown }>()).result).toEqual({
      shards: 8,
      shards_in_force: [8, 4],
      max_shards: 64,
    });
    for (const body of [{ shards: 0 }, { shards: 65 }, { shards: 2.5 }, { shards: "4" }, { shards: 4, x: 1 }, [4]]) {
      const res = await apiFetch("PUT", `/zones/${zone}/analytics/settings`, body);
      const answer = await res.json<{ errors: { code: number; message: string }[] }>();
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(answer.errors[0]?.code).toBe(20100);
    }
    const unknown = await apiFetch("PUT", `/zones/${uniqueZone("nowhere")}/analytics/settings`, { shards: 2 });
    expect(unknown.status).toBe(404);
    await unknown.body?.cancel();
  });
});
