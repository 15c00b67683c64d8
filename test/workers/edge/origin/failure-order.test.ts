/**
 * The order on an origin failure (docs/fewer-errors.md "Order on an origin failure"), through the real Worker with
 * real origins on 127.0.0.1 that the test stops, starts and counts: a zone with a stale copy, a fallback origin and a
 * circuit breaker, and which of them answers in which situation. The breakers' clock is moved by the test
 * (`circuitBreakers.now`), so nothing depends on how long a request takes.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../../src/index";
import { circuitBreakers } from "../../../../src/edge/origin/circuit-breaker";
import { expectGeneratedError, zoneFor } from "../../support/origin";
import { switchedOrigin } from "../../support/switchboard";

/** One request through the Worker's own handler (JSON asked), its after-response work (the copy's write) awaited. */
async function send(url: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const headers = { Accept: "application/json", ...(init.headers as Record<string, string> | undefined) };
  const res = await worker.fetch(new Request(url, { ...init, headers }), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

let clock = 5_000_000;
circuitBreakers.now = () => clock;

/** Two connection-level failures in a row open the circuit for 30 s; copies may answer for 10 minutes. */
const GUARDS = { circuit_breaker: { failures: 2, open_seconds: 30 }, stale_if_error: 600 };

const REFUSED = 'edge-errors; error=connection_refused; details="521 origin_down"';
const CIRCUIT_OPEN = 'edge-errors; error=connection_refused; details="circuit open"';

describe("the order on an origin failure: origin, stale copy, fallback, error", () => {
  it("a copy answers before the fallback; an open circuit is answered by the copy, then the fallback; the origin is not asked", async () => {
    const origin = await switchedOrigin();
    const fallback = await switchedOrigin();
    const zone = await zoneFor("order", origin.url, { ...GUARDS, fallback_origin: fallback.url });

    // 1. The origin answers: its answer, kept as the copy of /kept.
    const warm = await send(`http://${zone}/kept`);
    expect(warm.status).toBe(200);
    const kept = await warm.text();
    expect(kept).toMatch(/^\/kept #1 /);
    expect(warm.headers.get("Cache-Status")).toBeNull();

    await origin.stop();
    // 2. The origin fails (first failure): the copy answers, the fallback is not asked.
    const fromCopy = await send(`http://${zone}/kept`);
    expect(fromCopy.status).toBe(200);
    expect(await fromCopy.text()).toBe(kept);
    expect(fromCopy.headers.get("Cache-Status")).toMatch(/fwd=stale; fwd-status=521; .*detail=stale-if-error$/);
    expect(fromCopy.headers.get("Proxy-Status")).toBe(REFUSED);
    expect(await fallback.stats()).toMatchObject({ requests: 0 });

    // 3. No copy of this path (second failure, the circuit opens): the fallback answers.
    const failedOver = await send(`http://${zone}/other`);
    expect(failedOver.status).toBe(200);
    expect(await failedOver.text()).toMatch(/^\/other #1 /);
    expect(failedOver.headers.get("Proxy-Status")).toBe('edge-errors; next-hop=fallback; details="origin failed: 521"');
    expect(await fallback.stats()).toMatchObject({ requests: 1 });

    // The origin is up again, but its circuit is open: it is not asked (its connections are counted).
    await origin.start();
    clock += 10_000;
    const connections = (await origin.stats()).connections;

    // 4. Circuit open, a copy: the copy, saying the origin was skipped as the error would have.
    const skippedToCopy = await send(`http://${zone}/kept`);
    expect(skippedToCopy.status).toBe(200);
    expect(await skippedToCopy.text()).toBe(kept);
    expect(skippedToCopy.headers.get("Cache-Status")).toMatch(/fwd=stale; fwd-status=521; .*detail=stale-if-error$/);
    expect(skippedToCopy.headers.get("Proxy-Status")).toBe(CIRCUIT_OPEN);
    expect(await fallback.stats()).toMatchObject({ requests: 1 });

    // 5. Circuit open, no copy: the fallback, whatever the method (the origin never received the request).
    const skippedToFallback = await send(`http://${zone}/other`);
    expect(await skippedToFallback.text()).toMatch(/^\/other #2 .*method=GET/);
    expect(skippedToFallback.headers.get("Proxy-Status")).toBe(
      'edge-errors; next-hop=fallback; details="circuit open: 521"',
    );
    // A POST is never answered from a copy, even where one exists: it goes to the fallback.
    const post = await send(`http://${zone}/kept`, { method: "POST", body: "a=1", headers: { "Content-Length": "3" } });
    expect(post.headers.get("Cache-Status")).toBeNull();
    expect(await post.text()).toBe("/kept #3 lang= method=POST length=3 body=a=1");
    expect(post.headers.get("Proxy-Status")).toBe('edge-errors; next-hop=fallback; details="circuit open: 521"');
    expect((await origin.stats()).connections).toBe(connections);

    // 6. Time is up: one probe goes to the origin, which answers; the circuit closes and the copy is renewed.
    clock += 30_000;
    const probe = await send(`http://${zone}/kept`);
    expect(probe.status).toBe(200);
    expect(probe.headers.get("Cache-Status")).toBeNull();
    const renewed = await probe.text();
    expect(renewed).toMatch(/^\/kept #2 /);
    expect((await origin.stats()).connections).toBeGreaterThan(connections);
    await origin.stop();
    expect(await (await send(`http://${zone}/kept`)).text()).toBe(renewed);
  });

  it("without a fallback: the copy where there is one, else the error at once with the time left", async () => {
    const origin = await switchedOrigin();
    const zone = await zoneFor("order-nofb", origin.url, GUARDS);
    const kept = await (await send(`http://${zone}/kept`)).text();
    await origin.stop();
    await expectGeneratedError(await send(`http://${zone}/a`), 521);
    await expectGeneratedError(await send(`http://${zone}/b`), 521);
    // Open now.
    clock += 5_000;
    const copy = await send(`http://${zone}/kept`);
    expect(await copy.text()).toBe(kept);
    expect(copy.headers.get("Proxy-Status")).toBe(CIRCUIT_OPEN);
    const error = await send(`http://${zone}/c`);
    const body = await expectGeneratedError(error, 521);
    expect(body).toMatchObject({ request_reached_origin: false });
    expect(error.headers.get("Proxy-Status")).toBe(CIRCUIT_OPEN);
    expect(error.headers.get("Retry-After")).toBe("25");
    expect(error.headers.get("Cache-Status")).toBeNull();
  });
});
