/**
 * Stale copies against real origins on 127.0.0.1 that a test stops and starts (test/servers/switch-origin.ts):
 * warm a path, make the origin fail for real, and read what the edge answers (docs/fewer-errors.md). `Cache-Status`
 * and `Proxy-Status` are read with a real RFC 8941 parser (`structured-headers`).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { parseList, Token, type BareItem, type Item } from "structured-headers";
import { describe, expect, it } from "vitest";
import worker from "../../../../src/index";
import { readStale } from "../../../../packages/client/src/index.js";
import { expectGeneratedError, loopback, ports, sendTraffic, zoneFor } from "../../support/origin";

const control = (path: string, method = "POST"): Promise<Response> =>
  fetch(`${loopback(ports.switchboard)}${path}`, { method });

/** A fresh origin of its own: its port. */
async function newOrigin(): Promise<number> {
  return (await (await control("/origins")).json<{ port: number }>()).port;
}

const stop = async (port: number): Promise<void> => void (await control(`/origins/${port}/stop`)).body?.cancel();
const start = async (port: number): Promise<void> => void (await control(`/origins/${port}/start`)).body?.cancel();
async function mode(port: number, query: string): Promise<void> {
  await (await control(`/origins/${port}/mode?${query}`)).body?.cancel();
}

/** A token's or string's text (a token is a class of the parser). */
function text(item: BareItem): string {
  if (item instanceof Token) return item.toString();
  return typeof item === "string" ? item : JSON.stringify(item);
}

/** The one member of `Cache-Status` this service wrote, with its parameters. */
function cacheStatus(res: Response): Map<string, unknown> {
  const value = res.headers.get("Cache-Status");
  expect(value, "Cache-Status").not.toBeNull();
  const members = parseList(value ?? "");
  const ours = members.find((m) => text((m as Item)[0]) === "edge-errors") as Item | undefined;
  expect(ours, value ?? "").toBeDefined();
  const params = new Map<string, unknown>();
  for (const [name, v] of (ours as Item)[1]) params.set(name, v instanceof Token ? text(v) : v);
  return params;
}

async function zoneOn(port: number, extra: Record<string, unknown> = {}): Promise<string> {
  return zoneFor("stale", loopback(port), extra);
}

async function get(zone: string, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return sendTraffic(`http://${zone}${path}`, headers);
}

