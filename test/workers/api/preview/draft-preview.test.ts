/**
 * `POST /zones/{zone}/preview`: the draft preview answers exactly what traffic gets, over a table of
 * requests sent as real traffic through the Worker to loopback origins (a refused port, an HTTP origin's own error
 * responses, a raw origin that sends garbage), for each of the four formats; a draft previews what traffic gets once
 * it is saved; the trace names every rule's outcome.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ORIGIN_503_BODY } from "../../../servers/context";
import { apiFetch, type Envelope } from "../../support/envelope";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";

const FORMATS = {
  json: "application/json",
  problem_json: "application/problem+json",
  markdown: "text/markdown",
  html: "text/html",
} as const;
type Format = keyof typeof FORMATS;

interface Shown {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly body_bytes: number;
  readonly body_truncated: boolean;
  readonly answered_by: { readonly kind: string; readonly id?: string; readonly index?: number };
}

interface RuleTrace {
  readonly index: number;
  readonly id: string;
  readonly outcome: string;
  readonly cost: number;
  readonly reason?: string;
  readonly fields?: string[];
}

interface Preview {
  readonly zone: string;
  readonly draft: boolean;
  readonly error: { readonly kind: string; readonly code?: number; readonly status: number };
  readonly format: string;
  readonly answered_by: Shown["answered_by"];
  readonly response: Shown;
  readonly responses: Record<Format, Shown>;
  readonly trace: {
    readonly steps: { step: string; outcome: string; id?: string; reason?: string }[];
    readonly rules: RuleTrace[];
    readonly fields: Record<string, unknown>;
  };
  readonly cost: { readonly units: number; readonly budget: number; readonly rule_budget: number };
}

const PAGE_500 =
  "<!DOCTYPE html><html><head><title>Shop is down</title></head><body><p>Sorry! ray ::RAY_ID:: ip ::CLIENT_IP:: geo ::GEO::</p>::EDGE_ERROR_500S_BOX::</body></html>";

const serve = (expression: string, content: string, contentType = "text/plain", extra: object = {}) => ({
  expression,
  action: "serve_error",
  action_parameters: { content, content_type: contentType },
  ...extra,
});

/** The saved rules of the table's zones: a disabled rule, guarded rules, unguarded ones, an origin-error rule. */
const RULES = [
  serve("true", "disabled catch-all", "text/plain", { enabled: false }),
  serve('http.request.uri.path eq "/admin" and http.response.code eq 521', "admin is down ::RAY_ID::"),
  serve(
    'any(http.request.headers["accept"][*] contains "application/json") and http.response.code in {521 502}',
    '{"shop":"down","ray":"::RAY_ID::","ip":"::CLIENT_IP::"}',
    "application/json",
  ),
  serve("ip.src in {203.0.113.0/24} and http.response.code eq 503", "partner maintenance", "text/html", {
    action_parameters: { content: "<p>partner maintenance</p>", content_type: "text/html", status_code: 599 },
  }),
  serve(
    'starts_with(http.request.uri.path, "/api/") and http.response.code ge 500',
    '{"api":"down"}',
    "application/json",
  ),
  serve('ip.src.country eq "DE" and http.response.code eq 521', "Entschuldigung (::GEO::)"),
];

async function configure(zone: string, rules: readonly unknown[], page: boolean): Promise<void> {
  const put = await apiFetch("PUT", `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`, { rules });
  expect(put.status, await put.clone().text()).toBe(200);
  await put.body?.cancel();
  if (page) {
    const res = await apiFetch("PUT", `/zones/${zone}/custom_pages/500_errors`, {
      state: "customized",
      content: PAGE_500,
    });
    expect(res.status).toBe(200);
    await res.body?.cancel();
  }
}

async function preview(zone: string, body: unknown): Promise<Preview> {
  const res = await apiFetch("POST", `/zones/${zone}/preview`, body);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return (JSON.parse(text) as Envelope<Preview>).result;
}

/** Ray ids and timestamps differ between two occurrences of the same error; nothing else may. */
const stable = (text: string) =>
  text.replace(/[0-9a-f]{16}/g, "RAY").replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "TIME");

/**
 * Headers that differ per occurrence (a ray, a date, the time it took: `Server-Timing`, docs/errors.md; a described
 * failure took no time) or that the runtime adds on the wire.
 */
