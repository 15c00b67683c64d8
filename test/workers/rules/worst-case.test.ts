/**
 * The static worst case of a request-phase rule (src/rules/worst-case.ts; docs/rules-language.md "Evaluation
 * budget") bounds what the engine charges: on random requests within the zone's header limit and the model's URL
 * limit (padded headers, non-ASCII bytes, characters the URL normalisation encodes, long queries), what one
 * evaluation spends is never more than its worst case. Also: the bounded DFA of every regex (regex.ts), and the
 * figures the docs quote.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile, requestFields, RequestBudget } from "../../../src/rules";
import { boundDfa, compileRegex, REGEX_DFA_MEMORY, REGEX_DFA_STATES, regexUnits } from "../../../src/rules/regex";
import { fieldBound, URL_BYTES, worstCase } from "../../../src/rules/worst-case";
import { headerSectionBytes } from "../../../src/edge/origin/headers";
import { RuleUrl } from "../../../src/shared/rule-url";
import type { UrlNormalization } from "../../../src/shared/url-normalise";
import { RE2JS } from "re2js";

const HEADER_LIMIT = 8 * 1024;

const EXPRESSIONS = [
  'http.user_agent matches "(?i)(sqlmap|nikto|nmap)"',
  'http.user_agent contains "x" or http.cookie wildcard "*a*b*"',
  "lower(http.user_agent) eq upper(http.referer)",
  'url_decode(http.request.uri.query, "ur") contains "<"',
  'url_decode(raw.http.request.uri.path, "r") matches "\\\\.\\\\./"',
  'any(lower(http.request.headers.values[*])[*] contains "a")',
  'all(http.request.headers.names[*] matches "^[a-z-]+$")',
  'any(http.request.headers[*][*] contains "z")',
  "len(concat(http.user_agent, http.cookie, http.referer)) > 10",
  'concat(http.request.headers.values, http.request.headers.names)[0] eq "a"',
  'coalesce(http.request.headers["x-a"][0], http.user_agent, "none") contains "q"',
  "substring(http.request.full_uri, 3, -2) eq raw.http.request.full_uri",
  'join(http.request.headers.values, ", ") contains "b"',
  'any(split(http.cookie, ";", 128)[*] contains "=")',
  'remove_bytes(http.user_agent, "ab") eq http.referer',
  'lookup_json_string(http.cookie, "a", 0) eq "x" or lookup_json_integer(http.referer, "n") eq 3',
  'starts_with(http.request.uri, "/a") and ends_with(http.request.uri.path, "z")',
  'any(http.request.uri.args[*][*] contains "=") or http.request.uri.args["q"][0] eq "1"',
  'any(concat(http.request.uri.args["q"][*], "-x")[*] matches "a+-x")',
  'any(coalesce(http.request.headers["x-a"][*], "d")[*] eq "d")',
  'http.request.uri.path ne raw.http.request.uri.path and http.host eq "z.example"',
  'http.request.method in {"GET" "POST"} and ip.src.country ne "KP" and ssl',
  'any(url_decode(http.request.headers.values[*])[*] wildcard "*%*")',
  'len(http.request.headers.names) > 3 and len(split(http.user_agent, " ", 8)) > 1',
  'join(split(http.cookie, ";", 128), http.request.method) contains "GET"',
];

/**
 * ASCII only: workerd logs a warning for every non-ASCII header value a Request is built with (it encodes it as
 * UTF-8), so the UTF-8 growth of a header is tested once, below. In paths, `|` and `^` grow to 3 when normalised.
 */
const HEADER_CHARS = fc.constantFrom("a", "b", "z", " ", "=", ";", "%", "{", '"', "1", "|");
const PATH_CHARS = fc.constantFrom("a", "b", "/", "|", "^", "%", "%2", "%41", "..", ".", "z", "\\", "~");
const QUERY_CHARS = fc.constantFrom("a", "q", "=", "&", "%", "1", "-", "x");

const requestArb = fc.record({
  headers: fc.array(
    fc.tuple(
      fc.constantFrom("user-agent", "cookie", "referer", "x-a", "x-b", "accept", "a"),
      fc.array(HEADER_CHARS, { maxLength: 3000 }),
    ),
    { maxLength: 8 },
  ),
  /** The field padded until the header section is exactly the limit: the largest request the zone accepts. */
  pad: fc.constantFrom("user-agent", "cookie", "referer", "x-a", "x-pad"),
  padChar: HEADER_CHARS,
  path: fc.array(PATH_CHARS, { maxLength: 2000 }),
  query: fc.array(QUERY_CHARS, { maxLength: 3000 }),
  /** Then the path is padded with `|` (kept by the URL parser, 3 bytes once normalised) to this share of the URL limit. */
  pathShare: fc.double({ min: 0, max: 1, noNaN: true }),
  normalization: fc.constantFrom<UrlNormalization>(
    { scope: "incoming", type: "cloudflare" },
    { scope: "incoming", type: "rfc3986" },
    { scope: "none", type: "cloudflare" },
  ),
});

