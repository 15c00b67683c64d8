/**
 * The zone's retry-hint profile (docs/errors.md "Retry-hint profiles") through the real Worker: `published` sends the
 * catalog's hints exactly; `agent` sends at most 59 s (under the 60,000 ms the Stainless SDKs honour), spread over
 * the documented window by Ray ID (predicted here from the `Ray-ID` header alone), with the body's `retry_after`, `Retry-After` and `retry-after-ms` always equal;
 * a rate-limiting rule's own Retry-After is only capped, never spread below the block's end.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CATALOG, type CatalogEntry } from "../../../src/errors/catalog";
import { loopback, ports, putZone, uniqueZone } from "../support/origin";
import { api, entrypoint } from "../support/envelope";

/**
 * docs/errors.md "Retry-hint profiles", restated: c = min(hint, 59); the last 8 hex digits of the Ray ID as an
 * integer n; the hint sent is c − n mod (⌊c/2⌋ + 1).
 */
function predicted(hint: number, ray: string): number {
  const capped = Math.min(hint, 59);
  return capped - (Number.parseInt(ray.slice(-8), 16) % (Math.floor(capped / 2) + 1));
}

async function zoneWithHints(retryHints?: "published" | "agent"): Promise<string> {
  const zone = uniqueZone("hints");
  await putZone(zone, {
    origin: loopback(ports.closed),
    connect_timeout: 2,
    ...(retryHints === undefined ? {} : { retry_hints: retryHints }),
  });
  return zone;
}

/** The hint of one answer, asserting the header, the milliseconds header and the body agree. */
async function hintOf(res: Response): Promise<{ readonly ray: string; readonly hint: number }> {
  const body = await res.json<Record<string, unknown>>();
  const header = Number(res.headers.get("Retry-After"));
  expect(body.retry_after).toBe(header);
  expect(res.headers.get("retry-after-ms")).toBe(String(header * 1000));
  expect(res.headers.get("x-should-retry")).toBe("true");
  const ray = res.headers.get("Ray-ID")!;
  expect(body.ray_id).toBe(ray);
  return { ray, hint: header };
}

const RETRYABLE = (CATALOG as readonly CatalogEntry[]).filter(
  (e): e is CatalogEntry & { retryAfter: number } => e.retryAfter !== null,
);

describe("retry_hints: published (the default)", () => {
  it.each([undefined, "published"] as const)("%s: the catalog's hints exactly", async (profile) => {
    const zone = await zoneWithHints(profile);
    for (const entry of RETRYABLE) {
      const res = await exports.default.fetch(`http://${zone}/cdn-cgi/error/${entry.code}`, {
        headers: { Accept: "application/json" },
      });
      expect((await hintOf(res)).hint, String(entry.code)).toBe(entry.retryAfter);
    }
  });
});

