/**
 * Management calls take turns with traffic (docs/custom-errors.md, the section of that name): a replay, a
 * draft preview and a trace each run within a management budget (src/api/explain/turns.ts), far under a request's,
 * and stop with `truncated: true` past it; their evaluation runs in turns, one call at a time per isolate, and a
 * request that arrives during a turn runs before the next. Counted in units and in the order things ran, never timed.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../../src/index";
import { MAX_REQUEST_UNITS } from "../../../../src/rules/budget";
import { MANAGEMENT_BUDGET, Turns, turnStats } from "../../../../src/api/explain/turns";
import { trafficInFlight } from "../../../../src/shared/traffic-in-flight";
import { OVER_RUN_BUDGET } from "../../../../src/api/preview/replay";
import { compileBatches, compiledDraft } from "../../../../src/api/preview/draft-cache";
import { compiledOf } from "../../../../src/edge/compiled-zone";
import { lookupZone } from "../../../../src/state/zone/cache";
import { ADMIN, api, apiOk, entrypoint } from "../../support/envelope";
import { errorLines } from "../../support/log";
import { loopback, ports, putZone, sendTraffic, uniqueZone } from "../../support/origin";

const A = "d".repeat(31) + "4";

/** `concat(x, x, …)` of `n` copies. */
const concatOf = (x: string, n: number): string => `concat(${Array.from({ length: n }, () => x).join(", ")})`;

/**
 * A custom error rule as costly as one can be on a short request: a long regex over the path concatenated 144 times
 * (~1.2 M units on an 8-byte path, docs/rules-language.md "Evaluation budget").
 */
const heavy = (k: number) => ({
  description: `heavy ${k}`,
  expression: `${concatOf(concatOf(concatOf("http.request.uri.path", 4), 6), 6)} matches "a[ab]{998}w${k}"`,
  action: "serve_error",
  action_parameters: { content: `{"k":${k}}`, content_type: "application/json" },
});
const heavyRules = (n: number) => Array.from({ length: n }, (_, k) => heavy(k));

async function blocked(zone: string, i: number): Promise<void> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`http://${zone}/admin/${i}`), env, ctx);
  await res.arrayBuffer();
  await waitOnExecutionContext(ctx);
  expect(res.status).toBe(403);
}

async function recorded(zone: string): Promise<number> {
  return (await apiOk<{ total: number }>("GET", `/zones/${zone}/analytics/errors?step=minute`)).result.total;
}

interface Replayed {
  records: number;
  replayed: number;
  not_replayable: { count: number; reasons: Record<string, number> };
  not_reached: number;
  truncated: boolean;
  cost: { units: number; budget: number; budget_per_record: number };
}

