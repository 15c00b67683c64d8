/**
 * Rate limiting through the real `RateLimiter` objects (docs/producers.md): the boundary, Retry-After over time,
 * clients counted apart, characteristics, the per-isolate blocked cache, fail open with real failing bindings,
 * and alarms removing expired state.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  checkRateLimit,
  retryAfterSeconds,
  type RateLimitEnv,
} from "../../../../src/edge/request-phases/rate-limit/check";
import { compileRateLimits, type CompiledRateLimits } from "../../../../src/edge/request-phases/rate-limit/compile";
import { FLUSH_MS, type RateLimiter } from "../../../../src/state/rate-limiter/rate-limiter";
import type { RateLimitRuleInput } from "../../../../src/state/zone/rulesets/ratelimit";
import { counterRows, rateLimiterStub } from "../../support/sliding-window";

afterEach(() => vi.restoreAllMocks());

let zones = 0;
const newZone = () => `rl-${++zones}-${Math.random().toString(36).slice(2, 8)}.example`;

function limits(
  overrides: Partial<RateLimitRuleInput["ratelimit"]> = {},
  rule: Partial<RateLimitRuleInput> = {},
): CompiledRateLimits {
  const compiled = compileRateLimits(
    {
      rules: [
        {
          id: "rl1",
          expression: 'starts_with(http.request.uri.path, "/api")',
          action: "block",
          ratelimit: {
            characteristics: ["cf.colo.id", "ip.src"],
            period: 60,
            requests_per_period: 3,
            mitigation_timeout: 30,
            ...overrides,
          },
          ...rule,
        },
      ],
    },
    Infinity,
  );
  expect(compiled.problems).toEqual([]);
  return compiled;
}

const request = (ip: string | null, path = "/api/x", headers: Record<string, string> = {}) =>
  new Request(`https://shop.example${path}`, {
    headers: ip === null ? headers : { "CF-Connecting-IP": ip, ...headers },
  });

const rlEnv: RateLimitEnv = env;

describe("boundary and Retry-After", () => {
  it("N allowed, N+1 blocked with Retry-After = mitigation_timeout; decreasing; allowed again after it", async () => {
    const zone = newZone();
    // A period no longer than the mitigation: the block, not the window, says when the client may send again.
    const rules = limits({ period: 30 });
    const t0 = Date.now();
    for (let i = 0; i < 3; i++)
      expect(await checkRateLimit(rules, request("192.0.2.1"), { env: rlEnv, zone, now: t0 + i })).toEqual({
        kind: "allow",
      });
    const exceededAt = t0 + 3;
    expect(await checkRateLimit(rules, request("192.0.2.1"), { env: rlEnv, zone, now: exceededAt })).toEqual({
      kind: "block",
      retryAfter: 30,
      ruleId: "rl1",
    });
    // Whole seconds until it may send again, rounded up, ≥ 1 (docs/producers.md).
    const retryAt = async (ms: number) => {
      const d = await checkRateLimit(rules, request("192.0.2.1"), { env: rlEnv, zone, now: exceededAt + ms });
      return d.kind === "block" ? d.retryAfter : 0;
    };
    expect(await retryAt(500)).toBe(30);
    expect(await retryAt(1000)).toBe(29);
    expect(await retryAt(10_400)).toBe(20);
    expect(await retryAt(29_999)).toBe(1);
    expect(await retryAt(30_000)).toBe(0);
  });

  it("retryAfterSeconds rounds up and is at least 1", () => {
    expect(retryAfterSeconds(10_000, 0)).toBe(10);
    expect(retryAfterSeconds(10_001, 0)).toBe(11);
    expect(retryAfterSeconds(10, 9)).toBe(1);
    expect(retryAfterSeconds(10, 10)).toBe(1);
  });

  it("a flood during the block is not counted: the client may send again when the period admits it", async () => {
    const zone = newZone();
    const rules = limits({ requests_per_period: 1, mitigation_timeout: 5 });
    const t0 = Date.now();
    await checkRateLimit(rules, request("192.0.2.50"), { env: rlEnv, zone, now: t0 });
    // The mitigation (5 s) is shorter than the period (60 s): the block lasts until the request at t0 leaves it.
    expect(await checkRateLimit(rules, request("192.0.2.50"), { env: rlEnv, zone, now: t0 + 1 })).toEqual({
      kind: "block",
      retryAfter: 60,
      ruleId: "rl1",
    });
    for (let i = 0; i < 20; i++)
      expect((await checkRateLimit(rules, request("192.0.2.50"), { env: rlEnv, zone, now: t0 + 100 + i })).kind).toBe(
        "block",
      );
    expect((await checkRateLimit(rules, request("192.0.2.50"), { env: rlEnv, zone, now: t0 + 5001 })).kind).toBe(
      "block",
    );
    // A period after the one request that passed: one more passes (the flood was not counted), the next is blocked.
    expect((await checkRateLimit(rules, request("192.0.2.50"), { env: rlEnv, zone, now: t0 + 60_000 })).kind).toBe(
      "allow",
    );
    expect((await checkRateLimit(rules, request("192.0.2.50"), { env: rlEnv, zone, now: t0 + 60_001 })).kind).toBe(
      "block",
    );
  });
});

describe("counting keys", () => {
  it("two clients are counted apart", async () => {
    const zone = newZone();
    const rules = limits({ requests_per_period: 2 });
    const t0 = Date.now();
    for (let i = 0; i < 2; i++) await checkRateLimit(rules, request("192.0.2.1"), { env: rlEnv, zone, now: t0 });
    expect((await checkRateLimit(rules, request("192.0.2.1"), { env: rlEnv, zone, now: t0 })).kind).toBe("block");
    expect((await checkRateLimit(rules, request("192.0.2.2"), { env: rlEnv, zone, now: t0 })).kind).toBe("allow");
    expect((await checkRateLimit(rules, request("2001:db8::1"), { env: rlEnv, zone, now: t0 })).kind).toBe("allow");
  });

  it("two zones, and two rules of one zone, are counted apart", async () => {
    const rules = limits({ requests_per_period: 1 });
    const t0 = Date.now();
    const [a, b] = [newZone(), newZone()];
    await checkRateLimit(rules, request("192.0.2.1"), { env: rlEnv, zone: a, now: t0 });
    expect((await checkRateLimit(rules, request("192.0.2.1"), { env: rlEnv, zone: a, now: t0 })).kind).toBe("block");
    expect((await checkRateLimit(rules, request("192.0.2.1"), { env: rlEnv, zone: b, now: t0 })).kind).toBe("allow");
  });

  it("only requests matching the rule's expression are counted", async () => {
    const zone = newZone();
    const rules = limits({ requests_per_period: 1 });
    const t0 = Date.now();
    for (let i = 0; i < 5; i++)
      expect((await checkRateLimit(rules, request("192.0.2.1", "/static"), { env: rlEnv, zone, now: t0 })).kind).toBe(
        "allow",
      );
    expect((await checkRateLimit(rules, request("192.0.2.1"), { env: rlEnv, zone, now: t0 })).kind).toBe("allow");
    expect((await checkRateLimit(rules, request("192.0.2.1"), { env: rlEnv, zone, now: t0 })).kind).toBe("block");
  });

  it("a header characteristic splits one IP's traffic; a missing header is one shared value", async () => {
    const zone = newZone();
    const rules = limits({ requests_per_period: 1, characteristics: ["ip.src", 'http.request.headers["x-api-key"]'] });
    const t0 = Date.now();
    const withKey = (key: string) => request("192.0.2.1", "/api", { "X-Api-Key": key });
    expect((await checkRateLimit(rules, withKey("a"), { env: rlEnv, zone, now: t0 })).kind).toBe("allow");
    expect((await checkRateLimit(rules, withKey("b"), { env: rlEnv, zone, now: t0 })).kind).toBe("allow");
    expect((await checkRateLimit(rules, withKey("a"), { env: rlEnv, zone, now: t0 })).kind).toBe("block");
    expect((await checkRateLimit(rules, request("192.0.2.1"), { env: rlEnv, zone, now: t0 })).kind).toBe("allow");
    expect((await checkRateLimit(rules, request("192.0.2.1"), { env: rlEnv, zone, now: t0 })).kind).toBe("block");
  });

  it("an invalid or list CF-Connecting-IP is no address: such requests share the 'no address' counter", async () => {
    const zone = newZone();
    const rules = limits({ requests_per_period: 1 });
    const t0 = Date.now();
    expect((await checkRateLimit(rules, request("192.0.2.1, 192.0.2.2"), { env: rlEnv, zone, now: t0 })).kind).toBe(
      "allow",
    );
    // A different garbage value is the same "missing" address: rotating garbage does not escape the limit.
    expect((await checkRateLimit(rules, request("not-an-ip"), { env: rlEnv, zone, now: t0 })).kind).toBe("block");
    expect(
      (
        await checkRateLimit(rules, request(null, "/api", { "X-Forwarded-For": "192.0.2.9" }), {
          env: rlEnv,
          zone,
          now: t0,
        })
      ).kind,
    ).toBe("block");
  });

  it("cookie, query-argument, host and country characteristics", async () => {
    const zone = newZone();
    const rules = limits({
      requests_per_period: 1,
      characteristics: ['http.request.cookies["session"]', 'http.request.uri.args["u"]', "http.host"],
    });
    const t0 = Date.now();
    const req = (cookie: string, u: string) =>
      new Request(`https://shop.example/api?u=${u}`, { headers: { Cookie: `a=1; session=${cookie}` } });
    expect((await checkRateLimit(rules, req("s1", "1"), { env: rlEnv, zone, now: t0 })).kind).toBe("allow");
    expect((await checkRateLimit(rules, req("s2", "1"), { env: rlEnv, zone, now: t0 })).kind).toBe("allow");
    expect((await checkRateLimit(rules, req("s1", "2"), { env: rlEnv, zone, now: t0 })).kind).toBe("allow");
    expect((await checkRateLimit(rules, req("s1", "1"), { env: rlEnv, zone, now: t0 })).kind).toBe("block");
  });

  it("unsupported characteristics make the rule unusable (reported), never a crash", () => {
    const compiled = compileRateLimits(
      {
        rules: [
          {
            id: "x",
            expression: "true",
            action: "block",
            ratelimit: {
              characteristics: ["cf.unique_visitor_id"],
              period: 10,
              requests_per_period: 1,
              mitigation_timeout: 10,
            },
          },
        ],
      },
      Infinity,
    );
    expect(compiled.rules).toEqual([]);
    expect(compiled.problems[0]).toMatchObject({ phase: "http_ratelimit", ruleId: "x" });
  });
});

describe("per-isolate blocked cache", () => {
  it("a known block is answered without the counter object (even when it is unreachable)", async () => {
    const zone = newZone();
    const rules = limits({ requests_per_period: 1, period: 30 });
    const t0 = Date.now();
    await checkRateLimit(rules, request("192.0.2.77"), { env: rlEnv, zone, now: t0 });
    expect((await checkRateLimit(rules, request("192.0.2.77"), { env: rlEnv, zone, now: t0 })).kind).toBe("block");
    // No binding at all: a call to the object would fail open ("allow"); the cached block still answers.
    expect(await checkRateLimit(rules, request("192.0.2.77"), { env: {}, zone, now: t0 + 1000 })).toEqual({
      kind: "block",
      retryAfter: 29,
      ruleId: "rl1",
    });
    // ...until it ends: then the (missing) counter is asked again, and fails open.
    vi.spyOn(console, "error").mockImplementation(() => {});
    expect((await checkRateLimit(rules, request("192.0.2.77"), { env: {}, zone, now: t0 + 30_000 })).kind).toBe(
      "allow",
    );
  });
});

describe("fail open (docs/origin.md)", () => {
  it("without a RATE_LIMITER binding, traffic flows and the failure is logged", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const rules = limits({ requests_per_period: 1 });
    for (let i = 0; i < 3; i++)
      expect(await checkRateLimit(rules, request("192.0.2.1"), { env: {}, zone: newZone(), now: Date.now() })).toEqual({
        kind: "allow",
      });
    expect(logged).toHaveBeenCalled();
    expect(JSON.parse(String(logged.mock.calls[0]?.[0]))).toMatchObject({
      event: "rate_limiter_unavailable",
      rule: "rl1",
    });
  });

  it("a binding whose object throws on every call (another class, no `hit`): traffic flows, logged", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const broken = { RATE_LIMITER: env.TAG_STORE as unknown as DurableObjectNamespace<RateLimiter> };
    const rules = limits({ requests_per_period: 1 });
    const zone = newZone();
    for (let i = 0; i < 3; i++)
      expect(await checkRateLimit(rules, request("192.0.2.1"), { env: broken, zone, now: Date.now() })).toEqual({
        kind: "allow",
      });
    expect(logged.mock.calls.map((c) => (JSON.parse(String(c[0])) as { event: string }).event)).toEqual([
      "rate_limiter_unavailable",
      "rate_limiter_unavailable",
      "rate_limiter_unavailable",
    ]);
  });

  it("a counter that refuses its input (throws inside the real object): traffic flows", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    // 7200 s is outside 1–3600: write-time validation refuses it; if one got stored anyway, the object throws.
    const rules = limits({ period: 7200, requests_per_period: 1 });
    const zone = newZone();
    for (let i = 0; i < 3; i++)
      expect((await checkRateLimit(rules, request("192.0.2.1"), { env: rlEnv, zone, now: Date.now() })).kind).toBe(
        "allow",
      );
  });
});

describe("alarms remove expired state (docs/configuration.md)", () => {
  const alarmOf = (stub: DurableObjectStub<RateLimiter>) =>
    runInDurableObject(stub, (_: RateLimiter, state) => state.storage.getAlarm());

  it("counts are written behind (a flush alarm FLUSH_MS ahead); the alarm flushes, deletes expired, re-arms", async () => {
    const stub = rateLimiterStub(`alarm-${Math.random()}`);
    // Caller clocks an hour ahead: expiries never fire by themselves during the test.
    const t = Date.now() + 3_600_000;
    const before = Date.now();
    expect(await stub.hit({ key: "old", period: 10, requestsPerPeriod: 5, mitigationTimeout: 10, now: t })).toEqual({
      kind: "allow",
    });
    // In memory only, a flush alarm about FLUSH_MS ahead on the object's own clock.
    expect(await counterRows(stub)).toBe(0);
    const flushAt = (await alarmOf(stub)) ?? 0;
    expect(flushAt).toBeGreaterThanOrEqual(before + FLUSH_MS);
    expect(flushAt).toBeLessThanOrEqual(Date.now() + FLUSH_MS);
    expect(
      await stub.hit({ key: "new", period: 60, requestsPerPeriod: 5, mitigationTimeout: 10, now: t + 30_000 }),
    ).toEqual({ kind: "allow" });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    // Both flushed; "old" is past its expiry (a period after its request: t + 10 s) on the latest caller clock
    // (t + 30 s); the alarm is re-armed for "new"'s (a period after its request).
    expect(await counterRows(stub)).toBe(1);
    expect(await alarmOf(stub)).toBe(t + 30_000 + 60_000);
  });

  it("a block is written through at once, and the alarm keeps it and re-arms for its end", async () => {
    const stub = rateLimiterStub(`alarm-live-${Math.random()}`);
    const now = Date.now() + 3_600_000;
    const hit = () => stub.hit({ key: "k", period: 60, requestsPerPeriod: 1, mitigationTimeout: 3600, now });
    await hit();
    expect(await counterRows(stub)).toBe(0);
    expect(await hit()).toEqual({ kind: "block", blockedUntil: now + 3_600_000 });
    expect(await counterRows(stub)).toBe(1);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await counterRows(stub)).toBe(1);
    expect(await alarmOf(stub)).toBe(now + 3_600_000);
  });

  it("a busy counter is flushed by its alarm without any further request", async () => {
    const stub = rateLimiterStub(`alarm-flush-${Math.random()}`);
    const now = Date.now();
    for (let i = 0; i < 3; i++)
      await stub.hit({ key: "k", period: 60, requestsPerPeriod: 10, mitigationTimeout: 60, now: now + i });
    await vi.waitFor(async () => expect(await counterRows(stub)).toBe(1), { timeout: 5000, interval: 50 });
    const stored = await runInDurableObject(
      stub,
      (_: RateLimiter, state) =>
        state.storage.sql.exec<{ buckets: string }>("SELECT buckets FROM sliding_counters").one().buckets,
    );
    // One bucket (open, last, count): the three requests.
    expect(JSON.parse(stored)).toEqual([now, now + 2, 3]);
  });

  it("an object whose state has all expired drops its storage by itself (a real alarm) and still works after", async () => {
    const stub = rateLimiterStub(`alarm-empty-${Math.random()}`);
    // Counted an hour ago with a 10 s period: the alarm is due at once and fires on its own.
    await stub.hit({ key: "k", period: 10, requestsPerPeriod: 5, mitigationTimeout: 10, now: Date.now() - 3_600_000 });
    await vi.waitFor(async () => expect(await counterRows(stub)).toBe(0), { timeout: 5000, interval: 50 });
    expect(await alarmOf(stub)).toBeNull();
    expect(
      await stub.hit({ key: "k", period: 10, requestsPerPeriod: 1, mitigationTimeout: 10, now: Date.now() }),
    ).toEqual({ kind: "allow" });
    await vi.waitFor(async () => expect(await counterRows(stub)).toBe(1), { timeout: 5000, interval: 50 });
  });
});