describe("retry_hints: agent", () => {
  it("every retryable code: the hint predicted from the Ray ID, at most 59 s, never above the published one", async () => {
    const zone = await zoneWithHints("agent");
    for (const entry of RETRYABLE) {
      const res = await exports.default.fetch(`http://${zone}/cdn-cgi/error/${entry.code}`, {
        headers: { Accept: "application/json" },
      });
      const { ray, hint } = await hintOf(res);
      expect(hint, `${entry.code} ray ${ray}`).toBe(predicted(entry.retryAfter, ray));
      expect(hint).toBeLessThanOrEqual(Math.min(59, entry.retryAfter));
      expect(hint).toBeGreaterThanOrEqual(Math.ceil(Math.min(59, entry.retryAfter) / 2));
    }
  });

  it("a down origin's 521s are spread over 30..59 s, each as predicted; Markdown and HTML say the same", async () => {
    const zone = await zoneWithHints("agent");
    const seen = new Set<number>();
    for (let i = 0; i < 40; i++) {
      const res = await exports.default.fetch(`http://${zone}/checkout`, { headers: { Accept: "application/json" } });
      expect(res.status).toBe(521);
      const { ray, hint } = await hintOf(res);
      expect(hint).toBe(predicted(120, ray));
      seen.add(hint);
    }
    // 40 random rays over 30 values: fewer than 10 distinct is vanishingly unlikely (and lockstep would be 1).
    expect(seen.size).toBeGreaterThanOrEqual(10);
    for (const hint of seen) expect(hint >= 30 && hint <= 59).toBe(true);

    const markdown = await exports.default.fetch(`http://${zone}/checkout`, { headers: { Accept: "text/markdown" } });
    const ray = markdown.headers.get("Ray-ID")!;
    const text = await markdown.text();
    const frontmatter = parse(/^---\n([\s\S]*?)\n---\n/.exec(text)![1]!) as Record<string, unknown>;
    expect(frontmatter.retry_after).toBe(predicted(120, ray));
    expect(markdown.headers.get("Retry-After")).toBe(String(predicted(120, ray)));
    expect(text).not.toContain("120 seconds");

    const page = await exports.default.fetch(`http://${zone}/checkout`, { headers: { Accept: "text/html" } });
    const pageRay = page.headers.get("Ray-ID")!;
    const html = await page.text();
    const island = /<script type="application\/problem\+json" id="edge-error">([^<]*)<\/script>/.exec(html)![1]!;
    expect((JSON.parse(island) as Record<string, unknown>).retry_after).toBe(predicted(120, pageRay));
    expect(html).toContain(`try again in ${predicted(120, pageRay)} seconds`);
  });

  it("HEAD: the same predicted hint in both headers", async () => {
    const zone = await zoneWithHints("agent");
    const res = await exports.default.fetch(`http://${zone}/checkout`, { method: "HEAD" });
    const hint = predicted(120, res.headers.get("Ray-ID")!);
    expect(res.headers.get("Retry-After")).toBe(String(hint));
    expect(res.headers.get("retry-after-ms")).toBe(String(hint * 1000));
  });

  it("a non-retryable code stays non-retryable: no hint, x-should-retry false", async () => {
    const zone = await zoneWithHints("agent");
    const res = await exports.default.fetch(`http://${zone}/cdn-cgi/error/526`, {
      headers: { Accept: "application/json" },
    });
    expect(res.headers.get("x-should-retry")).toBe("false");
    expect(res.headers.has("Retry-After")).toBe(false);
    expect(res.headers.has("retry-after-ms")).toBe(false);
    expect(await res.json<Record<string, unknown>>()).not.toHaveProperty("retry_after");
  });
});

describe("retry_hints and a rate-limiting rule's own Retry-After", () => {
  async function blocked(profile: "published" | "agent", mitigation: number, ip: string): Promise<number> {
    const zone = uniqueZone("hints-rl");
    await putZone(zone, { origin: loopback(ports.http), retry_hints: profile });
    const ratelimit = {
      characteristics: ["ip.src"],
      period: 10,
      requests_per_period: 1,
      mitigation_timeout: mitigation,
    };
    const put = await api("PUT", entrypoint(zone, "http_ratelimit"), {
      rules: [{ expression: "true", action: "block", ratelimit }],
    });
    expect(put.status, put.text).toBe(200);
    const headers = { Accept: "application/json", "CF-Connecting-IP": ip };
    expect((await exports.default.fetch(`http://${zone}/echo`, { headers })).status).toBe(200);
    const res = await exports.default.fetch(`http://${zone}/echo`, { headers });
    expect(res.status).toBe(429);
    return (await hintOf(res)).hint;
  }

  it("published: the block's own end, also past 60 s", async () => {
    expect(await blocked("published", 600, "192.0.2.20")).toBeGreaterThan(590);
  });

  it("agent: a block longer than 59 s is capped at exactly 59", async () => {
    expect(await blocked("agent", 600, "192.0.2.21")).toBe(59);
  });

  it("agent: a block's own end is only capped at 59, never spread below it", async () => {
    // A 45 s mitigation with a 10 s window: the block ends 45 s after it starts, in both profiles.
    const published = await blocked("published", 45, "192.0.2.22");
    expect(published).toBeGreaterThanOrEqual(44);
    expect(published).toBeLessThanOrEqual(45);
    for (const ip of ["192.0.2.30", "192.0.2.31", "192.0.2.32", "192.0.2.33"]) {
      const hint = await blocked("agent", 45, ip);
      expect(hint).toBeGreaterThanOrEqual(44);
      expect(hint).toBeLessThanOrEqual(45);
    }
  });
});
