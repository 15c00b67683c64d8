/**
 * What the client reads besides the 17 fields (docs/client.md "Headers read", "MCP", "Answers whose body is not
 * ours"): the `x-should-retry` verdict over every heuristic, `retry-after-ms` before `Retry-After`,
 * `request_reached_origin` and `Idempotency-Key` for non-idempotent retries, the RateLimit fields (waiting for the
 * reset of an exhausted quota), MCP error answers, a jitter that never comes before the hint, and the catalog the
 * package ships, which gives name, category and owner action for the code our `Proxy-Status` names when the body
 * is an operator's page.
 */
import fc from "fast-check";
import { parseList, serializeList, Token } from "structured-headers";
import { describe, expect, it } from "vitest";
import {
  CATALOG,
  decideRetry,
  fetchWithRetry,
  parse,
  parseMcpError,
  readHints,
  readRateLimit,
  type EdgeError,
} from "../src/index.js";
import { readKit } from "./support/kit.js";

interface Case {
  readonly code: number;
  readonly response: { readonly status: number; readonly headers: Record<string, string>; readonly body: string };
}

const json = readKit<Case>("json.json");
const caseOf = (code: number): Case => json.find((c) => c.code === code)!;
const bodyOf = (code: number): Record<string, unknown> =>
  JSON.parse(caseOf(code).response.body) as Record<string, unknown>;

/** The kit's JSON answer of `code`, with the body's members and the headers changed as given. */
function answer(
  code: number,
  change: { body?: Record<string, unknown>; headers?: Record<string, string>; raw?: string } = {},
): Response {
  const c = caseOf(code);
  const body = change.raw ?? JSON.stringify({ ...bodyOf(code), ...change.body });
  return new Response(body, { status: c.response.status, headers: { ...c.response.headers, ...change.headers } });
}

async function parsed(response: Response): Promise<EdgeError> {
  const e = await parse(response);
  expect(e).not.toBeNull();
  return e!;
}

const GET = { attempt: 1, method: "GET", status: 521 } as const;
const POST = { attempt: 1, method: "POST", status: 521 } as const;

describe("x-should-retry: the explicit verdict wins", () => {
  it("false over the body's retryable, Retry-After and the code's default", async () => {
    const e = await parsed(answer(521, { headers: { "x-should-retry": "false" } }));
    expect(e).toMatchObject({ retryable: false, retryAfter: null, retryAfterMs: null });
    expect(decideRetry(e, GET).kind).toBe("escalate"); // 521: the owner must act
  });

  it("true on an answer the heuristics call final", async () => {
    const e = await parsed(answer(1020, { headers: { "x-should-retry": "true", "retry-after-ms": "2000" } }));
    expect(e).toMatchObject({ retryable: true, retryAfterMs: 2000 });
    expect(decideRetry(e, { ...GET, status: 403 }, { random: () => 0 })).toEqual({
      kind: "retry",
      delayMs: 2000,
      reason: "1020",
    });
  });

  it("on a response that is not an edge error: false beats retryStatuses, true needs none", () => {
    const say = (value: string): Response =>
      new Response("busy", { status: 503, headers: { "x-should-retry": value } });
    const ctx = (r: Response) => ({ attempt: 1, method: "GET", status: 503, hints: readHints(r.headers) });
    expect(decideRetry(null, ctx(say("false")), { retryStatuses: [503] })).toEqual({
      kind: "give-up",
      reason: "x-should-retry: false",
    });
    expect(decideRetry(null, ctx(say("true")), { random: () => 0 }).kind).toBe("retry");
    expect(decideRetry(null, ctx(say("maybe"))).kind).toBe("give-up");
  });
});

