/**
 * The client package's `fetchWithRetry` (packages/client, docs/client.md) against the real Worker and real
 * failing origins on 127.0.0.1 (test/servers/): 521 (refused port), 522 (the injected blackhole fault), 524 (an
 * origin that never answers), 525 (plain HTTP on the TLS port), a rate-limited zone whose dynamic Retry-After
 * the client waits out (and whose RateLimit fields it hands over), and the example zone (fixtures/example-zone.json),
 * whose own JSON and page answer a 520: the client reads the code from Proxy-Status and escalates. The waits go through an injected sleep that moves the clock the Worker reads (Date.now),
 * so nothing really waits 20 or 120 s.
 */
import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fetchWithRetry, type FetchWithRetryOptions } from "../../../packages/client/src/index.js";
import { loopback, ports, putZone, uniqueZone } from "../support/origin";
import { apiOk } from "../support/envelope";
import example from "../../../fixtures/example-zone.json";

afterEach(() => vi.restoreAllMocks());

const worker = (request: Request): Promise<Response> => exports.default.fetch(request);

/** A clock the Worker reads, moved by the client's sleep; the waits are recorded. */
function fakeTime(): { waits: number[]; options: FetchWithRetryOptions } {
  let now = Date.now();
  vi.spyOn(Date, "now").mockImplementation(() => now);
  const waits: number[] = [];
  return {
    waits,
    options: {
      fetch: worker,
      random: () => 0.5,
      sleep: async (ms) => {
        waits.push(ms);
        now += ms;
      },
    },
  };
}

/** Short timeouts, for the rows that wait for one to fire (522, 524). */
const TIMES_OUT = { connect_timeout: 0.3, read_timeout: 0.5 };

/**
 * A zone on `origin`, its timeouts generous: a test that expects the origin's answer (or a failure the runtime reports
 * at once) must not get a 522 or 524 because a loaded machine was slow; a test that waits for a timeout passes
 * `TIMES_OUT`.
 */
async function zone(origin: string, extra: Record<string, unknown> = {}): Promise<string> {
  const name = uniqueZone("client");
  await putZone(name, { origin, connect_timeout: 5, read_timeout: 10, ...extra });
  return name;
}

describe("fetchWithRetry against failing origins", () => {
  it.each([
    { code: 521, origin: () => loopback(ports.closed), path: "/", extra: {} },
    { code: 522, origin: () => "http://blackhole.test", path: "/", extra: TIMES_OUT },
    { code: 524, origin: () => loopback(ports.raw), path: "/hang", extra: TIMES_OUT },
  ])("$code: waits the error's 120 s (+ jitter, under the cap) between attempts, then escalates", async (c) => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { waits, options } = fakeTime();
    const host = await zone(c.origin(), c.extra);
    const result = await fetchWithRetry(`http://${host}${c.path}`, {}, { ...options, maxAttempts: 3 });
    expect(result.response.status).toBe(c.code);
    expect(result.error).toMatchObject({ code: c.code, source: "json", retryable: true, retryAfter: 120 });
    expect(result.attempts).toBe(3);
    // The hint (120 s) plus half the 10 % jitter, every time; never over the default 130 s cap.
    expect(waits).toEqual([126_000, 126_000]);
    expect(result.decision).toMatchObject({ kind: "escalate" });
    expect(result.error?.proxyStatus?.name).toBe("edge-errors");
  });

  it("525: not retryable: one attempt, no wait, escalate (the owner must fix TLS)", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const { waits, options } = fakeTime();
    const host = await zone(loopback(ports.http, "https"));
    const result = await fetchWithRetry(`http://${host}/echo`, {}, options);
    expect(result.response.status).toBe(525);
    expect(result.attempts).toBe(1);
    expect(waits).toEqual([]);
    expect(result.decision?.kind).toBe("escalate");
  });

  it("a POST the origin may have seen is not retried unless asked or keyed (Idempotency-Key)", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { waits, options } = fakeTime();
    // A reset after the request was sent: a 520, the request reached the origin (or nothing says it did not).
    const host = await zone(loopback(ports.raw));
    const post = await fetchWithRetry(`http://${host}/reset`, { method: "POST", body: "x" }, options);
    // 520 needs its owner (owner_action_required): not retried, and said so as an escalation.
    expect([post.response.status, post.attempts, waits.length, post.decision?.kind]).toEqual([520, 1, 0, "escalate"]);
    const asked = await fetchWithRetry(
      `http://${host}/reset`,
      { method: "POST", body: "x" },
      { ...options, retryNonIdempotent: true, maxAttempts: 2 },
    );
    expect([asked.attempts, waits.length]).toEqual([2, 1]);
    const keyed = await fetchWithRetry(
      `http://${host}/reset`,
      { method: "POST", body: "x", headers: { "Idempotency-Key": "order-42" } },
      { ...options, maxAttempts: 2 },
    );
    expect([keyed.attempts, waits.length]).toEqual([2, 2]);
  });

  it("a cap below the hint: no retry at all (never a shorter wait than the error asks)", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const { waits, options } = fakeTime();
    const host = await zone(loopback(ports.closed));
    const result = await fetchWithRetry(`http://${host}/`, {}, { ...options, maxDelayMs: 30_000 });
    expect([result.attempts, waits.length, result.decision?.kind]).toEqual([1, 0, "escalate"]);
  });

  it("an abort during the wait stops at once", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const host = await zone(loopback(ports.closed));
    const controller = new AbortController();
    const pending = fetchWithRetry(
      `http://${host}/`,
      { signal: controller.signal },
      { fetch: worker, onRetry: () => controller.abort(new Error("stop")) },
    );
    await expect(pending).rejects.toThrow("stop");
  });
});

