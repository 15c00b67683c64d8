/**
 * No padding a client chooses switches a request-phase rule off (docs/rules-language.md "Evaluation budget"),
 * through the real Worker: rules written through the real API, requests through the Worker's `fetch` to a real
 * loopback origin, all within the zone's default 32 KiB header limit. Before, an evaluation over the CPU budget was
 * a non-match and the request phases shared one budget, so the client set the cost: a scanner rule let a padded
 * `sqlmap` through, two non-matching regexes left nothing for a later `contains`, a rate limit counted no padded
 * login. Now every rule accepted when written is evaluated completely on every request the zone accepts, and custom
 * error rules keep failing open.
 */
import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { expectGeneratedError, loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { api } from "../../support/envelope";
import { errorLines } from "../../support/log";

afterEach(() => vi.restoreAllMocks());

/** A zone (enterprise, default 32 KiB header limit) with `rules` written in each phase given; each write must pass. */
async function zoneWith(rules: Readonly<Record<string, readonly unknown[]>>): Promise<string> {
  const zone = uniqueZone("fail-closed");
  await putZone(zone, { plan: "enterprise", origin: loopback(ports.http) });
  for (const [phase, list] of Object.entries(rules)) {
    const res = await api("PUT", `/zones/${zone}/rulesets/phases/${phase}/entrypoint`, { rules: list });
    expect(res.status, JSON.stringify(res.body.errors)).toBe(200);
  }
  return zone;
}

const block = (expression: string) => ({ expression, action: "block" });

async function send(zone: string, path: string, headers: Record<string, string>): Promise<Response> {
  return exports.default.fetch(`http://${zone}${path}`, { headers: { Accept: "application/json", ...headers } });
}

/** The statuses of 20 logins, one after the other, with `headers`. */
async function loginStatuses(zone: string, headers: Record<string, string>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++) {
    const res = await send(zone, "/login", headers);
    statuses.push(res.status);
    await res.body?.cancel();
  }
  return statuses;
}

const SCANNERS = "(?i)(sqlmap|nikto|nmap|masscan|zgrab|nuclei|dirbuster|gobuster|wpscan|acunetix)";

describe("a padded User-Agent does not switch a scanner rule off", () => {
  it.each([0, 14_000, 16_000, 24_000, 30_000])("sqlmap/1.7 + %i × a: 1020", async (padding) => {
    const zone = await zoneWith({ http_request_firewall_custom: [block(`http.user_agent matches "${SCANNERS}"`)] });
    const ua = padding === 0 ? "sqlmap/1.7" : `sqlmap/1.7 ${"a".repeat(padding)}`;
    const { value, lines } = await errorLines("rule_over_budget", () => send(zone, "/", { "User-Agent": ua }));
    await expectGeneratedError(value, 1020);
    // A real match, evaluated completely: nothing went over the budget.
    expect(lines).toEqual([]);
  });

  it("an innocent 30,000-byte User-Agent passes to the origin", async () => {
    const zone = await zoneWith({ http_request_firewall_custom: [block(`http.user_agent matches "${SCANNERS}"`)] });
    const res = await send(zone, "/", { "User-Agent": `Mozilla/5.0 ${"a".repeat(30_000)}` });
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });
});