describe("retry-after-ms", () => {
  it("is the wait, before Retry-After", async () => {
    const e = await parsed(answer(521, { headers: { "retry-after-ms": "120000" } }));
    expect(e).toMatchObject({ retryAfter: 120, retryAfterMs: 120_000 });
    const finer = await parsed(answer(521, { headers: { "retry-after-ms": "90500.2" } }));
    expect(finer.retryAfterMs).toBe(90_501);
    expect(decideRetry(finer, GET, { random: () => 0 })).toMatchObject({ kind: "retry", delayMs: 90_501 });
  });

  it("absent: Retry-After × 1000; malformed: ignored", async () => {
    expect((await parsed(answer(521))).retryAfterMs).toBe(120_000);
    expect((await parsed(answer(521, { headers: { "retry-after-ms": "-5" } }))).retryAfterMs).toBe(120_000);
  });
});

describe("jitter: positive only, never before the hint", () => {
  it("every random draw waits at least the hint and at most hint × (1 + jitter)", async () => {
    const e = await parsed(answer(521, { headers: { "retry-after-ms": "60000.4" } }));
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (r, jitter) => {
          const d = decideRetry(e, GET, { random: () => r, jitter });
          expect(d.kind).toBe("retry");
          if (d.kind !== "retry") return;
          expect(d.delayMs).toBeGreaterThanOrEqual(60_001);
          // hint + hint × jitter, not hint × (1 + jitter): `1 + jitter` rounds a jitter under 2^-53 away, while the
          // wait (hint + random × jitter × hint) keeps it and may round up to the next millisecond.
          expect(d.delayMs).toBeLessThanOrEqual(Math.ceil(60_001 + 60_001 * jitter));
        },
      ),
    );
  });
});

describe("request_reached_origin and Idempotency-Key", () => {
  it("a POST that never reached the origin is retried; one that did is not", async () => {
    const unsent = await parsed(answer(522, { body: { request_reached_origin: false } }));
    expect(unsent.requestReachedOrigin).toBe(false);
    expect(decideRetry(unsent, POST, { random: () => 0 })).toMatchObject({ kind: "retry", delayMs: 120_000 });
    const sent = await parsed(answer(524, { body: { request_reached_origin: true } }));
    expect(decideRetry(sent, POST)).toEqual({
      kind: "escalate",
      reason: "POST is not idempotent; the request reached the origin",
    });
    const unknown = await parsed(answer(520, { body: { request_reached_origin: null } }));
    expect(unknown.requestReachedOrigin).toBeNull();
    expect(decideRetry(unknown, POST).kind).not.toBe("retry");
  });

  it("an Idempotency-Key makes a POST retryable whatever reached the origin", async () => {
    const sent = await parsed(answer(524, { body: { request_reached_origin: true } }));
    expect(decideRetry(sent, { ...POST, idempotencyKey: true }, { random: () => 0 }).kind).toBe("retry");
  });

  it("Markdown frontmatter and the HTML island carry it", async () => {
    const md = readKit<Case>("markdown.json").find((c) => c.code === 522)!;
    // The kit's own member (the Worker sends it) is taken out first, so each value is the only one.
    const withMember = (text: string, value: string): string =>
      text
        .replace(/\nrequest_reached_origin: [^\n]*/, "")
        .replace(/\nwhat_you_should_do:/, `\nrequest_reached_origin: ${value}\nwhat_you_should_do:`);
    for (const [value, read] of [
      ["false", false],
      ["true", true],
      ["null", null],
    ] as const) {
      const res = new Response(withMember(md.response.body, value), md.response);
      expect((await parsed(res)).requestReachedOrigin, value).toBe(read);
    }
    const html = readKit<Case>("html.json").find((c) => c.code === 522)!;
    const island = html.response.body.replace('"footer":', '"request_reached_origin":false,"footer":');
    expect(island).not.toBe(html.response.body);
    expect((await parsed(new Response(island, html.response))).requestReachedOrigin).toBe(false);
  });
});