describe("a management call has a budget far under a request's", () => {
  it("the budgets: a run a fifth of a request's, a replay two requests' worth, a turn a tenth", () => {
    expect(MANAGEMENT_BUDGET.runUnits * 5).toBe(MAX_REQUEST_UNITS);
    expect(MANAGEMENT_BUDGET.replayUnits).toBe(2 * MAX_REQUEST_UNITS);
    expect(MANAGEMENT_BUDGET.turnUnits * 10).toBe(MAX_REQUEST_UNITS);
  });

  it("a replay of heavy rules stops at its budget with truncated: true, every record accounted for", async () => {
    const zone = uniqueZone("replay-budget");
    const records = 30;
    await putZone(zone, { plan: "enterprise", origin: loopback(ports.http) });
    await apiOk("PUT", entrypoint(zone, "http_request_firewall_custom"), {
      rules: [{ expression: 'starts_with(http.request.uri.path, "/admin")', action: "block" }],
    });
    for (let i = 0; i < records; i++) await blocked(zone, i);
    for (let i = 0; i < 80 && (await recorded(zone)) < records; i++) await new Promise((r) => setTimeout(r, 50));
    const report = (await apiOk<Replayed>("POST", `/zones/${zone}/preview/replay`, { draft: { rules: heavyRules(8) } }))
      .result;
    expect(report.records).toBe(records);
    expect(report.truncated).toBe(true);
    // Each record needs more than a run's budget (8 rules × ~1.2 M units): none is compared, each cut is counted
    // until the replay's budget is spent, and the rest are not reached.
    expect(report.replayed).toBe(0);
    expect(report.not_replayable.reasons[OVER_RUN_BUDGET]).toBeGreaterThan(0);
    expect(report.not_reached).toBeGreaterThanOrEqual(0);
    expect(report.replayed + report.not_replayable.count + report.not_reached).toBe(records);
    expect(report.cost).toMatchObject({
      budget: MANAGEMENT_BUDGET.replayUnits,
      budget_per_record: MANAGEMENT_BUDGET.runUnits,
    });
    expect(report.cost.units).toBeLessThanOrEqual(MANAGEMENT_BUDGET.replayUnits);
  });

  it("a replay within its budget is not truncated", async () => {
    const zone = uniqueZone("replay-light");
    await putZone(zone, { origin: loopback(ports.http) });
    await apiOk("PUT", entrypoint(zone, "http_request_firewall_custom"), {
      rules: [{ expression: 'starts_with(http.request.uri.path, "/admin")', action: "block" }],
    });
    for (let i = 0; i < 3; i++) await blocked(zone, i);
    for (let i = 0; i < 80 && (await recorded(zone)) < 3; i++) await new Promise((r) => setTimeout(r, 50));
    const report = (
      await apiOk<Replayed>("POST", `/zones/${zone}/preview/replay`, {
        draft: { rules: [{ ...heavy(0), expression: 'http.request.uri.path matches "^/admin/[0-9]+$"' }] },
      })
    ).result;
    expect(report).toMatchObject({ records: 3, replayed: 3, not_reached: 0, truncated: false });
  });

  it("a draft preview of heavy rules spends at most a run's budget per run and says truncated: true", async () => {
    const zone = uniqueZone("preview-budget");
    await putZone(zone, { plan: "enterprise", origin: loopback(ports.closed) });
    const answer = await apiOk<{ truncated: boolean; cost: { units: number; budget: number } }>(
      "POST",
      `/zones/${zone}/preview`,
      { draft: { rules: heavyRules(8) }, request: { path: "/admin/1", code: 502 } },
    );
    expect(answer.result.truncated).toBe(true);
    expect(answer.result.cost.budget).toBe(MANAGEMENT_BUDGET.runUnits);
    expect(answer.result.cost.units).toBeLessThanOrEqual(MANAGEMENT_BUDGET.runUnits);
    const light = await apiOk<{ truncated: boolean }>("POST", `/zones/${zone}/preview`, {
      draft: { rules: [{ ...heavy(0), expression: 'http.request.uri.path matches "^/admin/[0-9]+$"' }] },
      request: { path: "/admin/1", code: 502 },
    });
    expect(light.result.truncated).toBe(false);
  });

  it("a draft preview's over-budget rules are in its answer, not in the log; traffic's are logged", async () => {
    const zone = uniqueZone("preview-quiet-log");
    await putZone(zone, { plan: "enterprise", origin: loopback(ports.closed) });
    const previewed = await errorLines("rule_over_budget", () =>
      apiOk<{ truncated: boolean }>("POST", `/zones/${zone}/preview`, {
        draft: { rules: heavyRules(4) },
        request: { path: "/admin/1", code: 502 },
      }),
    );
    expect(previewed.value.result.truncated).toBe(true);
    expect(previewed.lines).toEqual([]);
    // Saved (ten of them, ~12 M units: past a request's 10 M), a request of the zone that runs over writes the line,
    // as docs/rules-language.md "Logging" says.
    await apiOk("PUT", entrypoint(zone, "http_custom_errors"), { rules: heavyRules(10) });
    const served = await errorLines("rule_over_budget", () =>
      sendTraffic(`http://${zone}/cdn-cgi/error/522`).then((res) => res.arrayBuffer()),
    );
    expect(served.lines.length).toBeGreaterThan(0);
    expect(served.lines[0]).toMatchObject({ zone, phase: "http_custom_errors" });
  });

  it("a trace over heavy saved rules says truncated: true", async () => {
    const zone = uniqueZone("trace-budget");
    await putZone(zone, { plan: "enterprise", origin: loopback(ports.closed), account: { id: A } });
    await apiOk("PUT", entrypoint(zone, "http_custom_errors"), { rules: heavyRules(8) });
    const answer = await api<{ truncated?: boolean; status_code?: number }>(
      "POST",
      `/accounts/${A}/request-tracer/trace`,
      { method: "GET", url: `http://${zone}/admin/1`, origin: { failure: "refused" } },
    );
    expect(answer.status).toBe(200);
    expect(answer.body.result?.truncated).toBe(true);
  });
});

