/**
 * Recording through the real Worker: a concurrent mixed burst (failing-origin kinds, a custom rule, a
 * page, the default, an origin 503 passed through) gives exact counts and a Ray lookup for each; the batcher's
 * loss bound.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { RecordBatcher, type Delivery } from "../../../../src/edge/analytics/recorder";
import type { ErrorRecord } from "../../../../src/state/analytics/record";
import { JSON_ACCEPT, loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { apiFetch, apiOk } from "../../support/envelope";
import { errorRecord } from "../../support/analytics";

const RULE_ID = "0123456789abcdef0123456789abcdef";
const PAGE_500 = "<!DOCTYPE html><html><head><title>Down</title></head><body>::EDGE_ERROR_500S_BOX::</body></html>";

interface Counts {
  total: number;
  series: { group: Record<string, string | number>; total: number }[];
}

async function counts(zone: string, groupBy: string): Promise<Counts> {
  const res = await apiFetch("GET", `/zones/${zone}/analytics/errors?group_by=${groupBy}`);
  const body = await res.json<{ result: Counts }>();
  expect(res.status).toBe(200);
  return body.result;
}

/** Waits until the zone's total reaches `expected` (records are written up to 250 ms after the response). */
async function settled(zone: string, expected: number): Promise<void> {
  for (let i = 0; i < 60; i++) {
    if ((await counts(zone, "code")).total >= expected) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One zone of one shard, for the batcher alone. */
const Z = { zone: "z", shards: 1 };

const byGroup = (c: Counts) => Object.fromEntries(c.series.map((s) => [Object.values(s.group).join("/"), s.total]));

describe("a concurrent mixed burst is counted exactly", () => {
  it("origin kinds, a rule, a page, the default and an origin 503 passed through", async () => {
    const raw = uniqueZone("an-raw");
    await putZone(raw, { origin: loopback(ports.raw), connect_timeout: 0.3, read_timeout: 0.8 });
    const custom = uniqueZone("an-custom");
    await putZone(custom, { origin: loopback(ports.closed), connect_timeout: 0.3 });
    await apiOk("PUT", `/zones/${custom}/rulesets/phases/http_custom_errors/entrypoint`, {
      rules: [
        {
          id: RULE_ID,
          expression: 'http.request.uri.path eq "/ruled"',
          action: "serve_error",
          action_parameters: { content: "ruled", content_type: "text/plain" },
        },
      ],
    });
    await apiOk("PUT", `/zones/${custom}/custom_pages/500_errors`, { state: "customized", content: PAGE_500 });
    const healthy = uniqueZone("an-http");
    await putZone(healthy, { origin: loopback(ports.http) });

    const get = (zone: string, path: string) =>
      exports.default.fetch(`http://${zone}${path}`, { headers: JSON_ACCEPT });
    const plan: [string, string][] = [
      ...Array.from({ length: 3 }, (): [string, string] => [raw, "/garbage"]),
      ...Array.from({ length: 2 }, (): [string, string] => [raw, "/reset"]),
      ...Array.from({ length: 2 }, (): [string, string] => [custom, "/ruled"]),
      ...Array.from({ length: 3 }, (): [string, string] => [custom, "/paged"]),
      ...Array.from({ length: 4 }, (): [string, string] => [healthy, "/status/503-json"]),
      [healthy, "/"],
    ];
    const responses = await Promise.all(plan.map(([z, p]) => get(z, p)));
    const rays = await Promise.all(
      responses.map(async (r) => {
        await r.body?.cancel();
        return { status: r.status, ray: r.headers.get("Ray-ID") };
      }),
    );
    expect(rays.map((r) => r.status)).toEqual([
      502, 502, 502, 520, 520, 521, 521, 521, 521, 521, 503, 503, 503, 503, 200,
    ]);

    await settled(raw, 5);
    await settled(custom, 5);
    await settled(healthy, 4);
    await new Promise((r) => setTimeout(r, 300)); // nothing more arrives later: counts are exact, not at-least
    expect(byGroup(await counts(raw, "code,answered_by"))).toEqual({ "502/default": 3, "520/default": 2 });
    expect(byGroup(await counts(custom, "answered_by,format"))).toEqual({ "rule/text": 2, "page/html": 3 });
    expect(byGroup(await counts(healthy, "source,answered_by"))).toEqual({ "origin/origin": 4 });

    // Ray lookup for each generated error (the pass-through's records carry their own rays: see docs).
    for (const [i, [zone, path]] of plan.entries()) {
      const ray = rays[i]!.ray;
      if (ray === null) continue;
      const res = await apiFetch("GET", `/zones/${zone}/errors/${ray}`);
      const body = await res.json<{ result: ErrorRecord & { zone: string } }>();
      expect(res.status, `${zone}${path}`).toBe(200);
      expect(body.result.path).toBe(path);
      expect(body.result.zone).toBe(zone);
      if (path === "/ruled") expect(body.result.answer_id).toBe(RULE_ID);
      if (path === "/paged") expect(body.result.answer_id).toBe("500_errors");
      if (path === "/garbage") expect(body.result.cause).not.toMatch(/127\.0\.0\.1/);
    }
    // Another zone's ray is not this zone's record.
    const other = rays[0]!.ray!;
    const res = await apiFetch("GET", `/zones/${custom}/errors/${other}`);
    expect(res.status).toBe(404);
  }, 30_000);
});

describe("what a record says", () => {
  it("a structured default is recorded with the Ray ID and format it was served with, in every format", async () => {
    const zone = uniqueZone("formats");
    await putZone(zone, { origin: loopback(ports.http), max_request_header_bytes: 1024 });
    const served: { ray: string; format: string }[] = [];
    for (const [accept, format] of [
      ["application/json", "json"],
      ["application/problem+json", "problem+json"],
      ["text/markdown", "markdown"],
      ["text/html", "html"],
    ] as const) {
      const res = await exports.default.fetch(`http://${zone}/big`, {
        headers: { Accept: accept, "X-Pad": "p".repeat(1500) },
      });
      await res.body?.cancel();
      expect(res.status).toBe(431); // 1038: over the zone's header limit
      served.push({ ray: res.headers.get("Ray-ID") ?? "", format });
    }
    await settled(zone, served.length);
    for (const { ray, format } of served) {
      const res = await apiFetch("GET", `/zones/${zone}/errors/${ray}`);
      const body = await res.json<{ result: ErrorRecord }>();
      expect(res.status).toBe(200);
      expect(body.result).toMatchObject({ ray, format, code: 1038, answered_by: "default", answer_id: null });
    }
  });
});

describe("the batcher's loss bound", () => {
  it("holds at most one batch: flushed at maxRecords at once, or by the window's waitUntil", async () => {
    const written: number[] = [];
    const waits: Promise<unknown>[] = [];
    const sleeping: (() => void)[] = [];
    const release = () => sleeping.splice(0).forEach((wake) => wake());
    const batcher = new RecordBatcher(
      { maxRecords: 3, maxWaitMs: 50 },
      () => new Promise<void>((r) => sleeping.push(r)),
    );
    const sink = async (d: Delivery) => {
      written.push(d.records.length);
    };
    const invocation = { waitUntil: (p: Promise<unknown>) => void waits.push(p) };
    batcher.add(Z, errorRecord(1), sink, invocation, 0);
    await Promise.all(waits);
    expect(written).toEqual([1]); // a lone error is written at once and opens a window
    batcher.add(Z, errorRecord(2), sink, invocation, 1);
    batcher.add(Z, errorRecord(3), sink, invocation, 2);
    expect(batcher.held).toBe(2); // inside the window: an isolate dying now loses these two (< maxRecords)
    batcher.add(Z, errorRecord(4), sink, invocation, 3);
    expect(batcher.held).toBe(0); // the full batch left at once, through waitUntil
    await Promise.all(waits.slice(2));
    expect(written).toEqual([1, 3]);
    batcher.add(Z, errorRecord(5), sink, invocation, 4); // no window open any more: written at once
    release();
    await Promise.all(waits);
    expect(written).toEqual([1, 3, 1]);
    expect(waits.length).toBe(4); // every write went through waitUntil (and the window's closer)
  });

  it("a window after a busy one is longer; after a quiet one it is short again", async () => {
    const asked: number[] = [];
    const sleeping: (() => void)[] = [];
    const release = () => sleeping.splice(0).forEach((wake) => wake());
    const batcher = new RecordBatcher({ maxRecords: 10, maxWaitMs: 50, busyWaitMs: 250, busyRecords: 3 }, (ms) => {
      asked.push(ms);
      return new Promise<void>((r) => sleeping.push(r));
    });
    const written: number[] = [];
    const waits: Promise<unknown>[] = [];
    const sink = async (d: Delivery) => void written.push(d.records.length);
    const invocation = { waitUntil: (p: Promise<unknown>) => void waits.push(p) };
    const settle = async () => {
      release();
      await Promise.all(waits);
    };
    batcher.add(Z, errorRecord(1), sink, invocation, 0); // written at once, opens a 50 ms window
    for (const at of [1, 2, 3]) batcher.add(Z, errorRecord(1 + at), sink, invocation, at);
    expect(asked).toEqual([49]);
    await settle();
    expect(written).toEqual([1, 3]); // 3 ≥ busyRecords: the next window is the busy one
    batcher.add(Z, errorRecord(5), sink, invocation, 100);
    batcher.add(Z, errorRecord(6), sink, invocation, 101);
    expect(asked).toEqual([49, 249]);
    await settle();
    expect(written).toEqual([1, 3, 1, 1]); // a quiet window: the next one is short again
    batcher.add(Z, errorRecord(7), sink, invocation, 400);
    batcher.add(Z, errorRecord(8), sink, invocation, 401);
    expect(asked).toEqual([49, 249, 49]);
    await settle();
  });

  it("a failing sink never throws into the request", async () => {
    const batcher = new RecordBatcher({ maxRecords: 1, maxWaitMs: 10 });
    const waits: Promise<unknown>[] = [];
    batcher.add(Z, errorRecord(9), () => Promise.reject(new Error("down")), { waitUntil: (p) => void waits.push(p) });
    await expect(Promise.all(waits)).resolves.toBeDefined();
  });
});
