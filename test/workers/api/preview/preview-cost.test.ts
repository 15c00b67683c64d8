/**
 * The draft preview costs what traffic costs (src/api/preview/draft-cache.ts, bound.ts; docs/custom-errors.md "Draft
 * preview", "Bounds"): a `zones:read` token's eight parallel previews of an enterprise zone with hundreds of heavy
 * saved firewall and rate-limiting rules used to recompile them on every call and hold another zone's traffic for
 * over a second. Now the saved configuration is the compiled zone's (compiled once per version), a draft is compiled
 * once per content, and each token's previews of a zone are bounded (429, code 20031, `Retry-After`).
 *
 * Every request goes through one env (the admin token and a reader token), so the Worker's parsed tokens, and with
 * them each token's allowance, stay the same objects for the whole file.
 */
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { tokenDigestHex, type Principal } from "../../../../src/api/kit/auth";
import { admitPreview, PREVIEW_BOUNDS, PREVIEW_LIMITED_CODE } from "../../../../src/api/explain/bound";
import { draftCacheStats } from "../../../../src/api/preview/draft-cache";
import worker from "../../../../src/index";
import { compile, requestFields } from "../../../../src/rules";
import type { Envelope } from "../../support/envelope";
import { loopback, ports, uniqueZone } from "../../support/origin";

// Two heavy rulesets are written and compiled several times; the latency test measures on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

const ADMIN = "Bearer test-admin-token";
const READER = "Bearer tok-preview-reader";
let tokens = "";

