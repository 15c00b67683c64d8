/**
 * scripts/check-layers.mjs refuses every file-level import circle in src/, type-only imports included
 * (docs/architecture.md "Layers and what they may import"): planted circles in a temporary tree fail, each reported
 * as a path; the real tree passes.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const script = resolve("scripts/check-layers.mjs");

function check(cwd: string): { readonly status: number | null; readonly out: string; readonly err: string } {
  const run = spawnSync(process.execPath, [script], { cwd, encoding: "utf8" });
  return { status: run.status, out: run.stdout, err: run.stderr };
}

/** The line the script prints for a circle through `files`. */
const circle = (...files: string[]): string => `check-layers: import circle ${files.join(" → ")}`;

const trees: string[] = [];
afterEach(() => {
  for (const tree of trees.splice(0)) rmSync(tree, { recursive: true, force: true });
});

/** A tree of two layers (`shared`, and `edge` above it) holding the given files. */
function plant(files: Readonly<Record<string, string>>): string {
  const tree = mkdtempSync(join(tmpdir(), "check-layers-"));
  trees.push(tree);
  const layers = {
    layers: {
      shared: { may_import: [], what: "leaves" },
      edge: { may_import: ["shared"], what: "traffic" },
    },
    single_file_folders: {},
  };
  mkdirSync(join(tree, "scripts"));
  writeFileSync(join(tree, "scripts/layers.json"), JSON.stringify(layers));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  }
  return tree;
}

const leaves = {
  "src/shared/a.ts": 'import { b } from "./b";\nexport const a = (): number => b + 1;\n',
  "src/shared/b.ts": "export const b = 1;\n",
};
/** No circle: `edge` imports `shared`, and one edge file imports another for a type. */
const acyclic = {
  ...leaves,
  "src/edge/x.ts": 'import { a } from "../shared/a";\nexport const x = a;\n',
  "src/edge/y.ts": 'import type { x } from "./x";\nexport type Y = typeof x;\n',
};
/** a → b → c → a, the step b → c a type-only import. */
const typeOnlyCircle = {
  ...leaves,
  "src/shared/b.ts": 'import type { C } from "./c";\nexport const b = 1;\nexport type B = C;\n',
  "src/shared/c.ts": 'import { a } from "./a";\nexport type C = ReturnType<typeof a>;\n',
};

describe("scripts/check-layers.mjs: no file-level import circle", () => {
  it("passes a planted tree without a circle (the control)", () => {
    const run = check(plant(acyclic));
    expect(run.err).toBe("");
    expect(run.status).toBe(0);
    expect(run.out).toContain("no import circle among 4 files");
  });

  it("fails on a circle closed by a type-only import, printing it as a path", () => {
    const run = check(plant(typeOnlyCircle));
    expect(run.status).toBe(1);
    expect(run.err).toContain(circle("src/shared/a.ts", "src/shared/b.ts", "src/shared/c.ts", "src/shared/a.ts"));
    expect(run.err).toContain("type-only imports too");
  });

  it("reports every circle: both loops of a figure eight, a self-import, an `export … from`, an `import()`", () => {
    const run = check(
      plant({
        "src/edge/hub.ts": 'import { left } from "./left";\nexport * from "./right";\nexport const hub = left;\n',
        "src/edge/left.ts": 'import type { Hub } from "./hub";\nexport const left = 1;\nexport type L = Hub;\n',
        "src/edge/right.ts": 'export const right = (): Promise<unknown> => import("./hub");\n',
        "src/shared/self.ts": 'import type { Self } from "./self";\nexport type Self = { readonly next?: Self };\n',
        "src/shared/other.ts": "export const other = 0;\n",
      }),
    );
    expect(run.status).toBe(1);
    const circles = run.err.split("\n").filter((line) => line.includes("import circle "));
    expect(circles).toEqual([
      circle("src/edge/hub.ts", "src/edge/left.ts", "src/edge/hub.ts"),
      circle("src/edge/hub.ts", "src/edge/right.ts", "src/edge/hub.ts"),
      circle("src/shared/self.ts", "src/shared/self.ts"),
    ]);
  });

  it("passes the real src/", () => {
    const run = check(process.cwd());
    expect(run.err).toBe("");
    expect(run.status).toBe(0);
    expect(run.out).toMatch(/no import circle among \d+ files/);
  });
});