describe("management work takes turns with traffic", () => {
  const spend = (order: string[], name: string, units: number) => async () => {
    order.push(name);
    return { value: name, units };
  };

  it("a timer (a request) queued during a turn runs before the next turn", async () => {
    const order: string[] = [];
    const turns = new Turns();
    try {
      await turns.run(async () => {
        setTimeout(() => order.push("traffic"), 0);
        order.push("turn 1");
        return { value: null, units: MANAGEMENT_BUDGET.turnUnits };
      });
      await turns.run(spend(order, "turn 2", 0));
    } finally {
      turns.close();
    }
    expect(order).toEqual(["turn 1", "traffic", "turn 2"]);
  });

  it("runs share a turn until it has spent turnUnits or turnRuns", async () => {
    const order: string[] = [];
    const turns = new Turns();
    try {
      for (let i = 0; i < MANAGEMENT_BUDGET.turnRuns + 1; i++) {
        if (i === 1) setTimeout(() => order.push("traffic"), 0);
        await turns.run(spend(order, `run ${i}`, 1));
      }
    } finally {
      turns.close();
    }
    // The timer set during the first turn fires when that turn ends, after turnRuns runs.
    expect(order.indexOf("traffic")).toBe(MANAGEMENT_BUDGET.turnRuns);
  });

  it("two calls take turns one at a time, first come first served", async () => {
    const order: string[] = [];
    const a = new Turns();
    const b = new Turns();
    const call = async (turns: Turns, name: string) => {
      try {
        for (let i = 0; i < 3; i++)
          await turns.run(async () => {
            order.push(`${name}${i} start`);
            await Promise.resolve();
            order.push(`${name}${i} end`);
            return { value: null, units: MANAGEMENT_BUDGET.turnUnits };
          });
      } finally {
        turns.close();
      }
    };
    await Promise.all([call(a, "a"), call(b, "b")]);
    // Never two turns at once: every start is followed by its own end.
    for (let i = 0; i < order.length; i += 2) expect(order[i + 1]).toBe(order[i]?.replace("start", "end"));
    expect(order.filter((o) => o.endsWith("start"))).toEqual([
      "a0 start",
      "b0 start",
      "a1 start",
      "b1 start",
      "a2 start",
      "b2 start",
    ]);
  });
});

/**
 * Counts the turns the event loop gives to other work: a timer that re-arms itself, as a request arriving meanwhile
 * would be queued. `stop()` ends it and says how many times it ran.
 */
