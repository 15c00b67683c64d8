/**
 * The tree as the docs describe it: every top-level layer of src/ appears in AGENTS.md and
 * docs/architecture.md, the allowed-imports table in docs/architecture.md is scripts/layers.json row for row, and
 * the tests mirror src/ (every test folder under test/workers/ except `support` names a folder or file of src/);
 * every folder two levels down in src/ and every Durable Object class the Worker exports is named in both docs.
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

  const folders = tops
    .filter((top) => statSync(join("src", top)).isDirectory())
    .flatMap((top) =>
      readdirSync(join("src", top))
        .filter((n) => statSync(join("src", top, n)).isDirectory())
        .map((n) => `src/${top}/${n}/`),
    );

  it("finds the folders two levels down", () => {
    expect(folders).toContain("src/state/zone/");
  });

  it.each(folders)("%s is named in AGENTS.md and docs/architecture.md", (folder) => {
    expect(agents).toContain(folder);
    expect(architecture).toContain(folder);
  });

  const index = readFileSync("src/index.ts", "utf8");
  const durableObjects = [...index.matchAll(/export \{ (\w+) \} from "\.\/state\//g)].map((m) => m[1] ?? "");

  it("finds the Durable Object classes the Worker exports", () => {
    expect(durableObjects).toContain("TagStore");
  });

  it.each(durableObjects)(
    "the Durable Object class %s is named in AGENTS.md, docs/architecture.md and wrangler.toml",
    (name) => {
      expect(agents).toContain(name);
      expect(architecture).toContain(name);
      expect(readFileSync("wrangler.toml", "utf8")).toContain(`class_name = "${name}"`);
    },
  );

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

  it("every file the walk of a proxied request names exists", () => {
    const start = architecture.indexOf("### The walk of a proxied request");
    const walk = architecture.slice(start, architecture.indexOf("\n## ", start));
    const named = [...walk.matchAll(/`((?:src\/)?[a-z-]+\/[\w./-]+\.ts)`/g)].map((m) => m[1] ?? "");
    expect(named).toContain("shared/client-address.ts");
    // A short name (`rate-limit/check.ts`) is relative to the folder the walk is in: some file of src/ ends with it.
    const files = (function list(dir: string): string[] {
      return readdirSync(dir).flatMap((n) =>
        statSync(join(dir, n)).isDirectory() ? list(join(dir, n)) : [join(dir, n)],
      );
    })("src");
    for (const path of named) {
      const full = path.startsWith("src/") ? path : `src/${path}`;
      expect(existsSync(full) || files.some((f) => f.endsWith(`/${path}`)), path).toBe(true);
    }
  });
});
