/**
 * Approximate counting on leases (docs/producers.md "Approximate counting: leases") against the real `RateLimiter`
 * object, with several `IsolateCounters` playing several isolates of one Worker: the accuracy bound under a burst,
 * how soon a block reaches every isolate, the early block an idle isolate's unspent lease causes, round trips saved,
 * exact counting still exact, and lease state expiring with alarms.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { checkRateLimit, counterOf, type RateLimitEnv } from "../../../../src/edge/request-phases/rate-limit/check";
import { compileRateLimits, type CompiledRateLimits } from "../../../../src/edge/request-phases/rate-limit/compile";
import { IsolateCounters } from "../../../../src/edge/request-phases/rate-limit/isolate-counters";
import { requestContext } from "../../../../src/rules/rule-list";
import { LEASE_MS, MAX_LEASE } from "../../../../src/state/rate-limiter/counter";
import type { RateLimiter } from "../../../../src/state/rate-limiter/rate-limiter";
import type { RateLimitCounting } from "../../../../src/state/zone/rulesets/ratelimit";
import { counterRows, rateLimiterStub } from "../../support/sliding-window";

const rlEnv: RateLimitEnv = env;
let zones = 0;
const newZone = () => `lease-${++zones}-${Math.random().toString(36).slice(2, 8)}.example`;
const CLIENT = "192.0.2.1";
const request = () => new Request("https://shop.example/api", { headers: { "CF-Connecting-IP": CLIENT } });

/**
 * A period of 20 s: leases then live LEASE_MS (1 s), and the 30 s mitigation outlasts the period, so every block
 * here ends with its mitigation (test/workers/edge/request-phases/rate-limit-period.test.ts: shorter mitigations).
 */
function rules(limit: number, counting?: RateLimitCounting, mitigation = 30): CompiledRateLimits {
  const compiled = compileRateLimits(
    {
      rules: [
        {
          id: "rl",
          expression: "true",
          action: "block",
          ratelimit: {
            characteristics: ["ip.src"],
            period: 20,
            requests_per_period: limit,
            mitigation_timeout: mitigation,
            ...(counting === undefined ? {} : { counting }),
          },
        },
      ],
    },
    Infinity,
  );
  expect(compiled.problems).toEqual([]);
  return compiled;
}

/** The counter's name, as check.ts names it, to read what an isolate holds. */
async function nameOf(zone: string, compiled: CompiledRateLimits): Promise<string> {
  const rule = compiled.rules[0];
  if (rule === undefined) throw new Error("no rule");
  const req = request();
  return (await counterOf(zone, rule, requestContext(req), req)).name;
}

/** `n` requests at once on one isolate at `now`: how many were admitted, and the Retry-After of the blocked. */
async function burst(isolate: IsolateCounters, zone: string, compiled: CompiledRateLimits, n: number, now: number) {
  const decisions = await Promise.all(
    Array.from({ length: n }, () => checkRateLimit(compiled, request(), { env: rlEnv, zone, now, isolate })),
  );
  return {
    admitted: decisions.filter((d) => d.kind === "allow").length,
    retryAfter: decisions.flatMap((d) => (d.kind === "block" ? [d.retryAfter] : [])),
  };
}

