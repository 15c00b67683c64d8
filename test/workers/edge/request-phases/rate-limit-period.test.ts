/**
 * A rate limit is a rate over its period, whatever the mitigation (docs/producers.md "Rate limiting"), through the
 * real `RateLimiter` objects: a client flooding for a simulated hour against a mitigation shorter than the period
 * (the caller's clock is injected, so the hour takes milliseconds), several isolates on leases, Retry-After against
 * the block's end, counters of the earlier two-window model taken over; and through the real Worker on the wall clock,
 * with periods of 2 s and a 1 s mitigation, for a few seconds.
 */
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../../src/index";
import { checkRateLimit, type RateLimitEnv } from "../../../../src/edge/request-phases/rate-limit/check";
import { compileRateLimits, type CompiledRateLimits } from "../../../../src/edge/request-phases/rate-limit/compile";
import { IsolateCounters } from "../../../../src/edge/request-phases/rate-limit/isolate-counters";
import type { RateLimiter } from "../../../../src/state/rate-limiter/rate-limiter";
import type { RateLimitCounting } from "../../../../src/state/zone/rulesets/ratelimit";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { maxInWindow } from "../../support/sliding-window";
import { apiOk } from "../../support/envelope";

const rlEnv: RateLimitEnv = env;
let zones = 0;
const newZone = () => `period-${++zones}-${Math.random().toString(36).slice(2, 8)}.example`;
const request = () => new Request("https://shop.example/login", { headers: { "CF-Connecting-IP": "192.0.2.31" } });

interface Limit {
  readonly period: number;
  readonly requests: number;
  readonly mitigation: number;
  readonly counting: RateLimitCounting;
}

/** A rule's `ratelimit` for `l`, counting per client address. */
const ratelimitOf = (l: Limit) => ({
  characteristics: ["ip.src"],
  period: l.period,
  requests_per_period: l.requests,
  mitigation_timeout: l.mitigation,
  counting: l.counting,
});

function rules(l: Limit): CompiledRateLimits {
  const compiled = compileRateLimits(
    {
      rules: [
        {
          id: "login",
          expression: "true",
          action: "block",
          ratelimit: ratelimitOf(l),
        },
      ],
    },
    Infinity,
  );
  expect(compiled.problems).toEqual([]);
  return compiled;
}

/**
 * One client sending a request every `everyMs` for `forMs` of simulated time from `isolates` isolates in turn: the
 * times of the admitted requests, and every Retry-After with the time it was given.
 */
async function flood(l: Limit, everyMs: number, forMs: number, isolates = 1) {
  const zone = newZone();
  const compiled = rules(l);
  const counters = Array.from({ length: isolates }, () => new IsolateCounters());
  const t0 = Date.now();
  const admitted: number[] = [];
  const refused: { at: number; retryAfter: number }[] = [];
  for (let at = 0, i = 0; at < forMs; at += everyMs, i++) {
    const d = await checkRateLimit(compiled, request(), {
      env: rlEnv,
      zone,
      now: t0 + at,
      isolate: counters[i % isolates],
    });
    if (d.kind === "allow") admitted.push(at);
    else refused.push({ at, retryAfter: d.retryAfter });
  }
  return { admitted, refused };
}

describe("a mitigation shorter than the period: N per period, not N per block (a simulated hour)", () => {
  for (const counting of ["exact", "approximate"] as const) {
    it(`5 per 3,600 s, mitigation 2 s (${counting}): 5 pass in the hour; Retry-After is when the hour admits again`, async () => {
      const l = { period: 3600, requests: 5, mitigation: 2, counting };
      const { admitted, refused } = await flood(l, 400, 3_600_000);
      expect(admitted).toEqual([0, 400, 800, 1200, 1600]);
      // The first refusal (at 2 s) is told the hour's end: the 5 share a bucket, which leaves at 1.6 s + 3,600 s.
      expect(refused[0]).toEqual({ at: 2000, retryAfter: 3600 });
      for (const r of refused) expect(r.at + r.retryAfter * 1000).toBeGreaterThanOrEqual(3_601_600);
      expect(refused.at(-1)?.retryAfter).toBe(2);
    }, 30_000);

    it(`10 per 60 s, mitigation 1 s (${counting}): never more than 10 in any 60 s over an hour`, async () => {
      const l = { period: 60, requests: 10, mitigation: 1, counting };
      const { admitted, refused } = await flood(l, 200, 3_600_000);
      expect(maxInWindow(admitted, 60_000)).toBe(10);
      expect(admitted.length).toBeLessThanOrEqual(600);
      expect(admitted.length).toBeGreaterThanOrEqual(570); // counted at most a bucket (3 s) too long: 10 per 63 s
      // Every refused request was told when the client passes again: not before (whole seconds, rounded up), and at
      // the first request it sends from then on (one every 200 ms).
      for (const r of refused) {
        const next = admitted.find((a) => a > r.at);
        if (next === undefined) continue;
        expect(next).toBeGreaterThan(r.at + (r.retryAfter - 1) * 1000);
        expect(next).toBeLessThan(r.at + r.retryAfter * 1000 + 200);
      }
    }, 30_000);
  }

  it("leases on three isolates, 200 per 20 s, mitigation 1 s: never more than 200 in any 20 s for two minutes", async () => {
    const l = { period: 20, requests: 200, mitigation: 1, counting: "approximate" as const };
    const { admitted } = await flood(l, 5, 120_000, 3);
    expect(maxInWindow(admitted, 20_000)).toBeLessThanOrEqual(200);
    // Counted at most a bucket and a lease (1 s + 1 s) too long: at least 200 per 22 s.
    expect(admitted.length).toBeGreaterThanOrEqual(Math.floor(120 / 22) * 200);
  }, 30_000);
});

