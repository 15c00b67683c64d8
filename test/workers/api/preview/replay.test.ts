/**
 * `POST /zones/{zone}/preview/replay` (docs/custom-errors.md "Replay"): a recorded burst of real traffic (structured
 * defaults, rule answers, a page, firewall and IP access blocks, an origin read timeout, origin errors passed through
 * and answered by a rule) replayed against a draft reports exactly the changes the draft makes, checked against the
 * same requests served again once the draft is saved. A replay stores nothing; its body is validated; it is bounded.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../../src/index";
import { formatOf } from "../../../../src/state/analytics/record";
import { api, apiFetch, apiOk, entrypoint } from "../../support/envelope";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";

const FW = "f2000000000000000000000000000001";
const A1 = "a1000000000000000000000000000001";
const A2 = "a2000000000000000000000000000002";
const B1 = "b1000000000000000000000000000001";
const B3 = "b3000000000000000000000000000003";
const RULE_IDS = [A1, A2, B1, B3];
const PAGE_1000 =
  "<!DOCTYPE html><html><head><title>PAGE-1000</title></head><body>::EDGE_ERROR_1000S_BOX::</body></html>";

const serve = (id: string, content: string, content_type: string, expression: string, status_code?: number) => ({
  id,
  expression,
  action: "serve_error",
  action_parameters: { content, content_type, ...(status_code ? { status_code } : {}) },
});

/** What is saved first. */
const SAVED = [
  serve(A1, `RULE:${A1}`, "text/plain", 'http.request.uri.path eq "/status/404"'),
  serve(A2, `<p>RULE:${A2}</p>`, "text/html", "edge.response.1xxx_code eq 1020", 403),
];
/** The draft: A2 dropped, B1 answers read timeouts, B3 answers the origin's 503 to POSTs; the 1000 page reset. */
const DRAFT = {
  rules: [
    serve(B1, `{"rule":"RULE:${B1}"}`, "application/json", "http.response.code eq 524"),
    serve(A1, `RULE:${A1}`, "text/plain", 'http.request.uri.path eq "/status/404"'),
    serve(B3, `RULE:${B3}`, "text/markdown", 'http.response.code eq 503 and http.request.method eq "POST"'),
  ],
  pages: { "1000_errors": { state: "default" } },
};

interface Sent {
  readonly path: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly country?: string;
}

/** The burst: each kind of recorded error, in several `Accept` families. */
const BURST: readonly Sent[] = [
  { path: "/admin", headers: { Accept: "application/json", "CF-Connecting-IP": "192.0.2.7" } },
  { path: "/admin", headers: { Accept: "text/markdown" } },
  { path: "/", headers: { Accept: "text/markdown" }, country: "KP" },
  { path: "/slow-headers?ms=6000", headers: { Accept: "application/json" } },
  { path: "/slow-headers?ms=6000", headers: { Accept: "text/html" } },
  { path: "/slow-headers?ms=6000" },
  { path: "/status/404", headers: { Accept: "application/json" } },
  { path: "/status/503-json", headers: { Accept: "application/json" } },
  { path: "/status/503-json", method: "POST", headers: { Accept: "application/json" } },
  { path: "/status/503-json", method: "POST", headers: { Accept: "text/html" } },
  { path: "/big", headers: { Accept: "application/problem+json", "X-Pad": "p".repeat(1500) } },
];

interface Answer {
  readonly answered_by: string;
  readonly answer_id: string | null;
  readonly status: number;
  readonly format: string;
}

interface Served {
  readonly ray: string | null;
  readonly answer: Answer;
}

/** Sends one request as zone traffic and says who answered it, from what was served. */
async function send(zone: string, s: Sent): Promise<Served> {
  const ctx = createExecutionContext();
  const init: RequestInit = { method: s.method ?? "GET", headers: s.headers ?? {} };
  const res = await worker.fetch(
    new Request(`http://${zone}${s.path}`, s.country ? { ...init, cf: { country: s.country } } : init),
    env,
    ctx,
  );
  const body = await res.text();
  await waitOnExecutionContext(ctx);
  const ray = res.headers.get("Ray-ID");
  const rule = RULE_IDS.find((id) => body.includes(`RULE:${id}`));
  const who: Pick<Answer, "answered_by" | "answer_id"> =
    rule !== undefined
      ? { answered_by: "rule", answer_id: rule }
      : body.includes("PAGE-1000")
        ? { answered_by: "page", answer_id: "1000_errors" }
        : ray === null
          ? { answered_by: "origin", answer_id: null }
          : { answered_by: "default", answer_id: null };
  return { ray, answer: { ...who, status: res.status, format: formatOf(res.headers.get("Content-Type")) } };
}