describe("the bound under N isolates and a burst (approximate, the default)", () => {
  it("4 isolates × 8 concurrent requests per ms: exactly N pass; every isolate blocked within LEASE_MS of the first block", async () => {
    const zone = newZone();
    const limit = 1000;
    const compiled = rules(limit);
    const isolates = Array.from({ length: 4 }, () => new IsolateCounters());
    const t0 = Date.now();
    let admitted = 0;
    let requests = 0;
    let firstBlock: number | undefined;
    const blockedAt = new Map<number, number>();
    for (let ms = 0; blockedAt.size < isolates.length; ms++) {
      const now = t0 + ms;
      const results = await Promise.all(isolates.map((isolate) => burst(isolate, zone, compiled, 8, now)));
      for (const [i, r] of results.entries()) {
        requests += 8;
        admitted += r.admitted;
        if (r.retryAfter.length > 0) {
          firstBlock ??= now;
          if (!blockedAt.has(i)) blockedAt.set(i, now);
          // Retry-After: whole seconds until the block (30 s from the first refusal) ends.
          for (const s of r.retryAfter) expect(s).toBe(Math.ceil((firstBlock + 30_000 - now) / 1000));
        }
      }
      expect(admitted).toBeLessThanOrEqual(limit); // never more than N, at any moment
      expect(ms).toBeLessThan(10_000);
    }
    // Sustained traffic spends every lease: exactly N passed, as exact counting would.
    expect(admitted).toBe(limit);
    // A block reached every isolate within LEASE_MS of the first one.
    for (const at of blockedAt.values()) expect(at - (firstBlock ?? Infinity)).toBeLessThan(LEASE_MS);
    // Most requests needed no round trip: leases grew to what the object would grant.
    const roundTrips = isolates.reduce((sum, i) => sum + i.roundTrips, 0);
    expect(roundTrips).toBeLessThan(limit / 5);
    expect(requests).toBeGreaterThan(limit);
  });

  it("a burst that stops at the first block: admitted + what the other isolates hold unspent = N; the block reaches each of them at LEASE_MS at the latest", async () => {
    const zone = newZone();
    const limit = 500;
    const compiled = rules(limit);
    const name = await nameOf(zone, compiled);
    const isolates = Array.from({ length: 3 }, () => new IsolateCounters());
    const t0 = Date.now();
    let admitted = 0;
    let blocked: { at: number; by: number } | undefined;
    // One request at a time, 1 : 3 : 6 over the three isolates: their leases grow, then the counter runs out.
    const turns = [0, 1, 1, 1, 2, 2, 2, 2, 2, 2];
    for (let i = 0; blocked === undefined; i++) {
      const by = turns[i % turns.length]!;
      const now = t0 + Math.floor(i / 10);
      const r = await burst(isolates[by]!, zone, compiled, 1, now);
      admitted += r.admitted;
      if (r.admitted === 0) blocked = { at: now, by };
      expect(i).toBeLessThan(2 * limit);
    }
    const unspent = isolates.map((isolate) => isolate.unspent(name));
    expect(unspent[blocked.by]).toBe(0);
    // The early block: it started with exactly this many requests still reserved elsewhere, each isolate's share at
    // most two leases (the one being spent and the one fetched ahead).
    expect(admitted + unspent.reduce((a, b) => a + b, 0)).toBe(limit);
    for (const u of unspent) expect(u).toBeLessThan(2 * MAX_LEASE); // at most two leases held per isolate
    expect(unspent.some((u) => u > 0)).toBe(true); // the case this test is about (the 1 : 3 : 6 pattern makes it)
    // After the block, until its lease expires (LEASE_MS after it was granted, before the block), an isolate admits
    // from what it holds (one request here, so some is left)...
    for (const [i, isolate] of isolates.entries()) {
      if (i === blocked.by) continue;
      const during = await burst(isolate, zone, compiled, 1, blocked.at + 1);
      expect(during.admitted).toBe(Math.min(1, unspent[i]!));
      admitted += during.admitted;
    }
    expect(admitted).toBeLessThanOrEqual(limit);
    expect(isolates.some((isolate) => isolate.unspent(name) > 0)).toBe(true);
    // ...and LEASE_MS after the block no isolate admits, whatever it still holds: the block has reached them all.
    for (const isolate of isolates) {
      const after = await burst(isolate, zone, compiled, 3, blocked.at + LEASE_MS);
      expect(after).toEqual({ admitted: 0, retryAfter: [29, 29, 29] });
    }
  });

  it("an isolate that goes quiet holding a lease blocks the client early by exactly what it holds, until it asks again", async () => {
    const zone = newZone();
    const limit = 400;
    const compiled = rules(limit);
    const name = await nameOf(zone, compiled);
    const [quiet, busy] = [new IsolateCounters(), new IsolateCounters()];
    const t0 = Date.now();
    let admitted = 0;
    for (let i = 0; i < 40; i++) admitted += (await burst(quiet, zone, compiled, 1, t0)).admitted;
    const held = quiet.unspent(name);
    expect(held).toBeGreaterThan(0);
    for (let i = 0; ; i++) {
      const r = await burst(busy, zone, compiled, 1, t0 + 1);
      if (r.admitted === 0) break;
      admitted += r.admitted;
      expect(i).toBeLessThan(limit);
    }
    expect(admitted).toBe(limit - held);
  });

  it("the unspent part of an expired lease goes back to the object with the holder's next request", async () => {
    const zone = newZone();
    const limit = 400;
    const compiled = rules(limit);
    const name = await nameOf(zone, compiled);
    const [first, second] = [new IsolateCounters(), new IsolateCounters()];
    const t0 = Date.now();
    let admitted = 0;
    for (let i = 0; i < 40; i++) admitted += (await burst(first, zone, compiled, 1, t0)).admitted;
    expect(first.unspent(name)).toBeGreaterThan(0);
    // Past its lease's lifetime the first isolate asks again, giving back what it did not spend.
    admitted += (await burst(first, zone, compiled, 1, t0 + LEASE_MS)).admitted;
    const held = first.unspent(name);
    const before = first.roundTrips;
    for (let i = 0; ; i++) {
      const r = await burst(second, zone, compiled, 1, t0 + LEASE_MS + 1);
      if (r.admitted === 0) break;
      admitted += r.admitted;
      expect(i).toBeLessThan(limit);
    }
    expect(admitted).toBe(limit - held);
    // Leases of 1, 2, 4, 8, 16 and 32 (from the third on fetched ahead) brought it to 40 requests, 23 of the 32
    // unspent; it then asked for what it did spend of that lease in its lifetime (9) and holds 8 of it: the other 23
    // went back.
    expect(held).toBe(8);
    expect(first.roundTrips).toBe(before);
  });

  it("one isolate alone is exact: N pass, N+1 blocked", async () => {
    const zone = newZone();
    const compiled = rules(300);
    const isolate = new IsolateCounters();
    const t0 = Date.now();
    let admitted = 0;
    for (let i = 0; i < 320; i++) admitted += (await burst(isolate, zone, compiled, 1, t0 + i)).admitted;
    expect(admitted).toBe(300);
    expect(isolate.roundTrips).toBeLessThan(60);
  });
});

