/**
 * The OpenAPI document's threshold example ("Origin failing", `filter: { source: "origin" }`) fires when the origin
 * is down: a filter's `source` is who caused the error, so the edge's 521 for a refused origin counts as the
 * origin's, as in the burn rate's origin errors (docs/analytics.md "Alerts"). Real traffic through the Worker to a
 * closed port on 127.0.0.1, records and tallies from the recorder, shard 0's evaluation step, the webhook received by
 * the receiver on 127.0.0.1 and verified with `standardwebhooks`.
 */
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import type { TickReport, ZoneAnalytics } from "../../../../src/state/analytics/zone-analytics";
import type { ReceivedWebhook } from "../../../servers/context";
import { apiOk } from "../../support/envelope";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";

const MINUTE = 60_000;

interface Policy {
  id: string;
  state: { status: "ok" | "firing"; value: number | null };
  webhook: { url: string; secret?: string };
}
interface Doc {
  readonly components: { readonly schemas: Record<string, { readonly example?: Record<string, unknown> }> };
}

const tick = (zone: string, now: number): Promise<TickReport> =>
  runInDurableObject(env.ZONE_ANALYTICS.get(env.ZONE_ANALYTICS.idFromName(zone)), (o: ZoneAnalytics) => o.tick(now));

const received = async (name: string): Promise<ReceivedWebhook[]> =>
  (await fetch(`${loopback(ports.webhook)}/received/${name}`)).json<ReceivedWebhook[]>();

describe("the OpenAPI alert example", () => {
  it("fires on a refused origin (521s), also with a path filter; `source: edge` does not count them", async () => {
    const doc = await (await exports.default.fetch("http://localhost/openapi.json")).json<Doc>();
    const example = doc.components.schemas.AlertPolicyBody?.example;
    expect(example).toMatchObject({ name: "Origin failing", filter: { source: "origin" } });

    const zone = uniqueZone("alert-example");
    await putZone(zone, { origin: loopback(ports.closed) });
    const name = `example-${Math.random().toString(36).slice(2)}`;
    const create = async (filter: Record<string, unknown>, hook: string): Promise<Policy> =>
      (
        await apiOk<Policy>("POST", `/zones/${zone}/analytics/alerts`, {
          ...example,
          filter,
          webhook: { url: `${loopback(ports.webhook)}/hooks/${hook}` },
        })
      ).result;
    const asGiven = await create({ source: "origin" }, name);
    // The same policy on one path reads the window's records instead of the minute counts: the same meaning.
    const onPath = await create({ source: "origin", path: "/checkout" }, `${name}-path`);
    const edge = await create({ source: "edge" }, `${name}-edge`);

    const statuses = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const res = await exports.default.fetch(`http://${zone}/checkout`);
        await res.body?.cancel();
        return res.status;
      }),
    );
    expect(new Set(statuses)).toEqual(new Set([521]));
    // The records and the request tallies arrive after the responses (docs/analytics.md "Requests and drops").
    let counted = { requests: 0, total: 0 };
    for (let i = 0; i < 80 && (counted.requests < 30 || counted.total < 30); i++) {
      await new Promise((r) => setTimeout(r, 100));
      counted = (await apiOk<{ requests: number; total: number }>("GET", `/zones/${zone}/analytics/errors`)).result!;
    }
    expect(counted).toMatchObject({ requests: 30, total: 30 });

    // The next evaluation (the minute in progress has ended): the example's 5-minute window holds the outage.
    await tick(zone, Math.floor(Date.now() / MINUTE) * MINUTE + MINUTE + 5_000);
    const stateOf = async (p: Policy) =>
      (await apiOk<Policy>("GET", `/zones/${zone}/analytics/alerts/${p.id}`)).result.state;
    expect(await stateOf(asGiven)).toMatchObject({ status: "firing", value: 1 });
    expect(await stateOf(onPath)).toMatchObject({ status: "firing", value: 1 });
    expect(await stateOf(edge)).toMatchObject({ status: "ok", value: 0 });

    const got = await received(name);
    expect(got).toHaveLength(1);
    expect(new Webhook(asGiven.webhook.secret!).verify(got[0]!.body, got[0]!.headers)).toMatchObject({
      type: "alert.firing",
      data: { zone, status: "firing", value: 1 },
    });
    expect(await received(`${name}-edge`)).toEqual([]);
  });
});
