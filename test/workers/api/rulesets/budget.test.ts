/**
 * The evaluation budget when rules are written (docs/rulesets-api.md "Evaluation budget"; docs/rules-language.md):
 * a request phase's ruleset whose worst case, on the largest request the zone accepts, cannot fit one rule's budget
 * or the request phases' budget is refused with 400 and code 20045, one error per rule naming it, through every
 * write (entry point, rule-level edits, dry runs) and nothing is stored; raising the zone's header limit past what
 * its rules fit is refused too. Custom error rules are not checked (they fail open).
 */
import { describe, expect, it } from "vitest";
import { putZone, uniqueZone } from "../../support/origin";
import { api as apiCall, entrypoint } from "../../support/envelope";

interface Ruleset {
  readonly id: string;
  readonly version: string;
  readonly rules: readonly { readonly id: string; readonly expression: string }[];
}

/** The shared `api`, its result a ruleset unless told otherwise (`null` on a failure). */
const api = <T = Ruleset>(method: string, path: string, body?: unknown) => apiCall<T | null>(method, path, body);

const FIREWALL = "http_request_firewall_custom";
const RATELIMIT = "http_ratelimit";
const block = (expression: string, description = "") => ({ expression, action: "block", description });
const limited = (expression: string) => ({
  ...block(expression),
  ratelimit: { characteristics: ["ip.src"], period: 60, requests_per_period: 10, mitigation_timeout: 60 },
});

/**
 * 77 instructions: 2,789,122 units on the largest User-Agent of a 32 KiB header limit (fits one rule's 4 M). Its `\b`
 * keeps it out of the firewall's one-pass regex set (docs/rules-language.md "Evaluation budget"), so it is charged
 * as its own run; without it, the set's pass costs 4 units a byte, and these limits are not reached.
 */
const SCANNER =
  'http.user_agent matches "(?i)\\b(sqlmap|nikto|nmap|masscan|zgrab|nuclei|dirbuster|gobuster|wpscan|acunetix)"';
/** 152 instructions: ~5.3 M units on that User-Agent, over one rule's 4 M (`\b`: as `SCANNER`). */
const BIG_SCANNER =
  'http.user_agent matches "(?i)\\b(sqlmap|nikto|nmap|masscan|zgrab|nuclei|dirbuster|gobuster|wpscan|acunetix|havij|w3af|arachni|skipfish|openvas|netsparker|appscan|webinspect|burp|zap)"';

async function newZone(settings: Record<string, unknown> = {}): Promise<string> {
  const zone = uniqueZone("rules-budget");
  await putZone(zone, { plan: "enterprise", origin: "http://o.example", ...settings });
  return zone;
}

describe("one rule over its budget is refused, naming it", () => {
  it("PUT entrypoint: 400, code 20045, rules[1].expression with the rule's id and description", async () => {
    const zone = await newZone();
    const res = await api("PUT", entrypoint(zone, FIREWALL), {
      rules: [block('http.request.uri.path eq "/admin"'), block(BIG_SCANNER, "scanners")],
    });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.errors).toEqual([
      {
        code: 20045,
        message: expect.stringMatching(
          /^rules\[1\]\.expression: rule [0-9a-f]{32} \("scanners"\) costs up to \d+ units on the largest request the zone accepts \(headers of 32768 bytes, a URL of 16384 bytes\), over one rule's budget of 4000000 units; an evaluation that cannot finish counts as a match in http_request_firewall_custom/,
        ) as unknown,
      },
    ]);
    // Nothing stored.
    const after = await api("GET", entrypoint(zone, FIREWALL));
    expect(after.body.result?.rules ?? []).toEqual([]);
  });

  it("the same rule fits a zone with a smaller header limit; disabled, it costs nothing", async () => {
    const small = await newZone({ max_request_header_bytes: 16 * 1024 });
    expect((await api("PUT", entrypoint(small, FIREWALL), { rules: [block(BIG_SCANNER)] })).status).toBe(200);
    const zone = await newZone();
    const disabled = { ...block(BIG_SCANNER), enabled: false };
    expect((await api("PUT", entrypoint(zone, FIREWALL), { rules: [disabled] })).status).toBe(200);
  });

  it("a dry run is refused the same, and a rule-level add names the request's own field", async () => {
    const zone = await newZone();
    const dry = await api("PUT", `${entrypoint(zone, FIREWALL)}?dry_run=true`, { rules: [block(BIG_SCANNER)] });
    expect(dry.status).toBe(400);
    expect(dry.body.errors[0]?.code).toBe(20045);
    expect(dry.body.errors[0]?.message).toMatch(/^rules\[0\]\.expression: rule [0-9a-f]{32} costs up to/);

    const created = await api("PUT", entrypoint(zone, FIREWALL), { rules: [block(SCANNER)] });
    expect(created.status).toBe(200);
    const id = created.body.result!.id;
    for (const path of [`/zones/${zone}/rulesets/${id}/rules`, `/zones/${zone}/rulesets/${id}/rules?dry_run=true`]) {
      const added = await api("POST", path, block(BIG_SCANNER));
      expect(added.status).toBe(400);
      expect(added.body.errors).toEqual([
        {
          code: 20045,
          message: expect.stringMatching(/^expression: rule [0-9a-f]{32} costs up to \d+ units/) as unknown,
        },
      ]);
    }
    expect((await api("GET", `/zones/${zone}/rulesets/${id}`)).body.result?.rules).toHaveLength(1);
  });

  it("a rule with no bound (a value past 1 MiB) is refused; as a custom error rule it is accepted", async () => {
    const zone = await newZone();
    const expression = 'join(http.request.headers.values, http.user_agent) eq "x"';
    const res = await api("PUT", entrypoint(zone, FIREWALL), { rules: [block(expression)] });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toEqual({
      code: 20045,
      message: expect.stringMatching(
        /^rules\[0\]\.expression: rule [0-9a-f]{32} has no worst case the budget can hold: join\(\) may build \d+ bytes, over the limit of 1048576/,
      ) as unknown,
    });
    const custom = await api("PUT", entrypoint(zone, "http_custom_errors"), {
      rules: [{ expression, action: "serve_error", action_parameters: { content: "x", content_type: "text/plain" } }],
    });
    expect(custom.status).toBe(200);
  });
});

