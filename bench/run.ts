/**
 * `npm run bench [-- [--quick] [--wrk] [suite …]]`: run every `bench/suites/*.ts`, or only the named ones, one
 * after the other (never in parallel: they would compete for the 2 cores and void each other's numbers).
 * Each suite prints a table with ratios against a baseline measured in the same run; see bench/README.md.
 */
import { readdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { report } from "./lib/report.ts";
import { isSuiteModule } from "./lib/suite.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const suitesDirectory = resolve(root, "bench/suites");

async function main(argv: readonly string[]): Promise<number> {
  const quick = argv.includes("--quick");
  const wrk = argv.includes("--wrk");
  const requested = argv.filter((arg) => !arg.startsWith("--"));
  const available = (await readdir(suitesDirectory))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => file.slice(0, -3))
    .sort();
  const unknown = requested.filter((name) => !available.includes(name));
  if (unknown.length > 0) {
    console.error(`unknown suite(s): ${unknown.join(", ")}; available: ${available.join(", ")}`);
    return 2;
  }
  const selected = requested.length > 0 ? requested : available;
  let failed = 0;
  for (const name of selected) {
    const module: unknown = await import(pathToFileURL(resolve(suitesDirectory, `${name}.ts`)).href);
    if (!isSuiteModule(module)) {
      console.error(`bench/suites/${name}.ts must export \`description\` and \`run(context)\` (bench/lib/suite.ts)`);
      failed++;
      continue;
    }
    console.error(`\n▶ ${name}: ${module.description}${quick ? " (quick)" : ""}`);
    const started = Date.now();
    try {
      const result = await module.run({ name, root, quick, wrk, log: (line) => console.error(`  ${line}`) });
      const path = await report(root, wrk ? `${name}-wrk` : name, result);
      console.error(`  ${((Date.now() - started) / 1000).toFixed(1)} s; JSON: ${path}`);
    } catch (error) {
      console.error(`✗ ${name} failed:`, error);
      failed++;
    }
  }
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
