/**
 * Custom error assets on the error path (docs/custom-errors.md "Custom error assets"): an error generated
 * on zone traffic (1038: request headers over the zone's 1 KiB limit, produced after the zone lookup and before any
 * network I/O) answered by a custom error rule that serves an asset (`asset_name`), against the same rule serving the
 * same bytes as inline `content`, on another zone of the same Worker, in the same run. Target: ≥ 0.95×.
 *
 * The asset is made by the API from the example origin's maintenance page (its stylesheet and logo inlined), and the
 * inline rule's content is that stored HTML, byte for byte, so the two answers are identical but for the Ray ID: the
 * ratio is what serving from the asset costs (the per-isolate part cache, src/edge/custom-errors/page-cache.ts),
 * not a difference of bytes. Also measured: the first error after the asset changed (its part read from KV once).
 */
import { api as apiCall, send } from "../lib/http.ts";
import { warmedRounds, load, type LoadResult } from "../lib/load.ts";
import { startExampleOrigin } from "../lib/origin.ts";
import { loadRows } from "../lib/rows.ts";
import { serveWorker, type Served } from "../lib/serve.ts";
import { median, round } from "../lib/stats.ts";
import type { SuiteContext, SuiteResult } from "../lib/suite.ts";

export const description = "an error (1038) answered by a rule serving a custom error asset vs the same inline content";

const PATH = "/checkout";
/** Over the zones' 1 KiB header limit: every request is a generated 1038 (status 431). */
const PAD = "p".repeat(1500);
const STATUS = 431;
const ADMIN_TOKEN = "bench-admin-token";
const TARGET = 0.95;
const INLINE = "inline.assets.bench.example";
const ASSET = "asset.assets.bench.example";
const NAME = "maintenance_page";

interface Scenario {
  readonly name: string;
  readonly host: string;
  readonly accept: string;
  readonly target?: number;
}

const SCENARIOS: readonly Scenario[] = [
  { name: "rule with inline content (the asset's bytes), HTML client", host: INLINE, accept: "text/html" },
  { name: "rule with asset_name, HTML client", host: ASSET, accept: "text/html", target: TARGET },
  { name: "rule with inline content (the asset's bytes), JSON client", host: INLINE, accept: "application/json" },
  { name: "rule with asset_name, JSON client", host: ASSET, accept: "application/json", target: TARGET },
];

export async function run(context: SuiteContext): Promise<SuiteResult> {
  const rounds = context.quick ? 1 : 12;
  const seconds = 1;
  const connections = 8;
  const notes: string[] = [];
  const origin = await startExampleOrigin(context.root);
  const served: Served = await serveWorker({
    root: context.root,
    entry: "src/index.ts",
    bindings: { ADMIN_TOKEN, API_HOSTS: "localhost" },
  });
  try {
    const zone = { plan: "enterprise", origin: origin.url, max_request_header_bytes: 1024 };
    await api(served, "PUT", `/zones/${INLINE}`, zone);
    await api(served, "PUT", `/zones/${ASSET}`, zone);
    await api(served, "POST", `/zones/${ASSET}/custom_pages/assets`, {
      name: NAME,
      description: "bench",
      url: `http://${ASSET}/errors/maintenance.html`,
    });
    const rule = (parameters: Record<string, unknown>) => ({
      rules: [{ expression: "http.response.code eq 431", action: "serve_error", action_parameters: parameters }],
    });
    const rulesPath = (host: string) => `/zones/${host}/rulesets/phases/http_custom_errors/entrypoint`;
    await api(served, "PUT", rulesPath(ASSET), rule({ asset_name: NAME }));
    // The stored HTML, as served with its one ::RAY_ID:: token put back: the inline rule carries exactly these bytes.
    const served1 = await send(new URL(PATH, served.url), "GET", { host: ASSET, accept: "text/html", "x-pad": PAD });
    const ray = served1.headers["ray-id"] ?? "";
    if (served1.status !== STATUS || !/^[0-9a-f]{16}$/.test(ray)) throw new Error("the asset rule did not answer");
    const html = served1.body.replace(ray, "::RAY_ID::");
    await api(served, "PUT", rulesPath(INLINE), rule({ content: html, content_type: "text/html" }));

    // Identical answers but for the Ray ID: the comparison is of the serving path, not of the bytes served.
    const inlineBody = (await timed(served, INLINE)).body;
    const assetBody = (await timed(served, ASSET)).body;
    const unray = (body: string) => body.replace(/[0-9a-f]{16}/g, "RAY");
    if (unray(inlineBody) !== unray(assetBody)) throw new Error("the asset and inline rules answer different bodies");

    // The first error after the asset changed reads its part from KV once (then memory), against the next ones.
    const firsts: number[] = [];
    const nexts: number[] = [];
    for (let i = 0; i < 5; i++) {
      await api(served, "PUT", `/zones/${ASSET}/custom_pages/assets/${NAME}`, {
        description: `bench ${i}`,
        url: `http://${ASSET}/errors/maintenance.html`,
      });
      firsts.push((await timed(served, ASSET)).ms);
      nexts.push((await timed(served, ASSET)).ms);
    }
    notes.push(
      `the asset: ${Buffer.byteLength(html)} bytes of HTML (the example origin's maintenance page, stylesheet and logo inlined);`,
      `first error after the asset was updated (part read from KV once): median ${round(median(firsts), 2)} ms end to ` +
        `end over 5 updates, the next one ${round(median(nexts), 2)} ms;`,
    );

    const drive = (scenario: Scenario, durationSeconds: number): Promise<LoadResult> =>
      load({
        url: new URL(PATH, served.url),
        headers: { host: scenario.host, accept: scenario.accept, "x-pad": PAD },
        connections,
        durationSeconds,
        expectStatus: STATUS,
        serverCpu: served.cpuSeconds,
      });
    const results = await warmedRounds(SCENARIOS, {
      rounds,
      seconds,
      drive,
      log: (line) => context.log(line),
    });
    const rows = loadRows(SCENARIOS, results, (i) => (SCENARIOS[i]?.host === INLINE ? i : i - 1));
    notes.push(
      `${rounds} round(s) × ${seconds} s per scenario, ${connections} connections; one Worker (Miniflare), two zones;`,
      "the baseline is the same Worker, request and answer on a zone whose rule carries the asset's bytes inline.",
    );
    return { rows, notes };
  } finally {
    await served.dispose();
    origin.process.kill();
  }
}

async function timed(served: Served, host: string): Promise<{ ms: number; body: string }> {
  const started = performance.now();
  const answer = await send(new URL(PATH, served.url), "GET", { host, accept: "text/html", "x-pad": PAD });
  if (answer.status !== STATUS) throw new Error(`the error answered ${answer.status}: ${answer.body.slice(0, 200)}`);
  return { ms: performance.now() - started, body: answer.body };
}

const api = (served: Served, method: string, path: string, body: unknown): Promise<void> =>
  apiCall(served.url, ADMIN_TOKEN, method, path, body);
