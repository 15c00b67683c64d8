/**
 * The replay (`POST /zones/{zone}/preview/replay`, docs/custom-errors.md "Replay"): 1,000 recorded errors of an
 * enterprise zone replayed against a 300-rule draft, time and Worker CPU per recorded error, against the baseline
 * measured in the same run: a draft preview (`POST /zones/{zone}/preview`) of one described request with the same
 * 300-rule draft. Calls are sent one after another and interleaved round by round; the Worker's CPU is read from its
 * workerd process before and after each call (Miniflare runs the analytics object in the same process, so its
 * reading of the window is counted too).
 *
 * A replay is bounded to one per 10 s per token and zone after a burst of 3, a draft preview to 2 per second after a
 * burst of 20 (src/api/explain/bound.ts): a refused call waits and is sent again, outside the timing.
 */
import { acceptFamily, addressClass } from "../../src/edge/analytics/request-class.ts";
import { encodeBatch, type ErrorRecord } from "../../src/state/analytics/record.ts";
import { encodeDetail } from "../../src/state/analytics/request-detail.ts";
import { api as apiCall, send } from "../lib/http.ts";
import { compare } from "../lib/micro.ts";
import { serveWorker, type Served } from "../lib/serve.ts";
import { median, round } from "../lib/stats.ts";
import type { ResultRow, SuiteContext, SuiteResult } from "../lib/suite.ts";
import { nonMatchingRules } from "./custom-errors.ts";

export const description =
  "POST /zones/{zone}/preview/replay of 1,000 recorded errors with a 300-rule draft, per recorded error, vs one draft preview";

const ADMIN_TOKEN = "bench-admin-token";
const ZONE = "replay.bench.example";
const RECORDS = 1000;
const ACCEPTS = ["application/json", "text/html", "text/markdown", "application/problem+json", "*/*"];

interface Timed {
  readonly ms: number;
  /** Worker process CPU µs during the call, or null off Linux. */
  readonly cpuUs: number | null;
}

export async function run(context: SuiteContext): Promise<SuiteResult> {
  const rounds = context.quick ? 1 : 5;
  const previewsPerRound = context.quick ? 3 : 20;
  const rules = nonMatchingRules(300);
  // The draft: the same 300 rules with the last one edited to match the recorded 521s, so every record changes.
  const draft = {
    rules: rules.map((rule, i) => (i === 299 ? { ...rule, expression: "http.response.code eq 521" } : rule)),
  };
  const served: Served = await serveWorker({
    root: context.root,
    entry: "src/index.ts",
    bindings: { ADMIN_TOKEN, API_HOSTS: "localhost" },
  });
  try {
    await api(served, "PUT", `/zones/${ZONE}`, { plan: "enterprise", origin: "http://127.0.0.1:9" });
    await api(served, "PUT", `/zones/${ZONE}/rulesets/phases/http_custom_errors/entrypoint`, { rules });
    context.log(`recording ${RECORDS} errors (521, the origin refuses)`);
    for (let i = 0; i < RECORDS; i++) {
      const answer = await send(new URL(`/items/${i % 50}`, served.url), i % 7 === 0 ? "POST" : "GET", {
        host: ZONE,
        accept: ACCEPTS[i % ACCEPTS.length]!,
      });
      if (answer.status !== 521) throw new Error(`traffic: ${answer.status} ${answer.body.slice(0, 200)}`);
    }
    await settled(served, RECORDS);

    const headers = {
      host: "localhost",
      authorization: `Bearer ${ADMIN_TOKEN}`,
      accept: "application/json",
      "content-type": "application/json",
    };
    const previewBody = JSON.stringify({
      draft,
      request: { path: "/items/1", headers: { Accept: "application/json" }, origin: { failure: "refused" } },
    });
    const replayBody = JSON.stringify({ draft, window: { limit: RECORDS } });
    const timed = async (path: string, body: string): Promise<Timed & { status: number; text: string }> => {
      const cpuBefore = await served.cpuSeconds();
      const started = performance.now();
      const answer = await send(new URL(path, served.url), "POST", headers, body);
      const ms = performance.now() - started;
      const cpuAfter = await served.cpuSeconds();
      const cpuUs = cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) * 1e6;
      return { ms, cpuUs, status: answer.status, text: answer.body };
    };
    const preview = async (): Promise<Timed> => {
      for (;;) {
        const t = await timed(`/zones/${ZONE}/preview`, previewBody);
        if (t.status === 429) {
          // Past the previews' burst (bound.ts PREVIEW_BOUNDS): wait for the allowance, outside the timing.
          await new Promise((r) => setTimeout(r, 1000));
          continue;
        }
        if (t.status !== 200) throw new Error(`preview: ${t.status} ${t.text.slice(0, 300)}`);
        return t;
      }
    };
    const replay = async (): Promise<Timed> => {
      for (;;) {
        const t = await timed(`/zones/${ZONE}/preview/replay`, replayBody);
        if (t.status === 429) {
          // One replay per 10 s after the burst (bound.ts REPLAY_BOUNDS).
          await new Promise((r) => setTimeout(r, 10_000));
          continue;
        }
        if (t.status !== 200) throw new Error(`replay: ${t.status} ${t.text.slice(0, 300)}`);
        const result = (JSON.parse(t.text) as { result: { replayed: number; changed: number } }).result;
        if (result.replayed !== RECORDS || result.changed !== RECORDS)
          throw new Error(`replay: ${JSON.stringify(result).slice(0, 300)}`);
        return t;
      }
    };
    context.log("warm-up");
    for (let i = 0; i < 5; i++) await preview();
    await replay();
    const previews: Timed[][] = [];
    const replays: Timed[] = [];
    for (let r = 0; r < rounds; r++) {
      const got: Timed[] = [];
      if (r % 2 === 1) replays.push(await replay());
      // The CPU probe counts clock ticks (10 ms): a preview's CPU is read over the whole block of previews.
      const cpuBefore = await served.cpuSeconds();
      for (let i = 0; i < previewsPerRound; i++) got.push(await preview());
      const cpuAfter = await served.cpuSeconds();
      const blockUs = cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) * 1e6) / got.length;
      if (r % 2 === 0) replays.push(await replay());
      previews.push(got.map((t) => ({ ...t, cpuUs: blockUs })));
      context.log(`round ${r + 1}/${rounds}`);
    }
    const previewMs = previews.map((g) => median(g.map((t) => t.ms)));
    const previewCpu = previews.map((g) => median(g.map((t) => t.cpuUs ?? NaN)));
    const perRecordMs = replays.map((t) => t.ms / RECORDS);
    const perRecordCpu = replays.map((t) => (t.cpuUs ?? NaN) / RECORDS);
    const cpuKnown = replays.every((t) => t.cpuUs !== null);
    const rows: ResultRow[] = [
      {
        name: "draft preview of one request, 300-rule draft (5 runs, trace)",
        baseline: true,
        p50Ms: round(median(previewMs), 3),
        ...(cpuKnown ? { serverCpuUs: round(median(previewCpu), 0) } : {}),
      },
      {
        name: `replay, per recorded error (${RECORDS} per call, 300-rule draft)`,
        p50Ms: round(median(perRecordMs), 3),
        ...(cpuKnown ? { serverCpuUs: round(median(perRecordCpu), 0) } : {}),
        // Recorded errors replayed per preview's time (higher is cheaper), round by round.
        ratio: round(median(perRecordMs.map((ms, i) => (previewMs[i] as number) / ms))),
        failures: 0,
      },
      {
        name: `replay, whole call (${RECORDS} recorded errors)`,
        p50Ms: round(median(replays.map((t) => t.ms)), 1),
        ...(cpuKnown ? { serverCpuUs: round(median(replays.map((t) => t.cpuUs ?? NaN)), 0) } : {}),
      },
    ];
    rows.push(...recordingRows(context.quick));
    return {
      rows,
      notes: [
        `${rounds} round(s): ${previewsPerRound} sequential draft previews and one replay, interleaved; one Worker (Miniflare).`,
        "p50 is the median time per call (client side, loopback), per recorded error for the replay row; the CPU column is",
        "the Worker's workerd process (analytics object included) during the call. Ratio: the preview's time ÷ the replay's",
        "time per recorded error (how many recorded errors a replay evaluates in the time of one draft preview).",
        "The last rows are Node micro-benchmarks (undici's Request, not workerd's): what the request detail costs an",
        "error's record (its Accept family, address class and packing) against encoding that record for its batch.",
      ],
    };
  } finally {
    await served.dispose();
  }
}

