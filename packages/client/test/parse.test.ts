/**
 * `parse` against the conformance kit (generated from the Worker by `npm run conformance`): every catalog code ×
 * every format gives the value the JSON body gives, ray and timestamp included; the legacy bodies; `null` for an
 * origin's own errors; the RFC 8941 parser against `structured-headers`; the retry table against the Worker's JSON.
 */
import { readFileSync } from "node:fs";
import { parseList, Token } from "structured-headers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse, parseMcpError, parseSfList, parseStreamError, RETRY_DEFAULTS, retryAfterHeader } from "../src/index.js";
import { readKit } from "./support/kit.js";

interface Case {
  readonly code: number;
  readonly request: { readonly method: string; readonly accept: string };
  readonly response: { readonly status: number; readonly headers: Record<string, string>; readonly body: string };
  readonly expected: Record<string, unknown>;
}

const FORMATS = ["json", "problem-json", "markdown", "html", "head"] as const;
const kit = Object.fromEntries(FORMATS.map((f) => [f, readKit<Case>(`${f}.json`)])) as Record<
  (typeof FORMATS)[number],
  Case[]
>;

function responseOf(c: Case): Response {
  const body = c.request.method === "HEAD" ? null : c.response.body;
  return new Response(body, { status: c.response.status, headers: c.response.headers });
}

describe("the conformance kit (generated from the Worker)", () => {
  it("covers every code in every format", () => {
    const codes = kit.json.map((c) => c.code);
    expect(codes.length).toBeGreaterThan(60);
    for (const format of FORMATS) expect(kit[format].map((c) => c.code)).toEqual(codes);
  });

  for (const format of FORMATS) {
    it(`${format}: parse gives the expected value for every code`, async () => {
      for (const c of kit[format]) {
        const parsed = await parse(responseOf(c));
        expect(parsed, `${format} ${c.code}`).not.toBeNull();
        const { proxyStatus, ...rest } = parsed!;
        expect(rest, `${format} ${c.code}`).toEqual(c.expected);
        expect(proxyStatus?.name).toBe("edge-errors");
      }
    });
  }

  it("JSON and problem+json give the JSON body's 17 fields exactly", async () => {
    for (const c of [...kit.json, ...kit["problem-json"]]) {
      expect((await parse(responseOf(c)))?.fields).toEqual(JSON.parse(c.response.body));
    }
  });

  it("a body this package cannot read still yields the error from Proxy-Status", async () => {
    const c = kit.json.find((x) => x.code === 1020)!;
    const res = new Response("garbage", { status: 403, headers: c.response.headers });
    expect(await parse(res)).toMatchObject({ source: "proxy-status", code: 1020, retryable: false });
  });

  it("RETRY_DEFAULTS is the Worker's retry table: every retryable code with its retry_after, nothing else", () => {
    const fromWorker = Object.fromEntries(
      kit.json
        .map((c) => JSON.parse(c.response.body) as { error_code: number; retry_after?: number })
        .filter((f) => f.retry_after !== undefined)
        .map((f) => [f.error_code, f.retry_after]),
    );
    expect(RETRY_DEFAULTS).toEqual(fromWorker);
  });
});

describe("errors overlaid by a custom error rule (the kit's overlay.json)", () => {
  const overlaid = readKit<Case>("overlay.json");

  it("covers two codes in every format", () => {
    expect(overlaid).toHaveLength(2 * FORMATS.length);
  });

  it("parse gives the expected value, the overlay's texts and links included", async () => {
    for (const c of overlaid) {
      const parsed = await parse(responseOf(c));
      expect(parsed, `${c.request.accept} ${c.request.method} ${c.code}`).not.toBeNull();
      const { proxyStatus, ...rest } = parsed!;
      expect(rest, `${c.request.accept} ${c.request.method} ${c.code}`).toEqual(c.expected);
      expect(proxyStatus?.name).toBe("edge-errors");
      if (c.request.method === "GET") {
        expect(parsed!.fields.links).toEqual([
          { title: "Status page", href: "https://status.shop.example/" },
          { title: "Contact [support]", href: "https://shop.example/contact?from=error" },
        ]);
        expect(parsed!.fields.detail).toContain('<b>Thank you</b> for your patience & "understanding".');
      }
    }
  });

  it("a frontmatter `links` that is not a list of {title, href} is not read as links", async () => {
    const c = overlaid.find((x) => x.response.headers["content-type"]?.startsWith("text/markdown"))!;
    const broken = c.response.body.replace('    href: "https://status.shop.example/"\n', "");
    const parsed = await parse(new Response(broken, { status: c.response.status, headers: c.response.headers }));
    expect(parsed?.source).toBe("markdown");
    expect(parsed?.fields.links).toBeUndefined();
  });
});

const legacy = JSON.parse(readFileSync(new URL("./fixtures/legacy.json", import.meta.url), "utf8")) as {
  text: { status: number; contentType: string; body: string; code: number }[];
  html: { status: number; body: string; code: number; rayId: string }[];
  notEdge: { status: number; contentType: string; body: string }[];
};

