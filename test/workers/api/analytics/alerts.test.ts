/**
 * Alert policies (docs/analytics.md "Alerts"): made through the real API, evaluated by the zone's shard 0 over
 * every shard (real objects, the clock moved through `tick`, the alarm's one step), delivered to a webhook receiver
 * on 127.0.0.1 (test/servers/webhook-receiver.ts) and verified there with the `standardwebhooks` library; hostile
 * policies and targets refused with their codes.
 */
import {
  createExecutionContext,
  runDurableObjectAlarm,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import worker from "../../../../src/index";
import { shardName, shardOfRay } from "../../../../src/state/analytics/shards";
import type { ErrorRecord } from "../../../../src/state/analytics/record";
import type { TickReport, ZoneAnalytics } from "../../../../src/state/analytics/zone-analytics";
import type { ReceivedWebhook } from "../../../servers/context";
import { errorRecord } from "../../support/analytics";
import { errorLines } from "../../support/log";
import { ADMIN, api, apiOk } from "../../support/envelope";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";

const MINUTE = 60_000;
const ALERTS = (zone: string): string => `/zones/${zone}/analytics/alerts`;

interface Policy {
  id: string;
  state: { status: "ok" | "firing"; since: string; value: number | null; evaluated_at: string | null };
  webhook: { url: string; secret?: string };
}
interface Delivery {
  id: string;
  type: string;
  status: string;
  attempts: { attempt: number; outcome: string; http_status: number | null }[];
}

const stubOf = (name: string): DurableObjectStub<ZoneAnalytics> =>
  env.ZONE_ANALYTICS.get(env.ZONE_ANALYTICS.idFromName(name));

/** A zone of `shards` analytics shards, on the test origin. */
async function zoneWith(label: string, shards: number): Promise<string> {
  const zone = uniqueZone(label);
  await putZone(zone, { origin: loopback(ports.http) });
  await apiOk("PUT", `/zones/${zone}/analytics/settings`, { shards });
  return zone;
}

let serial = 0;
/** `n` errors made in the minute at `at` (ms), with Ray IDs whose lanes spread over the shards. */
function errorsAt(at: number, n: number, extra: Partial<ErrorRecord>): ErrorRecord[] {
  return Array.from({ length: n }, (_, i) => {
    serial += 1;
    const ray = (serial % 16).toString(16).padStart(4, "0") + serial.toString(16).padStart(12, "0");
    return errorRecord(0, at + i * 10, { ...extra, ray });
  });
}

/** Records written as the recorder writes them: each to its Ray ID's shard of `shards`. */
async function store(zone: string, shards: number, records: readonly ErrorRecord[]): Promise<void> {
  const byShard = new Map<number, ErrorRecord[]>();
  for (const r of records) {
    const shard = shardOfRay(r.ray, shards);
    byShard.set(shard, [...(byShard.get(shard) ?? []), r]);
  }
  for (const [shard, list] of byShard) await stubOf(shardName(zone, shard)).record(list);
}

/** Requests counted per minute (`[minute ms, n]`), as a tally delivered to shard `shard`. */
async function countRequests(
  zone: string,
  shard: number,
  minutes: readonly (readonly [number, number])[],
): Promise<void> {
  await stubOf(shardName(zone, shard)).recordEncoded("[]", { id: crypto.randomUUID(), requests: minutes, dropped: [] });
}

/** One alarm step of the zone's shard 0 at `now`. */
const tick = (zone: string, now: number): Promise<TickReport> =>
  runInDurableObject(stubOf(zone), (o: ZoneAnalytics) => o.tick(now));

const received = async (name: string): Promise<ReceivedWebhook[]> =>
  (await fetch(`${loopback(ports.webhook)}/received/${name}`)).json<ReceivedWebhook[]>();

const hook = (name: string, query = ""): string => `${loopback(ports.webhook)}/hooks/${name}${query}`;

/** A simulated time a day ahead, on a whole minute: the object's own alarm (real time) never reaches it. */
const future = (): number => Math.floor(Date.now() / MINUTE) * MINUTE + 86_400_000;

async function state(zone: string, id: string): Promise<Policy["state"]> {
  return (await apiOk<Policy>("GET", `${ALERTS(zone)}/${id}`)).result.state;
}

describe("an error-rate threshold across a simulated outage", () => {
  it("fires once and resolves once, with hysteresis; each webhook verifies with standardwebhooks", async () => {
    const zone = await zoneWith("alert-outage", 2);
    const name = `outage-${Math.random().toString(36).slice(2)}`;
    const created = await apiOk<Policy>("POST", ALERTS(zone), {
      name: "Origin failing",
      kind: "threshold",
      metric: "error_rate",
      window_minutes: 2,
      above: 0.5,
      resolve_below: 0.1,
      filter: { source: "origin" },
      resolve_after: 2,
      webhook: { url: hook(name) },
    });
    const policy = created.result;
    const secret = policy.webhook.secret!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    // 100 requests a minute throughout; the origin fails 80 of them in minutes 0–2; edge errors never count here.
    const t = future();
    await countRequests(
      zone,
      1,
      Array.from({ length: 12 }, (_, m) => [t + (m - 2) * MINUTE, 100] as const),
    );
    const origin503 = { source: "origin", code: 503, status: 503, answered_by: "origin" } as const;
    await store(zone, 2, [
      ...[0, 1, 2].flatMap((m) => errorsAt(t + m * MINUTE, 80, origin503)),
      ...errorsAt(t + 4 * MINUTE, 90, { source: "edge", code: 1020, status: 403 }),
    ]);

    const at = (m: number): number => t + m * MINUTE + 5_000;
    const steps: { minute: number; status: string; value: number | null }[] = [];
    for (const m of [0, 1, 2, 3, 4, 5, 6, 7, 8]) {
      await tick(zone, at(m));
      const s = await state(zone, policy.id);
      steps.push({ minute: m, status: s.status, value: s.value });
    }
    expect(steps).toEqual([
      { minute: 0, status: "ok", value: 0 }, // minutes -2, -1
      { minute: 1, status: "ok", value: 0.4 }, // 80 / 200
      { minute: 2, status: "firing", value: 0.8 }, // 160 / 200: fires
      { minute: 3, status: "firing", value: 0.8 },
      { minute: 4, status: "firing", value: 0.4 }, // under `above`, not under `resolve_below`: still firing
      { minute: 5, status: "firing", value: 0 }, // clear once
      { minute: 6, status: "ok", value: 0 }, // clear twice: resolves
      { minute: 7, status: "ok", value: 0 },
      { minute: 8, status: "ok", value: 0 },
    ]);
    // A second alarm run in the same minute evaluates nothing again.
    expect((await tick(zone, at(8) + 20_000)).evaluated).toBe(0);

    const got = await received(name);
    expect(got.map((w) => (JSON.parse(w.body) as { type: string }).type)).toEqual(["alert.firing", "alert.resolved"]);
    const verifier = new Webhook(secret);
    for (const w of got) {
      const payload = verifier.verify(w.body, w.headers) as { data: { zone: string; policy: { id: string } } };
      expect(payload.data.zone).toBe(zone);
      expect(payload.data.policy.id).toBe(policy.id);
      expect(w.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
    }
    expect(new Set(got.map((w) => w.headers["webhook-id"])).size).toBe(2);
    // A wrong secret does not verify: the signature is over this body with this key.
    expect(() =>
      new Webhook(`whsec_${btoa("another key of 32 bytes, exactly")}`).verify(got[0]!.body, got[0]!.headers),
    ).toThrow();

    const deliveries = (await apiOk<Delivery[]>("GET", `${ALERTS(zone)}/${policy.id}/deliveries`)).result;
    expect(deliveries.map((d) => [d.type, d.status, d.attempts.map((a) => [a.outcome, a.http_status])])).toEqual([
      ["alert.resolved", "delivered", [["delivered", 200]]],
      ["alert.firing", "delivered", [["delivered", 200]]],
    ]);
  });
});

describe("through real traffic", () => {
  it("origin 503s served by the Worker (4 shards, tallies from the recorder) fire one verified webhook", async () => {
    const zone = uniqueZone("alert-traffic");
    await putZone(zone, { origin: loopback(ports.http) });
    const name = `traffic-${Math.random().toString(36).slice(2)}`;
    const policy = (
      await apiOk<Policy>("POST", ALERTS(zone), {
        name: "Origin 503s",
        kind: "threshold",
        metric: "error_rate",
        window_minutes: 2,
        above: 0.5,
        filter: { source: "origin", code: 503 },
        min_requests: 20,
        webhook: { url: hook(name) },
      })
    ).result;
    const paths = [...Array.from({ length: 10 }, () => "/"), ...Array.from({ length: 30 }, () => "/status/503-json")];
    for (const res of await Promise.all(paths.map((p) => exports.default.fetch(`http://${zone}${p}`)))) {
      await res.body?.cancel();
    }
    // The records and the request tallies arrive after the responses (docs/analytics.md "Requests and drops").
    let counted = { requests: 0, total: 0 };
    for (let i = 0; i < 80 && (counted.requests < 40 || counted.total < 30); i++) {
      await new Promise((r) => setTimeout(r, 100));
      counted = (await apiOk<{ requests: number; total: number }>("GET", `/zones/${zone}/analytics/errors`)).result!;
    }
    expect(counted).toMatchObject({ requests: 40, total: 30 });
    // The next evaluation (the minute in progress has ended): the two-minute window holds the whole burst.
    await tick(zone, Math.floor(Date.now() / MINUTE) * MINUTE + MINUTE + 5_000);
    expect(await state(zone, policy.id)).toMatchObject({ status: "firing", value: 0.75 });
    const got = await received(name);
    expect(got).toHaveLength(1);
    expect(new Webhook(policy.webhook.secret!).verify(got[0]!.body, got[0]!.headers)).toMatchObject({
      type: "alert.firing",
      data: { zone, status: "firing", value: 0.75 },
    });
  });
});

describe("an SLO burn-rate policy (multiwindow, multi-burn-rate)", () => {
  it("fires only when both the long and the short window burn at ≥ the rate, on origin errors only", async () => {
    const zone = await zoneWith("alert-burn", 3);
    const name = `burn-${Math.random().toString(36).slice(2)}`;
    const policy = (
      await apiOk<Policy>("POST", ALERTS(zone), {
        name: "Checkout SLO",
        kind: "burn_rate",
        slo: 99,
        webhook: { url: hook(name) },
      })
    ).result;
    // Budget 1 %: a burn of 14.4 is an origin error rate of 14.4 %. 100 requests a minute from minute -60 to 60;
    // from minute 0 the origin fails 30 a minute (20 passed through as 503, 10 edge 522s): a burn of 30 in the
    // short window at once, in the long window only once the outage fills enough of its hour.
    const t = future();
    await countRequests(
      zone,
      2,
      Array.from({ length: 120 }, (_, m) => [t + (m - 60) * MINUTE, 100] as const),
    );
    await store(
      zone,
      3,
      Array.from({ length: 40 }, (_, m) => [
        ...errorsAt(t + m * MINUTE, 20, { source: "origin", code: 503, status: 503, answered_by: "origin" }),
        ...errorsAt(t + m * MINUTE, 10, { source: "edge", code: 522, status: 522 }),
        // Blocks and client errors are not origin errors.
        ...errorsAt(t + m * MINUTE, 50, { source: "edge", code: 1020, status: 403 }),
        ...errorsAt(t + m * MINUTE, 5, { source: "origin", code: 404, status: 404, answered_by: "origin" }),
      ]).flat(),
    );
    const at = (m: number): number => t + m * MINUTE + 5_000;
    await tick(zone, at(5)); // long: 150 / 6000 = burn 2.5; short: burn 30
    expect(await state(zone, policy.id)).toMatchObject({ status: "ok", value: 30 });
    await tick(zone, at(28)); // long: 840 / 6000 = burn 14
    expect((await state(zone, policy.id)).status).toBe("ok");
    await tick(zone, at(29)); // long: 870 / 6000 = burn 14.5
    expect(await state(zone, policy.id)).toMatchObject({ status: "firing", value: 30 });
    await tick(zone, at(42)); // short window (minutes 37–41): 90 / 500 = burn 18; long still over
    expect((await state(zone, policy.id)).status).toBe("firing");
    for (const m of [45, 46]) await tick(zone, at(m)); // the short window is clean: two clear evaluations
    expect((await state(zone, policy.id)).status).toBe("firing");
    await tick(zone, at(47)); // the third (resolve_after 3): resolved
    expect((await state(zone, policy.id)).status).toBe("ok");
    const types = (await received(name)).map((w) => (JSON.parse(w.body) as { type: string }).type);
    expect(types).toEqual(["alert.firing", "alert.resolved"]);
  });
});

describe("a failing receiver", () => {
  it("is retried with backoff under the same webhook-id; the event is delivered once and never sent again", async () => {
    const zone = await zoneWith("alert-retry", 1);
    const name = `retry-${Math.random().toString(36).slice(2)}`;
    const created = (
      await apiOk<Policy>("POST", ALERTS(zone), {
        name: "Any 502",
        kind: "threshold",
        metric: "errors",
        window_minutes: 1,
        above: 5,
        filter: { code: 502 },
        webhook: { url: hook(name, "?fail=1") },
      })
    ).result;
    const t = future();
    await store(zone, 1, errorsAt(t, 5, {}));
    const at = t + MINUTE + 5_000;
    expect(await tick(zone, at)).toEqual({ evaluated: 1, attempts: 1 }); // fires; attempt 1 answered 500
    expect(await tick(zone, at + 5_000)).toEqual({ evaluated: 0, attempts: 0 }); // the retry waits 10 s
    expect(await tick(zone, at + 10_000)).toEqual({ evaluated: 0, attempts: 1 }); // attempt 2: 200
    expect(await tick(zone, at + 20_000)).toEqual({ evaluated: 0, attempts: 0 });
    expect(await tick(zone, at + 3_600_000)).toMatchObject({ attempts: 0 });
    expect((await state(zone, created.id)).status).toBe("firing");
    // Disabled, it is evaluated no more and shown ok (since now), without an event.
    // The answer without its id, state and times is the policy's body (docs/analytics.md "Alerts").
    const {
      id,
      state: _state,
      created_at: _created,
      updated_at: _updated,
      ...definition
    } = created as Policy & Record<string, unknown>;
    await apiOk("PUT", `${ALERTS(zone)}/${id}`, {
      ...definition,
      webhook: { url: created.webhook.url },
      enabled: false,
    });
    expect((await state(zone, created.id)).status).toBe("ok");

    const got = await received(name);
    expect(got.map((w) => w.answered)).toEqual([500, 200]);
    expect(got[0]!.headers["webhook-id"]).toBe(got[1]!.headers["webhook-id"]);
    expect(got[0]!.body).toBe(got[1]!.body);
    const verifier = new Webhook(created.webhook.secret!);
    for (const w of got) expect(verifier.verify(w.body, w.headers)).toMatchObject({ type: "alert.firing" });

    const deliveries = (await apiOk<Delivery[]>("GET", `${ALERTS(zone)}/${created.id}/deliveries`)).result;
    expect(deliveries).toHaveLength(1); // one event: the firing (not resolved yet: one clear evaluation of three)
    const firing = deliveries[0]!;
    expect(firing.id).toBe(got[0]!.headers["webhook-id"]);
    expect(firing.status).toBe("delivered");
    expect(firing.attempts).toEqual([
      expect.objectContaining({ attempt: 1, outcome: "failed", http_status: 500 }),
      expect.objectContaining({ attempt: 2, outcome: "delivered", http_status: 200 }),
    ]);
  });
});

describe("a receiver that never answers 2xx", () => {
  it("gets 7 attempts at 10 s, 1 min, 5 min, 30 min, 2 h, 6 h; then the event is failed, logged, never sent again", async () => {
    const zone = await zoneWith("alert-give-up", 1);
    const name = `give-up-${Math.random().toString(36).slice(2)}`;
    const created = (
      await apiOk<Policy>("POST", ALERTS(zone), {
        name: "Any error",
        kind: "threshold",
        metric: "errors",
        window_minutes: 1,
        above: 1,
        webhook: { url: hook(name, "?fail=100") },
      })
    ).result;
    const t = future();
    await store(zone, 1, errorsAt(t, 1, {}));
    let now = t + MINUTE + 5_000;
    await tick(zone, now); // fires; attempt 1
    for (const wait of [10_000, 60_000, 300_000, 1_800_000, 7_200_000]) {
      expect(await tick(zone, now + wait - 1)).toMatchObject({ attempts: 0 }); // not yet
      now += wait;
      expect(await tick(zone, now)).toMatchObject({ attempts: 1 });
    }
    now += 21_600_000;
    const { value, lines } = await errorLines("alert_webhook_failed", () => tick(zone, now)); // attempt 7: given up
    expect(value).toMatchObject({ attempts: 1 });
    expect(lines).toEqual([expect.objectContaining({ zone, policy: created.id, attempts: 7, cause: "HTTP 500" })]);
    // A day on: the resolution (it waited for the firing) is sent; the firing never again.
    await tick(zone, now + 86_400_000);
    const got = (await received(name)).filter((w) => w.headers["webhook-id"] === lines[0]?.message);
    expect(got).toHaveLength(7);
    const firing = (await apiOk<Delivery[]>("GET", `${ALERTS(zone)}/${created.id}/deliveries`)).result.find(
      (d) => d.type === "alert.firing",
    )!;
    expect(firing.status).toBe("failed");
    expect(firing.attempts.map((a) => a.http_status)).toEqual([500, 500, 500, 500, 500, 500, 500]);
    expect(firing.id).toBe(lines[0]?.message);
  });
});

describe("a receiver that never answers", () => {
  it("is left when the attempt times out: its connection is closed, the attempt failed", async () => {
    const zone = await zoneWith("alert-hang", 1);
    const name = `hang-${Math.random().toString(36).slice(2)}`;
    const created = (
      await apiOk<Policy>("POST", ALERTS(zone), {
        name: "Any error",
        kind: "threshold",
        metric: "errors",
        window_minutes: 1,
        above: 1,
        webhook: { url: `${loopback(ports.webhook)}/hang/${name}` },
      })
    ).result;
    const t = future();
    await store(zone, 1, errorsAt(t, 1, {}));
    await tick(zone, t + MINUTE + 5_000); // fires; attempt 1 waits ATTEMPT_TIMEOUT_MS (10 s) for an answer
    const firing = (await apiOk<Delivery[]>("GET", `${ALERTS(zone)}/${created.id}/deliveries`)).result.find(
      (d) => d.type === "alert.firing",
    )!;
    expect(firing.attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: "failed", http_status: null })]);
    // The receiver saw the request; once the attempt gave up, the connection must go (allowing it a moment to close).
    const open = async (): Promise<{ hung: number; open: number }> =>
      (await fetch(`${loopback(ports.webhook)}/open/${name}`)).json();
    let seen = await open();
    for (let i = 0; i < 20 && seen.open > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await open();
    }
    expect(seen).toEqual({ hung: 1, open: 0 });
  }, 30_000);
});

