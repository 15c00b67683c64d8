/**
 * Management calls never stall traffic (docs/custom-errors.md "Management calls never stall traffic"): a replay, a
 * draft preview and a trace each run within a management budget (src/api/explain/turns.ts), far under a request's,
 * and stop with `truncated: true` past it; their evaluation runs in turns, one call at a time per isolate, and a
 * request that arrives during a turn runs before the next. Counted in units and in the order things ran, never timed.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../../src/index";
import { MAX_REQUEST_UNITS } from "../../../../src/rules/budget";
import { MANAGEMENT_BUDGET, Turns } from "../../../../src/api/explain/turns";
import { OVER_RUN_BUDGET } from "../../../../src/api/preview/replay";
import { compiledDraft } from "../../../../src/api/preview/draft-cache";
import { compiledOf } from "../../../../src/edge/compiled-zone";
import { lookupZone } from "../../../../src/state/zone/cache";
import { api, apiOk, entrypoint } from "../../support/envelope";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";

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
    let done = false;
    let ticks = 0;
    const tick = (): void => {
      if (done) return;
      ticks += 1;
      setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    const result = await compiledDraft(saved, compiledOf(saved), { rules });
    done = true;
    expect(result.ok).toBe(true);
    // One turn per compilesPerTurn expressions, each after the requests already queued: the timer ran before each.
    expect(ticks).toBeGreaterThanOrEqual(rules.length / MANAGEMENT_BUDGET.compilesPerTurn);
  });
});
