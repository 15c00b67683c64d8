/**
 * The Rules engine (docs/rules-language.md) as micro-benchmarks in Node, each against hand-written JavaScript
 * closures for the same predicates, measured in the same run (ratio = hand-written ns ÷ engine ns; the target
 * "≤ 3× hand-written" is a ratio ≥ 0.33):
 *   1. compiling 300 custom error rules (against JSON.parse of the same 300-rule config, the floor of any load);
 *   2. the wirefilter benchmark expressions (docs/rules-language.md), each with a fresh lazy context per evaluation;
 *   3. 300 non-matching custom error rules against one error, from the Request to the verdict.
 * Regex baselines use the same RE2 engine (re2js): the service never runs rules on JavaScript's backtracking RegExp (docs/rules-language.md).
 */
import { RE2JS } from "re2js";
import {
  BYTES,
  compile,
  compileRuleList,
  customErrorFields,
  firstMatch,
  requestFields,
  defineScheme,
  EvaluationContext,
  RequestBudget,
  INT,
  IP,
  parseIp,
  type Rule,
  type Scheme,
  type Value,
} from "../../src/rules/index.ts";
import { compare } from "../lib/micro.ts";
import { ok } from "../../src/shared/result.ts";
import { round } from "../lib/stats.ts";
import type { ResultRow, SuiteContext, SuiteResult } from "../lib/suite.ts";

export const description =
  "Rules engine: compile 300 rules, wirefilter bench expressions, 300 custom error rules vs hand-written JS (Node)";

const TARGET = 0.33;

// ---- 2. wirefilter's bench set (engine/benches/bench.rs, docs/rules-language.md) ----

const benchScheme = defineScheme({
  "ip.addr": IP,
  "tcp.port": INT,
  "ip.geoip.country": BYTES,
  "http.user_agent": BYTES,
  "http.host": BYTES,
});

/** Cloudflare's published ranges: 15 IPv4 + 6 IPv6 = 21 CIDRs. */
const CIDRS = [
  "173.245.48.0/20",
  "103.21.244.0/22",
  "103.22.200.0/22",
  "103.31.4.0/22",
  "141.101.64.0/18",
  "108.162.192.0/18",
  "190.93.240.0/20",
  "188.114.96.0/20",
  "197.234.240.0/22",
  "198.41.128.0/17",
  "162.158.0.0/15",
  "104.16.0.0/13",
  "104.24.0.0/14",
  "172.64.0.0/13",
  "131.0.72.0/22",
  "2400:cb00::/32",
  "2606:4700::/32",
  "2803:f800::/32",
  "2405:b500::/32",
  "2405:8100::/32",
  "2a06:98c0::/29",
];

const COUNTRIES = (
  "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC " +
  "CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR"
).split(" ");

const UA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

interface BenchInput {
  readonly ip: number | bigint;
  readonly port: number;
  readonly country: string;
  readonly ua: string;
  readonly host: string;
}

function ip(text: string): number | bigint {
  const v = parseIp(text);
  if (v === undefined) throw new Error(text);
  return v;
}

function cidrRanges(): { v4: [number, number][]; v6: [bigint, bigint][] } {
  const v4: [number, number][] = [];
  const v6: [bigint, bigint][] = [];
  for (const cidr of CIDRS) {
    const [addr = "", len = "0"] = cidr.split("/");
    const a = ip(addr);
    if (typeof a === "number") {
      const size = 2 ** (32 - Number(len));
      v4.push([a, a + size - 1]);
    } else {
      const host = BigInt(128 - Number(len));
      v6.push([a, a + (1n << host) - 1n]);
    }
  }
  return { v4, v6 };
}

interface Case {
  readonly name: string;
  readonly expression: string;
  readonly inputs: readonly BenchInput[];
  readonly handWritten: (f: BenchInput) => boolean;
}

