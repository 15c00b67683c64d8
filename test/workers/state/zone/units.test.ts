/** Pure zone pieces: origin URLs, zone names, the settings schema, and the per-isolate cache's bounds. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  MAX_ENTRIES,
  TTL_MS,
  cachedHostCount,
  cachedZone,
  lookupZone,
  remember,
} from "../../../../src/state/zone/cache";
import { parseOriginUrl, pointsAtApi } from "../../../../src/shared/origin-url";
import { parseZoneName, parseZoneSettings, ZONE_LIMITS } from "../../../../src/state/zone/schema";

describe("parseOriginUrl (docs/origin.md)", () => {
  it.each<[string, string, number]>([
    ["http://o.example", "http://o.example", 80],
    ["https://o.example/", "https://o.example", 443],
    ["HTTP://O.Example:8080", "http://o.example:8080", 8080],
    ["http://o.example:80", "http://o.example", 80],
    ["https://127.0.0.1:8443", "https://127.0.0.1:8443", 8443],
    ["http://[::1]:8788", "http://[::1]:8788", 8788],
  ])("%s → %s (port %s)", (raw, origin, port) => {
    const parsed = parseOriginUrl(raw);
    expect(parsed.ok && parsed.value.origin).toBe(origin);
    expect(parsed.ok && parsed.value.port).toBe(port);
  });

  it.each([
    "",
    "o.example",
    "ftp://o.example",
    "http://o.example/x",
    "http://o.example//",
    "http://o.example?",
    "http://o.example/#",
    "http://u@o.example",
    "http://u:p@o.example",
    "http://o.example:99999",
    "http:// o.example",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "http://" + "a".repeat(2100),
  ])("refuses %j", (raw) => expect(parseOriginUrl(raw).ok).toBe(false));
});

describe("pointsAtApi", () => {
  const api = new Set(["localhost", "127.0.0.1", "api.example"]);
  it.each<[string, boolean]>([
    ["https://api.example", true],
    ["https://api.example:8443", true], // a production API host is refused on every port
    ["http://localhost", true],
    ["http://127.0.0.1:8787", true],
    ["http://127.0.0.1:8788", true], // on any port (the port says nothing about which process answers)
    ["http://shop.example", false],
    ["https://api.example.", true], // the absolute name is the same host (RFC 1034 §3.1)
    ["http://localhost.:8787", true],
    ["http://localhost.:8788", true],
    ["http://127.0.0.2:8788", false], // another loopback address is not an API host
    ["http://shop.example.", false],
  ])("%s → %s", (raw, expected) => {
    expect(parseOriginUrl(raw).ok).toBe(true);
    const target = parseOriginUrl(raw);
    expect(target.ok && pointsAtApi(target.value, api)).toBe(expected);
  });
});

describe("parseZoneName", () => {
  it.each<[string, string | null]>([
    ["shop.example", "shop.example"],
    ["Shop.Example.", "shop.example"],
    ["xn--bcher-kva.example", "xn--bcher-kva.example"],
    ["localhost", "localhost"],
    ["a_b.example", null],
    ["1.2.3.4", null],
    ["[::1]", null],
    ["-a.example", null],
    ["a-.example", null],
    ["", null],
    ["a".repeat(64), null],
    [`${"a".repeat(63)}.`.repeat(4) + "example", null],
  ])("%j → %j", (raw, expected) => {
    const parsed = parseZoneName(raw);
    expect(parsed.ok ? parsed.value : null).toBe(expected);
  });
});

describe("parseZoneSettings", () => {
  it("fills defaults", () => {
    const parsed = parseZoneSettings({ plan: "free", origin: "http://o.example" });
    expect(parsed.ok && parsed.value.settings).toEqual({
      plan: "free",
      origin: "http://o.example",
      connect_timeout: ZONE_LIMITS.connectTimeout.default,
      read_timeout: ZONE_LIMITS.readTimeout.default,
      max_request_header_bytes: ZONE_LIMITS.maxRequestHeaderBytes.default,
      retry_hints: "published",
    });
  });

  it("retry_hints: published or agent, anything else refused by name", () => {
    const base = { plan: "free", origin: "http://o.example" };
    const agent = parseZoneSettings({ ...base, retry_hints: "agent" });
    expect(agent.ok && agent.value.settings.retry_hints).toBe("agent");
    for (const value of ["Agent", "", null, 1, "fast"]) {
      const parsed = parseZoneSettings({ ...base, retry_hints: value });
      expect(parsed.ok).toBe(false);
      expect(!parsed.ok && parsed.error.listed.map((i) => i.path)).toEqual(["retry_hints"]);
    }
  });

  it.each([NaN, Infinity, -1, 0, 0.01, 60.5, null, true, "1"])("connect_timeout %j refused", (value) => {
    expect(parseZoneSettings({ plan: "free", origin: "http://o.example", connect_timeout: value }).ok).toBe(false);
  });

  it("accepts the bounds themselves", () => {
    const { connectTimeout: c, readTimeout: r, maxRequestHeaderBytes: h } = ZONE_LIMITS;
    for (const [a, b, d] of [
      [c.min, r.min, h.min],
      [c.max, r.max, h.max],
    ] as const) {
      const body = {
        plan: "pro",
        origin: "http://o.example",
        connect_timeout: a,
        read_timeout: b,
        max_request_header_bytes: d,
      };
      expect(parseZoneSettings(body).ok).toBe(true);
    }
  });
});

describe("zone cache (docs/configuration.md), on the real CONFIG namespace", () => {
  /** Writes a valid zone document straight to KV, behind the cache's back: only a KV read can see it. */
  async function storeBehindCache(host: string): Promise<void> {
    const doc = {
      schema: 1,
      version: 7,
      zone: host,
      modified_on: "",
      settings: { plan: "pro", origin: "http://o.example" },
    };
    await env.CONFIG.put(`zone:${host}`, JSON.stringify(doc));
  }

  it("answers from memory within the TTL, negative entries included, and goes back to KV after it", async () => {
    const host = `ttl-${crypto.randomUUID()}.example`;
    remember(host, null, 1_000);
    await storeBehindCache(host);
    const fresh = await lookupZone(env.CONFIG, host, 1_000 + TTL_MS - 1);
    expect(fresh).toEqual({ ok: true, value: null }); // the cached "no zone", not KV's document
    const stale = await lookupZone(env.CONFIG, host, 1_000 + TTL_MS + 1);
    expect(stale.ok && stale.value?.version).toBe(7); // past the TTL it read KV
  });

  it("never holds more than MAX_ENTRIES hosts, evicting the least recently used", async () => {
    const keep = `keep-${crypto.randomUUID()}.example`;
    const evicted = `evicted-${crypto.randomUUID()}.example`;
    const now = Date.now();
    remember(evicted, null, now);
    remember(keep, null, now);
    await storeBehindCache(keep);
    await storeBehindCache(evicted);
    for (let i = 0; i < MAX_ENTRIES + 200; i++) {
      remember(`flood-${i}.example`, null, now);
      // Touch `keep` now and then so it stays recent.
      if (i % 100 === 0) cachedZone(keep, now);
    }
    expect(cachedHostCount()).toBeLessThanOrEqual(MAX_ENTRIES);
    expect(await lookupZone(env.CONFIG, keep, now)).toEqual({ ok: true, value: null }); // still cached
    const reread = await lookupZone(env.CONFIG, evicted, now);
    expect(reread.ok && reread.value?.version).toBe(7); // evicted: read from KV again
  });
});
