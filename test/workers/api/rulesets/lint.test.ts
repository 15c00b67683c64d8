/**
 * The rule linter (docs/lint.md) through the real API: each warning shown in `messages` on a rule (or page, or
 * asset) that triggers it, and absent on one that does not, on the entrypoint PUT, the Rulesets API's create,
 * update, add and edit, a dry run, the draft preview and a page write. The error-rate budget reads the zone's real
 * analytics object, seeded with recorded errors.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, entrypoint } from "../../support/envelope";
import { errorRecord } from "../../support/analytics";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";

interface Warning {
  code: number;
  message: string;
  rule_id: string | null;
  page?: string;
  asset?: string;
}
interface Ruleset {
  id: string;
  rules: { id: string }[];
}

async function zone(plan = "pro"): Promise<string> {
  const name = uniqueZone("lint");
  await putZone(name, { origin: "http://o.example", plan });
  return name;
}

const json = (expression: string) => ({
  expression,
  action: "serve_error",
  action_parameters: { content: '{"error":true}', content_type: "application/json" },
});
const html = (expression: string) => ({
  expression,
  action: "serve_error",
  action_parameters: { content: "<p>sorry</p>", content_type: "text/html" },
});
const block = (expression: string) => ({ expression, action: "block" });

/** PUTs `rules` as the phase's entry point and answers the warnings, with the rule ids in order. */
async function put(z: string, rules: unknown[], phase = "http_custom_errors", query = "") {
  const r = await api<Ruleset | null>("PUT", `${entrypoint(z, phase)}${query}`, { rules });
  expect(r.status).toBe(200);
  return { warnings: r.body.messages as Warning[], ids: r.body.result?.rules.map((x) => x.id) ?? [] };
}
const pageHtml = (filler = "") =>
  `<html><head><title>Oops</title></head><body><h1>Sorry</h1>::EDGE_ERROR_500S_BOX::${filler}</body></html>`;
const codes = (warnings: Warning[]) => warnings.map((w) => w.code);

describe("20080: serves HTML or text to clients that accept JSON", () => {
  it("an HTML rule without an Accept guard warns, with its rule id; with one, or as JSON, it does not", async () => {
    const z = await zone();
    const { warnings, ids } = await put(z, [html('http.request.uri.path eq "/a"')]);
    expect(warnings).toEqual([expect.objectContaining({ code: 20080, rule_id: ids[0] })]);
    expect(warnings[0]?.message).toMatch(/text\/html with no Accept guard/);
    const guarded = await put(z, [
      html('http.request.uri.path eq "/a" and any(http.request.headers["accept"][*] contains "text/html")'),
      json('http.request.uri.path eq "/b"'),
    ]);
    expect(guarded.warnings).toEqual([]);
  });

  it("a customised page warns (it is HTML to every client); a page set back to default does not", async () => {
    const z = await zone();
    const page = await api("PUT", `/zones/${z}/custom_pages/500_errors`, {
      state: "customized",
      content: pageHtml(),
    });
    expect(page.status).toBe(200);
    expect(page.body.messages).toEqual([expect.objectContaining({ code: 20080, rule_id: null, page: "500_errors" })]);
    const reset = await api("PUT", `/zones/${z}/custom_pages/500_errors`, { state: "default" });
    expect(reset.body.messages).toEqual([]);
  });
});

describe("20081: an origin-error rule without a path or Accept guard", () => {
  it("warns on a rule matching origin status codes alone; not when guarded, nor when limited to generated errors", async () => {
    const z = await zone();
    const bare = await put(z, [json("http.response.code eq 404")]);
    expect(bare.warnings).toEqual([expect.objectContaining({ code: 20081, rule_id: bare.ids[0] })]);
    const fine = await put(z, [
      json('http.response.code eq 404 and starts_with(http.request.uri.path, "/shop/")'),
      json('http.response.code eq 403 and http.request.headers["accept"][0] eq "text/html"'),
      json('http.response.code eq 502 and edge.response.error_type eq "5xx"'),
    ]);
    expect(fine.warnings).toEqual([]);
  });
});

