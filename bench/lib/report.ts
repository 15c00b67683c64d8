/**
 * Print a suite's result as a table on stdout and write it as JSON to `bench/results/<suite>.json`
 * (gitignored: numbers worth keeping go to docs/benchmarks.md with the date and the command).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { availableParallelism, loadavg } from "node:os";
import { resolve } from "node:path";
import { round } from "./stats.ts";
import type { ResultRow, SuiteResult } from "./suite.ts";

const COLUMNS: readonly { readonly title: string; readonly cell: (row: ResultRow) => string }[] = [
  { title: "name", cell: (row) => (row.baseline === true ? `${row.name} [baseline]` : row.name) },
  { title: "req/s", cell: (row) => format(row.reqPerSec, 0) },
  { title: "p50 ms", cell: (row) => format(row.p50Ms, 2) },
  { title: "p99 ms", cell: (row) => format(row.p99Ms, 2) },
  { title: "server CPU µs/req", cell: (row) => format(row.serverCpuUs, 0) },
  { title: "instructions/req", cell: (row) => format(row.instructionsPerRequest, 0) },
  { title: "ns/op", cell: (row) => format(row.nsPerOp, 1) },
  { title: "ratio", cell: (row) => ratio(row.ratio) },
  { title: "target", cell: verdict },
  // Beside the counted ratio and its verdict, not instead of them (docs/benchmarks.md "Method": time-driven work).
  { title: "instructions/req at the load's rate", cell: (row) => format(row.instructionsAtLoadRate, 0) },
  { title: "ratio at the load's rate", cell: (row) => ratio(row.ratioAtLoadRate) },
  { title: "failures", cell: (row) => (row.failures === undefined ? "" : String(row.failures)) },
];

function ratio(value: number | undefined): string {
  return value === undefined || !Number.isFinite(value) ? "" : `${value.toFixed(2)}×`;
}

function format(value: number | undefined, digits: number): string {
  return value === undefined || !Number.isFinite(value) ? "" : value.toFixed(digits);
}

function verdict(row: ResultRow): string {
  if (row.target === undefined || row.ratio === undefined) return "";
  return `${row.ratio >= row.target ? "ok" : "MISS"} (≥ ${row.target})`;
}

/** The table as text (used for stdout; also handy for pasting into docs/benchmarks.md). */
export function renderTable(rows: readonly ResultRow[]): string {
  const used = COLUMNS.filter((column) => column.title === "name" || rows.some((row) => column.cell(row) !== ""));
  const cells = rows.map((row) => used.map((column) => column.cell(row)));
  const widths = used.map((column, i) => Math.max(column.title.length, ...cells.map((line) => (line[i] ?? "").length)));
  const line = (values: readonly string[]): string =>
    `| ${values.map((value, i) => (i === 0 ? value.padEnd(widths[i] ?? 0) : value.padStart(widths[i] ?? 0))).join(" | ")} |`;
  const rule = `|${widths.map((width, i) => (i === 0 ? "-".repeat(width + 2) : `${"-".repeat(width + 1)}:`)).join("|")}|`;
  return [line(used.map((column) => column.title)), rule, ...cells.map(line)].join("\n");
}

/** Print the suite's table and notes, and write `bench/results/<suite>.json`; returns the JSON path. */
export async function report(root: string, suite: string, result: SuiteResult): Promise<string> {
  console.log(`\n## ${suite}\n`);
  console.log(renderTable(result.rows));
  for (const note of result.notes ?? []) console.log(`- ${note}`);
  const host = machine();
  console.log(`- machine: ${host.cpus} CPUs, load average ${host.loadAverage1m} (1 min), Node ${host.node}`);
  const directory = resolve(root, "bench/results");
  await mkdir(directory, { recursive: true });
  const path = resolve(directory, `${suite}.json`);
  const document = { suite, date: new Date().toISOString(), machine: host, ...result };
  await writeFile(path, `${JSON.stringify(document, null, 2)}\n`);
  return path;
}

/** Enough about the machine to compare runs. */
function machine(): {
  readonly cpus: number;
  readonly loadAverage1m: number;
  readonly node: string;
  readonly platform: string;
} {
  return {
    cpus: availableParallelism(),
    // Other processes compete for the same cores: a high load average explains a noisy run.
    loadAverage1m: round(loadavg()[0] ?? 0, 2),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}
