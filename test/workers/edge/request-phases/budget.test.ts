/**
 * The evaluation budget through the real Worker (contract §2.2; issue 19): rules written through the real API,
 * requests through the Worker's own `fetch` handler to a real loopback origin. Before the fix, 25 firewall rules of
 * four `a[ab]{…}w` regexes and one 14 KB `User-Agent` kept the isolate busy ~20 s and delayed another zone's
 * request as long; now every rule is over budget before re2js runs, the request answers in milliseconds, and each
 * over-budget rule is logged once (`rule_over_budget`, with zone, phase and rule).
 *
 * Timing: workerd's clock moves only across I/O, so each measurement ends after a timer (`settle`), which reads
 * the clock after the synchronous work of the request is over.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../../../src/index";
import { ADMIN, loopback, ports, putZone, uniqueZone } from "../../support/origin";

afterEach(() => vi.restoreAllMocks());

const RULES = 25;
const REGEXES_PER_RULE = 4;
const UA_BYTES = 14 * 1024;
/** Generous, but two orders of magnitude under the ~20 s the same request took before (issue 19). */
const FAST_MS = 1000;

/** Rule i's expression: four distinct `a[ab]{k}w`, k from 998 down (repetitions 4 × ≤ 998 ≤ 4,000 per rule). */
function expensiveExpression(i: number): string {
  const ks = Array.from({ length: REGEXES_PER_RULE }, (_, j) => 998 - (REGEXES_PER_RULE * i + j));
  return ks.map((k) => `http.user_agent matches "a[ab]{${k}}w"`).join(" or ");
}

/**
 * Random a/b text ending in `w`: re2js's DFA gives up on it and its NFA runs (subject × program: ~0.2 s per regex
 * measured). The 100 characters where `a[ab]{k}w` would have to start are `b`, so no rule can match.
 */