describe("the published platform's legacy bodies", () => {
  it.each(legacy.text)("text/plain $body", async (c) => {
    const parsed = await parse(new Response(c.body, { status: c.status, headers: { "Content-Type": c.contentType } }));
    expect(parsed).toMatchObject({ source: "legacy-text", code: c.code, ownerActionRequired: null });
    expect(parsed?.retryable).toBe(c.code in RETRY_DEFAULTS);
  });

  it.each(legacy.html)("HTML page of $code", async (c) => {
    const parsed = await parse(new Response(c.body, { status: c.status, headers: { "Content-Type": "text/html" } }));
    expect(parsed).toMatchObject({ source: "legacy-html", code: c.code, rayId: c.rayId });
  });

  it.each(legacy.notEdge)("an origin's own $status is not an edge error", async (c) => {
    expect(
      await parse(new Response(c.body, { status: c.status, headers: { "Content-Type": c.contentType } })),
    ).toBeNull();
  });

  it("a success is not an edge error", async () => {
    expect(await parse(new Response("{}", { status: 200 }))).toBeNull();
  });

  it("Retry-After as an HTTP-date counts from now; unreadable is null", () => {
    const now = Date.parse("2026-11-23T10:00:00Z");
    expect(retryAfterHeader("Mon, 23 Nov 2026 10:00:20 GMT", now)).toBe(20);
    expect(retryAfterHeader("Mon, 23 Nov 2026 09:00:00 GMT", now)).toBe(0);
    expect(retryAfterHeader("soon", now)).toBeNull();
    expect(retryAfterHeader("120", now)).toBe(120);
  });
});

describe("the RFC 8941 list parser", () => {
  it("reads every Proxy-Status of the kit as structured-headers does", () => {
    for (const c of kit.head) {
      const header = c.response.headers["proxy-status"]!;
      const ours = parseSfList(header)!;
      const theirs = parseList(header);
      expect(ours).toHaveLength(theirs.length);
      const [name, params] = theirs[0] as [Token, Map<string, unknown>];
      const first = ours[0]!;
      expect(first.kind).toBe("item");
      if (first.kind !== "item") continue;
      expect(first.value).toEqual({ kind: "token", value: name.toString() });
      expect(first.params.get("details")).toBe(params.get("details"));
      expect((first.params.get("error") as { value: string }).value).toBe(String(params.get("error")));
    }
  });

  it("accepts what structured-headers accepts and refuses what it refuses (tokens, strings, params)", () => {
    const member = fc
      .tuple(
        fc.oneof(fc.stringMatching(/^[a-z][a-z0-9_.-]{0,8}$/), fc.stringMatching(/^"[ -!#-[\]-~]{0,6}"$/)),
        fc.array(
          fc.tuple(
            fc.stringMatching(/^[a-z][a-z0-9_]{0,5}$/),
            fc.stringMatching(/^(?:\d{1,4}|\?[01]|[a-z]{1,4}|"[a-z ]{0,4}")$/),
          ),
        ),
      )
      .map(([item, ps]) => item + ps.map(([k, v]) => `;${k}=${v}`).join(""));
    fc.assert(
      fc.property(
        fc.array(member, { minLength: 1, maxLength: 3 }),
        fc.constantFrom(", ", ",", " ,"),
        (members, sep) => {
          const header = members.join(sep);
          let theirs: unknown = null;
          try {
            theirs = parseList(header);
          } catch {
            theirs = null;
          }
          const ours = parseSfList(header);
          expect(ours === null).toBe(theirs === null);
        },
      ),
    );
  });
});

interface AgentCase {
  readonly name: string;
  readonly response: { readonly status: number; readonly headers: Record<string, string>; readonly body: string };
  readonly reader: "parse" | "parseMcpError" | "parseStreamError";
  readonly expected: Record<string, unknown> | null;
}

describe("the kit's rate limits, MCP answers and broken streams (generated from the Worker)", () => {
  it.each(["rate-limit.json", "mcp.json", "stream.json"])("%s: each reader gives the expected value", async (file) => {
    const cases = readKit<AgentCase>(file);
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) {
      const res = new Response(c.response.body, { status: c.response.status, headers: c.response.headers });
      let read: unknown;
      if (c.reader === "parse") read = await parse(res);
      else if (c.reader === "parseMcpError") read = parseMcpError(c.response.body);
      else {
        // The data of the final `event: error`, or the last NDJSON line: what an SSE parser or a line reader gives.
        const sse = /event: error\n(?:retry: \d+\n)?data: (.*)\n/.exec(c.response.body)?.[1];
        read = parseStreamError(sse ?? c.response.body.trim().split("\n").at(-1) ?? "");
      }
      if (c.expected === null) expect(read, c.name).toBeNull();
      else expect(read, c.name).toMatchObject(c.expected);
    }
  });

  it("rate-limit.json: the block's RateLimit fields are read", async () => {
    const blocked = readKit<AgentCase>("rate-limit.json").find((c) => c.response.status === 429)!;
    const read = await parse(new Response(blocked.response.body, blocked.response));
    expect(read?.rateLimit).toMatchObject({ remaining: 0, reset: Number(blocked.response.headers["retry-after"]) });
  });
});
