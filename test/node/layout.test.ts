/**
 * The tree as the docs describe it (issue 20): every top-level layer of src/ appears in AGENTS.md and
 * docs/architecture.md, the allowed-imports table in docs/architecture.md is scripts/layers.json row for row, and
 * the tests mirror src/ (every test folder under test/workers/ except `support` names a folder or file of src/).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

interface Layer {
  readonly may_import: readonly string[];
  readonly what: string;
}
const table = JSON.parse(readFileSync("scripts/layers.json", "utf8")) as { layers: Record<string, Layer> };
const architecture = readFileSync("docs/architecture.md", "utf8");
const agents = readFileSync("AGENTS.md", "utf8");

describe("the layout as documented", () => {
  const tops = readdirSync("src");

  it.each(tops)("src/%s is named in AGENTS.md and docs/architecture.md", (top) => {
    const name = statSync(join("src", top)).isDirectory() ? `src/${top}/` : `src/${top}`;
    expect(agents).toContain(name);
    expect(architecture).toContain(name);
  });

  it("docs/architecture.md shows scripts/layers.json's table, row for row", () => {
    const rows = new Map<string, string>();
    for (const line of architecture.split("\n")) {
      const m = /^\| `src\/([^`]+?)\/?` \| ([^|]*) \|/.exec(line);
      if (m?.[1] !== undefined && m[2] !== undefined) rows.set(m[1], m[2].trim());
    }
    for (const [key, layer] of Object.entries(table.layers)) {
      const allowed = layer.may_import.length === 0 ? "—" : layer.may_import.map((l) => `\`${l}\``).join(", ");
      expect(rows.get(key), `row for src/${key}`).toBe(allowed);
    }
    expect([...rows.keys()].sort()).toEqual(Object.keys(table.layers).sort());
  });

  it("test/workers mirrors src: every test folder names a source folder or file", () => {
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((n) => {
        const p = join(dir, n);
        return statSync(p).isDirectory() ? [p, ...walk(p)] : [];
      });
    for (const dir of walk("test/workers")) {
      const rel = dir.slice("test/workers/".length);
      if (rel === "support" || rel.startsWith("support/")) continue;
      const src = rel === "app" ? "src/app.ts" : join("src", rel);
      expect(existsSync(src) || existsSync(`${src}.ts`), `${dir} mirrors ${src}`).toBe(true);
    }
  });
});
