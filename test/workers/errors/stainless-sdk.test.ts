/**
 * The Stainless-generated `cloudflare` SDK (7.3.0, the official client of the Cloudflare API) pointed at zone traffic
 * through the real Worker: its own `fetch` option hands each request to the Worker, so every retry the SDK decides
 * is counted here. Its policy (`shouldRetry` / `retryRequest` in node_modules/cloudflare/client.js, the same as
 * openai-node's and anthropic-sdk-typescript's): `x-should-retry` first, then every status ≥ 500; the wait is
 * `retry-after-ms`, else `Retry-After`, else its own 0.5–8 s backoff. docs/errors.md "Retry verdicts" says what this
 * shows.
 */
import Cloudflare from "cloudflare";
import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loopback, ports, putZone, uniqueZone } from "../support/origin";
import { recordSleeps } from "../support/sdk-sleeps";

afterEach(() => vi.restoreAllMocks());

interface Sdk {
  readonly client: Cloudflare;
  /** The responses the SDK received, in order. */
  readonly seen: Response[];
}

/**
 * The SDK on `host`: each request goes to the Worker; `transform` may change the Worker's answer before the SDK
 * reads it (to show what the SDK does without a header).
 */
function sdkFor(host: string, transform: (response: Response) => Response = (r) => r): Sdk {
  const seen: Response[] = [];
  const client = new Cloudflare({
    apiToken: "unused-by-zone-traffic",
    baseURL: `http://${host}`,
    maxRetries: 2,
    timeout: 10_000,
    fetch: async (input: string | URL | Request, init?: RequestInit) => {
      const response = transform(await exports.default.fetch(new Request(input, init)));
      seen.push(response);
      return response;
    },
  });
  return { client, seen };
}

/**
 * A zone on `origin`. No test here waits for a timeout, so they are generous: under a 0.5 s read timeout the
 * self-signed TLS origin's 526 failed once at load 8 (a handshake slower than the read timeout is a 524).
 */
async function zone(origin: string, extra: Record<string, unknown> = {}): Promise<string> {
  const name = uniqueZone("sdk");
  await putZone(name, { origin, connect_timeout: 5, read_timeout: 10, ...extra });
  return name;
}

/** The Worker's answer without its `x-should-retry` header: what the SDK met before the verdicts were sent. */
function withoutVerdict(response: Response): Response {
  const headers = new Headers(response.headers);
  headers.delete("x-should-retry");
  return new Response(response.body, { status: response.status, headers });
}

describe("the cloudflare SDK (Stainless) against generated errors", () => {
  it.each([
    { code: 525, origin: () => loopback(ports.http, "https") },
    { code: 526, origin: () => loopback(ports.tls, "https") },
  ])("$code: x-should-retry: false: one request; without the header, three", async (c) => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const host = await zone(c.origin());
    const obeyed = sdkFor(host);
    const error: unknown = await obeyed.client.get("/echo").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Cloudflare.InternalServerError);
    expect(error).toMatchObject({ status: c.code });
    expect(obeyed.seen.map((r) => [r.status, r.headers.get("x-should-retry")])).toEqual([[c.code, "false"]]);
    // The same answers without the verdict: the SDK retries every status ≥ 500 (twice, its own backoff).
    const blind = sdkFor(host, withoutVerdict);
    await expect(blind.client.get("/echo")).rejects.toBeInstanceOf(Cloudflare.InternalServerError);
    expect(blind.seen.map((r) => r.status)).toEqual([c.code, c.code, c.code]);
  });

  it("521 under the agent profile: each wait is exactly the answer's retry-after-ms (under 60 s)", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const host = await zone(loopback(ports.closed), { retry_hints: "agent" });
    // The retry sleeps are recorded and ended at once, so the test does not wait 30–59 s twice.
    const waits = recordSleeps();
    const sdk = sdkFor(host);
    await expect(sdk.client.get("/")).rejects.toBeInstanceOf(Cloudflare.InternalServerError);
    expect(sdk.seen.map((r) => r.status)).toEqual([521, 521, 521]);
    const hinted = sdk.seen.slice(0, 2).map((r) => Number(r.headers.get("retry-after-ms")));
    expect(waits).toEqual(hinted);
    for (const ms of hinted) {
      expect(ms).toBeGreaterThanOrEqual(30_000);
      expect(ms).toBeLessThan(60_000);
    }
  });

  it("an origin's 503 forwarded by the Worker: retried after retry-after-ms (150 ms), not Retry-After (30 s)", async () => {
    const host = await zone(loopback(ports.http));
    const sdk = sdkFor(host);
    const started = Date.now();
    await expect(sdk.client.get("/status/503-hints", { query: { ms: "150", s: "30" } })).rejects.toBeInstanceOf(
      Cloudflare.InternalServerError,
    );
    expect(sdk.seen.map((r) => r.status)).toEqual([503, 503, 503]);
    // Two waits of 150 ms against two of 30 s: half of one 30 s wait is a margin a loaded machine keeps.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