const VOLATILE = new Set(["ray-id", "date", "content-length", "server-timing"]);
function comparable(headers: Headers | Record<string, string>): Record<string, string> {
  const entries = headers instanceof Headers ? [...headers] : Object.entries(headers);
  return Object.fromEntries(
    entries.filter(([name]) => !VOLATILE.has(name.toLowerCase())).map(([n, v]) => [n.toLowerCase(), stable(v)]),
  );
}

async function expectSame(real: Response, shown: Shown, what: string): Promise<void> {
  const body = await real.text();
  expect(shown.status, what).toBe(real.status);
  expect(comparable(shown.headers), what).toEqual(comparable(real.headers));
  expect(stable(shown.body), what).toBe(stable(body));
  expect(shown.body_bytes, what).toBe(new TextEncoder().encode(body).byteLength);
}

interface Row {
  readonly name: string;
  readonly origin: "closed" | "http" | "raw";
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly clientIp?: string;
  /** `request.cf.country` on traffic, `country` in the described request. */
  readonly country?: string;
  /** How the preview describes what the origin does on this row. */
  readonly described: Record<string, unknown>;
  /** Who answers each format on traffic (checked on the preview's answer too). */
  readonly expected: Record<Format, string>;
}

/**
 * What node:http adds to every response of the loopback origin (test/servers/http-origin.ts), as it arrives: no
 * `Keep-Alive: timeout=…`, because the test origins keep idle connections open (test/servers/global-setup.ts).
 */
const NODE_HEADERS = { Connection: "keep-alive", "Transfer-Encoding": "chunked" };
const ORIGIN_503 = {
  status: 503,
  headers: { "Content-Type": "application/problem+json", "X-Origin": "yes", "Retry-After": "7", ...NODE_HEADERS },
  body: ORIGIN_503_BODY,
};

const TABLE: Row[] = [
  {
    name: "refused origin (521), /checkout: the JSON rule for JSON, the page for the rest",
    origin: "closed",
    path: "/checkout?x=1",
    clientIp: "198.51.100.4",
    described: { origin: { failure: "refused" } },
    expected: { json: "rule:2", problem_json: "page:500_errors", markdown: "page:500_errors", html: "page:500_errors" },
  },
  {
    name: "refused origin (521) from Germany: the JSON rule for JSON, the country rule before the page for the rest",
    origin: "closed",
    path: "/checkout",
    country: "DE",
    described: { origin: { failure: "refused" } },
    expected: { json: "rule:2", problem_json: "rule:5", markdown: "rule:5", html: "rule:5" },
  },
  {
    name: "refused origin (521), /admin: the guarded rule before the JSON rule, every format",
    origin: "closed",
    path: "/admin",
    described: { code: 521 },
    expected: { json: "rule:1", problem_json: "rule:1", markdown: "rule:1", html: "rule:1" },
  },
  {
    name: "refused origin (521), /api/orders: JSON rule first for JSON, the /api/ rule for the rest",
    origin: "closed",
    path: "/api/orders",
    described: { origin: { failure: "refused" } },
    expected: { json: "rule:2", problem_json: "rule:4", markdown: "rule:4", html: "rule:4" },
  },
  {
    name: "origin's own 503 from a partner address: the origin-error rule (status_code 599)",
    origin: "http",
    path: "/status/503-json",
    clientIp: "203.0.113.9",
    described: { origin: ORIGIN_503 },
    expected: { json: "rule:3", problem_json: "rule:3", markdown: "rule:3", html: "rule:3" },
  },
  {
    name: "origin's own 503 from anyone else: no rule, passed through unchanged",
    origin: "http",
    path: "/status/503-json",
    clientIp: "198.51.100.4",
    described: { origin: ORIGIN_503 },
    expected: { json: "origin", problem_json: "origin", markdown: "origin", html: "origin" },
  },
  {
    name: "origin's own 404: rules do not match, passed through (pages never replace an origin's error)",
    origin: "http",
    path: "/status/404",
    described: {
      origin: { status: 404, headers: { "Content-Type": "text/plain", ...NODE_HEADERS }, body: "origin says no" },
    },
    expected: { json: "origin", problem_json: "origin", markdown: "origin", html: "origin" },
  },
  {
    name: "raw origin sends garbage (502): the JSON rule for JSON, the page for the rest",
    origin: "raw",
    path: "/garbage",
    headers: { "X-Debug": "1" },
    described: { origin: { failure: "malformed" } },
    expected: { json: "rule:2", problem_json: "page:500_errors", markdown: "page:500_errors", html: "page:500_errors" },
  },
];

