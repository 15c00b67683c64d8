/**
 * AGENTS.md "Conventions": only src/app.ts imports an API resource's routes and OpenAPI; one resource imports
 * another's modules only where listed below (pure validators, no routes). Every import in src/ is read with the
 * TypeScript parser and resolved to a file, so a new cross-resource import fails here until it is stated there.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/** The allowed resource-to-resource imports: importing file → imported module (without `.ts`). */
const ALLOWED = new Set([
  "src/api/analytics/by-tag.ts → src/api/tags/validate",
  "src/api/analytics/by-tag.ts → src/api/tags/api-failure",
]);

const API = "src/api";
/** The folders every resource may import: the kit, the previews' engine, the asset fetcher (AGENTS.md "Layout"). */
const SHARED = new Set(["kit", "explain", "asset-fetch"]);
/** The resource folders: every other folder of src/api/. */
const RESOURCES = readdirSync(API).filter((name) => !SHARED.has(name) && statSync(join(API, name)).isDirectory());

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** Each relative import of src/, as [importing file, imported module path from the repository root]. */
function imports(): (readonly [string, string])[] {
  return sources("src").flatMap((path) => {
    const file = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, false);
    return file.statements.flatMap((statement) => {
      const spec =
        (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
        statement.moduleSpecifier !== undefined &&
        ts.isStringLiteral(statement.moduleSpecifier)
          ? statement.moduleSpecifier.text
          : undefined;
      return spec?.startsWith(".") ? [[path, normalize(join(dirname(path), spec))] as const] : [];
    });
  });
}

/** The resource a path belongs to, or undefined when it is not in a resource folder. */
function resourceOf(path: string): string | undefined {
  const rel = relative(API, path);
  if (rel.startsWith("..")) return undefined;
  const top = rel.split("/")[0];
  return top !== undefined && RESOURCES.includes(top) ? top : undefined;
}

describe("imports between API resources", () => {
  const all = imports();

  it("reads the imports (app.ts imports the tag routes)", () => {
    expect(RESOURCES).toContain("tags");
    expect(all).toContainEqual(["src/app.ts", "src/api/tags/routes"]);
  });

  it("only src/app.ts imports a resource from outside src/api/", () => {
    const outside = all.filter(([from, to]) => resourceOf(to) !== undefined && !from.startsWith(`${API}/`));
    expect(outside.filter(([from]) => from !== "src/app.ts")).toEqual([]);
  });

  it("the kit and the engine import no resource, and a resource imports another only where AGENTS.md says so", () => {
    const crossing = all
      .filter(([from, to]) => {
        const target = resourceOf(to);
        return target !== undefined && from.startsWith(`${API}/`) && resourceOf(from) !== target;
      })
      .map(([from, to]) => `${from} → ${to}`);
    expect(crossing.filter((edge) => !ALLOWED.has(edge))).toEqual([]);
    // The list holds no stale entry.
    expect([...ALLOWED].filter((edge) => !crossing.includes(edge))).toEqual([]);
  });
});