describe("20082: a rule shadowed by an earlier one", () => {
  it("proves `true`, an identical expression, and a conjunction subset; a narrower earlier rule does not shadow", async () => {
    const z = await zone();
    const shadowed = await put(z, [
      json('http.request.uri.path eq "/a"'),
      json('http.request.uri.path eq "/a"'),
      json('http.request.method eq "POST" and http.request.uri.path eq "/a"'),
    ]);
    expect(shadowed.warnings.map((w) => [w.code, w.rule_id])).toEqual([
      [20082, shadowed.ids[1]],
      [20082, shadowed.ids[2]],
    ]);
    expect(shadowed.warnings[0]?.message).toMatch(/earlier rules\[0\]/);
    const everything = await put(
      await zone(),
      [block("true"), block('ip.src.country eq "FR"')],
      "http_request_firewall_custom",
    );
    expect(everything.warnings).toEqual([expect.objectContaining({ code: 20082, rule_id: everything.ids[1] })]);
    const fine = await put(z, [
      json('http.request.method eq "POST" and http.request.uri.path eq "/a"'),
      json('http.request.uri.path eq "/a"'),
    ]);
    expect(fine.warnings).toEqual([]);
  });

  it("a disabled earlier rule shadows nothing", async () => {
    const z = await zone();
    const r = await put(z, [{ ...json("true"), enabled: false }, json('http.request.uri.path eq "/a"')]);
    expect(r.warnings).toEqual([]);
  });
});

describe("20083: an expression that can never match in its phase", () => {
  it("a 2xx code in custom errors, contradictory equalities; a 4xx code does not warn", async () => {
    const z = await zone();
    const r = await put(z, [
      json('http.response.code eq 200 and http.request.uri.path eq "/x"'),
      json('http.request.uri.path eq "/a" and http.request.uri.path eq "/b"'),
      json('edge.response.error_type eq "4xx"'),
    ]);
    expect(r.warnings.map((w) => [w.code, w.rule_id])).toEqual([
      [20083, r.ids[0]],
      [20083, r.ids[1]],
      [20083, r.ids[2]],
    ]);
    expect(r.warnings[0]?.message).toMatch(/http\.response\.code .*400–599/);
    const fine = await put(z, [json('http.response.code in {400..499} and http.request.uri.path eq "/x"')]);
    expect(fine.warnings).toEqual([]);
  });
});

describe("20084: an asset or page over its zone's error budget", () => {
  it("a page over the per-error budget warns; a small one (besides 20080) does not", async () => {
    const z = await zone();
    const content = pageHtml("x".repeat(300_000));
    const big = await api("PUT", `/zones/${z}/custom_pages/500_errors`, { state: "customized", content });
    const warnings = big.body.messages as Warning[];
    expect(codes(warnings)).toEqual([20080, 20084]);
    expect(warnings[1]?.message).toMatch(/over the per-error budget of 262144 bytes/);
    const small = await api("PUT", `/zones/${z}/custom_pages/500_errors`, {
      state: "customized",
      content: pageHtml(),
    });
    expect(codes(small.body.messages as Warning[])).toEqual([20080]);
  });

  it("a page whose bytes at the zone's recorded error rate exceed the hourly budget warns", async () => {
    const z = await zone();
    const content = pageHtml("x".repeat(200_000));
    const before = await api("PUT", `/zones/${z}/custom_pages/500_errors`, { state: "customized", content });
    expect(codes(before.body.messages as Warning[])).toEqual([20080]);
    // 9,600 errors in the last 24 hours: 400 per hour × 200 kB = 76 MiB per hour, over 64 MiB.
    const ns = env.ZONE_ANALYTICS;
    const now = Date.now();
    const batch = Array.from({ length: 9600 }, (_, i) => errorRecord(i + 1, now - (i % 20) * 3_600_000));
    expect(await ns.get(ns.idFromName(z)).record(batch)).toBe(9600);
    const after = await api("PUT", `/zones/${z}/custom_pages/500_errors`, { state: "customized", content });
    const warnings = after.body.messages as Warning[];
    expect(codes(warnings)).toEqual([20080, 20084]);
    expect(warnings[1]?.message).toMatch(/recorded 400 errors per hour .* over the budget of 64 MiB per hour/);
  });
});