function expensiveUserAgent(): string {
  let seed = 7;
  const chars: string[] = [];
  for (let i = 0; i < UA_BYTES - 1; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    chars.push(seed / 2147483648 < 0.5 ? "a" : "b");
  }
  const n = UA_BYTES; // the final `w` is at n - 1; `a[ab]{k}w` starts at n - 2 - k
  for (let k = 998 - RULES * REGEXES_PER_RULE + 1; k <= 998; k++) chars[n - 2 - k] = "b";
  return chars.join("") + "w";
}

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; json: ApiBody }> {
  const res = await exports.default.fetch(`http://localhost${path}`, {
    method,
    headers: { ...ADMIN, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

interface ApiBody {
  readonly success: boolean;
  readonly errors: readonly { code: number; message: string }[];
}

const entrypoint = (zone: string, phase: string) => `/zones/${zone}/rulesets/phases/${phase}/entrypoint`;

async function zoneWithRules(phase: string, rules: readonly unknown[]): Promise<string> {
  const zone = uniqueZone("budget");
  await putZone(zone, { plan: "enterprise", origin: loopback(ports.http) });
  if (rules.length > 0) {
    const res = await api("PUT", entrypoint(zone, phase), { rules });
    expect(res.status, JSON.stringify(res.json.errors)).toBe(200);
  }
  return zone;
}

const block = (expression: string) => ({ expression, action: "block" });
const serve = (expression: string) => ({
  expression,
  action: "serve_error",
  action_parameters: { content: "custom", content_type: "text/plain" },
});

/** One request through the Worker's handler; `ms` ends after the response and a timer (see the file comment). */
async function timed(url: string, headers: Record<string, string> = {}): Promise<{ res: Response; ms: number }> {
  await settle();
  const started = Date.now();
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(url, { headers: { Accept: "application/json", ...headers } }), env, ctx);
  await waitOnExecutionContext(ctx);
  await settle();
  return { res, ms: Date.now() - started };
}

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** The `rule_over_budget` lines written to console.error while `run` ran. */
async function overBudgetLines<T>(run: () => Promise<T>): Promise<{ value: T; lines: Record<string, unknown>[] }> {
  const spy = vi.spyOn(console, "error");
  const value = await run();
  const lines = spy.mock.calls
    .flatMap((call) => String(call[0]).split("\n"))
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.event === "rule_over_budget");
  spy.mockRestore();
  return { value, lines };
}

const expensiveFirewall = (): unknown[] => Array.from({ length: RULES }, (_, i) => block(expensiveExpression(i)));
const expensiveCustomErrors = (): unknown[] => Array.from({ length: RULES }, (_, i) => serve(expensiveExpression(i)));

describe("regex work is charged before it runs (issue 19)", () => {
  it(`(a) ${RULES} firewall rules × ${REGEXES_PER_RULE} regexes and a 14 KB User-Agent: answered in ms, logged`, async () => {
    const zone = await zoneWithRules("http_request_firewall_custom", expensiveFirewall());
    const ua = expensiveUserAgent();
    const { value, lines } = await overBudgetLines(() => timed(`http://${zone}/`, { "User-Agent": ua }));
    console.log(`(a) firewall, 14 KB User-Agent: ${value.ms} ms`);
    // Every rule over budget is a non-match: the request passes to the origin.
    expect(value.res.status).toBe(200);
    await value.res.body?.cancel();
    expect(value.ms).toBeLessThan(FAST_MS);
    expect(lines).toHaveLength(RULES);
    expect(lines[0]).toMatchObject({
      event: "rule_over_budget",
      zone,
      phase: "http_request_firewall_custom",
      rule: expect.stringMatching(/^[0-9a-f]{32}$/) as unknown,
      cause: expect.stringContaining("a regular expression needs") as unknown,
    });
    // The same request again: no new line per rule within the window (over-budget-log.ts).
    const again = await overBudgetLines(() => timed(`http://${zone}/`, { "User-Agent": ua }));
    await again.value.res.body?.cancel();
    expect(again.value.res.status).toBe(200);
    expect(again.lines).toEqual([]);
  });

  it("(b) zone B's request is not delayed while zone A's expensive request runs", async () => {
    const a = await zoneWithRules("http_request_firewall_custom", expensiveFirewall());
    const b = await zoneWithRules("http_request_firewall_custom", [block('http.request.uri.path eq "/admin"')]);
    const ua = expensiveUserAgent();
    await settle();
    const started = Date.now();
    const end = async (p: Promise<{ res: Response }>): Promise<number> => {
      const { res } = await p;
      await res.body?.cancel();
      await settle();
      return Date.now() - started;
    };
    const [msA, msB] = await Promise.all([
      end(timed(`http://${a}/`, { "User-Agent": ua })),
      end(timed(`http://${b}/`, { "User-Agent": "curl/8" })),
    ]);
    console.log(`(b) zone A (expensive): ${msA} ms; zone B meanwhile: ${msB} ms`);
    expect(msA).toBeLessThan(FAST_MS);
    expect(msB).toBeLessThan(FAST_MS);
  });

  it("(c) custom error rules via /cdn-cgi/error/522 on the zone host: answered in ms, logged", async () => {
    const zone = await zoneWithRules("http_custom_errors", expensiveCustomErrors());
    const { value, lines } = await overBudgetLines(() =>
      timed(`http://${zone}/cdn-cgi/error/522`, { "User-Agent": expensiveUserAgent() }),
    );
    console.log(`(c) /cdn-cgi/error/522, 14 KB User-Agent: ${value.ms} ms`);
    // No rule matched: the structured default, not the rules' content.
    expect(value.res.status).toBe(522);
    expect(await value.res.text()).not.toBe("custom");
    expect(value.ms).toBeLessThan(FAST_MS);
    expect(lines).toHaveLength(RULES);
    expect(lines[0]).toMatchObject({ event: "rule_over_budget", zone, phase: "http_custom_errors" });
  });
});

/** Nested join(split(…)): ~128× per level (issue 9); two levels on a 227-byte header pass the per-value cap. */
const level = (x: string): string => `join(split(${x}, "a", 128), ${x})`;
const NESTED = `len(${level(level("http.user_agent"))}) > 0`;
const NESTED_UA = "a".repeat(227);

describe("(d) the real nested join(split(…)) in every phase: a non-match, logged", () => {
  it("firewall: the request passes to the origin", async () => {
    const zone = await zoneWithRules("http_request_firewall_custom", [block(NESTED)]);
    const { value, lines } = await overBudgetLines(() => timed(`http://${zone}/`, { "User-Agent": NESTED_UA }));
    expect(value.res.status).toBe(200);
    await value.res.body?.cancel();
    expect(lines).toEqual([
      expect.objectContaining({
        zone,
        phase: "http_request_firewall_custom",
        cause: expect.stringMatching(/join\(\) would be \d+ bytes, over/) as unknown,
      }),
    ]);
  });

  it("rate limiting: the request is not counted (a limit of 1 never blocks)", async () => {
    const zone = await zoneWithRules("http_ratelimit", [
      {
        ...block(NESTED),
        ratelimit: { characteristics: ["ip.src"], period: 60, requests_per_period: 1, mitigation_timeout: 60 },
      },
    ]);
    const headers = { "User-Agent": NESTED_UA, "CF-Connecting-IP": "192.0.2.77" };
    const { value, lines } = await overBudgetLines(async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const { res } = await timed(`http://${zone}/`, headers);
        statuses.push(res.status);
        await res.body?.cancel();
      }
      return statuses;
    });
    expect(value).toEqual([200, 200, 200]);
    // Three over-budget evaluations of one rule: one line (the others are counted for the next line).
    expect(lines).toEqual([expect.objectContaining({ zone, phase: "http_ratelimit" })]);
  });

  it("custom errors: the structured default answers", async () => {
    const zone = await zoneWithRules("http_custom_errors", [serve(NESTED)]);
    const { value, lines } = await overBudgetLines(() =>
      timed(`http://${zone}/cdn-cgi/error/522`, { "User-Agent": NESTED_UA }),
    );
    expect(value.res.status).toBe(522);
    expect(await value.res.text()).not.toBe("custom");
    expect(lines).toEqual([expect.objectContaining({ zone, phase: "http_custom_errors" })]);
  });
});

