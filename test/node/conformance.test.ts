/**
 * The client's conformance kit cannot drift from the Worker (docs/client.md "The conformance kit"): the kit is
 * regenerated in memory from the real Worker (Miniflare on 127.0.0.1, as `npm run conformance` does) and compared
 * with the committed packages/conformance/kit/*.json (the `@edge-errors/conformance` package), case by case, with
 * each occurrence's ray and timestamp masked (the only values that differ between two runs). A change to any body,
 * header or field fails here until `npm run conformance` is run and its output committed.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveWorker, type Served } from "../../bench/lib/serve.ts";
import {
  CONFORMANCE_BINDINGS,
  CONFORMANCE_DIR,
  CONFORMANCE_FORMATS,
  generateConformance,
  generateOverlayConformance,
  generateAgentConformance,
  maskAgentCase,
  maskOccurrence,
  AGENT_FILES,
  type AgentCase,
  OVERLAY_FILE,
  type ConformanceCase,
  type ConformanceKit,
} from "../../scripts/conformance.ts";

const root = resolve(import.meta.dirname, "../..");
let served: Served;
let kit: ConformanceKit;
let overlay: ConformanceCase[];
let agents: Awaited<ReturnType<typeof generateAgentConformance>>;

beforeAll(async () => {
  served = await serveWorker({ root, entry: "src/index.ts", bindings: CONFORMANCE_BINDINGS });
  kit = await generateConformance(served.url.href.replace(/\/$/, ""));
  overlay = await generateOverlayConformance(served.url.href.replace(/\/$/, ""));
  agents = await generateAgentConformance(served.url.href.replace(/\/$/, ""));
}, 120_000);

afterAll(async () => {
  await served?.dispose();
});

describe("packages/conformance/kit is what the Worker answers", () => {
  it.each(CONFORMANCE_FORMATS)("%s.json", (format) => {
    const committed = JSON.parse(
      readFileSync(resolve(root, CONFORMANCE_DIR, `${format}.json`), "utf8"),
    ) as ConformanceCase[];
    expect(committed.map(maskOccurrence)).toEqual(kit[format].map(maskOccurrence));
  });

  it(`${OVERLAY_FILE} (errors overlaid by a custom error rule)`, () => {
    const committed = JSON.parse(
      readFileSync(resolve(root, CONFORMANCE_DIR, OVERLAY_FILE), "utf8"),
    ) as ConformanceCase[];
    expect(committed.map(maskOccurrence)).toEqual(overlay.map(maskOccurrence));
  });

  it.each(AGENT_FILES)("%s (rate limits, MCP answers, broken streams)", (file) => {
    const committed = JSON.parse(readFileSync(resolve(root, CONFORMANCE_DIR, file), "utf8")) as AgentCase[];
    expect(committed.map(maskAgentCase)).toEqual(agents[file].map(maskAgentCase));
  });

  it("the kit's README lists every file and every header a case keeps", () => {
    const readme = readFileSync(resolve(root, "packages/conformance/README.md"), "utf8");
    for (const file of [...CONFORMANCE_FORMATS.map((f) => `${f}.json`), OVERLAY_FILE, ...AGENT_FILES])
      expect(readme, file).toContain(`\`${file}\``);
    const kept = new Set<string>();
    for (const format of CONFORMANCE_FORMATS)
      for (const c of kit[format]) for (const h of Object.keys(c.response.headers)) kept.add(h);
    for (const file of AGENT_FILES)
      for (const c of agents[file]) for (const h of Object.keys(c.response.headers)) kept.add(h);
    for (const header of kept) expect(readme, header).toContain(`\`${header}\``);
  });
});
