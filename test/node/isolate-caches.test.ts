/**
 * docs/architecture.md "Per-isolate caches" names every piece of module state in src/: a module-level `let`, or a
 * module-level `const` made with `new` (a cache, a memo, a queue, a counter), except a `Set`/`Map` built from a
 * constant list and the stateless `TextEncoder`/`TextDecoder`. Each must appear, in backticks, in one table row or
 * one `;`-separated part of the "Not caches" paragraph together with its file, so a new cache comes with its row and
 * the reason it is kept.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const STATELESS = new Set(["TextEncoder", "TextDecoder"]);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** Whether a module-level declaration holds state that lives across requests. */
function isModuleState(declaration: ts.VariableDeclaration, isLet: boolean, file: ts.SourceFile): boolean {
  if (isLet) return true;
  const init = declaration.initializer;
  if (init === undefined || !ts.isNewExpression(init)) return false;
  const made = init.expression.getText(file);
  if (STATELESS.has(made)) return false;
  const fromConstantList = (made === "Set" || made === "Map") && (init.arguments?.length ?? 0) > 0;
  return !fromConstantList;
}

/** Every piece of module state in src/, as "file name". */
function moduleState(root = "src"): { file: string; name: string }[] {
  const found: { file: string; name: string }[] = [];
  for (const path of sources(root)) {
    const file = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
    for (const statement of file.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      const isLet = (statement.declarationList.flags & ts.NodeFlags.Let) !== 0;
      for (const declaration of statement.declarationList.declarations) {
        if (isModuleState(declaration, isLet, file)) found.push({ file: path, name: declaration.name.getText(file) });
      }
    }
  }
  return found;
}

const architecture = readFileSync("docs/architecture.md", "utf8");
const start = architecture.indexOf("## Per-isolate caches");
const end = architecture.indexOf("\n## ", start + 1);
const section = architecture.slice(start, end === -1 ? undefined : end);
/** Table rows, and the parts of paragraphs split at `;` (the "Not caches" list). */
const entries = section
  .split(/\n\s*\n/)
  .flatMap((block) => (block.trimStart().startsWith("|") ? block.split("\n") : block.replace(/\n/g, " ").split(";")));

describe("per-isolate caches as documented", () => {
  const state = moduleState();

  it("finds the module state it knows is there", () => {
    expect(state).toContainEqual({ file: join("src", "state", "zone", "cache.ts"), name: "entries" });
    expect(state).toContainEqual({ file: join("src", "shared", "ray.ts"), name: "offset" });
    // A constant lookup table is not state.
    expect(state.map((s) => s.name)).not.toContain("BY_CODE");
  });

  it.each(state.map((s) => [s.file, s.name] as const))("%s `%s` is named in docs/architecture.md", (file, name) => {
    const named = entries.some((entry) => entry.includes(`\`${name}\``) && entry.includes(file));
    expect(named, `${name} in ${file}: add it to "Per-isolate caches" with why it is kept`).toBe(true);
  });
});
