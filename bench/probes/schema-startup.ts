/**
 * What the request-schema library (zod, src/shared/schema.ts) costs a fresh isolate, in instructions that load does
 * not move (docs/benchmarks.md "2026-11-29 (ninth)"): each start is a new workerd process under callgrind
 * (bench/lib/instructions.ts `serveCounted`), served like the startup suite's real Worker, counted
 *
 *   - from the process's start to its first answer (`GET /cdn-cgi/error/522`, as `npm run bench -- startup`);
 *   - for the first `GET /openapi.json` on an API host after that (the document built from the schemas and
 *     serialised: src/api/kit/mount.ts builds it on its first request), and for a second one (served from memory);
 *
 * for two bundles of the same source: the Worker as built, and the Worker with every schema object constructed twice
 * (zod's constructor makes and drops a copy of each object before making the one it returns). The difference of the
 * two starts is what constructing the schemas at module evaluation costs (the copies' garbage is collected like the
 * schemas' own temporaries; the registrations of `named()` are not doubled). Also the bytes of zod in the bundle
 * (esbuild's metafile, the options of bench/lib/serve.ts `bundleWorker`).
 *
 *   npx tsx bench/probes/schema-startup.ts [--starts 2] [--root <checkout>]
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { sequentialRequests, serveCounted } from "../lib/instructions.ts";
import { bundleWorker, WORKER_BUILD_OPTIONS } from "../lib/serve.ts";
import { median } from "../lib/stats.ts";

const { values } = parseArgs({
  options: { starts: { type: "string", default: "2" }, root: { type: "string" } },
});
const starts = Number(values.starts);
const root = resolve(values.root ?? resolve(import.meta.dirname, "../.."));
const API_HOST = "api.invalid";

/**
 * The bundle with each outermost construction of a zod object (its class's constructor function `_` in
 * zod/v4/core/core.js `$constructor`) preceded by a throwaway construction from the same definition. Objects made
 * inside a construction are not doubled again (a depth count).
 */
export function constructionsTwice(bundle: string): string {
  const head = "  function _(def) {\n";
  const tail = '    return inst;\n  }\n  Object.defineProperty(_, "init", { value: init });';
  const start = bundle.indexOf(head);
  const end = bundle.indexOf(tail, start);
  if (bundle.split(head).length !== 2 || end === -1)
    throw new Error("zod's $constructor not found once in the bundle: this probe knows zod 4.6's bundled shape");
  const body = bundle.slice(start + head.length, end + "    return inst;\n".length);
  const doubled =
    head +
    "    if (__schemaDepth === 0) {\n      __schemaDepth = 1;\n      try { new _(def); } finally { __schemaDepth = 0; }\n    }\n" +
    "    __schemaDepth++;\n    try {\n" +
    body +
    "    } finally { __schemaDepth--; }\n  }\n" +
    tail.slice(tail.indexOf("  Object.defineProperty"));
  return `var __schemaDepth = 0;\n${bundle.slice(0, start)}${doubled}${bundle.slice(end + tail.length)}`;
}

interface Counts {
  readonly toFirstAnswer: number;
  readonly firstDocument: number;
  readonly secondDocument: number;
}

async function count(script: string): Promise<Counts> {
  const worker = await serveCounted({ root, script, bindings: { API_HOSTS: API_HOST } });
  try {
    const get = async (path: string, host: string, status: number): Promise<void> => {
      const sender = sequentialRequests(new URL(path, worker.served.url), { host, accept: "application/json" }, status);
      try {
        await sender.send();
      } finally {
        sender.close();
      }
    };
    // Each count is the instructions since the one before (a callgrind dump starts the next count at zero).
    await get("/cdn-cgi/error/522", "localhost", 522);
    const toFirstAnswer = worker.sinceStart();
    await get("/openapi.json", API_HOST, 200);
    const firstDocument = worker.sinceStart();
    await get("/openapi.json", API_HOST, 200);
    const secondDocument = worker.sinceStart();
    return { toFirstAnswer, firstDocument, secondDocument };
  } finally {
    await worker.dispose();
  }
}

/** Bytes of zod's modules in the bundle and of the bundle's modules in all (esbuild's `bytesInOutput`). */
async function zodBytes(): Promise<{ readonly zod: number; readonly all: number }> {
  const result = await build({
    ...WORKER_BUILD_OPTIONS,
    entryPoints: [resolve(root, "src/index.ts")],
    metafile: true,
    outdir: "out",
  });
  let zod = 0;
  let all = 0;
  for (const output of Object.values(result.metafile.outputs))
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      all += bytesInOutput;
      if (input.includes("node_modules/zod/")) zod += bytesInOutput;
    }
  return { zod, all };
}

const real = await bundleWorker(root, "src/index.ts");
const variants = { real, twice: constructionsTwice(real) };
const results: Record<keyof typeof variants, Counts[]> = { real: [], twice: [] };
for (let i = 0; i < starts; i++)
  for (const name of i % 2 === 0 ? (["real", "twice"] as const) : (["twice", "real"] as const)) {
    const counted = await count(variants[name]);
    results[name].push(counted);
    console.error(`${name}: ${JSON.stringify(counted)}`);
  }
const of = (name: keyof typeof variants, key: keyof Counts): number =>
  median(results[name].map((counts) => counts[key]));
const bytes = await zodBytes();
const table = {
  "start to first answer, as built": of("real", "toFirstAnswer"),
  "start to first answer, schemas constructed twice": of("twice", "toFirstAnswer"),
  "schema construction at start-up (the difference)": of("twice", "toFirstAnswer") - of("real", "toFirstAnswer"),
  "first GET /openapi.json (document built)": of("real", "firstDocument"),
  "second GET /openapi.json (from memory)": of("real", "secondDocument"),
  "zod bytes in the bundle (esbuild metafile)": bytes.zod,
  "all modules' bytes in the bundle": bytes.all,
};
for (const [name, value] of Object.entries(table)) console.log(`${name}: ${value}`);
