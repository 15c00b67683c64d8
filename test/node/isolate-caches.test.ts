/**
 * docs/architecture.md "Per-isolate caches" names every piece of module state in src/: a module-level `let`, or a
 * module-level `const` made with `new` (a cache, a memo, a queue, a counter), except a `Set`/`Map` built from a
 * constant list and the stateless `TextEncoder`/`TextDecoder`. Each must appear, in backticks, in one table row or
 * one `;`-separated part of the "Not caches" paragraph together with its file, so a new cache comes with its row and
 * the reason it is kept. State kept in a closure counts too: a module-level `const` made by calling a function of src/
 * that keeps a `let` or a `new` value of its own body in a closure it returns (an occurrence-template renderer, the
 * mounted API, an MCP tool's listing slot) is module state as much as a `Map` at module scope.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
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

/** Whether a function keeps state in a closure: a `let` or a `new` value of its body that a nested function reads. */
function keepsClosureState(fn: ts.FunctionDeclaration, file: ts.SourceFile): boolean {
  const kept = new Set<string>();
  for (const statement of fn.body?.statements ?? []) {
    if (!ts.isVariableStatement(statement)) continue;
    const isLet = (statement.declarationList.flags & ts.NodeFlags.Let) !== 0;
    for (const d of statement.declarationList.declarations)
      if (isModuleState(d, isLet, file) && ts.isIdentifier(d.name)) kept.add(d.name.text);
  }
  let captured = false;
  const visit = (node: ts.Node, nested: boolean): void => {
    if (captured) return;
    if (nested && ts.isIdentifier(node) && kept.has(node.text)) captured = true;
    const inner = nested || ts.isFunctionLike(node);
    node.forEachChild((child) => visit(child, inner));
  };
  if (fn.body !== undefined) visit(fn.body, false);
  return captured;
}

/** The functions of src/ that keep closure state, as "file name" (the file without `.ts`). */
function stateFactories(files: readonly ts.SourceFile[]): Set<string> {
  const found = new Set<string>();
  for (const file of files)
    for (const statement of file.statements)
      if (ts.isFunctionDeclaration(statement) && statement.name && keepsClosureState(statement, file))
        found.add(`${file.fileName.replace(/\.ts$/, "")} ${statement.name.text}`);
  return found;
}

/** Where a called identifier is defined: this file, or the file a relative import names. */
function definedIn(file: ts.SourceFile, name: string): string {
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings === undefined || !ts.isNamedImports(bindings)) continue;
    const spec = statement.moduleSpecifier.text;
    for (const element of bindings.elements)
      if (element.name.text === name && spec.startsWith("."))
        return `${normalize(join(dirname(file.fileName), spec))} ${(element.propertyName ?? element.name).text}`;
  }
  return `${file.fileName.replace(/\.ts$/, "")} ${name}`;
}

/** Every piece of module state in src/, as "file name". */
function moduleState(root = "src"): { file: string; name: string }[] {
  const files = sources(root).map((path) =>
    ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true),
  );
  const factories = stateFactories(files);
  const found: { file: string; name: string }[] = [];
  for (const file of files) {
    for (const statement of file.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      const isLet = (statement.declarationList.flags & ts.NodeFlags.Let) !== 0;
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer;
        const madeByFactory =
          !isLet &&
          init !== undefined &&
          ts.isCallExpression(init) &&
          ts.isIdentifier(init.expression) &&
          factories.has(definedIn(file, init.expression.text));
        if (madeByFactory || isModuleState(declaration, isLet, file))
          found.push({ file: file.fileName, name: declaration.name.getText(file) });
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
    // State in a closure a module-level call made.
    expect(state).toContainEqual({ file: join("src", "errors", "render-json.ts"), name: "jsonBody" });
    // A constant lookup table is not state.
    expect(state.map((s) => s.name)).not.toContain("BY_CODE");
  });

  it.each(state.map((s) => [s.file, s.name] as const))("%s `%s` is named in docs/architecture.md", (file, name) => {
    const named = entries.some((entry) => entry.includes(`\`${name}\``) && entry.includes(file));
    expect(named, `${name} in ${file}: add it to "Per-isolate caches" with why it is kept`).toBe(true);
  });
});
