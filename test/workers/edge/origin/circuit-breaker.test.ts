/**
 * The circuit breaker (docs/fewer-errors.md "Circuit breaker"), through the real Worker with real origins on
 * 127.0.0.1 whose accepted connections are counted: after `failures` consecutive connection-level failures the
 * origin gets no connection while the circuit is open, the error comes at once with `Retry-After` = the seconds
 * left, then one probe at a time closes it (or opens it again). The breakers' clock is moved by the test (the
 * isolate's `circuitBreakers.now`), so nothing depends on how long a request takes.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import worker from "../../../../src/index";
import { circuitBreakers } from "../../../../src/edge/origin/circuit-breaker";
import { expectGeneratedError, zoneFor, type StructuredError } from "../../support/origin";
import { switchedOrigin, type SwitchedOrigin } from "../../support/switchboard";

/** One request through the Worker's own handler (JSON asked), its after-response work awaited. */
async function send(url: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const headers = { Accept: "application/json", ...(init.headers as Record<string, string> | undefined) };
  const res = await worker.fetch(new Request(url, { ...init, headers }), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** The breakers' clock, moved by hand. */
let clock = 1_000_000;
circuitBreakers.now = () => clock;
afterEach(() => {
  clock += 3_600_000;
});

const BREAKER = { circuit_breaker: { failures: 3, open_seconds: 30 } };

/**
 * An origin that resets every connection, behind a breaker of 3. Its failure is a 520 (the request was sent, no
 * answer came) or, when the edge's diagnostic probe is reset too, a 521: both are connection-level failures.
 */
async function resettingZone(
  label: string,
  extra: Record<string, unknown> = {},
): Promise<{
  readonly origin: SwitchedOrigin;
  readonly zone: string;
}> {
  const origin = await switchedOrigin();
  await origin.mode("reset");
  const zone = await zoneFor(label, origin.url, { ...BREAKER, ...extra });
  return { origin, zone };
}

/** The error of an origin that resets: 520 or 521 (see `resettingZone`). */
async function expectOriginDown(res: Response): Promise<StructuredError> {
  const code = res.status === 521 ? 521 : 520;
  return expectGeneratedError(res, code);
}

/**
 * Sends the failures that open the circuit, each reaching the origin; answers the connections it accepted (the
 * runtime may open more than one per request to an origin that resets, so the tests compare counts, not requests).
 */
async function openIt(zone: string, origin: SwitchedOrigin): Promise<number> {
  let connections = (await origin.stats()).connections;
  for (let i = 1; i <= 3; i++) {
    const res = await send(`http://${zone}/p`);
    await expectOriginDown(res);
    expect(res.headers.get("Proxy-Status")).not.toMatch(/circuit open/);
    const now = (await origin.stats()).connections;
    expect(now).toBeGreaterThan(connections);
    connections = now;
  }
  return connections;
}

describe("a circuit breaker", () => {
  it("opens after the failures: the origin sees no connection, the error comes at once with the time left", async () => {
    const { origin, zone } = await resettingZone("cb-open");
    const connections = await openIt(zone, origin);
    // Up again, and still not asked: the circuit is open.
    await origin.mode("ok");
    clock += 10_000;
    for (let i = 0; i < 5; i++) {
      const res = await send(`http://${zone}/p`);
      const body = await expectOriginDown(res);
      expect(body).toMatchObject({ request_reached_origin: false });
      expect(res.headers.get("Retry-After")).toBe("20");
      expect(res.headers.get("Proxy-Status")).toMatch(/^edge-errors; error=\w+; details="circuit open"$/);
      expect(res.headers.get("Server-Timing")).toMatch(/origin;dur=0;desc="circuit-open"/);
    }
    clock += 19_500;
    expect((await send(`http://${zone}/p`)).headers.get("Retry-After")).toBe("1");
    expect(await origin.stats()).toMatchObject({ connections, requests: 0 });
  });

  it("counts consecutive failures only: an answer in between starts the count again", async () => {
    const { origin, zone } = await resettingZone("cb-consecutive");
    for (let i = 0; i < 2; i++) await expectOriginDown(await send(`http://${zone}/p`));
    await origin.mode("ok");
    expect((await send(`http://${zone}/p`)).status).toBe(200);
    await origin.mode("reset");
    for (let i = 0; i < 2; i++) await expectOriginDown(await send(`http://${zone}/p`));
    const before = (await origin.stats()).connections;
    const res = await send(`http://${zone}/p`);
    await expectOriginDown(res);
    expect(res.headers.get("Proxy-Status")).not.toMatch(/circuit open/);
    expect((await origin.stats()).connections).toBeGreaterThan(before);
  });

  it("never counts an error the origin answered itself", async () => {
    const origin = await switchedOrigin();
    await origin.mode("status", { s: 503 });
    const zone = await zoneFor("cb-answered", origin.url, BREAKER);
    for (let i = 0; i < 5; i++) expect((await send(`http://${zone}/p`)).status).toBe(503);
    expect((await origin.stats()).requests).toBe(5);
  });

  it("lets one probe through when the time is up, and closes on its answer", async () => {
    // A read timeout far above the probe's delay: the probe is slow, never late.
    const { origin, zone } = await resettingZone("cb-probe", { read_timeout: 30 });
    const connections = await openIt(zone, origin);
    clock += 30_000;
    await origin.mode("slow", { ms: 3000 });
    const probe = send(`http://${zone}/p`);
    // The probe holds the half-open circuit: once the origin has its connection, a second request is skipped.
    await until(async () => (await origin.stats()).requests === 1);
    const skipped = await send(`http://${zone}/p`);
    await expectOriginDown(skipped);
    expect(skipped.headers.get("Retry-After")).toBe("1");
    expect(skipped.headers.get("Proxy-Status")).toMatch(/details="circuit open"/);
    expect((await probe).status).toBe(200);
    await origin.mode("ok");
    for (let i = 0; i < 3; i++) expect((await send(`http://${zone}/p`)).status).toBe(200);
    expect((await origin.stats()).requests).toBe(4);
    expect((await origin.stats()).connections).toBeGreaterThan(connections);
  });

  it("opens again at once when the probe fails", async () => {
    const { origin, zone } = await resettingZone("cb-probe-fails");
    const connections = await openIt(zone, origin);
    clock += 30_000;
    await expectOriginDown(await send(`http://${zone}/p`));
    const probed = (await origin.stats()).connections;
    expect(probed).toBeGreaterThan(connections);
    const res = await send(`http://${zone}/p`);
    await expectOriginDown(res);
    expect(res.headers.get("Retry-After")).toBe("30");
    expect((await origin.stats()).connections).toBe(probed);
  });

  it("sends a request to the fallback while the origin's circuit is open", async () => {
    const fallback = await switchedOrigin();
    const { origin, zone } = await resettingZone("cb-fallback", { fallback_origin: fallback.url });
    // A GET fails over on 520 and 521: the three failures are answered by the fallback and still open the circuit.
    for (let i = 0; i < 3; i++) expect((await send(`http://${zone}/p`)).status).toBe(200);
    const { connections } = await origin.stats();
    // The fallback's own count before (the runtime may send a request twice under load: compared, not assumed).
    const served = (await fallback.stats()).requests;
    const res = await send(`http://${zone}/p`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(new RegExp(`^/p #${served + 1} `));
    expect(res.headers.get("Proxy-Status")).toMatch(/^edge-errors; next-hop=fallback; details="circuit open: 52[01]"$/);
    // Never sent to the origin, so any method goes to the fallback, its body whole.
    const post = await send(`http://${zone}/order`, {
      method: "POST",
      body: "n=1",
      headers: { "Content-Length": "3" },
    });
    expect(await post.text()).toBe(`/order #${served + 2} lang= method=POST length=3 body=n=1`);
    expect(await origin.stats()).toMatchObject({ connections });
  });

  it("is kept per zone: one zone's failures never open another zone's circuit to the same origin", async () => {
    const { origin, zone } = await resettingZone("cb-zone-a");
    const other = await zoneFor("cb-zone-b", origin.url, BREAKER);
    const connections = await openIt(zone, origin);
    await expectOriginDown(await send(`http://${other}/p`));
    expect((await origin.stats()).connections).toBeGreaterThan(connections);
  });
});

/** Polls `done` (a real server's state) until true; fails after 10 s. */
async function until(done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("timed out waiting");
}
