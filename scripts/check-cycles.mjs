#!/usr/bin/env node
// Folder-level import cycles in src/ (issue 8): every `import … from "…"` and `export … from "…"`, type-only ones
// included, between folders src/<a> and src/<b> is an edge a → b; files directly in src/ (the root: app.ts,
// index.ts, result.ts) are their own nodes. Any cycle is printed and the exit code is 1.
//   node scripts/check-cycles.mjs        (run by `npm run lint` and `.ci/run`)
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";

const root = "src";
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (/\.ts$/.test(name)) files.push(path);
  }
})(root);

/** The node of a file: its top folder under src/, or the file itself when it sits in src/. */
const nodeOf = (file) => {
  const parts = relative(root, file).split(sep);
  return parts.length > 1 ? parts[0] : parts[0].replace(/\.ts$/, "");
};

const edges = new Map();
const why = new Map();
const specifier = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*["']([^"']+)["']/g;
for (const file of files) {
  const text = readFileSync(file, "utf8");
  for (const match of text.matchAll(specifier)) {
    const spec = match[1];
    if (!spec.startsWith(".")) continue;
    const target = normalize(join(dirname(file), spec));
    if (!target.startsWith(root + sep)) continue;
    const from = nodeOf(file);
    const to = nodeOf(target.endsWith(".ts") ? target : `${target}.ts`);
    if (from === to) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from).add(to);
    why.set(`${from}→${to}`, `${file} imports ${spec}`);
  }
}

// Tarjan's strongly connected components: a component with more than one node is a cycle.
let index = 0;
const stack = [];
const state = new Map();
const cycles = [];
function connect(v) {
  state.set(v, { index, low: index, onStack: true });
  index++;
  stack.push(v);
  for (const w of edges.get(v) ?? []) {
    if (!state.has(w)) {
      connect(w);
      state.get(v).low = Math.min(state.get(v).low, state.get(w).low);
    } else if (state.get(w).onStack) state.get(v).low = Math.min(state.get(v).low, state.get(w).index);
  }
  if (state.get(v).low === state.get(v).index) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      state.get(w).onStack = false;
      component.push(w);
    } while (w !== v);
    if (component.length > 1) cycles.push(component);
  }
}
for (const v of edges.keys()) if (!state.has(v)) connect(v);

if (cycles.length === 0) {
  const count = [...edges.values()].reduce((n, s) => n + s.size, 0);
  console.log(`check-cycles: no folder-level import cycle (${edges.size} nodes with imports, ${count} edges)`);
  process.exit(0);
}
for (const component of cycles) {
  console.error(`check-cycles: cycle between ${component.sort().join(", ")}`);
  for (const a of component)
    for (const b of component) if (why.has(`${a}→${b}`)) console.error(`  ${a} → ${b}: ${why.get(`${a}→${b}`)}`);
}
process.exit(1);