function countTurns(): { stop: () => number } {
  let done = false;
  let ticks = 0;
  const tick = (): void => {
    if (done) return;
    ticks += 1;
    setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  return {
    stop: () => {
      done = true;
      return ticks;
    },
  };
}

describe("a draft's compile takes turns with traffic", () => {
  it("a new draft's expressions compile compilesPerTurn a turn, a request (a timer) running between two turns", async () => {
    const zone = uniqueZone("draft-turns");
    await putZone(zone, { plan: "enterprise", origin: loopback(ports.closed) });
    const read = await lookupZone(env.CONFIG, zone);
    if (!read.ok || read.value === null) throw new Error("no zone");
    const saved = read.value;
    const rules = Array.from({ length: 64 }, (_, k) => ({
      ...heavy(k),
      expression: `${heavy(k).expression} or http.request.uri.path eq "/t${Math.random()}"`,
    }));
    const turns = countTurns();
    const result = await compiledDraft(saved, compiledOf(saved), { rules });
    const ticks = turns.stop();
    expect(result.ok).toBe(true);
    // One turn per batch of expressions, then one to validate the draft and one to compile its rule list, each after
    // the requests already queued: the timer ran before each.
    const batches = compileBatches(rules.map((r) => r.expression));
    expect(batches.length).toBeGreaterThanOrEqual(rules.length / MANAGEMENT_BUDGET.compilesPerTurn);
    expect(ticks).toBeGreaterThanOrEqual(batches.length + 2);
  });

  it("a turn compiles at most compilesPerTurn expressions and compileCharsPerTurn characters of them (at least one)", () => {
    const long = heavy(0).expression;
    const short = 'http.request.uri.path eq "/a"';
    const huge = `${long} or ${"x".repeat(MANAGEMENT_BUDGET.compileCharsPerTurn)}`;
    const sources = [...Array.from({ length: 20 }, () => short), huge, ...Array.from({ length: 9 }, () => long)];
    const batches = compileBatches(sources);
    // Every expression once, in order.
    expect(batches.flat()).toEqual(sources);
    for (const batch of batches) {
      expect(batch.length).toBeGreaterThan(0);
      expect(batch.length).toBeLessThanOrEqual(MANAGEMENT_BUDGET.compilesPerTurn);
      const chars = batch.reduce((n, source) => n + source.length, 0);
      if (batch.length > 1) expect(chars).toBeLessThanOrEqual(MANAGEMENT_BUDGET.compileCharsPerTurn);
    }
    // The short ones by count, the one longer than a turn alone, the long ones as many as fit.
    expect(batches.slice(0, 3).map((b) => b.length)).toEqual([8, 8, 4]);
    expect(batches[3]).toEqual([huge]);
    const perTurn = Math.floor(MANAGEMENT_BUDGET.compileCharsPerTurn / long.length);
    expect(batches[4]?.length).toBe(perTurn);
    expect(batches.length).toBe(4 + Math.ceil(9 / perTurn));
  });

  it("a draft preview lints and writes its answer in turns of their own, after the request that arrived", async () => {
    const zone = uniqueZone("preview-pieces");
    await putZone(zone, { plan: "enterprise", origin: loopback(ports.closed) });
    const rules = Array.from({ length: 24 }, (_, k) => ({
      ...heavy(k),
      expression: `${heavy(k).expression} or http.request.uri.path eq "/p${Math.random()}"`,
    }));
    const turns = countTurns();
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`http://localhost/zones/${zone}/preview`, {
        method: "POST",
        headers: { ...ADMIN, "content-type": "application/json" },
        body: JSON.stringify({ draft: { rules }, request: { path: "/admin/1", code: 502 } }),
      }),
      env,
      ctx,
    );
    await res.arrayBuffer();
    await waitOnExecutionContext(ctx);
    const ticks = turns.stop();
    expect(res.status).toBe(200);
    // Reading the body, the draft's cache key, the compile turns, the validation, the rule list, the five runs (at
    // least one turn), the lint and the answer: a request arriving at any point waited for one piece, never for the
    // whole preview.
    const batches = compileBatches(rules.map((r) => r.expression)).length;
    expect(ticks).toBeGreaterThanOrEqual(2 + batches + 2 + 1 + 2);
  });
});