const answered = (shown: Shown): string =>
  shown.answered_by.kind === "rule"
    ? `rule:${shown.answered_by.index}`
    : shown.answered_by.kind === "page"
      ? `page:${shown.answered_by.id}`
      : shown.answered_by.kind;

async function tableZones(): Promise<Record<Row["origin"], string>> {
  const zones = {
    closed: uniqueZone("pv-closed"),
    http: uniqueZone("pv-http"),
    raw: uniqueZone("pv-raw"),
  };
  await putZone(zones.closed, { origin: loopback(ports.closed), connect_timeout: 2 });
  await putZone(zones.http, { origin: loopback(ports.http) });
  await putZone(zones.raw, { origin: loopback(ports.raw), read_timeout: 2 });
  for (const zone of Object.values(zones)) await configure(zone, RULES, true);
  return zones;
}

/** The edge sets `request.cf`; the test pool lets traffic carry it. */
const cfOf = (row: Row): { cf?: { country: string } } => (row.country ? { cf: { country: row.country } } : {});

function trafficHeaders(row: Row, accept: string): Record<string, string> {
  return { ...row.headers, Accept: accept, ...(row.clientIp ? { "CF-Connecting-IP": row.clientIp } : {}) };
}

function described(row: Row, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    scheme: "http",
    path: row.path,
    ...(row.headers ? { headers: row.headers } : {}),
    ...(row.clientIp ? { client_ip: row.clientIp } : {}),
    ...(row.country ? { country: row.country } : {}),
    ...row.described,
    ...extra,
  };
}

describe("the saved configuration's preview equals traffic, over a table of requests", () => {
  it.each(TABLE)("$name", async (row) => {
    const zones = await tableZones();
    const zone = zones[row.origin];
    const result = await preview(zone, { request: described(row) });
    expect(result.draft).toBe(false);
    for (const [format, accept] of Object.entries(FORMATS) as [Format, string][]) {
      const real = await exports.default.fetch(`http://${zone}${row.path}`, {
        ...cfOf(row),
        headers: trafficHeaders(row, accept),
      });
      const shown = result.responses[format];
      await expectSame(real, shown, `${row.name}: ${format}`);
      expect(answered(shown), format).toBe(row.expected[format]);
    }
    // The request as described (no Accept: HTML, docs/negotiation.md) is the traced one.
    const real = await exports.default.fetch(`http://${zone}${row.path}`, {
      ...cfOf(row),
      headers: { ...row.headers, ...(row.clientIp ? { "CF-Connecting-IP": row.clientIp } : {}) },
    });
    await expectSame(real, result.response, `${row.name}: as described`);
    expect(result.format).toBe("html");
    expect(answered(result.response)).toBe(row.expected.html);
    expect(result.answered_by).toEqual(result.response.answered_by);
  });
});

describe("a draft previews what traffic gets once it is saved", () => {
  it.each(TABLE)("$name", async (row) => {
    // A zone with nothing saved: the draft holds the table's rules and page.
    const zone = uniqueZone(`draft-${row.origin}`);
    const origin = { closed: ports.closed, http: ports.http, raw: ports.raw }[row.origin];
    await putZone(zone, { origin: loopback(origin), connect_timeout: 2, read_timeout: 2 });
    const draft = { rules: RULES, pages: { "500_errors": { state: "customized", content: PAGE_500 } } };
    const results = await Promise.all(
      Object.values(FORMATS).map((accept) =>
        preview(zone, { draft, request: described(row, { headers: { ...row.headers, Accept: accept } }) }),
      ),
    );
    // Nothing stored: traffic still gets the defaults (or the origin's own response).
    const before = await exports.default.fetch(`http://${zone}${row.path}`, {
      ...cfOf(row),
      headers: trafficHeaders(row, "text/html"),
    });
    await before.body?.cancel();
    if (!("origin" in row.described && "status" in (row.described.origin as object)))
      expect(before.headers.get("Content-Security-Policy")).not.toBeNull();
    const saved = await apiFetch("GET", `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`);
    expect((await saved.json<Envelope<{ rules: unknown[] }>>()).result.rules).toEqual([]);
    // Saved, the same rules and page serve exactly what the draft showed.
    await configure(zone, RULES, true);
    for (const [i, [format, accept]] of (Object.entries(FORMATS) as [Format, string][]).entries()) {
      const result = results[i] as Preview;
      expect(result.draft).toBe(true);
      const real = await exports.default.fetch(`http://${zone}${row.path}`, {
        ...cfOf(row),
        headers: trafficHeaders(row, accept),
      });
      await expectSame(real, result.response, `${row.name}: ${format}`);
      expect(answered(result.response)).toBe(row.expected[format]);
    }
  });
});

