/**
 * `src/edge/` holds only what runs for traffic (docs/architecture.md "Layers"): every file there is reached by the
 * imports of the two traffic doors, src/edge/zone-traffic.ts and src/edge/service-endpoints.ts. Code that only the
 * management API calls lives with its resource (the draft preview's engine is src/api/explain/explain.ts and
 * trace.ts), so a file the doors no longer reach fails here by name. Type-only imports count: a type the traffic
 * code names belongs beside it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const DOORS = ["src/edge/zone-traffic.ts", "src/edge/service-endpoints.ts"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Repository-relative POSIX path. */
const rel = (path: string): string => relative(root, path).split(sep).join("/");

// The import forms scripts/check-layers.mjs reads: `import … from`, `export … from`, `import("…")`.
const specifier = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The src/ files a file imports (relative specifiers only: packages and `cloudflare:` modules are not rooms). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), "utf8");
  const out: string[] = [];
  for (const match of text.matchAll(specifier)) {
    const spec = match[1] ?? match[2] ?? "";
    if (!spec.startsWith(".")) continue;
    const target = normalize(join(root, dirname(file), spec));
    const path =
      existsSync(target) && statSync(target).isDirectory()
        ? join(target, "index.ts")
        : target.endsWith(".ts")
          ? target
          : `${target}.ts`;
    out.push(rel(path));
  }
  return out;
}

/** Every file reached from the doors by imports. */
function reachedFrom(starts: readonly string[]): Set<string> {
  const reached = new Set<string>();
  const stack = [...starts];
  for (let file = stack.pop(); file !== undefined; file = stack.pop()) {
    if (reached.has(file) || !existsSync(join(root, file))) continue;
    reached.add(file);
    stack.push(...importsOf(file));
  }
  return reached;
}

describe("src/edge/ holds only what runs for traffic", () => {
  const edge = sourceFiles(join(root, "src/edge")).map(rel).sort();
  const reached = reachedFrom(DOORS);

  it("the walk follows imports across folders and layers, and never into the management API", () => {
    expect(edge).toEqual(expect.arrayContaining(DOORS));
    expect(reached).toContain("src/edge/origin/classify.ts");
    expect(reached).toContain("src/edge/request-phases/rate-limit/check.ts");
    expect(reached).toContain("src/errors/pipeline.ts");
    expect(reached).toContain("src/rules/rule-list.ts");
    expect([...reached].filter((file) => file.startsWith("src/api/"))).toEqual([]);
  });

  it("every file of src/edge/ is reached from src/edge/zone-traffic.ts or src/edge/service-endpoints.ts", () => {
    expect(edge.filter((file) => !reached.has(file))).toEqual([]);
  });
});