describe("management turns wait for the traffic in flight", () => {
  // Through the Worker's own fetch in this module graph, where turns.ts keeps the counters read here.
  const call = async (path: string, init: RequestInit = {}) => {
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request(`http://localhost${path}`, { headers: ADMIN, ...init }), env, ctx);
    const text = await res.text();
    await waitOnExecutionContext(ctx);
    return { status: res.status, text };
  };
  const preview = (zone: string) =>
    call(`/zones/${zone}/preview`, {
      method: "POST",
      headers: { ...ADMIN, "content-type": "application/json" },
      body: JSON.stringify({
        draft: { rules: [{ ...heavy(0), expression: `http.request.uri.path eq "/w${Math.random()}"` }] },
        request: { path: "/admin/1", code: 502 },
      }),
    });

  it("a draft preview's turns begin beside a request in flight at most once per quietWaitMs of it", async () => {
    const zone = uniqueZone("quiet-preview");
    await putZone(zone, { plan: "enterprise", origin: loopback(ports.closed) });
    const slow = uniqueZone("quiet-traffic");
    await putZone(slow, { origin: loopback(ports.http) });
    const before = turnStats();
    // Zone traffic whose origin answers after 1.5 s: in flight for the whole preview.
    const started = Date.now();
    const traffic = sendTraffic(`http://${slow}/slow-headers?ms=1500`).then(async (res) => {
      await res.arrayBuffer();
      return { status: res.status, ms: Date.now() - started };
    });
    for (let i = 0; i < 1000 && trafficInFlight() === 0; i++) await new Promise((r) => setTimeout(r, 0));
    expect(trafficInFlight()).toBe(1);
    const answer = await preview(zone);
    const { status, ms } = await traffic;
    const after = turnStats();
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(status).toBe(200);
    const taken = after.taken - before.taken;
    const beside = after.besideTraffic - before.besideTraffic;
    // Every piece of the preview found the request in flight and waited for it; the ones that began while it was
    // still in flight each waited quietWaitMs first, so there are at most as many as that fits in its time (and at
    // least one: a busy isolate still serves management calls).
    expect(after.heldByTraffic - before.heldByTraffic).toBeGreaterThan(0);
    expect(beside).toBeGreaterThan(0);
    expect(beside).toBeLessThanOrEqual(Math.floor(ms / MANAGEMENT_BUDGET.quietWaitMs) + 1);
    expect(taken).toBeGreaterThanOrEqual(beside);
  });

  /** A draft preview whose body (valid JSON padded with spaces to `bytes`) arrives in 4 KiB chunks, as a socket's does. */
  const chunkedPreview = (zone: string, bytes: number) => {
    const json = JSON.stringify({ request: { path: "/admin/1", code: 502 } });
    const body = new TextEncoder().encode(json + " ".repeat(bytes - json.length));
    let at = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= body.length) return controller.close();
        controller.enqueue(body.slice(at, at + 4096));
        at += 4096;
      },
    });
    return call(`/zones/${zone}/preview`, {
      method: "POST",
      headers: { ...ADMIN, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
  };

  it("a draft preview reads its body in steps of bodyBytesPerStep, a timer (a request) running between two", async () => {
    const zone = uniqueZone("body-steps");
    await putZone(zone, { plan: "enterprise", origin: loopback(ports.closed) });
    const bytes = 900 * 1024;
    const before = turnStats();
    const ticks = countTurns();
    const answer = await chunkedPreview(zone, bytes);
    const ticked = ticks.stop();
    const after = turnStats();
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    const steps = after.bodySteps - before.bodySteps;
    expect(steps).toBeGreaterThanOrEqual(Math.floor(bytes / MANAGEMENT_BUDGET.bodyBytesPerStep) - 1);
    expect(steps).toBeLessThanOrEqual(Math.ceil(bytes / MANAGEMENT_BUDGET.bodyBytesPerStep));
    // The timer queued meanwhile ran before each step, and before the preview's turns after it.
    expect(ticked).toBeGreaterThanOrEqual(steps);
  });

  it("a draft preview's body waits while a request is in flight, quietWaitMs in all at most", async () => {
    const zone = uniqueZone("body-quiet");
    await putZone(zone, { plan: "enterprise", origin: loopback(ports.closed) });
    const slow = uniqueZone("body-traffic");
    await putZone(slow, { origin: loopback(ports.http) });
    const before = turnStats();
    // In flight for 4 s, far longer than the preview takes even on a loaded machine.
    const traffic = sendTraffic(`http://${slow}/slow-headers?ms=4000`).then(async (res) => {
      await res.arrayBuffer();
      return res.status;
    });
    for (let i = 0; i < 1000 && trafficInFlight() === 0; i++) await new Promise((r) => setTimeout(r, 0));
    expect(trafficInFlight()).toBe(1);
    const answer = await chunkedPreview(zone, 256 * 1024);
    const stillInFlight = trafficInFlight();
    expect(await traffic).toBe(200);
    const after = turnStats();
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    // The body stopped for the request, and then went on: the preview was answered while the request was still
    // in flight (its waiting is bounded, not the request's time).
    expect(after.bodyPauses - before.bodyPauses).toBeGreaterThan(0);
    expect(stillInFlight).toBe(1);
  });

  it("API calls are not traffic: a preview's turns never wait for another management call", async () => {
    const zone = uniqueZone("quiet-api");
    await putZone(zone, { plan: "enterprise", origin: loopback(ports.closed) });
    const before = turnStats();
    const answers = await Promise.all([preview(zone), preview(zone), call(`/zones/${zone}`)]);
    const after = turnStats();
    for (const answer of answers) expect(answer.status).toBe(200);
    expect(after.taken - before.taken).toBeGreaterThan(0);
    expect(after.heldByTraffic - before.heldByTraffic).toBe(0);
    expect(trafficInFlight()).toBe(0);
  });
});