describe("the trace: why a rule did or did not match", () => {
  it("every rule's outcome: disabled, skipped by the index (with the guard and the value seen), no-match, match, not reached", async () => {
    const zone = uniqueZone("trace");
    await putZone(zone, { origin: loopback(ports.closed) });
    await configure(zone, RULES, false);
    const result = await preview(zone, {
      request: { path: "/checkout", headers: { Accept: "text/markdown" }, origin: { failure: "refused" } },
    });
    const outcomes = result.trace.rules.map((r) => [r.index, r.outcome]);
    expect(outcomes).toEqual([
      [0, "disabled"],
      [1, "skipped-by-index"],
      [2, "no-match"],
      [3, "skipped-by-index"],
      [4, "no-match"],
      [5, "skipped-by-index"],
    ]);
    expect(result.trace.rules[5]?.reason).toBe(
      'the rule index left it out: it needs ip.src.country in {"DE"}, the request has no value',
    );
    expect(result.trace.rules[1]?.reason).toBe(
      'the rule index left it out: it needs http.request.uri.path in {"/admin"}, the request has "/checkout"',
    );
    expect(result.trace.rules[3]?.reason).toContain("it needs http.response.code in {503}, the request has 521");
    expect(result.trace.rules[2]?.fields).toEqual(["http.request.headers", "http.response.code"]);
    expect(result.trace.fields["http.request.uri.path"]).toBe("/checkout");
    expect(result.trace.fields["http.response.code"]).toBe(521);
    expect(result.trace.fields["http.request.headers"]).toEqual({ accept: ["text/markdown"] });
    expect(result.trace.steps).toEqual([
      { step: "rules", outcome: "no-match" },
      { step: "page", id: "500_errors", outcome: "not-customized" },
      { step: "default", outcome: "answered" },
    ]);
    expect(result.answered_by).toEqual({ kind: "default" });
    expect(result.error).toMatchObject({ kind: "generated", code: 521, status: 521 });
    expect(result.cost.budget).toBe(2_000_000); // a management run's budget (src/api/explain/turns.ts)
    expect(result.cost.units).toBe(result.trace.rules.reduce((n, r) => n + r.cost, 0));
    expect(result.trace.rules[2]?.cost).toBeGreaterThan(0); // `contains` on the Accept value is charged

    const admin = await preview(zone, { request: { path: "/admin", origin: { failure: "refused" } } });
    expect(admin.trace.rules.map((r) => r.outcome)).toEqual([
      "disabled",
      "match",
      "not-reached",
      "not-reached",
      "not-reached",
      "not-reached",
    ]);
    expect(admin.answered_by).toEqual({ kind: "rule", id: admin.trace.rules[1]?.id, index: 1 });
    expect(admin.trace.steps[0]).toEqual({ step: "rules", outcome: "answered" });
  });

  it("a rule over the evaluation budget says so, with the budget's reason; later rules still run", async () => {
    const zone = uniqueZone("trace-budget");
    await putZone(zone, { origin: loopback(ports.closed) });
    const heavy = serve('any(http.request.headers["x-big"][*] matches "a[ab]{998}w")', "heavy");
    const result = await preview(zone, {
      draft: { rules: [heavy, serve("true", "fallback")] },
      request: { headers: { "X-Big": "a".repeat(8000) }, code: 502 },
    });
    expect(result.trace.rules[0]).toMatchObject({ outcome: "over-budget" });
    expect(result.trace.rules[0]?.reason).toMatch(/units/);
    expect(result.trace.rules[1]).toMatchObject({ outcome: "match" });
    expect(result.response.body).toBe("fallback");
    // The field's value is shown cut to its bound, with its length.
    expect(JSON.stringify(result.trace.fields["http.request.headers"])).toContain("(8000 characters)");
  });

  it("a free zone: rules and pages not served, the steps say why; an origin response under 400 runs no rule", async () => {
    const zone = uniqueZone("trace-free");
    await putZone(zone, { plan: "pro", origin: loopback(ports.closed) });
    await configure(zone, RULES, true);
    await putZone(zone, { plan: "free", origin: loopback(ports.closed) });
    const free = await preview(zone, { request: { path: "/admin", code: 521 } });
    expect(free.answered_by).toEqual({ kind: "default" });
    expect(free.trace.steps[0]).toMatchObject({ step: "rules", outcome: "not-run" });
    expect(free.trace.rules.map((r) => r.outcome)).toEqual([
      "disabled",
      "not-reached",
      "not-reached",
      "not-reached",
      "not-reached",
      "not-reached",
    ]);

    const paid = await paidZone();
    await configure(paid, RULES, false);
    const ok = await preview(paid, {
      request: { path: "/", origin: { status: 200, body: "fine" } },
    });
    expect(ok.answered_by).toEqual({ kind: "origin" });
    expect(ok.response).toMatchObject({ status: 200, body: "fine" });
    expect(ok.trace.steps).toEqual([
      { step: "rules", outcome: "not-run", reason: "the origin's response is not an error (status < 400)" },
      { step: "origin", outcome: "passed-through" },
    ]);
  });

  it("client_ip and country reach the rules and the tokens, as CF-Connecting-IP and request.cf.country", async () => {
    const zone = await paidZone();
    const result = await preview(zone, {
      draft: {
        rules: [serve('ip.src.country eq "DE" and ip.src eq 192.0.2.1', "ip ::CLIENT_IP:: geo ::GEO::")],
      },
      request: { client_ip: "192.0.2.1", country: "DE", code: 1020 },
    });
    expect(result.response).toMatchObject({ status: 403, body: "ip 192.0.2.1 geo DE" });
    expect(result.trace.fields).toEqual({ "ip.src.country": "DE", "ip.src": "192.0.2.1" });
  });

  it("a page's HTML is shown whole below the bound, with its size", async () => {
    const zone = await paidZone();
    const big = PAGE_500.replace("<p>", `<p>${"x".repeat(300_000)}`);
    const result = await preview(zone, {
      draft: { pages: { "500_errors": { state: "customized", content: big } } },
      request: { code: 522 },
    });
    expect(result.response.answered_by).toEqual({ kind: "page", id: "500_errors" });
    expect(result.response.body_truncated).toBe(true);
    expect(result.response.body.length).toBe(262_144);
    expect(result.response.body_bytes).toBeGreaterThan(300_000);
  });
});