async function call(
  method: string,
  url: string,
  init: { auth?: string; body?: BodyInit; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { "Content-Type": "application/json", ...init.headers };
  if (init.auth !== undefined) headers.Authorization = init.auth;
  return worker.fetch(
    new Request(url, { method, headers, ...(init.body === undefined ? {} : { body: init.body }) }),
    { ...env, API_TOKENS: tokens },
    createExecutionContext(),
  );
}

async function write(path: string, body: unknown, method = "PUT"): Promise<void> {
  const res = await call(method, `http://localhost${path}`, { auth: ADMIN, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(200);
  await res.body?.cancel();
}

/** A custom error rule serving `content` on every error. */
const serve = (content: string) => ({
  expression: "true",
  action: "serve_error",
  action_parameters: { content, content_type: "text/plain" },
});
const DRAFT = { rules: [serve("draft")] };

function previewBody(draft: unknown = DRAFT): string {
  return JSON.stringify({ draft, request: { code: 521 } });
}

async function preview(zone: string, auth = READER, draft: unknown = DRAFT): Promise<Response> {
  return call("POST", `http://localhost/zones/${zone}/preview`, { auth, body: previewBody(draft) });
}

/**
 * An enterprise zone's legal worst kind of saved configuration: 290 firewall and 290 rate-limiting rules, each an
 * `or` of 40 comparisons, 190 of them with a distinct `a[ab]{k}w`-style regex (~190,000 program instructions, under
 * the zone's 200,000). Compiling them is what every preview used to do. They read `ip.src.country` (at most 8
 * bytes), so their worst case fits the request phases' evaluation budget (3.9 M of 8 M units: docs/rules-language.md
 * "Evaluation budget"); on a header they would be refused when written.
 */
function heavyRules(field: string, letters: string, ratelimit: boolean): Record<string, unknown>[] {
  return Array.from({ length: 290 }, (_, i) => {
    const filler = Array.from({ length: 40 }, (_, j) => `${field} contains "r${i}x${j}yzzzz"`).join(" or ");
    const regex = i < 95 ? `${field} matches "${letters[0]}[${letters}]{${990 - i}}w" or ` : "";
    return {
      expression: regex + filler,
      action: "block",
      ...(ratelimit
        ? { ratelimit: { characteristics: ["ip.src"], period: 60, requests_per_period: 100, mitigation_timeout: 60 } }
        : {}),
    };
  });
}

const FIREWALL = heavyRules("ip.src.country", "ab", false);
const RATE_LIMITS = heavyRules("ip.src.country", "cd", true);

/** Compiles the heavy zone's saved request-phase rules without any cache, as every preview used to: ms. */
function recompileSaved(): number {
  const started = Date.now();
  for (const rule of [...FIREWALL, ...RATE_LIMITS])
    expect(compile(rule.expression as string, requestFields.scheme).ok).toBe(true);
  return Date.now() - started;
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
let answered = 0;

/**
 * Eight previews at once, and the other zone's traffic: without previews (20 requests), while they run (requests
 * keep coming, one after another, until every preview answered), and without again (20): its latencies while they
 * ran, and its typical latency (the median without).
 */
async function whilePreviewing(
  start: () => Promise<Response>,
): Promise<{ answers: Response[]; during: number[]; typical: number }> {
  const before = await otherTraffic(() => true, 20);
  let settled = false;
  const previews = Promise.all(Array.from({ length: 8 }, start)).finally(() => (settled = true));
  const during = await otherTraffic(() => settled);
  const answers = await previews;
  const after = await otherTraffic(() => true, 20);
  return { answers, during, typical: median([...before, ...after]) };
}

async function heavyZone(label: string): Promise<string> {
  const zone = uniqueZone(label);
  await write(`/zones/${zone}`, { plan: "enterprise", origin: loopback(ports.closed) });
  await write(`/zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`, { rules: FIREWALL });
  await write(`/zones/${zone}/rulesets/phases/http_ratelimit/entrypoint`, { rules: RATE_LIMITS });
  return zone;
}

let heavy = "";
let other = "";
let light = "";

beforeAll(async () => {
  tokens = JSON.stringify([
    {
      name: "preview-reader",
      sha256: await tokenDigestHex("tok-preview-reader"),
      accounts: [],
      zones: ["*"],
      permissions: ["zones:read"],
    },
  ]);
  heavy = await heavyZone("heavy");
  other = uniqueZone("other");
  await write(`/zones/${other}`, { plan: "pro", origin: loopback(ports.closed) });
  // The other zone's traffic is answered at the edge (a block, 1020): no origin in the measurement.
  await write(`/zones/${other}/rulesets/phases/http_request_firewall_custom/entrypoint`, {
    rules: [{ expression: "true", action: "block" }],
  });
  light = uniqueZone("light");
  await write(`/zones/${light}`, { plan: "pro", origin: loopback(ports.closed) });
});

/** One request of the other zone (a 1020 block), through the runtime as an incoming request: its latency in ms. */
async function otherRequest(): Promise<number> {
  const started = Date.now();
  const res = await exports.default.fetch(`http://${other}/`);
  expect(res.status).toBe(403);
  await res.body?.cancel();
  return Date.now() - started;
}

/** The other zone's latencies, one request after another, until `done` says stop (at least `min` requests). */
async function otherTraffic(done: () => boolean, min = 1): Promise<number[]> {
  const latencies: number[] = [];
  while (latencies.length < min || !done()) latencies.push(await otherRequest());
  return latencies;
}

describe("previews cost what traffic costs", () => {
  it("eight parallel previews of a heavy zone do not delay another zone's traffic", async () => {
    // Warm, as traffic would be: the zone compiled once for this version (by its first preview), the draft once.
    expect((await preview(heavy)).status).toBe(200);
    await otherTraffic(() => true, 5);

    // Eight previews by the reader (four run, four are refused: the bound), then eight by two tokens (all run).
    const counted = draftCacheStats();
    const rounds: Awaited<ReturnType<typeof whilePreviewing>>[] = [];
    for (const auth of [[READER], [READER, ADMIN]])
      rounds.push(await whilePreviewing(() => preview(heavy, auth[answered++ % auth.length])));
    // Counted, whatever the machine's load: every preview that ran was a cache hit, nothing was compiled again.
    const after = draftCacheStats();
    expect(after.draftCompiles - counted.draftCompiles).toBe(0);
    expect(after.savedProgramSizes - counted.savedProgramSizes).toBe(0);
    expect(after.draftHits - counted.draftHits).toBe(PREVIEW_BOUNDS.concurrent + 8);
    // What one preview used to cost, measured in this run: compiling the saved request-phase rules, uncached (after
    // the rounds, so that its garbage is not collected during them; the faster of two runs, as the old code's
    // previews after the first ran on warm code too).
    const recompile = Math.min(recompileSaved(), recompileSaved());
    for (const [round, { answers, during, typical }] of rounds.entries()) {
      // Eight recompiles used to land in the other zone's requests (one request held 0.6–3.2 s here, one recompile
      // taking 85–523 ms, with the machine's load). Now each preview's work is a cache lookup (counted above). The
      // delay is bounded by four recompiles, half of the old one: at two, this test failed once in a whole-suite run
      // with three files at once beside a CPU hog (load 10–15).
      const excess = during.reduce((sum, ms) => sum + Math.max(0, ms - typical), 0);
      // Printed for docs/benchmarks.md, which quotes these rounds.
      console.log(
        `previews round ${round}: the other zone ${Math.min(...during)}–${Math.max(...during)} ms while they ran ` +
          `(typically ${typical} ms), one recompile ${recompile} ms`,
      );
      expect(
        excess,
        `the other zone while the previews ran: ${during.join(", ")} ms (typically ${typical} ms); one recompile: ` +
          `${recompile} ms`,
      ).toBeLessThan(4 * recompile);
      const statuses = answers.map((r) => r.status);
      expect(
        statuses.every((s) => s === 200 || s === 429),
        statuses.join(),
      ).toBe(true);
      expect(statuses.filter((s) => s === 200)).toHaveLength(round === 0 ? PREVIEW_BOUNDS.concurrent : 8);
      for (const answer of answers) await answer.body?.cancel();
    }
  });

  it("the saved configuration is compiled once per version, a draft once per content (counters, not timing)", async () => {
    const zone = await heavyZone("counted");
    const start = draftCacheStats();
    for (let i = 0; i < 3; i++) expect((await preview(zone)).status).toBe(200);
    const once = draftCacheStats();
    // One computation of the saved rules' size for this version, one draft compile, two hits.
    expect(once.savedProgramSizes - start.savedProgramSizes).toBe(1);
    expect(once.draftCompiles - start.draftCompiles).toBe(1);
    expect(once.draftHits - start.draftHits).toBe(2);

    // Another draft: compiled once; the saved configuration is not computed again.
    const second = { rules: [serve("second")] };
    for (let i = 0; i < 2; i++) expect((await preview(zone, READER, second)).status).toBe(200);
    // A refused draft is cached too: its validation runs once.
    const refused = { rules: [{ ...serve("x"), expression: "http.response.code eq" }] };
    for (let i = 0; i < 2; i++) {
      const res = await preview(zone, READER, refused);
      expect(res.status).toBe(400);
      expect((await res.json<Envelope>()).errors[0]?.code).toBe(20021);
    }
    const twice = draftCacheStats();
    expect(twice.savedProgramSizes - once.savedProgramSizes).toBe(0);
    expect(twice.draftCompiles - once.draftCompiles).toBe(2);
    expect(twice.draftHits - once.draftHits).toBe(2);

    // A new version of the zone: computed once more, and the draft applies to the new version.
    await write(`/zones/${zone}/rulesets/phases/http_ratelimit/entrypoint`, { rules: RATE_LIMITS.slice(1) });
    for (let i = 0; i < 2; i++) expect((await preview(zone)).status).toBe(200);
    const after = draftCacheStats();
    expect(after.savedProgramSizes - twice.savedProgramSizes).toBe(1);
    expect(after.draftCompiles - twice.draftCompiles).toBe(1);
    expect(after.draftHits - twice.draftHits).toBe(1);
  });

  it("the answer does not depend on the cache: a cached draft previews exactly what it did", async () => {
    const first = await preview(light, ADMIN, { rules: [serve("same")] });
    const second = await preview(light, ADMIN, { rules: [serve("same")] });
    const a = (await first.json<Envelope<{ response: { body: string }; trace: unknown }>>()).result;
    const b = (await second.json<Envelope<{ response: { body: string }; trace: unknown }>>()).result;
    expect(a.response.body).toBe("same");
    expect(b.trace).toEqual(a.trace);
  });
});

describe("previews are bounded per token and zone: 429 in the envelope, with Retry-After", () => {
  it("at most 4 at once per token and zone; another token or another zone is not held up", async () => {
    const zone = uniqueZone("held");
    await write(`/zones/${zone}`, { plan: "pro", origin: loopback(ports.closed) });
    // Admitted previews wait for their bodies, which the test holds open.
    const held: ReadableStreamDefaultController<Uint8Array>[] = [];
    const running = Array.from({ length: PREVIEW_BOUNDS.concurrent }, () => {
      const body = new ReadableStream<Uint8Array>({ start: (c) => void held.push(c) });
      return call("POST", `http://localhost/zones/${zone}/preview`, { auth: READER, body });
    });
    await vi.waitFor(() => expect(held).toHaveLength(PREVIEW_BOUNDS.concurrent));
    await new Promise((resolve) => setTimeout(resolve, 50));

    const refused = await preview(zone);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("1");
    const envelope = await refused.json<Envelope>();
    expect(envelope.success).toBe(false);
    expect(envelope.errors).toEqual([
      {
        code: PREVIEW_LIMITED_CODE,
        message: `Too many draft previews of ${zone} for this token (4 running at once); retry after 1 s (docs/custom-errors.md "Draft preview")`,
      },
    ]);
    // Another token on the same zone, and the same token on another zone, are admitted.
    expect((await preview(zone, ADMIN)).status).toBe(200);
    expect((await preview(light)).status).toBe(200);

    const encoded = new TextEncoder().encode(previewBody());
    for (const controller of held) {
      controller.enqueue(encoded);
      controller.close();
    }
    expect((await Promise.all(running)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    // Released: the token previews the zone again.
    expect((await preview(zone)).status).toBe(200);
  });

  it("a burst of 20, then 2 per second: the 429 says when to retry, and the retry is admitted", async () => {
    const zone = uniqueZone("burst");
    await write(`/zones/${zone}`, { plan: "pro", origin: loopback(ports.closed) });
    const started = Date.now();
    let admitted = 0;
    let limited: Response | null = null;
    for (let i = 0; i < 60 && limited === null; i++) {
      const res = await preview(zone);
      if (res.status === 429) limited = res;
      else {
        expect(res.status).toBe(200);
        admitted++;
        await res.body?.cancel();
      }
    }
    const seconds = (Date.now() - started) / 1000;
    expect(limited, "a 429 within 60 previews").not.toBeNull();
    expect(admitted).toBeGreaterThanOrEqual(PREVIEW_BOUNDS.burst);
    expect(admitted).toBeLessThanOrEqual(PREVIEW_BOUNDS.burst + Math.ceil(seconds * PREVIEW_BOUNDS.perSecond) + 1);
    expect(limited?.headers.get("Retry-After")).toBe("1");
    const envelope = await limited?.json<Envelope>();
    expect(envelope?.errors[0]?.code).toBe(PREVIEW_LIMITED_CODE);
    expect(envelope?.errors[0]?.message).toContain("(a burst of 20, then 2 per second); retry after 1 s");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await preview(zone)).status).toBe(200);
  });

  it("the bucket alone (an injected clock): burst, refill, Retry-After rounded up, release once", () => {
    const principal: Principal = { name: "p", accounts: "*", zones: "*", permissions: new Set() };
    const zone = uniqueZone("clock");
    const t0 = 1_000_000;
    for (let i = 0; i < PREVIEW_BOUNDS.burst; i++) {
      const a = admitPreview(principal, zone, t0);
      expect(a.kind).toBe("admitted");
      if (a.kind === "admitted") a.release();
    }
    expect(admitPreview(principal, zone, t0)).toEqual({ kind: "limited", why: "rate", retryAfter: 1 });
    // 2 per second: one more every 500 ms, not before.
    expect(admitPreview(principal, zone, t0 + 499).kind).toBe("limited");
    const next = admitPreview(principal, zone, t0 + 500);
    expect(next.kind).toBe("admitted");
    // Released twice counts once: four running at once still hold the fifth.
    if (next.kind === "admitted") {
      next.release();
      next.release();
    }
    const later = t0 + 60_000;
    const four = Array.from({ length: 4 }, () => admitPreview(principal, zone, later));
    expect(four.every((a) => a.kind === "admitted")).toBe(true);
    expect(admitPreview(principal, zone, later)).toEqual({ kind: "limited", why: "concurrent", retryAfter: 1 });
    // Another principal object (another token, even of the same name) has its own allowance.
    expect(admitPreview({ ...principal }, zone, later).kind).toBe("admitted");
  });
});
