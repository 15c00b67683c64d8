#!/usr/bin/env node
// The allowed-imports table of src/ (scripts/layers.json, shown in docs/architecture.md), enforced:
//   - every import or re-export (`import … from`, `export … from`, `import("…")`, type-only ones included) from one
//     layer to another must be allowed by the importing file's layer entry (its longest matching key);
//   - the table itself has no cycle (so neither can the code);
//   - every top-level folder or file of src/ is a layer of the table (a new one cannot escape it);
//   - no folder holds a single .ts file unless `single_file_folders` gives the reason;
//   - no file-level import circle, type-only imports included (a circle closed by `import type` still ties the
//     files' knowledge together): every elementary circle is printed as a path, up to CIRCLES_SHOWN per knot.
//   node scripts/check-layers.mjs        (run by `npm run lint` and `.ci/run`; reads ./src and ./scripts/layers.json)
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

// `import … from`, `export … from`, `import("…")` (also as a type: `typeof import("…")`), and a bare `import "…"`.
const specifier =
  /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)|(?:^|\n)\s*import\s*["']([^"']+)["']/g;
let checked = 0;
/** file → the src files it imports (the file-level graph whose circles are refused below). */
const imports = new Map(files.map((file) => [file, new Set()]));
for (const file of files) {
  const text = readFileSync(file, "utf8");
  const entry = entryOf(file);
  for (const match of text.matchAll(specifier)) {
    const spec = match[1] ?? match[2] ?? match[3];
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
    if (imports.has(targetFile)) imports.get(file).add(targetFile);
    if (from === to) continue;
    if (entry === null || !layers[entry].may_import.includes(to))
      problems.push(
        `${file} (layer ${entry ?? from}) imports ${spec} (layer ${to}): not allowed by scripts/layers.json`,
      );
  }
}

// File-level circles. The knots (strongly connected components, Tarjan) say which files are tied; inside each, every
// elementary circle is listed once, from its smallest file (in sorted order), shortest first, at most CIRCLES_SHOWN.
const CIRCLES_SHOWN = 20;
const knots = [];
{
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const strongConnect = (v) => {
    index.set(v, index.size);
    low.set(v, index.get(v));
    stack.push(v);
    onStack.add(v);
    for (const w of imports.get(v)) {
      if (!index.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const knot = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      knot.push(w);
    } while (w !== v);
    if (knot.length > 1 || imports.get(v).has(v)) knots.push(knot.sort());
  };
  for (const file of [...files].sort()) if (!index.has(file)) strongConnect(file);
}
for (const knot of knots) {
  const members = new Set(knot);
  const circles = [];
  let more = false;
  for (const [i, start] of knot.entries()) {
    // Circles through `start` over files after it in the knot's order: each circle is found from its first file.
    const allowed = new Set(knot.slice(i + 1));
    const path = [start];
    const walk = (v) => {
      for (const w of [...imports.get(v)].sort()) {
        if (!members.has(w)) continue;
        if (w === start) {
          if (circles.length === CIRCLES_SHOWN) more = true;
          else circles.push([...path, start]);
        } else if (allowed.has(w) && !path.includes(w) && !more) {
          path.push(w);
          walk(w);
          path.pop();
        }
      }
    };
    if (!more) walk(start);
  }
  circles.sort((a, b) => a.length - b.length);
  for (const circle of circles) problems.push(`import circle ${circle.join(" → ")}`);
  if (more)
    problems.push(
      `import circles: more than ${CIRCLES_SHOWN} among ${knot.join(", ")} (the first ${CIRCLES_SHOWN} above)`,
    );
}

for (const [folder, count] of folders) {
  const key = rel(folder);
  if (count === 1 && folder !== root && !(key in (singles ?? {})))
    problems.push(`${folder} holds a single .ts file: merge it, or give the reason in single_file_folders`);
}

if (knots.length > 0)
  problems.push(
    "import circles count type-only imports too: move what both sides share into a module both may import " +
      '(docs/architecture.md "Layers and what they may import")',
  );
if (problems.length > 0) {
  for (const p of problems) console.error(`check-layers: ${p}`);
  process.exit(1);
}
console.log(
  `check-layers: ${checked} imports within the table (${Object.keys(layers).length} entries), no import circle ` +
    `among ${files.length} files, no single-file folder`,
);