describe("RateLimit-Policy and RateLimit", () => {
  it("reads policies and limits; the tightest gives remaining and reset", () => {
    const headers = new Headers({
      "RateLimit-Policy": '"burst";q=100;w=60, daily;q=1000;w=86400;qu="requests"',
      RateLimit: '"burst";r=0;t=42, "daily";r=900;t=3600',
    });
    expect(readRateLimit(headers)).toEqual({
      policies: [
        { name: "burst", quota: 100, window: 60, unit: null },
        { name: "daily", quota: 1000, window: 86400, unit: "requests" },
      ],
      limits: [
        { policy: "burst", remaining: 0, reset: 42 },
        { policy: "daily", remaining: 900, reset: 3600 },
      ],
      remaining: 0,
      reset: 42,
    });
  });

  it("agrees with structured-headers on every list of well-formed members", () => {
    const member = fc.record({
      name: fc.stringMatching(/^[a-z][a-z0-9_-]{0,10}$/),
      r: fc.integer({ min: 0, max: 1_000_000 }),
      t: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: null }),
      token: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(member, { minLength: 1, maxLength: 5 }), (members) => {
        const field = serializeList(
          members.map((m) => {
            const params = new Map<string, number>([["r", m.r]]);
            if (m.t !== null) params.set("t", m.t);
            return [m.token ? new Token(m.name) : m.name, params];
          }),
        );
        const theirs = parseList(field).map(([value, params]) => ({
          policy: value instanceof Token ? value.toString() : (value as string),
          remaining: params.get("r"),
          reset: params.get("t") ?? null,
        }));
        expect(readRateLimit(new Headers({ RateLimit: field }))?.limits).toEqual(theirs);
      }),
    );
  });

  it("ignores malformed fields and members (draft-ietf-httpapi-ratelimit-headers §5: MUST be ignored)", () => {
    expect(readRateLimit(new Headers({ RateLimit: "limit=100, remaining=0" }))).toBeNull();
    expect(readRateLimit(new Headers({ RateLimit: '"a";r=-1;t=3, "b";r=2;t=1.5, "c";r=4' }))?.limits).toEqual([
      { policy: "c", remaining: 4, reset: null },
    ]);
    expect(readRateLimit(new Headers({ "RateLimit-Policy": '"a";w=60, "b";q=1;w=0' }))).toBeNull();
    expect(readRateLimit(new Headers())).toBeNull();
  });

  it("an exhausted quota (r=0) is waited out, even past a shorter hint", async () => {
    const e = await parsed(answer(1015, { headers: { RateLimit: '"per-ip";r=0;t=42', "Retry-After": "30" } }));
    expect(e.rateLimit).toMatchObject({ remaining: 0, reset: 42 });
    expect(decideRetry(e, { ...GET, status: 429 }, { random: () => 0 })).toMatchObject({ delayMs: 42_000 });
    // Not exhausted: the hint alone.
    const left = await parsed(answer(1015, { headers: { RateLimit: '"per-ip";r=3;t=42', "Retry-After": "30" } }));
    expect(decideRetry(left, { ...GET, status: 429 }, { random: () => 0 })).toMatchObject({ delayMs: 30_000 });
  });

  it("an origin's own 429 with r=0 is waited out when its status is retried", () => {
    const res = new Response("slow down", { status: 429, headers: { RateLimit: '"api";r=0;t=5' } });
    const ctx = { attempt: 1, method: "GET", status: 429, hints: readHints(res.headers) };
    expect(decideRetry(null, ctx, { retryStatuses: [429], random: () => 0 })).toMatchObject({ delayMs: 5000 });
  });

  it("fetchWithRetry hands a success's remaining and reset to the caller", async () => {
    const ok = new Response("fine", { headers: { "RateLimit-Policy": '"p";q=10;w=60', RateLimit: '"p";r=7;t=12' } });
    const result = await fetchWithRetry("http://client.test/", {}, { fetch: async () => ok });
    expect(result.rateLimit).toMatchObject({ remaining: 7, reset: 12 });
  });
});