describe("the alarm evaluates", () => {
  it("a new policy arms shard 0's alarm for the next minute; the alarm evaluates it", async () => {
    const zone = await zoneWith("alert-alarm", 2);
    const id = (
      await apiOk<Policy>("POST", ALERTS(zone), {
        name: "Errors",
        kind: "threshold",
        metric: "errors",
        window_minutes: 1,
        above: 1000,
        webhook: { url: hook("alarm") },
      })
    ).result.id;
    const alarm = await runInDurableObject(stubOf(zone), (_: ZoneAnalytics, s) => s.storage.getAlarm());
    const next = Math.floor(Date.now() / MINUTE) * MINUTE + MINUTE + 5_000;
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeLessThanOrEqual(next);
    expect(await runDurableObjectAlarm(stubOf(zone))).toBe(true);
    expect((await state(zone, id)).evaluated_at).not.toBeNull();
  });
});

describe("refusals", () => {
  const base = {
    name: "p",
    kind: "threshold",
    metric: "errors",
    window_minutes: 5,
    above: 10,
    webhook: { url: "https://hooks.example.com/a" },
  };
  const codeOf = async (
    zone: string,
    body: unknown,
    method = "POST",
    path = ALERTS(zone),
  ): Promise<[number, number]> => {
    const answer = await api(method, path, body);
    return [answer.status, answer.body.errors[0]?.code ?? 0];
  };

  it("hostile targets: an API host, http off loopback, credentials, private addresses", async () => {
    const zone = await zoneWith("alert-targets", 1);
    const cases: [string, number][] = [
      ["https://localhost/hook", 20109],
      ["https://LOCALHOST.:8443/hook", 20109],
      ["http://hooks.example.com/hook", 20108],
      ["ftp://hooks.example.com/hook", 20108],
      ["https://user:pw@hooks.example.com/hook", 20108],
      ["https://hooks.example.com/hook#frag", 20108],
      ["not a url", 20108],
      [`https://hooks.example.com/${"a".repeat(2100)}`, 20108],
      ["https://10.0.0.1/hook", 20120],
      ["https://192.168.1.10/hook", 20120],
      ["https://169.254.169.254/latest/meta-data", 20120],
      ["https://100.64.0.1/hook", 20120],
      ["https://[fd00::1]/hook", 20120],
      ["https://[::ffff:10.0.0.1]/hook", 20120],
      ["https://0.0.0.0/hook", 20120],
      // IPv6 forms that carry an IPv4 address: compatible, mapped, SIIT, NAT64 (well-known and local), 6to4, Teredo.
      ["https://[::127.0.0.1]/hook", 20120],
      ["https://[::ffff:127.0.0.1]/hook", 20120],
      ["https://[::ffff:8.8.8.8]/hook", 20120],
      ["https://[::ffff:0:10.0.0.1]/hook", 20120],
      ["https://[64:ff9b::10.0.0.1]/hook", 20120],
      ["https://[64:ff9b::808:808]/hook", 20120],
      ["https://[64:ff9b:1::a00:1]/hook", 20120],
      ["https://[2002:a00:1::1]/hook", 20120],
      ["https://[2001:0:a00:1::1]/hook", 20120],
      // Reserved ranges: site-local, multicast, documentation, discard; benchmarking, protocol assignments,
      // multicast, reserved and broadcast, documentation.
      ["https://[fec0::1]/hook", 20120],
      ["https://[ff02::1]/hook", 20120],
      ["https://[2001:db8::1]/hook", 20120],
      ["https://[100::1]/hook", 20120],
      ["https://198.18.0.1/hook", 20120],
      ["https://198.19.255.255/hook", 20120],
      ["https://192.0.0.170/hook", 20120],
      ["https://224.0.0.1/hook", 20120],
      ["https://239.255.255.250/hook", 20120],
      ["https://240.0.0.1/hook", 20120],
      ["https://255.255.255.255/hook", 20120],
      ["https://203.0.113.9/hook", 20120],
    ];
    for (const [url, code] of cases) {
      expect([url, ...(await codeOf(zone, { ...base, webhook: { url } }))]).toEqual([url, 400, code]);
    }
    // Loopback is allowed here (the tests set WEBHOOK_LOOPBACK=allow, as `wrangler dev` does).
    await apiOk("POST", ALERTS(zone), { ...base, webhook: { url: "http://127.0.0.1:9/hook" } });
    // Public neighbours of the refused ranges stay accepted.
    for (const url of ["https://198.20.0.1/hook", "https://223.255.255.255/hook", "https://[2001:4860::8888]/hook"]) {
      await apiOk(
        "DELETE",
        `${ALERTS(zone)}/${(await apiOk<Policy>("POST", ALERTS(zone), { ...base, webhook: { url } })).result.id}`,
      );
    }
  });

  it("loopback is refused in deployment mode (no WEBHOOK_LOOPBACK)", async () => {
    const zone = await zoneWith("alert-deploy", 1);
    const deployed = { ...env, WEBHOOK_LOOPBACK: undefined } as unknown as Env;
    for (const url of [
      "http://127.0.0.1:9/hook",
      "https://127.0.0.2/hook",
      "https://[::1]/hook",
      "https://app.localhost/h",
    ]) {
      const ctx = createExecutionContext();
      const res = await worker.fetch(
        new Request(`http://localhost${ALERTS(zone)}`, {
          method: "POST",
          headers: { ...ADMIN, "Content-Type": "application/json" },
          body: JSON.stringify({ ...base, webhook: { url } }),
        }),
        deployed,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      const body = await res.json<{ errors: { code: number }[] }>();
      expect([url, res.status, body.errors[0]?.code]).toEqual([url, 400, 20120]);
    }
  });

  it("bad windows, bad fields, too many policies, unknown ids; the secret is shown once", async () => {
    const zone = await zoneWith("alert-policies", 1);
    const windows: unknown[] = [
      { ...base, window_minutes: 0 },
      { ...base, window_minutes: 61 },
      { ...base, window_minutes: 1.5 },
      {
        ...base,
        kind: "burn_rate",
        metric: undefined,
        window_minutes: undefined,
        above: undefined,
        slo: 99.9,
        short_window_minutes: 60,
        long_window_minutes: 60,
      },
      {
        ...base,
        kind: "burn_rate",
        metric: undefined,
        window_minutes: undefined,
        above: undefined,
        slo: 99.9,
        long_window_minutes: 5000,
      },
    ];
    for (const body of windows) expect(await codeOf(zone, JSON.parse(JSON.stringify(body)))).toEqual([400, 20106]);
    const fields: unknown[] = [
      [],
      { ...base, kind: "anomaly" },
      { ...base, extra: 1 },
      { ...base, name: "" },
      { ...base, metric: "error_rate", above: 2 },
      { ...base, above: 0.5 },
      { ...base, resolve_below: 11 },
      { ...base, filter: { method: "GET" } },
      { ...base, filter: { path: "no-slash" } },
      { ...base, filter: { source: "cdn" } },
      { ...base, resolve_after: 0 },
      { ...base, webhook: { url: "https://hooks.example.com/a", secret: "mine" } },
      { name: "b", kind: "burn_rate", slo: 100, webhook: base.webhook },
      { name: "b", kind: "burn_rate", slo: 99.9, burn_rate: 0, webhook: base.webhook },
    ];
    for (const body of fields) expect([body, ...(await codeOf(zone, body))]).toEqual([body, 400, 20105]);

    const ids: string[] = [];
    const secrets: string[] = [];
    for (let i = 0; i < 10; i++) {
      const made = (await apiOk<Policy>("POST", ALERTS(zone), { ...base, name: `p${i}` })).result;
      ids.push(made.id);
      secrets.push(made.webhook.secret!);
    }
    expect(new Set(secrets).size).toBe(10);
    expect(await codeOf(zone, { ...base, name: "eleventh" })).toEqual([400, 20107]);
    // Never shown again: not in the list, not in one policy, not after an update.
    const listed = await api("GET", ALERTS(zone));
    const one = await api("GET", `${ALERTS(zone)}/${ids[0]}`);
    const updated = await api("PUT", `${ALERTS(zone)}/${ids[0]}`, { ...base, name: "renamed" });
    for (const text of [listed.text, one.text, updated.text]) {
      expect(text).not.toContain("whsec_");
      for (const s of secrets) expect(text).not.toContain(s.slice(6));
    }
    expect(updated.status).toBe(200);
    expect(await codeOf(zone, undefined, "GET", `${ALERTS(zone)}/${"0".repeat(32)}`)).toEqual([404, 20121]);
    expect(await codeOf(zone, base, "PUT", `${ALERTS(zone)}/not-an-id`)).toEqual([404, 20121]);
    expect(await codeOf(zone, undefined, "DELETE", `${ALERTS(zone)}/${"0".repeat(32)}`)).toEqual([404, 20121]);
    await apiOk("DELETE", `${ALERTS(zone)}/${ids[0]}`);
    await apiOk("POST", ALERTS(zone), { ...base, name: "room again" });
    // A zone that is not configured: 404 1001, and no storage made.
    expect(await codeOf(uniqueZone("alert-none"), base)).toEqual([404, 1001]);
  });
});

describe("dry runs", () => {
  it("a rehearsed create, update and delete store nothing", async () => {
    const zone = await zoneWith("alert-dry", 1);
    const body = {
      name: "dry",
      kind: "threshold",
      metric: "errors",
      window_minutes: 5,
      above: 10,
      webhook: { url: "https://hooks.example.com/a" },
    };
    const dry = await apiOk<Policy>("POST", `${ALERTS(zone)}?dry_run=true`, body);
    expect(dry.result).toBeNull(); // a rehearsal answers result: null (docs/configuration.md "any write")
    expect((await apiOk<Policy[]>("GET", ALERTS(zone))).result).toEqual([]);
    const id = (await apiOk<Policy>("POST", ALERTS(zone), body)).result.id;
    await apiOk("PUT", `${ALERTS(zone)}/${id}?dry_run=true`, { ...body, name: "renamed" });
    await apiOk("DELETE", `${ALERTS(zone)}/${id}?dry_run=true`);
    expect(
      (await apiOk<Policy[]>("GET", ALERTS(zone))).result.map((p) => (p as unknown as { name: string }).name),
    ).toEqual(["dry"]);
  });
});