/**
 * What recording the request detail adds to an error's record on the error path (src/edge/analytics/request-class.ts):
 * the detail alone against encoding the record it joins (`encodeBatch` of one record, which every recorded error
 * already pays), in Node.
 */
function recordingRows(quick: boolean): ResultRow[] {
  const accepts = ["application/json", "text/html,application/xhtml+xml,*/*;q=0.8", "text/markdown", "*/*"];
  const requests = accepts.map(
    (accept, i) =>
      new Request(`https://shop.example/api/items/${i}`, {
        headers: { Accept: accept, "CF-Connecting-IP": i % 2 === 0 ? "198.51.100.7" : "2001:db8::7" },
      }),
  );
  const record: ErrorRecord = {
    ray: "0123456789abcdef",
    at: 1_764_150_000_123,
    code: 522,
    status: 522,
    source: "edge",
    answered_by: "default",
    answer_id: null,
    format: "json",
    method: "GET",
    path: "/api/items/42",
    country: "FR",
    cause: "GET [origin]/api/items/42; connect timeout",
    detail: "j4---f-",
  };
  const r = compare(
    (i) => {
      const request = requests[i % requests.length]!;
      return encodeDetail({
        accept: acceptFamily(request),
        client: addressClass(request),
        ipAccess: "none",
        firewall: "none",
        rateLimit: "none",
        origin: { kind: "failed" },
        rules: "not-run",
        blockedBy: null,
      });
    },
    () => encodeBatch([record]),
    { batch: quick ? 1000 : 20_000, rounds: quick ? 3 : 15 },
  );
  return [
    {
      name: "encoding one record for its batch (Node)",
      baseline: true,
      nsPerOp: round(r.baselineNs, 0),
    },
    { name: "the request detail alone: Accept family, address class, packing (Node)", nsPerOp: round(r.subjectNs, 0) },
  ];
}

/** Waits until the zone's analytics hold `expected` records (written after each response, in batches). */
async function settled(served: Served, expected: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const answer = await send(new URL(`/zones/${ZONE}/analytics/errors?step=minute`, served.url), "GET", {
      host: "localhost",
      authorization: `Bearer ${ADMIN_TOKEN}`,
    });
    const total = (JSON.parse(answer.body) as { result?: { total?: number } }).result?.total ?? 0;
    if (total >= expected) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`analytics did not reach ${expected} records`);
}

const api = (served: Served, method: string, path: string, body: unknown): Promise<void> =>
  apiCall(served.url, ADMIN_TOKEN, method, path, body);