describe("MCP error answers (parseMcpError)", () => {
  const problem = { ...bodyOf(521), request_reached_origin: false };

  it("a tools/call result with isError and the problem as structuredContent", () => {
    const message = {
      jsonrpc: "2.0",
      id: 7,
      result: { isError: true, content: [{ type: "text", text: "Error 521" }], structuredContent: problem },
    };
    for (const input of [message, JSON.stringify(message), message.result]) {
      expect(parseMcpError(input)).toMatchObject({
        kind: "edge-error",
        source: "mcp-tool-result",
        status: 521,
        code: 521,
        name: "origin_down",
        category: "origin",
        retryable: true,
        retryAfter: 120,
        retryAfterMs: 120_000,
        ownerActionRequired: true,
        requestReachedOrigin: false,
      });
    }
    // A POST (every MCP call is one) that never reached the origin may be retried.
    const e = parseMcpError(message)!;
    expect(decideRetry(e, { attempt: 1, method: "POST", status: 200 }, { random: () => 0 }).kind).toBe("retry");
  });

  it("a JSON-RPC error with the problem in error.data, or the error object an SDK throws", () => {
    // -32050: the service's code in JSON-RPC 2.0's server-error range (§5.1).
    const error = { code: -32050, message: "Error 521: Web server is down", data: problem };
    expect(parseMcpError({ jsonrpc: "2.0", id: 1, error })).toMatchObject({ source: "mcp-error", code: 521 });
    expect(parseMcpError(error)).toMatchObject({ source: "mcp-error", code: 521 });
    // A batch's answers: the first edge error.
    const batch = [
      { jsonrpc: "2.0", id: 1, result: { tools: [] } },
      { jsonrpc: "2.0", id: 2, error },
    ];
    expect(parseMcpError(JSON.stringify(batch))).toMatchObject({ source: "mcp-error", code: 521 });
  });

  it("anything else is null", () => {
    expect(parseMcpError({ jsonrpc: "2.0", id: 1, result: { content: [] } })).toBeNull();
    expect(parseMcpError({ jsonrpc: "2.0", id: 1, result: { isError: true, structuredContent: { a: 1 } } })).toBeNull();
    expect(parseMcpError({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "no such method" } })).toBeNull();
    expect(parseMcpError("not json")).toBeNull();
    expect(parseMcpError(null)).toBeNull();
    expect(parseMcpError([])).toBeNull();
  });
});

describe("answers whose body is not ours: Proxy-Status and the shipped catalog", () => {
  /** An operator's page that looks like the platform's legacy page ("Error 500", "Ray ID", the platform's name). */
  const shopPage =
    "<!doctype html><html><head><title>Error 500 | Shop</title></head><body><h1>Error 500</h1>" +
    "<p>Our shop is having trouble (served by Cloudflare). Ray ID: 0123456789abcdef</p></body></html>";

  it("our Proxy-Status wins over the legacy-page heuristic: name, category, owner action from the catalog", async () => {
    const res = answer(520, { raw: shopPage, headers: { "content-type": "text/html; charset=utf-8" } });
    const e = await parsed(res);
    expect(e).toMatchObject({
      source: "proxy-status",
      code: 520,
      name: "origin_unknown_error",
      category: "origin",
      ownerActionRequired: true,
      retryable: true,
      retryAfter: 60,
    });
    // The agent retries, then escalates: the owner must act.
    expect(decideRetry(e, { ...GET, status: 520, attempt: 3 })).toMatchObject({ kind: "escalate" });
  });

  it("an operator's plain text too; without our Proxy-Status the legacy page is still read", async () => {
    const text = answer(520, { raw: "Sorry, JSON clients: try later.", headers: { "content-type": "text/plain" } });
    expect(await parsed(text)).toMatchObject({ source: "proxy-status", code: 520, ownerActionRequired: true });
    const legacy = new Response(shopPage, { status: 500, headers: { "content-type": "text/html" } });
    expect(await parsed(legacy)).toMatchObject({ source: "legacy-html", code: 500, ownerActionRequired: null });
  });

  it("the catalog is the Worker's: every code's name, category, owner action and retry value", () => {
    const fromWorker = json.map((c) => {
      const b = JSON.parse(c.response.body) as Record<string, unknown>;
      return {
        code: b.error_code,
        name: b.error_name,
        category: b.error_category,
        ownerActionRequired: b.owner_action_required,
        retryAfter: b.retry_after ?? null,
      };
    });
    expect([...CATALOG.values()]).toEqual(fromWorker);
  });
});