describe("one budget per request, across phases", () => {
  /**
   * `[ab]{k}` has a program of ~k + 2 instructions, so on a 4,000-byte User-Agent a firewall rule `… matches
   * "[ab]{220}q"` costs ~(4,001 × 222) ≈ 0.89 M units: under a rule's 1 M; two of them leave ~0.2 M of the
   * request's 2 M for the custom error rule on the origin's error, which needs as much again.
   */
  const ua = "x".repeat(4000);
  const costly = (k: number) => `http.user_agent matches "[ab]{${k}}q"`;

  it("firewall work spent on a request leaves less for custom error rules on the same request's origin error", async () => {
    const zone = uniqueZone("budget");
    await putZone(zone, { plan: "enterprise", origin: loopback(ports.http) });
    const put = async (phase: string, rules: unknown[]) =>
      expect((await api("PUT", entrypoint(zone, phase), { rules })).status).toBe(200);
    await put("http_custom_errors", [serve(`${costly(220)} or http.response.code eq 404`)]);

    // Without firewall rules, the custom error rule has its whole budget: it matches the origin's 404.
    const alone = await overBudgetLines(() => timed(`http://${zone}/status/404`, { "User-Agent": ua }));
    expect(alone.value.res.status).toBe(404);
    expect(await alone.value.res.text()).toBe("custom");
    expect(alone.lines).toEqual([]);

    // Two firewall rules spend ~1.8 M of the request's 2 M: the custom error rule is over budget, a non-match.
    await put("http_request_firewall_custom", [block(costly(221)), block(costly(222))]);
    const shared = await overBudgetLines(() => timed(`http://${zone}/status/404`, { "User-Agent": ua }));
    expect(shared.value.res.status).toBe(404);
    expect(await shared.value.res.text()).not.toBe("custom");
    expect(shared.lines).toEqual([
      expect.objectContaining({
        zone,
        phase: "http_custom_errors",
        cause: expect.stringContaining("the rest of the request's budget") as unknown,
      }),
    ]);
  });
});

describe("the zone's cap on compiled regular expressions", () => {
  it("is checked across phases when rules are written: 400 naming the limit", async () => {
    const zone = await zoneWithRules("http_request_firewall_custom", expensiveFirewall());
    // ~95,000 instructions in the firewall phase; as much again in custom errors fits (under 200,000)...
    const fits = await api("PUT", entrypoint(zone, "http_custom_errors"), { rules: expensiveCustomErrors() });
    expect(fits.status, JSON.stringify(fits.json.errors)).toBe(200);
    // ...but not a third phase's worth.
    const over = await api("PUT", entrypoint(zone, "http_ratelimit"), {
      rules: Array.from({ length: 5 }, (_, i) => ({
        ...block(expensiveExpression(i)),
        ratelimit: { characteristics: ["ip.src"], period: 60, requests_per_period: 10, mitigation_timeout: 60 },
      })),
    });
    expect(over.status).toBe(400);
    expect(over.json.success).toBe(false);
    expect(over.json.errors).toEqual([
      {
        code: 20021,
        message: expect.stringMatching(
          /^rules: the zone's regular expressions would compile to \d+ instructions \(\d+ in http_ratelimit, \d+ in the other phases\), over the zone's limit of 200000/,
        ) as unknown,
      },
    ]);
  });
});
