/**
 * `npm run bench [-- [--quick] [--wrk | --instructions] [suite …]]`: run every `bench/suites/*.ts`, or only the
 * named ones, one after the other (never in parallel: they would compete for the 2 cores and void each other's
 * numbers).
 * Each suite prints a table with ratios against a baseline measured in the same run; see bench/README.md.
 */
import { readdir, readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { report } from "./lib/report.ts";
import { isSuiteModule } from "./lib/suite.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const suitesDirectory = resolve(root, "bench/suites");

async function main(argv: readonly string[]): Promise<number> {
  const quick = argv.includes("--quick");
  const wrk = argv.includes("--wrk");
  const instructions = argv.includes("--instructions");
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
    const stealBefore = await stealSeconds();
    try {
      const result = await module.run({
        name,
        root,
        quick,
        wrk,
        instructions,
        log: (line) => console.error(`  ${line}`),
      });
      const stealAfter = await stealSeconds();
      const notes =
        stealBefore === null || stealAfter === null
          ? result.notes
          : [
              ...(result.notes ?? []),
              `CPU time stolen by the hypervisor during the suite: ${(stealAfter - stealBefore).toFixed(1)} s`,
            ];
      const path = await report(root, instructions ? `${name}-instructions` : wrk ? `${name}-wrk` : name, {
        ...result,
        notes,
      });
      console.error(`  ${((Date.now() - started) / 1000).toFixed(1)} s; JSON: ${path}`);
    } catch (error) {
      console.error(`✗ ${name} failed:`, error);
      failed++;
    }
  }
  return failed === 0 ? 0 : 1;
}

/**
 * Seconds of CPU time the hypervisor gave to others (`steal` of /proc/stat, all CPUs), or null off Linux. On a
 * shared virtual machine this is what makes one run's numbers move against another's: reported with every suite.
 */
async function stealSeconds(): Promise<number | null> {
  try {
    const cpu = (await readFile("/proc/stat", "utf8")).split("\n")[0]!.trim().split(/\s+/);
    const steal = Number(cpu[8]);
    return Number.isFinite(steal) ? steal / 100 : null; // USER_HZ = 100 (bench/lib/cpu.ts)
  } catch {
    return null;
  }
}

process.exitCode = await main(process.argv.slice(2));