describe("the request phases together over their budget are refused, naming the rule that passes it", () => {
  it("three scanner rules: 2.79 M each fits one rule, 8.37 M passes the 8 M of the request phases at rules[2]", async () => {
    const zone = await newZone();
    const two = await api("PUT", entrypoint(zone, FIREWALL), { rules: [block(SCANNER), block(SCANNER)] });
    expect(two.status).toBe(200);
    const three = await api("PUT", entrypoint(zone, FIREWALL), {
      rules: [block(SCANNER), block(SCANNER), block(SCANNER, "third")],
    });
    expect(three.status).toBe(400);
    expect(three.body.errors).toEqual([
      {
        code: 20045,
        message: expect.stringMatching(
          /^rules\[2\]\.expression: with rule [0-9a-f]{32} \("third"\) the request phases' rules cost up to 8367366 units on the largest request the zone accepts \(headers of 32768 bytes, a URL of 16384 bytes\) \(8367366 in http_request_firewall_custom, 0 in http_ratelimit\), over their budget of 8000000 units per request/,
        ) as unknown,
      },
    ]);
  });

  it("across phases: rate limiting after two firewall scanner rules is refused; removing one fits", async () => {
    const zone = await newZone();
    expect((await api("PUT", entrypoint(zone, FIREWALL), { rules: [block(SCANNER), block(SCANNER)] })).status).toBe(
      200,
    );
    const over = await api("PUT", entrypoint(zone, RATELIMIT), { rules: [limited(SCANNER)] });
    expect(over.status).toBe(400);
    expect(over.body.errors[0]?.message).toMatch(
      /^rules\[0\]\.expression: with rule [0-9a-f]{32} the request phases' rules cost up to 8367366 units .* \(2789122 in http_ratelimit, 5578244 in http_request_firewall_custom\)/,
    );
    expect((await api("PUT", entrypoint(zone, FIREWALL), { rules: [block(SCANNER)] })).status).toBe(200);
    expect((await api("PUT", entrypoint(zone, RATELIMIT), { rules: [limited(SCANNER)] })).status).toBe(200);
  });
});

describe("the zone's header limit", () => {
  it("raising it past what the stored rules fit is refused (20045), a dry run too; lowering it is not", async () => {
    const zone = await newZone();
    expect((await api("PUT", entrypoint(zone, FIREWALL), { rules: [block(SCANNER, "scanners")] })).status).toBe(200);
    const settings = { plan: "enterprise", origin: "http://o.example" };
    for (const path of [`/zones/${zone}`, `/zones/${zone}?dry_run=true`]) {
      const raised = await api("PUT", path, { ...settings, max_request_header_bytes: 128 * 1024 });
      expect(raised.status).toBe(400);
      expect(raised.body.errors).toEqual([
        {
          code: 20045,
          message: expect.stringMatching(
            /^max_request_header_bytes: with 131072 bytes of headers, http_request_firewall_custom rules\[0\]\.expression: rule [0-9a-f]{32} \("scanners"\) costs up to \d+ units/,
          ) as unknown,
        },
      ]);
    }
    const zoneNow = await api<{ max_request_header_bytes: number }>("GET", `/zones/${zone}`);
    expect(zoneNow.body.result?.max_request_header_bytes).toBe(32 * 1024);
    expect((await api("PUT", `/zones/${zone}`, { ...settings, max_request_header_bytes: 40 * 1024 })).status).toBe(200);
    expect((await api("PUT", `/zones/${zone}`, { ...settings, max_request_header_bytes: 8 * 1024 })).status).toBe(200);
  });
});
