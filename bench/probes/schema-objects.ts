/**
 * Which modules build zod objects when the Worker's bundle is evaluated (docs/benchmarks.md "2026-11-29
 * (tenth)"): every such object is work a fresh isolate does before its first answer, so this names the modules
 * where making schemas on first use (`later`, src/shared/schema.ts) would pay. Counts the outermost constructions
 * (an object zod makes while making another is part of it) per source module, evaluating the bundle as
 * bench/lib/serve.ts builds it in Node: the `cloudflare:` imports are replaced by empty stand-ins (nothing at module
 * level calls them), and each module's code is marked by the `// src/…` comment esbuild writes before it.
 *
 *   npx tsx bench/probes/schema-objects.ts [--root <checkout>] [--top 15]
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { bundleWorker } from "../lib/serve.ts";

const { values } = parseArgs({ options: { root: { type: "string" }, top: { type: "string", default: "15" } } });
const root = resolve(values.root ?? resolve(import.meta.dirname, "../.."));

interface Counted {
  __counts?: Record<string, number>;
}

/** The bundle, made to run in Node, each outermost construction counted under the module it is made in. */
export function countingBundle(bundle: string): string {
  const head = "  function _(def) {\n";
  const tail = '    return inst;\n  }\n  Object.defineProperty(_, "init"';
  if (bundle.split(head).length !== 2 || !bundle.includes(tail))
    throw new Error("zod's $constructor not found once in the bundle: this probe knows zod 4.6's bundled shape");
  return (
    bundle
      .replace(/^import \{ connect \} from "cloudflare:sockets";$/m, "const connect = () => {};")
      .replace(
        /^import \{ DurableObject(?: as (\w+))? \} from "cloudflare:workers";$/gm,
        (_line, name: string | undefined) => `class ${name ?? "DurableObject"} {}`,
      )
      // esbuild names a module by its path from the working directory (`../other/src/…` for another checkout).
      .replace(
        /^\/\/ (?:[\w.-]+\/)*?((?:node_modules|src)\/\S+)$/gm,
        (line, path: string) => `${line}\n__module = ${JSON.stringify(path)};`,
      )
      .replace(
        head,
        `${head}    if (__depth === 0) __counts[__module] = (__counts[__module] ?? 0) + 1;\n    __depth++;\n    try {\n`,
      )
      .replace(tail, '    return inst;\n    } finally { __depth--; }\n  }\n  Object.defineProperty(_, "init"')
      .replace(/^/, "var __module = '';\nvar __depth = 0;\nvar __counts = (globalThis.__counts = {});\n")
  );
}

const file = join(tmpdir(), `schema-objects-${process.pid}.mjs`);
writeFileSync(file, countingBundle(await bundleWorker(root, "src/index.ts")));
await import(file);
const counts = (globalThis as Counted).__counts ?? {};
const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
console.log(`zod objects built at module evaluation: ${total}`);
for (const [module, n] of Object.entries(counts)
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(values.top)))
  console.log(`${String(n).padStart(6)}  ${module}`);