/** A request built from `requestArb`: its header section exactly `limit` bytes, its URL at most `URL_BYTES` as sent. */
function build(r: typeof requestArb extends fc.Arbitrary<infer T> ? T : never, limit: number): Request | null {
  const fields = new Headers();
  for (const [name, chars] of r.headers) fields.append(name, chars.join(""));
  const kept = [...fields];
  while (headerSectionBytes(fields) > limit && kept.length > 0) fields.delete(kept.pop()![0]);
  const room = limit - headerSectionBytes(fields) - (fields.has(r.pad) ? 0 : r.pad.length + 4);
  if (room < 0) return null;
  fields.set(r.pad, (fields.get(r.pad) ?? "") + r.padChar.repeat(room));
  if (headerSectionBytes(fields) !== limit) return null;
  let path = r.path.join("").slice(0, URL_BYTES / 2);
  const query = r.query.join("").slice(0, URL_BYTES / 4);
  const base = "/".length + "?".length;
  path += "|".repeat(Math.max(0, Math.floor((URL_BYTES - base - path.length - query.length) * r.pathShare)));
  const url = `https://z.example/${path}?${query}`;
  return new Request(url, { headers: fields });
}

describe("the worst case bounds what an evaluation charges", () => {
  const rules = EXPRESSIONS.map((source) => {
    const rule = compile(source, requestFields.scheme);
    if (!rule.ok) throw new Error(`${source}: ${rule.error.message}`);
    const cost = worstCase(rule.value, { headerBytes: HEADER_LIMIT });
    if (cost.kind !== "bounded") throw new Error(`${source}: ${cost.reason}`);
    return { source, rule: rule.value, units: cost.units };
  });

  it(`on random requests within a ${HEADER_LIMIT}-byte header limit, every expression spends at most its worst case`, () => {
    let evaluated = 0;
    fc.assert(
      fc.property(requestArb, (r) => {
        const request = build(r, HEADER_LIMIT);
        if (request === null) return;
        evaluated++;
        const url = new URL(request.url);
        const ruleUrl = new RuleUrl(url, "z.example", r.normalization);
        for (const { source, rule, units } of rules) {
          const ctx = requestFields.context({ request, url, ruleUrl }, new RequestBudget(Infinity));
          const outcome = rule.evaluate(ctx);
          expect(outcome.kind, source).not.toBe("over-budget");
          expect(ctx.spent, source).toBeLessThanOrEqual(units);
        }
      }),
      { numRuns: 100 },
    );
    expect(evaluated).toBeGreaterThan(50);
  });

  it("a header padded to the limit: the User-Agent's worst case is reached by the scanner rule, not passed", () => {
    const scanner = compile(
      'http.user_agent matches "(?i)(sqlmap|nikto|nmap|masscan|zgrab|nuclei|dirbuster|gobuster|wpscan|acunetix)"',
      requestFields.scheme,
    );
    if (!scanner.ok) throw new Error(scanner.error.message);
    // The figure docs/rules-language.md quotes: on the default 32 KiB limit, 2,751,997 units.
    expect(worstCase(scanner.value, { headerBytes: 32 * 1024 })).toEqual({ kind: "bounded", units: 2_751_997 });
    const ua = "sqlmap/1.7 " + "a".repeat(32 * 1024 - "user-agent".length - 4 - 11);
    const request = new Request("https://z.example/", { headers: { "User-Agent": ua } });
    expect(headerSectionBytes(request.headers)).toBe(32 * 1024);
    const ctx = requestFields.context({ request }, new RequestBudget(Infinity));
    expect(scanner.value.evaluate(ctx).kind).toBe("match");
    expect(ctx.spent).toBe(2_751_997);
  });
});

describe("non-ASCII header values", () => {
  it("count as the UTF-8 bytes rules read: a header of 2-byte characters is measured at its bytes", () => {
    // One value of 10 × "é" (U+00E9): 10 characters, 20 bytes as rules and the origin get it.
    const request = new Request("https://z.example/", { headers: { "User-Agent": "é".repeat(10) } });
    expect(headerSectionBytes(request.headers)).toBe("user-agent".length + 20 + 4);
    const rule = compile('http.user_agent contains "x"', requestFields.scheme);
    if (!rule.ok) throw new Error(rule.error.message);
    const ctx = requestFields.context({ request }, new RequestBudget(Infinity));
    rule.value.evaluate(ctx);
    expect(ctx.spent).toBe(20);
    const limit = headerSectionBytes(request.headers);
    expect(worstCase(rule.value, { headerBytes: limit })).toEqual({ kind: "bounded", units: 20 });
  });
});