describe("stale if error (docs/fewer-errors.md)", () => {
  it("a warmed path answers the same bytes when the origin is stopped, labelled", async () => {
    const port = await newOrigin();
    const zone = await zoneOn(port);
    const path = "/page?cc=max-age%3D0%2C%20stale-if-error%3D60";
    const warm = await get(zone, path);
    expect(warm.status).toBe(200);
    const bytes = await warm.text();
    expect(bytes).toMatch(/^\/page #1 /);
    await stop(port);
    try {
      const res = await get(zone, path);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(bytes);
      const params = cacheStatus(res);
      expect(params.get("fwd")).toBe("stale");
      expect(params.get("fwd-status")).toBe(521);
      expect(params.get("detail")).toBe("stale-if-error");
      expect(params.get("ttl")).toBeTypeOf("number");
      expect(params.get("ttl") as number).toBeLessThanOrEqual(0);
      // The client package reads the same (docs/client.md "Stale answers").
      const read = readStale(res.headers);
      expect(read).toMatchObject({ because: "stale-if-error", failedStatus: 521, ttl: params.get("ttl") });
      expect(read?.age).toBe(Number(res.headers.get("Age")));
      expect(Number(res.headers.get("Age"))).toBeGreaterThanOrEqual(0);
      const proxy = parseList(res.headers.get("Proxy-Status") ?? "")[0] as Item;
      expect(text(proxy[0])).toBe("edge-errors");
      expect(text(proxy[1].get("error") ?? "")).toBe("connection_refused");
      expect(res.headers.get("Cache-Control")).toBe("max-age=0, stale-if-error=60");
      // HEAD is answered from the GET's copy, without a body.
      const head = await worker.fetch(
        new Request(`http://${zone}${path}`, { method: "HEAD" }),
        env,
        createExecutionContext(),
      );
      expect(head.status).toBe(200);
      expect(head.headers.get("Cache-Status")).toContain("fwd=stale");
      expect(await head.text()).toBe("");
      // POST is never answered from a copy.
      const post = await worker.fetch(
        new Request(`http://${zone}${path}`, { method: "POST", body: "x", headers: { Accept: "application/json" } }),
        env,
        createExecutionContext(),
      );
      await expectGeneratedError(post, 521);
    } finally {
      await start(port);
    }
  });

  it("the zone's stale_if_error keeps copies the origin says nothing about; without it, nothing is kept", async () => {
    const port = await newOrigin();
    const withWindow = await zoneOn(port, { stale_if_error: 60 });
    const without = await zoneOn(port);
    for (const zone of [withWindow, without]) expect((await get(zone, "/plain")).status).toBe(200);
    await stop(port);
    try {
      const res = await get(withWindow, "/plain");
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(/^\/plain #1 /);
      expect(cacheStatus(res).get("detail")).toBe("stale-if-error");
      await expectGeneratedError(await get(without, "/plain"), 521);
    } finally {
      await start(port);
    }
  });

  it("no-store, private, no-cache, Set-Cookie, must-revalidate, proxy-revalidate, s-maxage and Authorization are never served stale", async () => {
    const port = await newOrigin();
    const zone = await zoneOn(port, { stale_if_error: 600 });
    const never = [
      "/a?cc=no-store%2C%20stale-if-error%3D60",
      "/b?cc=private%2C%20stale-if-error%3D60",
      "/c?cc=no-cache",
      "/d?cookie=1",
      "/e?cc=max-age%3D60%2C%20must-revalidate",
      "/f?cc=proxy-revalidate",
      "/g?cc=s-maxage%3D60",
    ];
    for (const path of never) expect((await get(zone, path)).status).toBe(200);
    // Authorization: kept only when the answer is public.
    expect((await get(zone, "/h", { Authorization: "Bearer x" })).status).toBe(200);
    expect((await get(zone, "/i?cc=public", { Authorization: "Bearer x" })).status).toBe(200);
    await stop(port);
    try {
      for (const path of [...never, "/h"]) await expectGeneratedError(await get(zone, path), 521);
      expect((await get(zone, "/i?cc=public")).status).toBe(200);
    } finally {
      await start(port);
    }
  });

  it("two zones with the same path never share a copy; Vary keeps variants apart", async () => {
    const port = await newOrigin();
    const a = await zoneOn(port, { stale_if_error: 60 });
    const b = await zoneOn(port, { stale_if_error: 60 });
    expect((await get(a, "/shared")).status).toBe(200);
    expect((await get(a, "/lang?vary=Accept-Language", { "Accept-Language": "en" })).status).toBe(200);
    await stop(port);
    try {
      expect((await get(a, "/shared")).status).toBe(200);
      await expectGeneratedError(await get(b, "/shared"), 521);
      const en = await get(a, "/lang?vary=Accept-Language", { "Accept-Language": "en" });
      expect(await en.text()).toMatch(/lang=en/);
      expect(en.headers.get("Vary")).toBe("Accept-Language");
      await expectGeneratedError(await get(a, "/lang?vary=Accept-Language", { "Accept-Language": "fr" }), 521);
    } finally {
      await start(port);
    }
  });

  it("an origin's own 503 and a reset (520) are answered from the copy; past the window, the error", async () => {
    const port = await newOrigin();
    const zone = await zoneOn(port);
    const path = "/page?cc=max-age%3D0%2C%20stale-if-error%3D60";
    const short = "/short?cc=max-age%3D0%2C%20stale-if-error%3D1";
    expect(await (await get(zone, path)).text()).toMatch(/#1 /);
    expect((await get(zone, short)).status).toBe(200);
    await mode(port, "m=status&s=503");
    try {
      const res = await get(zone, path);
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(/#1 /);
      const params = cacheStatus(res);
      expect(params.get("fwd-status")).toBe(503);
      const proxy = parseList(res.headers.get("Proxy-Status") ?? "")[0] as Item;
      expect(proxy[1].get("received-status")).toBe(503);
      await mode(port, "m=reset");
      const reset = await get(zone, path);
      expect(reset.status).toBe(200);
      // The origin resets at accept: workerd sees it after the request was sent (520) or, on a busy machine, while
      // still connecting (521). Either is a failure a copy answers.
      expect([520, 521]).toContain(cacheStatus(reset).get("fwd-status"));
      // stale-if-error=1: two seconds later the copy may no longer answer.
      await new Promise((r) => setTimeout(r, 2_200));
      const late = await get(zone, short);
      expect(late.headers.get("Cache-Status")).toBeNull();
      await expectGeneratedError(late, late.status === 521 ? 521 : 520);
    } finally {
      await mode(port, "m=ok");
    }
  });
});

describe("stale if slow (docs/fewer-errors.md)", () => {
  it("an origin slower than stale_after_ms is answered from the copy at once; its late answer refreshes it", async () => {
    const port = await newOrigin();
    const zone = await zoneOn(port, { stale_if_error: 600, stale_after_ms: 1000, read_timeout: 30 });
    expect(await (await get(zone, "/slow")).text()).toMatch(/^\/slow #1 /);
    await mode(port, "m=slow&ms=12000");
    const ctx = createExecutionContext();
    const started = Date.now();
    const res = await worker.fetch(new Request(`http://${zone}/slow`), env, ctx);
    const elapsed = Date.now() - started;
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^\/slow #1 /);
    const params = cacheStatus(res);
    expect(params.get("detail")).toBe("stale-if-slow");
    expect(params.has("fwd-status")).toBe(false);
    // About a second (stale_after_ms): the copy (#1, stale-if-slow) already says the answer came before the origin's;
    // the bound says it did not wait long for it, with 9 s of margin for a loaded machine (the origin takes twelve).
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(10_000);
    // The late answer (#2) is kept after the response: stop the origin and the copy is the new one.
    await waitOnExecutionContext(ctx);
    await mode(port, "m=ok");
    await stop(port);
    try {
      const after = await get(zone, "/slow");
      expect(await after.text()).toMatch(/^\/slow #2 /);
      expect(cacheStatus(after).get("detail")).toBe("stale-if-error");
    } finally {
      await start(port);
    }
  });

  it("without a copy, a slow origin is waited for as before", async () => {
    const port = await newOrigin();
    const zone = await zoneOn(port, { stale_after_ms: 200, read_timeout: 10 });
    const res = await get(zone, "/never-warmed?delay=600");
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Status")).toBeNull();
  });
});
