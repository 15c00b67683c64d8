/**
 * Fail over (docs/fewer-errors.md "Fail over"), through the real Worker with real origins on 127.0.0.1: a refused
 * origin's request goes to the fallback once, whatever its method, its body replayed byte for byte; a request the
 * origin may have received (524) goes only when idempotent or with an `Idempotency-Key`; which origin answered is
 * in `Proxy-Status` and `Server-Timing`; the fallback's own failure is answered as without one.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../../src/index";
import { TIMES_OUT, expectGeneratedError, loopback, ports, zoneFor } from "../../support/origin";
import { switchedOrigin } from "../../support/switchboard";

/** One request through the Worker's own handler (JSON asked), its after-response work awaited. */
async function send(url: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const headers = { Accept: "application/json", ...(init.headers as Record<string, string> | undefined) };
  const res = await worker.fetch(new Request(url, { ...init, headers }), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("a fallback origin", () => {
  it("answers a GET the refused origin never received, and says so", async () => {
    const fallback = await switchedOrigin();
    const zone = await zoneFor("fo-get", loopback(ports.closed), { fallback_origin: fallback.url });
    const res = await send(`http://${zone}/page`);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(text).toMatch(/^\/page #1 .*method=GET/);
    expect(res.headers.get("Proxy-Status")).toBe('edge-errors; next-hop=fallback; details="origin failed: 521"');
    expect(res.headers.get("Server-Timing")).toMatch(/^origin;dur=\d+;desc="connect-refused", fallback;dur=\d+$/);
    expect(await fallback.stats()).toMatchObject({ requests: 1 });
  });

  it("replays a POST's body to the fallback, byte for byte, with its length", async () => {
    const fallback = await switchedOrigin();
    const zone = await zoneFor("fo-post", loopback(ports.closed), { fallback_origin: fallback.url });
    const body = `order=42&note=${"é".repeat(3000)}`;
    const bytes = new TextEncoder().encode(body).byteLength;
    // As a client sends it (a Request made here has no Content-Length field of its own).
    const headers = { "Content-Length": String(bytes) };
    const res = await send(`http://${zone}/checkout`, { method: "POST", body, headers });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(text).toBe(`/checkout #1 lang= method=POST length=${bytes} body=${body}`);
  });

  it("replays a streamed body of unknown length", async () => {
    const fallback = await switchedOrigin();
    const zone = await zoneFor("fo-stream", loopback(ports.closed), { fallback_origin: fallback.url });
    const parts = ["first,", "second,", "third"];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = parts.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const res = await send(`http://${zone}/upload`, { method: "PUT", body: stream });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(text).toMatch(/method=PUT length=\S+ body=first,second,third$/);
  });

  it("does not replay a POST the origin may have received (524) without an Idempotency-Key", async () => {
    const fallback = await switchedOrigin();
    const zone = await zoneFor("fo-524", loopback(ports.raw), { ...TIMES_OUT, fallback_origin: fallback.url });
    const res = await send(`http://${zone}/hang`, { method: "POST", body: "pay=1" });
    await expectGeneratedError(res, 524);
    expect(await fallback.stats()).toMatchObject({ requests: 0, connections: 0 });
  });

  it("replays a 524 POST that carries an Idempotency-Key, and a 524 GET", async () => {
    const fallback = await switchedOrigin();
    const zone = await zoneFor("fo-524-key", loopback(ports.raw), { ...TIMES_OUT, fallback_origin: fallback.url });
    const keyed = await send(`http://${zone}/hang`, {
      method: "POST",
      body: "pay=1",
      headers: { "Idempotency-Key": '"8e03978e-40d5-43e8-bc93-6894a57f9324"', "Content-Length": "5" },
    });
    expect(await keyed.text()).toBe("/hang #1 lang= method=POST length=5 body=pay=1");
    expect(keyed.headers.get("Proxy-Status")).toBe('edge-errors; next-hop=fallback; details="origin failed: 524"');
    const get = await send(`http://${zone}/hang`);
    expect(get.status).toBe(200);
    expect(await get.text()).toMatch(/^\/hang #2 .*method=GET/);
  });

  it("answers the fallback's own failure as it would without a fallback", async () => {
    const fallback = await switchedOrigin();
    await fallback.stop();
    const zone = await zoneFor("fo-both", loopback(ports.raw), { fallback_origin: fallback.url });
    const res = await send(`http://${zone}/reset`);
    const body = await expectGeneratedError(res, 521);
    expect(body).toMatchObject({ request_reached_origin: false });
    expect(res.headers.get("Proxy-Status")).toBe('edge-errors; error=connection_refused; details="521 origin_down"');
  });

  it("never sends an answered error or a success to the fallback", async () => {
    const fallback = await switchedOrigin();
    const zone = await zoneFor("fo-none", loopback(ports.http), { fallback_origin: fallback.url });
    expect((await send(`http://${zone}/status/503-json`)).status).toBe(503);
    expect((await send(`http://${zone}/`)).status).toBe(200);
    expect(await fallback.stats()).toMatchObject({ requests: 0 });
  });
});
