/**
 * Avoided errors in the analytics answer (docs/analytics.md "Avoided errors"), through the real Worker: an origin
 * that refuses connections with a fallback origin that answers is counted as `failover` with the origin's code; an
 * origin whose circuit is open is counted as `circuit_open`; a copy answering for a stopped origin as `stale`. The isolate's held tallies are handed to the store by
 * the test (the batcher's own flush), so nothing waits on the tallies' window.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { analyticsSink, recorder } from "../../../../src/edge/analytics/recorder";
import { apiOk } from "../../support/envelope";
import { loopback, ports, sendTraffic, zoneFor } from "../../support/origin";
import { switchedOrigin } from "../../support/switchboard";

interface Avoided {
  total: number;
  by_kind: Record<"stale" | "failover" | "circuit_open", number>;
  by_code: { kind: string; code: number; count: number }[];
}

async function avoidedOf(zone: string): Promise<{ avoided: Avoided; total: number; requests: number }> {
  await recorder.flushTallies(analyticsSink(env));
  return (await apiOk<{ avoided: Avoided; total: number; requests: number }>("GET", `/zones/${zone}/analytics/errors`))
    .result;
}

describe("avoided errors in GET /zones/{zone}/analytics/errors", () => {
  it("counts each answer of the fallback origin as failover, by the origin's code; no error is recorded", async () => {
    const fallback = await switchedOrigin();
    const zone = await zoneFor("av-failover", loopback(ports.closed), { fallback_origin: fallback.url });
    for (let i = 0; i < 3; i++) {
      const res = await sendTraffic(`http://${zone}/p`);
      expect(res.status).toBe(200);
      await res.body?.cancel();
    }
    const answer = await avoidedOf(zone);
    expect(answer.avoided).toEqual({
      total: 3,
      by_kind: { stale: 0, failover: 3, circuit_open: 0 },
      by_code: [{ kind: "failover", code: 521, count: 3 }],
    });
    expect(answer).toMatchObject({ total: 0, requests: 3 });
  });

  it("counts each answer from a stale copy as stale, by the failure the copy answered; no error is recorded", async () => {
    const origin = await switchedOrigin();
    const zone = await zoneFor("av-stale", origin.url, { stale_if_error: 600 });
    const warm = await sendTraffic(`http://${zone}/p`);
    expect(warm.status).toBe(200);
    await warm.body?.cancel();
    await origin.stop();
    for (let i = 0; i < 2; i++) {
      const res = await sendTraffic(`http://${zone}/p`);
      expect(res.status).toBe(200);
      expect(res.headers.get("Cache-Status")).toContain("fwd=stale");
      await res.body?.cancel();
    }
    const answer = await avoidedOf(zone);
    expect(answer.avoided).toEqual({
      total: 2,
      by_kind: { stale: 2, failover: 0, circuit_open: 0 },
      by_code: [{ kind: "stale", code: 521, count: 2 }],
    });
    expect(answer).toMatchObject({ total: 0, requests: 3 });
  });

  it("counts an error answered at once for an open circuit as circuit_open; the error itself is recorded", async () => {
    const zone = await zoneFor("av-circuit", loopback(ports.closed), {
      circuit_breaker: { failures: 1, open_seconds: 3600 },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await sendTraffic(`http://${zone}/p`);
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses).toEqual([521, 521, 521]);
    let answer = await avoidedOf(zone);
    // The records are batched apart from the tallies: wait for the three errors to be stored.
    for (let i = 0; i < 50 && answer.total < 3; i++) {
      await new Promise((r) => setTimeout(r, 100));
      answer = await avoidedOf(zone);
    }
    // The first failure opened the circuit: the two after it never reached the origin.
    expect(answer.avoided).toEqual({
      total: 2,
      by_kind: { stale: 0, failover: 0, circuit_open: 2 },
      by_code: [{ kind: "circuit_open", code: 521, count: 2 }],
    });
    expect(answer.total).toBe(3);
  });
});