function cases(): Case[] {
  const base: BenchInput = { ip: ip("173.245.48.1"), port: 443, country: "GB", ua: UA, host: "www.cloudflare.com" };
  const v6: BenchInput = { ...base, ip: ip("2606:4700:4700::1111") };
  const ranges = cidrRanges();
  const target4 = ip("173.245.48.1");
  const target6 = ip("2606:4700:4700::1111");
  const lo = ip("173.245.48.0");
  const hi = ip("173.245.64.0");
  const ports = new Set([80, 443, 8080, 8443, 2052, 2053, 2082]);
  const countries = new Set(COUNTRIES);
  const reI = RE2JS.compile("(?i)googlebot/\\d+\\.\\d+");
  const reLit = RE2JS.compile("Googlebot");
  const hosts = ["www.cloudflare.com", "WWW.CLOUDFLARE.COM", "www.cloudflare.org"].map((host) => ({ ...base, host }));
  return [
    {
      name: "ip.addr == 173.245.48.1",
      expression: "ip.addr == 173.245.48.1",
      inputs: [base],
      handWritten: (f) => f.ip === target4,
    },
    {
      name: "ip.addr == 2606:4700:4700::1111",
      expression: "ip.addr == 2606:4700:4700::1111",
      inputs: [v6],
      handWritten: (f) => f.ip === target6,
    },
    {
      name: "ip.addr >= … and ip.addr < … (range)",
      expression: "ip.addr >= 173.245.48.0 and ip.addr < 173.245.64.0",
      inputs: [base],
      handWritten: (f) => typeof f.ip === "number" && f.ip >= lo && f.ip < hi,
    },
    {
      name: "ip.addr in { 21 CIDRs } (v4 and v6 inputs)",
      expression: `ip.addr in { ${CIDRS.join(" ")} }`,
      inputs: [base, v6],
      handWritten: (f) =>
        typeof f.ip === "number"
          ? ranges.v4.some(([a, b]) => f.ip >= a && f.ip <= b)
          : ranges.v6.some(([a, b]) => f.ip >= a && f.ip <= b),
    },
    { name: "tcp.port == 80", expression: "tcp.port == 80", inputs: [base], handWritten: (f) => f.port === 80 },
    { name: "tcp.port >= 1024", expression: "tcp.port >= 1024", inputs: [base], handWritten: (f) => f.port >= 1024 },
    {
      name: "tcp.port in { 7 ports }",
      expression: "tcp.port in { 80 443 8080 8443 2052 2053 2082 }",
      inputs: [base],
      handWritten: (f) => ports.has(f.port),
    },
    {
      name: 'ip.geoip.country == "GB"',
      expression: 'ip.geoip.country == "GB"',
      inputs: [base],
      handWritten: (f) => f.country === "GB",
    },
    {
      name: `ip.geoip.country in { ${COUNTRIES.length} countries }`,
      expression: `ip.geoip.country in { ${COUNTRIES.map((c) => `"${c}"`).join(" ")} }`,
      inputs: [base],
      handWritten: (f) => countries.has(f.country),
    },
    {
      name: 'http.user_agent ~ "(?i)googlebot/\\d+\\.\\d+"',
      expression: 'http.user_agent ~ "(?i)googlebot/\\d+\\.\\d+"',
      inputs: [base],
      handWritten: (f) => reI.test(f.ua),
    },
    {
      name: 'http.user_agent ~ "Googlebot"',
      expression: 'http.user_agent ~ "Googlebot"',
      inputs: [base],
      handWritten: (f) => reLit.test(f.ua),
    },
    {
      name: 'http.user_agent contains "Googlebot"',
      expression: 'http.user_agent contains "Googlebot"',
      inputs: [base],
      handWritten: (f) => f.ua.includes("Googlebot"),
    },
    {
      name: 'lower(http.host) == "www.cloudflare.com" (3 casings)',
      expression: 'lower(http.host) == "www.cloudflare.com"',
      inputs: hosts,
      handWritten: (f) => f.host.toLowerCase() === "www.cloudflare.com",
    },
  ];
}

/** Field values of one input, in scheme order (what an extractor would produce). */
function extracted(scheme: Scheme, input: BenchInput): readonly (Value | undefined)[] {
  const byName: Readonly<Record<string, Value>> = {
    "ip.addr": input.ip,
    "tcp.port": input.port,
    "ip.geoip.country": input.country,
    "http.user_agent": input.ua,
    "http.host": input.host,
  };
  return scheme.fields.map((f) => byName[f.name]);
}

/** A fresh lazy context per evaluation, as one request gets (its fields produced on first read). */
function contextFor(scheme: Scheme, values: readonly (Value | undefined)[], budget?: RequestBudget): EvaluationContext {
  return new EvaluationContext(scheme, (field) => values[field.index], budget);
}