describe("exact counting (ratelimit.counting: exact)", () => {
  it("4 isolates: exactly N pass, and the next request on every isolate is blocked at once", async () => {
    const zone = newZone();
    const limit = 100;
    const compiled = rules(limit, "exact");
    const isolates = Array.from({ length: 4 }, () => new IsolateCounters());
    const t0 = Date.now();
    let admitted = 0;
    for (let i = 0; i < limit; i++) admitted += (await burst(isolates[i % 4]!, zone, compiled, 1, t0 + i)).admitted;
    expect(admitted).toBe(limit);
    for (const isolate of isolates) {
      expect(await burst(isolate, zone, compiled, 2, t0 + limit)).toEqual({ admitted: 0, retryAfter: [30, 30] });
      expect(isolate.roundTrips).toBe(0); // no leases: one `hit` per request
    }
  });

  it("a concurrent burst on several isolates never passes more than N", async () => {
    const zone = newZone();
    const compiled = rules(50, "exact");
    const isolates = Array.from({ length: 3 }, () => new IsolateCounters());
    const results = await Promise.all(isolates.map((isolate) => burst(isolate, zone, compiled, 40, Date.now())));
    expect(results.reduce((sum, r) => sum + r.admitted, 0)).toBe(50);
  });
});

describe("lease state expires with alarms (docs/configuration.md)", () => {
  const input = { key: "k", period: 10, requestsPerPeriod: 1000, mitigationTimeout: 10, returned: null, ahead: false };

  it("a lease is written behind and flushed by its alarm; an expired one drops the object's storage", async () => {
    const stub = rateLimiterStub(`lease-alarm-${Math.random()}`);
    const lease = await stub.lease({ ...input, want: 8, now: Date.now() });
    expect(lease).toMatchObject({ kind: "lease", size: 8 });
    await vi.waitFor(async () => expect(await counterRows(stub)).toBe(1), { timeout: 5000, interval: 50 });
    const stored = await runInDurableObject(
      stub,
      (_: RateLimiter, state) =>
        state.storage.sql.exec<{ buckets: string }>("SELECT buckets FROM sliding_counters").one().buckets,
    );
    expect(JSON.parse(stored)).toMatchObject([expect.any(Number), expect.any(Number), 8]);

    const old = rateLimiterStub(`lease-expired-${Math.random()}`);
    await old.lease({ ...input, want: 8, now: Date.now() - 3_600_000 });
    await vi.waitFor(async () => expect(await counterRows(old)).toBe(0), { timeout: 5000, interval: 50 });
    expect(await runInDurableObject(old, (_: RateLimiter, state) => state.storage.getAlarm())).toBeNull();
  });

  it("refuses invalid lease input (a bug of the caller, which fails open)", async () => {
    const stub = rateLimiterStub(`lease-invalid-${Math.random()}`);
    const now = Date.now();
    await runInDurableObject(stub, (limiter: RateLimiter) => {
      expect(() => limiter.lease({ ...input, want: 0, now })).toThrow(/invalid input/);
      expect(() => limiter.lease({ ...input, want: MAX_LEASE + 1, now })).toThrow(/invalid input/);
      expect(() => limiter.lease({ ...input, want: 1, returned: { bucket: 0, unspent: -1 }, now })).toThrow(
        /invalid input/,
      );
    });
  });
});