describe("field bounds", () => {
  it("headers by the zone's limit, URL fields by 3 × the URL limit, small fields by their own", () => {
    const limits = { headerBytes: 32 * 1024 };
    expect(fieldBound("http.user_agent", limits)).toEqual({ bytes: 32 * 1024 - 14, items: 1 });
    expect(fieldBound("http.cookie", limits)).toEqual({ bytes: 32 * 1024 - 10, items: 1 });
    expect(fieldBound("http.request.headers", limits)).toEqual({ bytes: 32 * 1024, items: 6553 });
    expect(fieldBound("http.request.uri.path", limits)).toEqual({ bytes: 3 * URL_BYTES, items: 1 });
    expect(fieldBound("http.request.full_uri", limits)).toEqual({ bytes: 8 + 253 + 3 * URL_BYTES, items: 1 });
    expect(fieldBound("http.host", limits)).toEqual({ bytes: 253, items: 1 });
    expect(fieldBound("http.response.code", limits)).toBeNull();
  });

  it("a rule on a response field (custom errors only) has no worst case", () => {
    const rule = compile('http.response.headers["x"][0] contains "a"', requestFields.scheme);
    expect(rule.ok).toBe(false);
  });
});

describe("every regex's DFA is bounded (regex.ts)", () => {
  /**
   * Random a/b text: `a[ab]{20}w` needs a new DFA state for nearly every byte of it. It ends in 21 `b` and a `w`,
   * so the regex does not match: the whole subject is read.
   */
  function randomAb(bytes: number, seed: number): string {
    let s = "";
    let x = seed;
    for (let i = 0; i < bytes; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      s += x / 2147483648 < 0.5 ? "a" : "b";
    }
    return s + "b".repeat(21) + "w";
  }

  it("a regex whose DFA would need a state per byte stops at the bound and never clears it", () => {
    const re = RE2JS.compile("a[ab]{20}w", RE2JS.DISABLE_UNICODE_GROUPS);
    const dfa = (re as unknown as { re2Input: { dfa: { memBudget: number; stateCount: number } } }).re2Input.dfa;
    expect(dfa.memBudget).toBe(8 * 1024 * 1024); // re2js's own default
    expect(boundDfa(re)).toBeGreaterThan(0);
    expect(dfa.memBudget).toBe(REGEX_DFA_MEMORY);
    const counts: number[] = [];
    for (let i = 0; i < 3; i++) {
      expect(re.test(randomAb(32_000, i + 1))).toBe(false);
      counts.push(dfa.stateCount);
    }
    // Full after the first run (less memory left than one more state costs), never cleared: no state built since.
    expect(dfa.memBudget).toBeGreaterThanOrEqual(0);
    expect(dfa.memBudget).toBeLessThan(2000);
    expect(counts[0]).toBeLessThanOrEqual(REGEX_DFA_STATES);
    expect(new Set(counts).size).toBe(1);
    // And the answers stay right once the DFA gives up: the NFA finds a match the DFA has no state for.
    expect(re.test(randomAb(5_000, 9) + "a" + "b".repeat(20) + "w")).toBe(true);
    expect(dfa.stateCount).toBe(counts[0]);
  });

  it("a list of names fits whole: its DFA answers every subject without building more", () => {
    const regex = compileRegex("(?i)(sqlmap|nikto|nmap|masscan|zgrab|nuclei|dirbuster|gobuster|wpscan|acunetix)");
    if (!regex.ok) throw new Error(regex.error);
    expect(regex.value.test("x".repeat(40_000) + "SQLMAP")).toBe(true);
    expect(regex.value.test("sqlmasqlmanmanikdirbusgobuswpscacunetinucle".repeat(760))).toBe(false);
  });

  it("the charge covers the run: NFA bound plus at most REGEX_DFA_STATES states, whatever the subject", () => {
    expect(regexUnits(0, 1, 10, 5)).toBe(1 * 11 + 2 * (10 + 5 + 128));
    expect(regexUnits(100_000, 1, 10, 5)).toBe(100_001 * 11 + REGEX_DFA_STATES * (10 + 5 + 128));
    // A list: the states are bounded per run, the bytes by their sum.
    expect(regexUnits(1000, 10, 10, 5)).toBe(1010 * 11 + 1020 * (10 + 5 + 128));
  });
});