function mustCompile(source: string, scheme: Scheme): Rule {
  const r = compile(source, scheme);
  if (!r.ok) throw new Error(`${source}: ${r.error.message}`);
  return r.value;
}

// ---- 1 and 3: 300 custom error rules ----

/** 300 realistic, distinct custom error rules; none matches the benchmark's error. */
/** `count` firewall rules, each `http.user_agent matches "bot<k>[0-9]+"` (docs/rules-language.md "Evaluation budget"). */
export function regexFirewallRules(count: number): { id: string; expression: string; action: string }[] {
  return Array.from({ length: count }, (_, k) => ({
    id: `r${k}`,
    expression: `http.user_agent matches "bot${k}[0-9]+"`,
    action: "block",
  }));
}

export function customErrorRules(): string[] {
  const rules: string[] = [];
  for (let i = 0; i < 300; i++) {
    switch (i % 6) {
      case 0:
        rules.push(`http.response.code eq ${500 + (i % 4)} and http.request.uri.path contains "/section-${i}/"`);
        break;
      case 1:
        rules.push(`starts_with(http.request.uri.path, "/api/v${i}/") and http.response.code in {500..599}`);
        break;
      case 2:
        rules.push(`edge.response.1xxx_code eq ${1000 + i} and ip.src.country in {"FR" "DE"}`);
        break;
      case 3:
        rules.push(`any(http.request.headers["accept"][*] contains "application/vnd.app${i}+json")`);
        break;
      case 4:
        rules.push(`http.host eq "shop${i}.example.com" and not ssl`);
        break;
      default:
        rules.push(
          i % 30 === 5
            ? `http.request.uri.path matches "^/shop/${i}/[0-9]+$"`
            : `lower(http.request.uri.query) contains "ref=campaign${i}"`,
        );
    }
  }
  return rules;
}

interface HandFacts {
  readonly status: number;
  readonly code1xxx: number;
  readonly path: string;
  readonly query: string;
  readonly host: string;
  readonly ssl: boolean;
  readonly accept: readonly string[];
  readonly country: string | undefined;
}

/** The same 300 predicates written by hand over eagerly extracted facts. */
function handWrittenRules(): ((f: HandFacts) => boolean)[] {
  const rules: ((f: HandFacts) => boolean)[] = [];
  for (let i = 0; i < 300; i++) {
    switch (i % 6) {
      case 0: {
        const code = 500 + (i % 4);
        const needle = `/section-${i}/`;
        rules.push((f) => f.status === code && f.path.includes(needle));
        break;
      }
      case 1: {
        const prefix = `/api/v${i}/`;
        rules.push((f) => f.path.startsWith(prefix) && f.status >= 500 && f.status <= 599);
        break;
      }
      case 2: {
        const code = 1000 + i;
        rules.push((f) => f.code1xxx === code && (f.country === "FR" || f.country === "DE"));
        break;
      }
      case 3: {
        const needle = `application/vnd.app${i}+json`;
        rules.push((f) => f.accept.some((a) => a.includes(needle)));
        break;
      }
      case 4: {
        const host = `shop${i}.example.com`;
        rules.push((f) => f.host === host && !f.ssl);
        break;
      }
      default: {
        if (i % 30 === 5) {
          const re = RE2JS.compile(`^/shop/${i}/[0-9]+$`);
          rules.push((f) => re.test(f.path));
        } else {
          const needle = `ref=campaign${i}`;
          rules.push((f) => f.query.toLowerCase().includes(needle));
        }
      }
    }
  }
  return rules;
}