async function total(zone: string): Promise<number> {
  const res = await apiOk<{ total: number }>("GET", `/zones/${zone}/analytics/errors?step=minute`);
  return res.result.total;
}

async function settled(zone: string, expected: number): Promise<void> {
  for (let i = 0; i < 80 && (await total(zone)) < expected; i++) await new Promise((r) => setTimeout(r, 50));
  expect(await total(zone)).toBe(expected);
}

interface Change {
  readonly before: Answer;
  readonly after: Answer;
  readonly count: number;
  readonly codes: readonly number[];
  readonly sample_rays: readonly string[];
}

interface Report {
  readonly draft: boolean;
  readonly records: number;
  readonly replayed: number;
  readonly unchanged: number;
  readonly changed: number;
  readonly not_replayable: { readonly count: number };
  readonly changes: readonly Change[];
  readonly rules: readonly {
    readonly id: string;
    readonly index: number | null;
    readonly before: number;
    readonly after: number;
    readonly gained: number;
    readonly lost: number;
    readonly sample_rays: { readonly gained: readonly string[]; readonly lost: readonly string[] };
    readonly reads_unrecorded: readonly string[];
  }[];
}

async function savedZone(): Promise<string> {
  const zone = uniqueZone("replay");
  // The read timeout stands between the origin's quick answers and `/slow-headers` (headers after 6 s): on a loaded
  // machine a quick answer took more than 0.3 s, timed out as 524, and the two bursts disagreed.
  await putZone(zone, { origin: loopback(ports.http), read_timeout: 2, max_request_header_bytes: 1024 });
  await apiOk("PUT", `/zones/${zone}/access_rules`, {
    rules: [{ mode: "block", configuration: { target: "country", value: "KP" } }],
  });
  await apiOk("PUT", entrypoint(zone, "http_request_firewall_custom"), {
    rules: [{ id: FW, expression: 'http.request.uri.path eq "/admin"', action: "block" }],
  });
  await apiOk("PUT", entrypoint(zone, "http_custom_errors"), { rules: SAVED });
  await apiOk("PUT", `/zones/${zone}/custom_pages/1000_errors`, { state: "customized", content: PAGE_1000 });
  return zone;
}

const keyOf = (a: Answer): string => `${a.answered_by}:${a.answer_id ?? ""}:${a.status}:${a.format}`;