describe("Retry-After against the block's end, through the real object", () => {
  for (const counting of ["exact", "approximate"] as const) {
    it(`a block the window does not outlast: the mitigation exactly, never one rounding second more (${counting})`, async () => {
      const zone = newZone();
      const compiled = rules({ period: 2, requests: 3, mitigation: 5, counting });
      const t0 = Date.now();
      for (let i = 0; i < 3; i++)
        expect((await checkRateLimit(compiled, request(), { env: rlEnv, zone, now: t0 + i * 10 })).kind).toBe("allow");
      const seen: number[] = [];
      for (const ms of [30, 999, 1030, 4029, 4030, 5029]) {
        const d = await checkRateLimit(compiled, request(), { env: rlEnv, zone, now: t0 + ms });
        seen.push(d.kind === "block" ? d.retryAfter : 0);
      }
      expect(seen).toEqual([5, 5, 4, 2, 1, 1]);
      expect((await checkRateLimit(compiled, request(), { env: rlEnv, zone, now: t0 + 5030 })).kind).toBe("allow");
    });
  }
});

describe("counters of the earlier two-window model are taken over, never forgotten", () => {
  it("a row's counts keep counting until its expiry; a block keeps blocking; the old table is dropped", async () => {
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`migrate-${Math.random()}`));
    const now = Date.now();
    await runInDurableObject(stub, (_: RateLimiter, state) => {
      const sql = state.storage.sql;
      sql.exec(`CREATE TABLE counters (key TEXT PRIMARY KEY, window_start INTEGER NOT NULL, count INTEGER NOT NULL,
        previous INTEGER NOT NULL, blocked_until INTEGER NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID`);
      // "full": 3 counted this window and 2 the window before (period 60 s), so 5 of 5: it must stay full.
      sql.exec("INSERT INTO counters VALUES ('full', ?, 3, 2, 0, ?)", now - 30_000, now - 30_000 + 120_000);
      // "blocked": a block until now + 10 s (the old model kept no counts beside a block).
      sql.exec("INSERT INTO counters VALUES ('blocked', ?, 0, 0, ?, ?)", now + 10_000, now + 10_000, now + 10_000);
    });
    const hit = (key: string, at: number) =>
      stub.hit({ key, period: 60, requestsPerPeriod: 5, mitigationTimeout: 1, now: at });
    // The old counts are counted until the old model would have forgotten them (window start + 2 periods).
    expect(await hit("full", now)).toEqual({ kind: "block", blockedUntil: now + 90_000 });
    expect(await hit("blocked", now)).toEqual({ kind: "block", blockedUntil: now + 10_000 });
    expect(await hit("blocked", now + 10_000)).toEqual({ kind: "allow" });
    const tables = await runInDurableObject(stub, (_: RateLimiter, state) =>
      state.storage.sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .toArray()
        .map((r) => r.name),
    );
    expect(tables).not.toContain("counters");
    expect(tables).toContain("sliding_counters");
  });
});

describe("through the real Worker, on the wall clock (periods of 2 s, a 1 s mitigation)", () => {
  /** A zone in front of the loopback origin with one rule on `/login`, written through the API. */
  async function zoneWith(l: Limit): Promise<string> {
    const zone = uniqueZone("period");
    await putZone(zone, { plan: "pro", origin: loopback(ports.http) });
    await apiOk("PUT", `/zones/${zone}/rulesets/phases/http_ratelimit/entrypoint`, {
      rules: [
        {
          expression: 'http.request.uri.path eq "/login"',
          action: "block",
          ratelimit: ratelimitOf(l),
        },
      ],
    });
    return zone;
  }

  async function send(zone: string): Promise<Response> {
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`http://${zone}/login`, {
        headers: { "CF-Connecting-IP": "192.0.2.44", Accept: "application/json" },
      }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return res;
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

  // Both countings at once (each on its own zone), so the wall clock is spent once.
  for (const counting of ["exact", "approximate"] as const) {
    it.concurrent(
      `5 per 2 s, mitigation 1 s (${counting}): at most 5 in any 2 s; the client passes again when Retry-After says`,
      async ({ expect }) => {
        const l = { period: 2, requests: 5, mitigation: 1, counting };
        const zone = await zoneWith(l);
        const admitted: number[] = [];
        const start = Date.now();
        let retried = 0;
        while (Date.now() - start < 4500) {
          const at = Date.now();
          const res = await send(zone);
          await res.body?.cancel();
          if (res.status === 200) {
            admitted.push(at);
          } else {
            expect(res.status).toBe(429);
            const retryAfter = Number(res.headers.get("Retry-After"));
            // The 5 passed within a few ms, so the window, not the 1 s mitigation, sets the wait: about the period.
            expect(retryAfter).toBeGreaterThanOrEqual(1);
            expect(retryAfter).toBeLessThanOrEqual(l.period);
            if (retried < 1) {
              // Waiting what it said, the client passes (100 ms more: the Worker reads its clock after the zone
              // lookup, a little after `at`; the rounding itself is tested on the injected clock above).
              const target = at + retryAfter * 1000 + 100;
              while (Date.now() < target) await sleep(target - Date.now());
              const sent = Date.now();
              const again = await send(zone);
              await again.body?.cancel();
              expect(again.status).toBe(200);
              admitted.push(sent);
              retried++;
              continue;
            }
          }
          await sleep(20);
        }
        admitted.sort((a, b) => a - b);
        expect(maxInWindow(admitted, 2000)).toBeLessThanOrEqual(5);
        // The limit is a rate, not a wall: the client got through in later periods too (at most 5 per 2 s).
        expect(admitted.length).toBeGreaterThanOrEqual(10);
        expect(admitted.length).toBeLessThanOrEqual(15);
      },
      15_000,
    );
  }
});