describe("overlay rules in a draft: run as traffic runs them", () => {
  const DETAIL = 'Down for "maintenance" </p><b>now</b>';
  const draft = {
    rules: [
      {
        expression: "http.response.code in {503 521}",
        action: "serve_error",
        action_parameters: { overlay: { detail: DETAIL } },
      },
      serve("http.response.code eq 503", "# Down", "text/markdown"),
    ],
  };

  it("a generated error: the overlay answers in every format; an origin's error: passed over, traced as a match", async () => {
    const zone = await paidZone();
    const generated = await preview(zone, { draft, request: { code: 521 } });
    expect(generated.answered_by).toMatchObject({ kind: "rule", index: 0 });
    for (const format of Object.keys(FORMATS) as Format[])
      expect(generated.responses[format].answered_by, format).toMatchObject({ kind: "rule", index: 0 });
    expect((JSON.parse(generated.responses.json.body) as Record<string, unknown>).detail).toBe(DETAIL);
    expect(generated.trace.rules.map((r) => r.outcome)).toEqual(["match", "not-reached"]);

    const origin = await preview(zone, { draft, request: { origin: { status: 503 } } });
    expect(origin.answered_by).toMatchObject({ kind: "rule", index: 1 });
    expect(origin.trace.rules.map((r) => r.outcome)).toEqual(["match", "match"]);
  });
});

async function paidZone(): Promise<string> {
  const zone = uniqueZone("paid");
  await putZone(zone, { origin: loopback(ports.closed) });
  return zone;
}