/** (before → after) pairs that differ, counted. */
function transitions(pairs: readonly (readonly [Answer, Answer])[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [b, a] of pairs) {
    if (keyOf(b) === keyOf(a)) continue;
    const key = `${keyOf(b)} → ${keyOf(a)}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

describe("a replay reports exactly what saving the draft changes on real traffic", () => {
  it("a recorded burst of defaults, rule answers, a page, blocks and origin errors", async () => {
    const zone = await savedZone();
    const first: Served[] = [];
    for (const s of BURST) first.push(await send(zone, s));
    await settled(zone, BURST.length);

    const res = await api<Report>("POST", `/zones/${zone}/preview/replay`, { draft: DRAFT, samples: 10 });
    expect(res.status, JSON.stringify(res.body.errors)).toBe(200);
    const report = res.body.result;
    expect(report).toMatchObject({ draft: true, records: BURST.length, replayed: BURST.length });
    expect(report.not_replayable.count).toBe(0);
    // The rule linter's warnings on the draft, as the draft preview gives them (docs/lint.md): A1 serves text to
    // clients that accept JSON.
    expect(res.body.messages).toEqual(expect.arrayContaining([expect.objectContaining({ code: 20080, rule_id: A1 })]));

    // Nothing was stored: traffic still gets the saved configuration.
    const again = await send(zone, BURST[0]!);
    expect(again.answer).toEqual(first[0]!.answer);
    await settled(zone, BURST.length + 1);

    // Saved, the draft serves the same requests: what changed is exactly what the replay said.
    await apiOk("PUT", entrypoint(zone, "http_custom_errors"), { rules: DRAFT.rules });
    await apiOk("PUT", `/zones/${zone}/custom_pages/1000_errors`, { state: "default" });
    const second: Served[] = [];
    for (const s of BURST) second.push(await send(zone, s));

    const real = transitions(first.map((f, i) => [f.answer, second[i]!.answer] as const));
    const replayed: Record<string, number> = {};
    for (const c of report.changes) replayed[`${keyOf(c.before)} → ${keyOf(c.after)}`] = c.count;
    expect(replayed).toEqual(real);
    expect(report.changed).toBe(Object.values(real).reduce((a, b) => a + b, 0));
    expect(report.unchanged).toBe(BURST.length - report.changed);
    // The burst changes in every way the draft can: a rule dropped, a rule and a page replaced by the default,
    // the default and an origin pass-through replaced by new rules; and some answers stay.
    expect(report.changed).toBe(9);
    expect(report.unchanged).toBe(2);

    // Each sample Ray ID is a request whose answer changed that way (every generated error's ray is known here).
    const byRay = new Map(first.map((f, i) => [f.ray, i]));
    for (const change of report.changes) {
      expect(change.sample_rays.length).toBe(change.count);
      for (const ray of change.sample_rays) {
        const i = byRay.get(ray);
        if (i === undefined) {
          // An origin error passed through has a ray of its own the client never saw (docs/analytics.md).
          expect(change.before.answered_by).toBe("origin");
          continue;
        }
        expect(first[i]!.answer).toEqual(change.before);
        expect(second[i]!.answer).toEqual(change.after);
      }
    }

    // Per rule: before and after counts, gains and losses; a rule dropped by the draft is listed last.
    const rules = Object.fromEntries(report.rules.map((r) => [r.id, r]));
    expect(report.rules.map((r) => [r.id, r.index])).toEqual([
      [B1, 0],
      [A1, 1],
      [B3, 2],
      [A2, null],
    ]);
    expect(rules[B1]).toMatchObject({ before: 0, after: 3, gained: 3, lost: 0 });
    expect(rules[A1]).toMatchObject({ before: 1, after: 1, gained: 0, lost: 0 });
    expect(rules[B3]).toMatchObject({ before: 0, after: 2, gained: 2, lost: 0 });
    expect(rules[A2]).toMatchObject({ before: 2, after: 0, gained: 0, lost: 2 });
    expect([...rules[A2]!.sample_rays.lost].sort()).toEqual([first[0]!.ray, first[1]!.ray].sort());
    expect(rules[B1]!.reads_unrecorded).toEqual([]);
  }, 30_000);

  it("without a draft, the saved configuration changes nothing; the window and its limit choose the records", async () => {
    const zone = await savedZone();
    for (const s of BURST.slice(0, 4)) await send(zone, s);
    await settled(zone, 4);
    const same = await apiOk<Report>("POST", `/zones/${zone}/preview/replay`, {});
    expect(same.result).toMatchObject({ draft: false, records: 4, replayed: 4, unchanged: 4, changed: 0 });
    expect(same.result.changes).toEqual([]);
    const newest = await apiOk<Report>("POST", `/zones/${zone}/preview/replay`, { draft: DRAFT, window: { limit: 1 } });
    expect(newest.result).toMatchObject({ records: 1, replayed: 1 });
    const future = await apiOk<Report>("POST", `/zones/${zone}/preview/replay`, {
      window: { since: Math.floor(Date.now() / 1000) + 3600, until: Math.floor(Date.now() / 1000) + 7200 },
    });
    expect(future.result).toMatchObject({ records: 0, replayed: 0 });
  });
});

describe("refusals and bounds", () => {
  it("a bad body is 400 naming each field; a bad draft answers as its write does; past the bound 429", async () => {
    const zone = await savedZone();
    const bad = await api("POST", `/zones/${zone}/preview/replay`, {
      window: { limit: 5000, since: "yesterday" },
      samples: 99,
      extra: 1,
    });
    expect(bad.status).toBe(400);
    const messages = bad.body.errors.map((e) => `${e.code} ${e.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^20091 extra: /),
        expect.stringMatching(/^20091 window\.since: /),
        expect.stringMatching(/^20091 window\.limit: must be an integer from 1 to 1000/),
        expect.stringMatching(/^20091 samples: /),
      ]),
    );
    const badRule = await api("POST", `/zones/${zone}/preview/replay`, {
      draft: { rules: [{ expression: "http.request.uri.path eq", action: "serve_error" }] },
    });
    expect(badRule.status).toBe(400);
    expect(badRule.body.errors[0]?.code).toBe(20021);
    // The remaining burst (three, one per 10 s) is spent by the two calls above and one more; the next is 429.
    expect((await apiFetch("POST", `/zones/${zone}/preview/replay`, {})).status).toBe(200);
    const limited = await apiFetch("POST", `/zones/${zone}/preview/replay`, {});
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect((await limited.json<{ errors: { code: number }[] }>()).errors[0]?.code).toBe(20092);
  });
});