describe("the request phases share one budget, and every rule still runs", () => {
  /**
   * Two regexes of 36 instructions each: on a 27,775-byte User-Agent the old budget charged (27,775 + 1) × 36 =
   * 999,936 units for each, 1,999,872 of the request's 2,000,000, and the `contains` rule after them was over budget.
   */
  const first = 'http.user_agent matches "(?i)(havij|w3af|netsparker|webinspect)"';
  const second = 'http.user_agent matches "(?i)(havij|arachni|skipfish|burpsuite)"';
  const ua = `sqlmap/1.7 ${"a".repeat(27_775 - 11)}`;

  it("two non-matching regex rules, then `contains` on a 27,775-byte User-Agent: the third rule blocks", async () => {
    expect(ua.length).toBe(27_775);
    const zone = await zoneWith({
      http_request_firewall_custom: [block(first), block(second), block('http.user_agent contains "sqlmap"')],
    });
    const { value, lines } = await errorLines("rule_over_budget", () => send(zone, "/", { "User-Agent": ua }));
    await expectGeneratedError(value, 1020);
    expect(lines).toEqual([]);
  });

  it("20 padded logins against 3 per hour: at most 3 pass (the firewall spent the old budget first)", async () => {
    const zone = await zoneWith({
      http_request_firewall_custom: [block(first), block(second)],
      http_ratelimit: [
        {
          ...block('http.user_agent contains "Mozilla" and http.request.uri.path eq "/login"'),
          ratelimit: {
            characteristics: ["ip.src"],
            period: 3600,
            requests_per_period: 3,
            mitigation_timeout: 3600,
            counting: "exact",
          },
        },
      ],
    });
    const padded = { "User-Agent": `Mozilla/5.0 ${"a".repeat(27_775 - 12)}`, "CF-Connecting-IP": "192.0.2.41" };
    const statuses = await loginStatuses(zone, padded);
    expect(statuses.filter((s) => s !== 429).length).toBeLessThanOrEqual(3);
    expect(statuses.slice(3)).toEqual(Array.from({ length: 17 }, () => 429));
  });

  it("20 padded logins against 3 per hour: at most 3 pass (the rule's own regex on the padding)", async () => {
    const zone = await zoneWith({
      http_ratelimit: [
        {
          ...block(
            'http.request.uri.path eq "/login" and not http.user_agent matches "(?i)(googlebot|bingbot|yandexbot|baiduspider)"',
          ),
          ratelimit: {
            characteristics: ["ip.src"],
            period: 3600,
            requests_per_period: 3,
            mitigation_timeout: 3600,
            counting: "exact",
          },
        },
      ],
    });
    const padded = { "User-Agent": `Mozilla/5.0 ${"a".repeat(24_000)}`, "CF-Connecting-IP": "192.0.2.42" };
    const statuses = await loginStatuses(zone, padded);
    expect(statuses.filter((s) => s !== 429).length).toBeLessThanOrEqual(3);
  });
});

describe("the header limit the worst case is computed from", () => {
  it("counts UTF-8 bytes: 11,000 × € is 33,000 bytes, over 32 KiB (1038), though 11,000 characters", async () => {
    const zone = await zoneWith({ http_request_firewall_custom: [block(`http.user_agent matches "${SCANNERS}"`)] });
    // One non-ASCII header value: workerd logs once that it sends it as UTF-8 (the bytes rules read).
    const over = await send(zone, "/", { "X-Pad": "€".repeat(11_000) });
    await expectGeneratedError(over, 1038);
    const under = await send(zone, "/", { "X-Pad": "€".repeat(10_000) });
    expect(under.status).toBe(200);
    await under.body?.cancel();
  });
});

describe("custom error rules keep failing open", () => {
  it("a custom error rule over budget is a non-match: the structured default answers, logged", async () => {
    // Accepted when written (custom error rules are not checked: only content is at stake), over budget on a
    // 14 KB User-Agent: (14,337 + 1) × 1,003 units, far past one rule's 4,000,000.
    const zone = await zoneWith({
      http_custom_errors: [
        {
          expression: 'http.user_agent matches "a[ab]{998}w" or http.response.code eq 522',
          action: "serve_error",
          action_parameters: { content: "custom", content_type: "text/plain" },
        },
      ],
    });
    const { value, lines } = await errorLines("rule_over_budget", () =>
      send(zone, "/cdn-cgi/error/522", { "User-Agent": "b".repeat(14_336) + "w" }),
    );
    expect(value.status).toBe(522);
    expect(await value.text()).not.toBe("custom");
    expect(lines).toEqual([expect.objectContaining({ zone, phase: "http_custom_errors" })]);
    // The same rule within budget (a short User-Agent) serves its content.
    const short = await send(zone, "/cdn-cgi/error/522", { "User-Agent": "curl/8" });
    expect(short.status).toBe(522);
    expect(await short.text()).toBe("custom");
  });
});