export async function run(context: SuiteContext): Promise<SuiteResult> {
  const rounds = context.quick ? 3 : 15;
  const rows: ResultRow[] = [];

  // 1. Compile 300 rules.
  const sources = customErrorRules();
  const config = JSON.stringify({
    rules: sources.map((expression, i) => ({ id: `r${i}`, expression, enabled: true })),
  });
  const compiled = compare(
    () => sources.map((s) => mustCompile(s, customErrorFields.scheme)),
    () => JSON.parse(config) as unknown,
    { batch: context.quick ? 2 : 10, rounds, warmup: 2 },
  );
  context.log(
    `compile 300 rules: ${round(compiled.subjectNs / 1e6, 2)} ms; JSON.parse of the config: ${round(compiled.baselineNs / 1e6, 3)} ms`,
  );
  rows.push({
    name: "JSON.parse of a 300-rule config (floor)",
    baseline: true,
    nsPerOp: compiled.baselineNs,
    ratio: 1,
  });
  rows.push({ name: "compile 300 custom error rules", nsPerOp: compiled.subjectNs, ratio: compiled.ratio });

  // 2. Wirefilter's bench expressions.
  for (const c of cases()) {
    const rule = mustCompile(c.expression, benchScheme);
    for (const input of c.inputs) {
      if (rule.matches(contextFor(benchScheme, extracted(benchScheme, input))) !== c.handWritten(input))
        throw new Error(`engine and hand-written disagree on ${c.expression}`);
    }
    const n = c.inputs.length;
    const values = c.inputs.map((input) => extracted(benchScheme, input));
    // One evaluation = a fresh context (as each request gets) over values already extracted, the same footing as
    // the hand-written closure reading an object of extracted values.
    const r = compare(
      (i) => rule.matches(contextFor(benchScheme, values[i % n] as readonly (Value | undefined)[])),
      (i) => c.handWritten(c.inputs[i % n] as BenchInput),
      { batch: 20_000, rounds },
    );
    // Informative: the closures alone, on a context whose fields (and calls) are already memoised, as for the
    // 2nd…300th rule evaluated for one error.
    // Unbounded request budgets: each context is evaluated thousands of times, far more than one request's units.
    const shared = values.map((v) => contextFor(benchScheme, v, new RequestBudget(Infinity)));
    const warm = compare(
      (i) => rule.matches(shared[i % n] as EvaluationContext),
      (i) => c.handWritten(c.inputs[i % n] as BenchInput),
      { batch: 20_000, rounds },
    );
    context.log(
      `${c.name}: engine ${r.subjectNs} ns (memoised context ${warm.subjectNs} ns), hand-written ${r.baselineNs} ns`,
    );
    rows.push({ name: `${c.name}: hand-written`, baseline: true, nsPerOp: r.baselineNs, ratio: 1 });
    rows.push({ name: `${c.name}: engine`, nsPerOp: r.subjectNs, ratio: r.ratio, target: TARGET });
    rows.push({ name: `${c.name}: engine, memoised context`, nsPerOp: warm.subjectNs, ratio: warm.ratio });
  }

  // 3. 300 non-matching custom error rules against one error, from the Request.
  const rules = sources.map((s) => mustCompile(s, customErrorFields.scheme));
  const hand = handWrittenRules();
  const request = new Request("https://www.example.com/products/42?ref=Newsletter&page=2", {
    headers: {
      accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
      "user-agent": UA,
      "cf-connecting-ip": "203.0.113.9",
    },
  });
  const error = { status: 522, code1xxx: 0, errorType: "5xx" as const };
  const engineFirstMatch = (): number => {
    // One request's budget per iteration: the same Request object is reused, so its own budget would run out.
    const ctx = customErrorFields.context({ request, error }, new RequestBudget());
    for (let k = 0; k < rules.length; k++) if (rules[k]?.matches(ctx)) return k;
    return -1;
  };
  const handFirstMatch = (): number => {
    const url = new URL(request.url);
    const accept = request.headers.get("accept");
    const facts: HandFacts = {
      status: error.status,
      code1xxx: error.code1xxx,
      path: url.pathname,
      query: url.search.slice(1),
      host: url.hostname,
      ssl: url.protocol === "https:",
      accept: accept === null ? [] : [accept],
      country: undefined,
    };
    for (let k = 0; k < hand.length; k++) if (hand[k]?.(facts)) return k;
    return -1;
  };
  if (engineFirstMatch() !== -1 || handFirstMatch() !== -1)
    throw new Error("a benchmark rule matched; the suite wants 300 non-matching rules");
  const all = compare(engineFirstMatch, handFirstMatch, { batch: context.quick ? 200 : 2_000, rounds });
  context.log(
    `300 rules: engine ${round(all.subjectNs / 1000, 1)} µs, hand-written ${round(all.baselineNs / 1000, 1)} µs`,
  );
  rows.push({
    name: "300 non-matching custom error rules, one error (Request → verdict): hand-written",
    baseline: true,
    nsPerOp: all.baselineNs,
    ratio: 1,
  });
  rows.push({
    name: "300 non-matching custom error rules, one error (Request → verdict): engine",
    nsPerOp: all.subjectNs,
    ratio: all.ratio,
    target: TARGET,
  });

  // 4. 300 regex firewall rules on the User-Agent: one pass per field (the list's sets) against rule by rule, each
  // regex on its own (the engine before sets), on the worst User-Agent a 32 KiB header limit accepts and on an
  // ordinary request.
  const regexRules = regexFirewallRules(300);
  const setCompile = compare(
    () => compileRuleList("http_request_firewall_custom", regexRules, { prepare: () => ok({}) }),
    () => regexRules.map((r) => mustCompile(r.expression, requestFields.scheme)),
    { batch: 1, rounds: Math.min(rounds, 5), warmup: 1 },
  );
  context.log(
    `300 regex rules: compile with sets ${round(setCompile.subjectNs / 1e6, 1)} ms (first time per isolate, then cached), rules alone ${round(setCompile.baselineNs / 1e6, 1)} ms`,
  );
  rows.push({
    name: "compile 300 regex firewall rules: expressions only (cached)",
    baseline: true,
    nsPerOp: setCompile.baselineNs,
    ratio: 1,
  });
  rows.push({
    name: "compile 300 regex firewall rules: list with its sets (cached)",
    nsPerOp: setCompile.subjectNs,
    ratio: setCompile.ratio,
  });
  const list = compileRuleList("http_request_firewall_custom", regexRules, { prepare: () => ok({}) });
  for (const [label, ua] of [
    ["32 KiB User-Agent", `Mozilla/5.0 ${"bot".repeat(10_900)}`.slice(0, 32 * 1024 - 14)],
    ["ordinary request", UA],
  ] as const) {
    const req = new Request("https://www.example.com/products/42", { headers: { "user-agent": ua } });
    // Unbounded budgets: rule by rule, 300 runs on 32 KiB pass a request's units (such a zone is refused when
    // written, without sets); the row measures what that evaluation costs, not where the budget would stop it.
    const withSets = (): number => {
      const m = firstMatch(list, requestFields.context({ request: req }, new RequestBudget(Infinity)), "bench");
      return m === null ? -1 : 0;
    };
    // The same loop without the list's sets: every regex runs on its own (remembering its last subject), as the
    // engine did before sets, so the ratio is the sets' alone and not the loop's.
    const alone = { ...list, regexSets: null };
    const ruleByRule = (): number => {
      const m = firstMatch(alone, requestFields.context({ request: req }, new RequestBudget(Infinity)), "bench");
      return m === null ? -1 : 0;
    };
    if (withSets() !== -1 || ruleByRule() !== -1) throw new Error("a regex benchmark rule matched");
    const r = compare(withSets, ruleByRule, { batch: ua.length > 4096 ? 1 : 200, rounds, warmup: 10 });
    context.log(
      `300 regex rules, ${label}: one pass per field ${round(r.subjectNs / 1e6, 3)} ms, rule by rule ${round(r.baselineNs / 1e6, 3)} ms`,
    );
    rows.push({
      name: `300 regex firewall rules, ${label}: rule by rule (before)`,
      baseline: true,
      nsPerOp: r.baselineNs,
      ratio: 1,
    });
    rows.push({ name: `300 regex firewall rules, ${label}: one pass per field`, nsPerOp: r.subjectNs, ratio: r.ratio });
  }

  return {
    rows,
    notes: [
      `${rounds} interleaved rounds (bench/lib/micro.ts); ratio = hand-written ns ÷ engine ns; target ≥ 0.33 (≤ 3× hand-written).`,
      "Expression rows: `engine` creates a fresh context per evaluation over already-extracted values (the hand-written",
      "closure reads an object of extracted values); `engine, memoised context` reuses one context, so fields and calls",
      "are read from the memo, as for every rule after the first evaluated for one error.",
      "Regex baselines call re2js directly: the service never runs rules on JavaScript's RegExp, so both sides pay RE2.",
      `300-rule evaluation: ${round(all.subjectNs / 1000, 1)} µs per error (budget: well under 1 ms).`,
    ],
  };
}
