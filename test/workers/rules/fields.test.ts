/**
 * Field extractors against real Request objects (docs/rules-language.md): each field's value, its source, laziness and
 * memoisation, aliases, and the request-phase subset.
 */
import { describe, expect, it } from "vitest";
import {
  compile,
  customErrorFields,
  requestFields,
  type ErrorInfo,
  type FieldSet,
  type RuleInput,
} from "../../../src/rules";

function matches(set: FieldSet, expression: string, input: RuleInput): boolean {
  const rule = compile(expression, set.scheme);
  if (!rule.ok) throw new Error(`${rule.error.kind}: ${rule.error.message}`);
  return rule.value.matches(set.context(input));
}

const error503: ErrorInfo = {
  status: 503,
  code1xxx: 0,
  errorType: "5xx",
  responseHeaders: new Headers({ "Retry-After": "120", "Content-Type": "text/html" }),
};

function request(url: string, headers: Record<string, string> = {}, cf?: Record<string, unknown>): Request {
  const init: RequestInit = { headers };
  // `cf` is readable in workerd when passed in the init (it is how the runtime exposes request.cf).
  return new Request(url, cf ? { ...init, cf } : init);
}

describe("custom error fields", () => {
  const req = request(
    "https://Shop.Example.com/Blog/Post.HTML?q=a%20b&q=2&x",
    {
      "User-Agent": "Mozilla/5.0 Googlebot/2.1",
      Accept: "application/json",
      Cookie: "sid=1",
      "CF-Connecting-IP": "203.0.113.7",
      "X-Forwarded-For": "198.51.100.1",
    },
    { country: "GB", asn: 13335 },
  );
  const input: RuleInput = { request: req, error: error503 };

  it.each([
    ['http.host == "shop.example.com"', true],
    ['http.request.method == "GET"', true],
    ['http.request.uri == "/Blog/Post.HTML?q=a%20b&q=2&x"', true],
    ['http.request.uri.path == "/Blog/Post.HTML"', true],
    ['http.request.uri.query == "q=a%20b&q=2&x"', true],
    ['http.request.full_uri == "https://shop.example.com/Blog/Post.HTML?q=a%20b&q=2&x"', true],
    ['http.request.uri.args["q"][0] == "a%20b" and http.request.uri.args["q"][1] == "2"', true],
    ['http.request.uri.args["x"][0] == ""', true],
    ['http.request.headers["accept"][0] == "application/json"', true],
    ['http.request.headers["Accept"][0] == "application/json"', false],
    ['any(http.request.headers.names[*] == "user-agent")', true],
    ['any(http.request.headers.values[*] contains "Googlebot")', true],
    ['http.user_agent contains "Googlebot"', true],
    ['http.referer == ""', true],
    ['http.cookie == "sid=1"', true],
    ["ip.src == 203.0.113.7", true],
    ["ip.src in { 198.51.100.0/24 }", false],
    ['ip.src.country == "GB"', true],
    ["ip.src.asnum == 13335", true],
    ["ssl", true],
    ["true", true],
    ["http.response.code == 503", true],
    ["edge.response.1xxx_code == 0", true],
    ["cf.response.1xxx_code == 0", true],
    ['edge.response.error_type == "5xx"', true],
    ['cf.response.error_type in {"1xxx" "5xx"}', true],
    ['http.response.headers["retry-after"][0] == "120"', true],
    ['http.response.code in {500..599} and lower(http.request.uri.path) ends_with ".html"', "error"],
    ['http.response.code in {500..599} and ends_with(lower(http.request.uri.path), ".html")', true],
  ] as const)("%s → %s", (expression, expected) => {
    if (expected === "error") {
      expect(compile(expression, customErrorFields.scheme).ok).toBe(false);
      return;
    }
    expect(matches(customErrorFields, expression, input)).toBe(expected);
  });

  it("takes ip.src only from CF-Connecting-IP, validated", () => {
    const spoofed = request("https://a.example/", { "X-Forwarded-For": "203.0.113.7" });
    expect(matches(customErrorFields, "ip.src == 203.0.113.7", { request: spoofed, error: error503 })).toBe(false);
    expect(matches(customErrorFields, "not ip.src in {0.0.0.0/0 ::/0}", { request: spoofed, error: error503 })).toBe(
      true,
    );
    const invalid = request("https://a.example/", { "CF-Connecting-IP": "203.0.113.7, 10.0.0.1" });
    expect(matches(customErrorFields, "ip.src == 203.0.113.7", { request: invalid, error: error503 })).toBe(false);
    const v6 = request("https://a.example/", { "CF-Connecting-IP": "2001:db8::1" });
    expect(matches(customErrorFields, "ip.src in {2001:db8::/32}", { request: v6, error: error503 })).toBe(true);
  });

  it("gives missing geo fields when request.cf is absent (every comparison false, != included)", () => {
    const plain = request("http://a.example/");
    const base = { request: plain, error: error503 };
    expect(matches(customErrorFields, 'ip.src.country == "GB"', base)).toBe(false);
    expect(matches(customErrorFields, 'ip.src.country != "GB"', base)).toBe(false);
    expect(matches(customErrorFields, "ip.src.asnum != 1", base)).toBe(false);
    expect(matches(customErrorFields, "ssl", base)).toBe(false);
  });

  it("reports 1xxx errors", () => {
    const input1xxx: RuleInput = {
      request: request("https://a.example/"),
      error: { status: 403, code1xxx: 1020, errorType: "1xxx" },
    };
    expect(matches(customErrorFields, "cf.response.1xxx_code eq 1020 and http.response.code eq 403", input1xxx)).toBe(
      true,
    );
    expect(matches(customErrorFields, 'len(http.response.headers["x"]) >= 0', input1xxx)).toBe(false);
  });

  it("computes a field only when a rule reads it, and once per evaluation", () => {
    let urlReads = 0;
    let headerReads = 0;
    const real = request("https://a.example/p", { "User-Agent": "x" });
    const counted = new Proxy(real, {
      get(target, prop) {
        if (prop === "url") urlReads++;
        if (prop === "headers") headerReads++;
        const v: unknown = Reflect.get(target, prop, target);
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const ctx = customErrorFields.context({ request: counted, error: error503 });
    const rules = [
      "http.response.code == 503",
      'http.request.uri.path == "/p"',
      'http.request.uri.path contains "p"',
      'http.host == "a.example"',
    ].map((source) => {
      const r = compile(source, customErrorFields.scheme);
      if (!r.ok) throw new Error(r.error.message);
      return r.value;
    });
    expect(rules[0]?.matches(ctx)).toBe(true);
    expect(urlReads + headerReads).toBe(0);
    for (const rule of rules) expect(rule.matches(ctx)).toBe(true);
    expect(urlReads).toBe(1);
    expect(headerReads).toBe(0);
  });
});

describe("request-phase fields", () => {
  it("lack http.response.* and edge.response.* (docs/rules-language.md)", () => {
    for (const name of [
      "http.response.code",
      "edge.response.1xxx_code",
      "cf.response.error_type",
      "http.response.headers",
    ]) {
      const r = compile(`${name} == 1`, requestFields.scheme);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.kind).toBe("unknown-identifier");
    }
  });

  it("evaluate request fields without error info", () => {
    const req = request("http://a.example/login", { "CF-Connecting-IP": "192.0.2.1" });
    expect(
      matches(requestFields, 'http.request.uri.path == "/login" and ip.src in {192.0.2.0/24} and not ssl', {
        request: req,
      }),
    ).toBe(true);
  });
});