describe("custom error assets", () => {
  /** A zone in front of the test origin, with an asset fetched from it (`/asset/huge.html?kb=N`: N KiB of HTML). */
  async function withAsset(kb: number): Promise<string> {
    const z = uniqueZone("lint-asset");
    await putZone(z, { origin: loopback(ports.http) });
    const made = await api("POST", `/zones/${z}/custom_pages/assets`, {
      name: "sorry",
      url: `http://${z}/asset/huge.html?kb=${kb}`,
    });
    expect(made.status, made.text).toBe(200);
    return z;
  }
  const servesAsset = (expression: string) => ({
    expression,
    action: "serve_error",
    action_parameters: { asset_name: "sorry" },
  });

  it("a rule serving an asset (HTML) without an Accept guard warns 20080; with one it does not", async () => {
    const z = await withAsset(4);
    const bare = await put(z, [servesAsset('edge.response.error_type eq "5xx"')]);
    expect(bare.warnings).toEqual([expect.objectContaining({ code: 20080, rule_id: bare.ids[0] })]);
    const guarded = await put(z, [
      servesAsset('edge.response.error_type eq "5xx" and any(http.request.headers["accept"][*] contains "text/html")'),
    ]);
    expect(guarded.warnings).toEqual([]);
  });

  it("an asset over the per-error budget warns 20084 on each rule serving it; a small one does not", async () => {
    const z = await withAsset(300);
    const accept = 'any(http.request.headers["accept"][*] contains "text/html")';
    const r = await put(z, [servesAsset(`edge.response.error_type eq "5xx" and ${accept}`)]);
    expect(r.warnings).toEqual([expect.objectContaining({ code: 20084, rule_id: r.ids[0], asset: "sorry" })]);
    const small = await withAsset(4);
    expect((await put(small, [servesAsset(`edge.response.error_type eq "5xx" and ${accept}`)])).warnings).toEqual([]);
  });
});

describe("every rules write, the dry run and the draft preview", () => {
  const bad = json('http.request.uri.path eq "/a" and http.request.uri.path eq "/b"');

  it("the Rulesets API's create, update, add rule and edit rule answer the warnings", async () => {
    const z = await zone();
    const created = await api<Ruleset>("POST", `/zones/${z}/rulesets`, {
      name: "errors",
      kind: "zone",
      phase: "http_custom_errors",
      rules: [bad],
    });
    expect(created.status).toBe(200);
    const id = created.body.result.id;
    expect(created.body.messages).toEqual([
      expect.objectContaining({ code: 20083, rule_id: created.body.result.rules[0]?.id }),
    ]);
    const updated = await api<Ruleset>("PUT", `/zones/${z}/rulesets/${id}`, { rules: [json("true")] });
    expect(updated.body.messages).toEqual([]);
    const added = await api<Ruleset>("POST", `/zones/${z}/rulesets/${id}/rules`, json('http.request.uri.path eq "/a"'));
    const addedId = added.body.result.rules[1]?.id;
    expect(added.body.messages).toEqual([expect.objectContaining({ code: 20082, rule_id: addedId })]);
    const edited = await api<Ruleset>("PATCH", `/zones/${z}/rulesets/${id}/rules/${addedId}`, bad);
    expect(codes(edited.body.messages as Warning[])).toEqual([20083]);
  });

  it("a dry run answers result null with the warnings, and stores nothing", async () => {
    const z = await zone();
    const r = await api<null>("PUT", `${entrypoint(z, "http_custom_errors")}?dry_run=true`, { rules: [bad] });
    expect(r.status).toBe(200);
    expect(r.body.result).toBeNull();
    expect(codes(r.body.messages as Warning[])).toEqual([20083]);
    const stored = await api<Ruleset>("GET", entrypoint(z, "http_custom_errors"));
    expect(stored.body.result.rules).toEqual([]);
  });

  it("the draft preview answers the draft's warnings (and none for a clean draft)", async () => {
    const z = await zone();
    const request = { path: "/a", code: 502 };
    const r = await api("POST", `/zones/${z}/preview`, { draft: { rules: [bad] }, request });
    expect(r.status).toBe(200);
    expect(codes(r.body.messages as Warning[])).toEqual([20083]);
    const clean = await api("POST", `/zones/${z}/preview`, { draft: { rules: [json("true")] }, request });
    expect(clean.body.messages).toEqual([]);
  });
});
