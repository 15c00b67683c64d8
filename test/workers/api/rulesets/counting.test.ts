/**
 * `ratelimit.counting` (our addition, docs/producers.md "Exact or approximate counting") through the real Worker:
 * stored and shown only when sent (a rule written without it keeps the published shape byte for byte), a bad value
 * refused naming the field, and an `exact` rule counting exactly on zone traffic.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { expectGeneratedError, loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { api } from "../../support/envelope";

/** The `result` of a rate-limiting entrypoint (`null` on a failure). */
type Limits = { rules: { ratelimit: Record<string, unknown> }[] } | null;

const entry = (zone: string) => `/zones/${zone}/rulesets/phases/http_ratelimit/entrypoint`;
const limit = (extra: Record<string, unknown> = {}) => ({
  expression: "true",
  action: "block",
  ratelimit: { characteristics: ["ip.src"], period: 60, requests_per_period: 3, mitigation_timeout: 30, ...extra },
});

async function zone(): Promise<string> {
  const name = uniqueZone("counting");
  await putZone(name, { plan: "pro", origin: loopback(ports.http) });
  return name;
}

describe("ratelimit.counting", () => {
  it("absent: not stored, not shown (the published shape); sent: stored and shown as sent", async () => {
    const z = await zone();
    const plain = await api<Limits>("PUT", entry(z), { rules: [limit()] });
    expect(plain.status).toBe(200);
    expect(Object.keys(plain.body.result?.rules[0]?.ratelimit ?? {})).toEqual([
      "characteristics",
      "period",
      "requests_per_period",
      "mitigation_timeout",
    ]);
    expect(await env.CONFIG.get(`zone:${z}`)).not.toContain('"counting"');
    for (const counting of ["exact", "approximate"]) {
      const put = await api<Limits>("PUT", entry(z), { rules: [limit({ counting })] });
      expect(put.status).toBe(200);
      expect(put.body.result?.rules[0]?.ratelimit.counting).toBe(counting);
      expect((await api<Limits>("GET", entry(z))).body.result?.rules[0]?.ratelimit.counting).toBe(counting);
    }
  });

  it.each([["EXACT"], [true], [""], [null]])("refuses %j, naming the field; nothing stored", async (counting) => {
    const z = await zone();
    const before = await env.CONFIG.get(`zone:${z}`);
    const res = await api("PUT", entry(z), { rules: [limit({ counting })] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { code: 20021, message: "rules[0].ratelimit.counting: must be one of approximate, exact" },
    ]);
    expect(await env.CONFIG.get(`zone:${z}`)).toBe(before);
  });

  it("an exact rule on zone traffic: N requests pass, N+1 is 1015 with Retry-After", async () => {
    const z = await zone();
    expect((await api("PUT", entry(z), { rules: [limit({ counting: "exact", period: 30 })] })).status).toBe(200);
    const send = () =>
      exports.default.fetch(`http://${z}/`, {
        headers: { "CF-Connecting-IP": "192.0.2.1", Accept: "application/json" },
      });
    for (let i = 0; i < 3; i++) {
      const res = await send();
      expect(res.status).toBe(200);
      await res.body?.cancel();
    }
    const blocked = await send();
    expect(blocked.headers.get("Retry-After")).toBe("30");
    await expectGeneratedError(blocked, 1015);
  });
});

describe("approximate counting (the default) on zone traffic", () => {
  it("100 concurrent requests against a limit of 60: exactly 60 reach the origin, 40 get 1015, nothing else", async () => {
    const z = await zone();
    const rule = { ...limit(), ratelimit: { ...limit().ratelimit, requests_per_period: 60 } };
    expect((await api("PUT", entry(z), { rules: [rule] })).status).toBe(200);
    const statuses = await Promise.all(
      Array.from({ length: 100 }, async () => {
        const res = await exports.default.fetch(`http://${z}/`, { headers: { "CF-Connecting-IP": "192.0.2.7" } });
        await res.body?.cancel();
        return res.status;
      }),
    );
    const count = (status: number) => statuses.filter((s) => s === status).length;
    expect([count(200), count(429)]).toEqual([60, 40]);
  });
});