describe("fetchWithRetry against a rate-limited zone", () => {
  it("waits the dynamic Retry-After (not the catalog's 30 s), then succeeds", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const host = await zone(loopback(ports.http));
    await apiOk("PUT", `/zones/${host}/rulesets/phases/http_ratelimit/entrypoint`, {
      rules: [
        {
          expression: "true",
          action: "block",
          ratelimit: { characteristics: ["ip.src"], period: 20, requests_per_period: 1, mitigation_timeout: 20 },
        },
      ],
    });
    const { waits, options } = fakeTime();
    const first = await fetchWithRetry(`http://${host}/`, {}, options);
    expect(first.response.status).toBe(200);
    await first.response.body?.cancel();
    // The quota, read from the RateLimit fields of the origin's 200.
    expect(first.rateLimit).toMatchObject({ remaining: 0, reset: 20, policies: [{ quota: 1, window: 20 }] });
    const second = await fetchWithRetry(`http://${host}/`, {}, { ...options, jitter: 0 });
    expect(waits).toEqual([20_000]);
    expect(second.attempts).toBe(2);
    expect(second.response.status).toBe(200);
    await second.response.body?.cancel();
  });
});

/** The example zone (fixtures/example-zone.json, as `npm run dev` seeds it) in front of `origin`, under a new name. */
async function exampleZone(origin: string): Promise<string> {
  const host = await zone(origin);
  for (const [phase, ruleset] of Object.entries(example.rulesets)) {
    await apiOk("PUT", `/zones/${host}/rulesets/phases/${phase}/entrypoint`, ruleset);
  }
  for (const [id, content] of Object.entries(example.custom_pages)) {
    await apiOk("PUT", `/zones/${host}/custom_pages/${id}`, { state: "customized", content });
  }
  return host;
}

describe("the example zone's 520: answers whose body is the shop's own", () => {
  it.each([
    { label: "its JSON clients rule", accept: undefined, status: 503 },
    { label: "its 500-class page", accept: "text/html", status: 520 },
  ])("$label: the code from Proxy-Status, retried, then escalate (not give-up)", async (c) => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { waits, options } = fakeTime();
    const host = await exampleZone(loopback(ports.raw));
    const init = c.accept === undefined ? {} : { headers: { Accept: c.accept } };
    const result = await fetchWithRetry(`http://${host}/reset`, init, options);
    expect(result.response.status).toBe(c.status);
    expect(result.error).toMatchObject({
      code: 520,
      name: "origin_unknown_error",
      category: "origin",
      ownerActionRequired: true,
      retryable: true,
    });
    expect(result.attempts).toBe(3);
    expect(waits).toEqual([63_000, 63_000]); // 60 s + half the 10 % jitter
    expect(result.decision).toMatchObject({ kind: "escalate" });
  });
});

describe("the example zone's 521 answered by its JSON rule, for a POST", () => {
  it("the body is the shop's, Proxy-Status says connection_refused: not sent, so the POST is retried", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { waits, options } = fakeTime();
    const host = await exampleZone(loopback(ports.closed));
    const result = await fetchWithRetry(`http://${host}/orders`, { method: "POST", body: "x" }, options);
    expect(result.response.status).toBe(503);
    expect(result.response.headers.get("Proxy-Status")).toContain("connection_refused");
    expect(result.error).toMatchObject({ code: 521, requestReachedOrigin: false, retryable: true });
    expect(result.error?.fields.request_reached_origin).toBeUndefined();
    expect([result.attempts, waits]).toEqual([3, [126_000, 126_000]]);
    expect(result.decision).toEqual({ kind: "escalate", reason: "3 attempts used" });
  });
});

/** Every status from 500 to 599: a caller that retries every 5xx, as the Stainless-generated SDKs do. */
const EVERY_5XX = Array.from({ length: 100 }, (_, i) => 500 + i);

