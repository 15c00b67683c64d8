#!/usr/bin/env node
// The allowed-imports table of src/ (scripts/layers.json, shown in docs/architecture.md), enforced:
//   - every import or re-export (`import … from`, `export … from`, `import("…")`, type-only ones included) from one
//     layer to another must be allowed by the importing file's layer entry (its longest matching key);
//   - the table itself has no cycle (so neither can the code);
//   - every top-level folder or file of src/ is a layer of the table (a new one cannot escape it);
//   - no folder holds a single .ts file unless `single_file_folders` gives the reason.
//   node scripts/check-layers.mjs        (run by `npm run lint` and `.ci/run`)
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";

const root = "src";
const { layers, single_file_folders: singles } = JSON.parse(readFileSync("scripts/layers.json", "utf8"));
const problems = [];

const files = [];
const folders = new Map(); // folder → number of .ts files directly in it
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith(".ts")) {
      files.push(path);
      folders.set(dir, (folders.get(dir) ?? 0) + 1);
    }
  }
})(root);

/** src-relative POSIX path. */
const rel = (file) => relative(root, file).split(sep).join("/");
/** The layer a file belongs to: its top folder, or the file itself at the root. */
const layerOf = (file) => rel(file).split("/")[0];
/** The table entry that governs a file: the longest key that is its layer or a folder prefix of it. */
function entryOf(file) {
  const path = rel(file);
  let best = null;
  for (const key of Object.keys(layers)) {
    if (path === key || path.startsWith(`${key}/`)) if (best === null || key.length > best.length) best = key;
  }
  return best;
}

for (const top of readdirSync(root)) {
  if (!(top in layers)) problems.push(`src/${top} is not a layer of scripts/layers.json`);
}
for (const [key, { may_import: allowed }] of Object.entries(layers)) {
  for (const target of allowed)
    if (!(target in layers)) problems.push(`layers.json: ${key} may import unknown ${target}`);
}

// Cycles in the table (top-level layers only; sub-folder keys add edges of their layer).
const graph = new Map();
for (const [key, { may_import: allowed }] of Object.entries(layers)) {
  const from = key.split("/")[0];
  if (!graph.has(from)) graph.set(from, new Set());
  for (const to of allowed) if (to !== from) graph.get(from).add(to);
}
const seen = new Map();
function visit(v, path) {
  if (seen.get(v) === "open") {
    problems.push(`layers.json: cycle ${[...path.slice(path.indexOf(v)), v].join(" → ")}`);
    return;
  }
  if (seen.get(v) === "done") return;
  seen.set(v, "open");
  for (const w of graph.get(v) ?? []) visit(w, [...path, v]);
  seen.set(v, "done");
}
for (const v of graph.keys()) visit(v, []);

const specifier = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;
let checked = 0;
for (const file of files) {
  const text = readFileSync(file, "utf8");
  const entry = entryOf(file);
  for (const match of text.matchAll(specifier)) {
    const spec = match[1] ?? match[2];
    if (!spec.startsWith(".")) continue;
    const target = normalize(join(dirname(file), spec));
    const isDir = (() => {
      try {
        return statSync(target).isDirectory();
      } catch {
        return false;
      }
    })();
    const targetFile = isDir
      ? join(target, "index.ts")
      : target.endsWith(".ts") || target.endsWith(".json")
        ? target
        : `${target}.ts`;
    const from = layerOf(file);
    if (!targetFile.startsWith(root + sep)) {
      problems.push(`${file} imports ${spec}, outside src/`);
      continue;
    }
    const to = layerOf(targetFile);
    checked++;
    if (from === to) continue;
    if (entry === null || !layers[entry].may_import.includes(to))
      problems.push(
        `${file} (layer ${entry ?? from}) imports ${spec} (layer ${to}): not allowed by scripts/layers.json`,
      );
  }
}

for (const [folder, count] of folders) {
  const key = rel(folder);
  if (count === 1 && folder !== root && !(key in (singles ?? {})))
    problems.push(`${folder} holds a single .ts file: merge it, or give the reason in single_file_folders`);
}

if (problems.length > 0) {
  for (const p of problems) console.error(`check-layers: ${p}`);
  process.exit(1);
}
console.log(
  `check-layers: ${checked} imports within the table (${Object.keys(layers).length} entries), no single-file folder`,
);