describe("the readings of the retry verdicts, through the Worker", () => {
  it.each([
    { code: 525, origin: () => loopback(ports.http, "https"), method: "GET" },
    { code: 525, origin: () => loopback(ports.http, "https"), method: "HEAD" },
    { code: 526, origin: () => loopback(ports.tls, "https"), method: "GET" },
    { code: 526, origin: () => loopback(ports.tls, "https"), method: "HEAD" },
  ])("$code ($method): x-should-retry: false stops at once, even for a caller that retries every 5xx", async (c) => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { waits, options } = fakeTime();
    const host = await zone(c.origin());
    const result = await fetchWithRetry(
      `http://${host}/echo`,
      { method: c.method },
      { ...options, retryStatuses: EVERY_5XX },
    );
    expect(result.response.status).toBe(c.code);
    expect(result.response.headers.get("x-should-retry")).toBe("false");
    expect(result.response.headers.has("retry-after-ms")).toBe(false);
    expect(result.error).toMatchObject({ code: c.code, retryable: false, retryAfterMs: null });
    expect([result.attempts, waits.length, result.decision?.kind]).toEqual([1, 0, "escalate"]);
  });

  it.each([
    { label: "retry-after-ms before Retry-After", query: "ms=1500&s=5", waits: [1500, 1500] },
    { label: "Retry-After when alone", query: "s=5", waits: [5000, 5000] },
    { label: "a fraction of a millisecond rounded up", query: "ms=1500.2&s=5", waits: [1501, 1501] },
  ])("an origin's own 503 forwarded by the Worker: $label", async (c) => {
    const { waits, options } = fakeTime();
    const host = await zone(loopback(ports.http));
    const result = await fetchWithRetry(
      `http://${host}/status/503-hints?${c.query}`,
      {},
      { ...options, jitter: 0, retryStatuses: [503] },
    );
    // Not an edge error (the origin's body, no Proxy-Status of ours): only the headers speak.
    expect([result.response.status, result.error, result.attempts]).toEqual([503, null, 3]);
    expect(waits).toEqual(c.waits);
  });

  it("an origin's x-should-retry wins over the caller's status list, both ways", async () => {
    const { waits, options } = fakeTime();
    const host = await zone(loopback(ports.http));
    const no = await fetchWithRetry(
      `http://${host}/status/503-hints?verdict=false&s=5`,
      {},
      {
        ...options,
        retryStatuses: [503],
      },
    );
    expect([no.attempts, waits.length, no.decision]).toEqual([
      1,
      0,
      { kind: "give-up", reason: "x-should-retry: false" },
    ]);
    const yes = await fetchWithRetry(
      `http://${host}/status/503-hints?verdict=true&ms=1500`,
      {},
      { ...options, jitter: 0 },
    );
    expect([yes.attempts, waits]).toEqual([3, [1500, 1500]]);
  });

  it("a POST met by a refused origin (521, request_reached_origin: false) is retried; the tool never ran", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { waits, options } = fakeTime();
    const host = await zone(loopback(ports.closed));
    const result = await fetchWithRetry(`http://${host}/orders`, { method: "POST", body: "x" }, options);
    expect(result.error).toMatchObject({ code: 521, requestReachedOrigin: false });
    expect([result.attempts, waits, result.decision?.kind]).toEqual([3, [126_000, 126_000], "escalate"]);
    expect(result.decision?.reason).toBe("3 attempts used");
  });

  it("a POST met by a reset after it was sent (520, request_reached_origin: true) is not, unless keyed", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { waits, options } = fakeTime();
    const host = await zone(loopback(ports.raw));
    const post = await fetchWithRetry(`http://${host}/reset`, { method: "POST", body: "x" }, options);
    expect(post.error).toMatchObject({ code: 520, requestReachedOrigin: true, retryable: true });
    expect([post.attempts, waits.length]).toEqual([1, 0]);
    expect(post.decision).toEqual({
      kind: "escalate",
      reason: "POST is not idempotent; the request reached the origin",
    });
    const keyed = await fetchWithRetry(
      `http://${host}/reset`,
      { method: "POST", body: "x", headers: { "Idempotency-Key": "sms-7" } },
      options,
    );
    expect([keyed.attempts, waits]).toEqual([3, [63_000, 63_000]]);
  });

  it("the agent profile's hint is obeyed with positive-only jitter: never earlier than the hint", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const host = await zone(loopback(ports.closed), { retry_hints: "agent" });
    // The extremes of `random`: 0 (no jitter) and just under 1 (the whole 10 %).
    for (const draw of [0, 0.999_999]) {
      const { waits, options } = fakeTime();
      const hints: { ray: string; ms: number }[] = [];
      const result = await fetchWithRetry(
        `http://${host}/`,
        {},
        {
          ...options,
          random: () => draw,
          onRetry: ({ error }) => hints.push({ ray: error?.rayId ?? "", ms: error?.retryAfterMs ?? -1 }),
        },
      );
      expect([result.response.status, result.attempts]).toEqual([521, 3]);
      expect(hints).toHaveLength(2);
      for (const [i, { ray, ms }] of hints.entries()) {
        // docs/errors.md "Retry-hint profiles": min(120, 59) = 59, less the Ray ID's last 8 hex digits mod 30.
        expect(ms).toBe((59 - (Number.parseInt(ray.slice(-8), 16) % 30)) * 1000);
        expect(waits[i]).toBe(Math.ceil(ms + draw * 0.1 * ms));
        expect(waits[i]).toBeGreaterThanOrEqual(ms);
      }
    }
  });
});
