/**
 * The management API's one code table (src/api/kit/codes.ts `API_CODES`: kind → status and v4 code) and
 * docs/configuration.md "API error codes" list the same (status, code) pairs: a code the service answers is
 * documented with its status, and a documented code is one the service answers. Codes are written nowhere else in
 * src/api: the envelope's failure constructor is private to the table's `failureOf`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { API_CODES } from "../../src/api/kit/codes";

const root = resolve(import.meta.dirname, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The `| status | code | when | where |` rows of the section, as `status code` pairs. */
function documentedPairs(markdown: string): Set<string> {
  const start = markdown.indexOf("### API error codes");
  if (start < 0) throw new Error('docs/configuration.md has no "API error codes" section');
  const rest = markdown.slice(start + 1);
  const end = rest.search(/\n#{2,3} /);
  const section = end < 0 ? rest : rest.slice(0, end);
  const pairs = new Set<string>();
  for (const line of section.split("\n")) {
    const row = /^\|\s*(\d{3})\s*\|\s*(\d+)\s*\|/.exec(line);
    if (row) pairs.add(`${row[1]} ${row[2]}`);
  }
  return pairs;
}

const inCode = new Set(Object.values(API_CODES).map((row) => `${row.status} ${row.code}`));
const inDoc = documentedPairs(readFileSync(resolve(root, "docs/configuration.md"), "utf8"));

describe('API error codes: src/api/kit/codes.ts and docs/configuration.md "API error codes"', () => {
  it("every (status, code) of the table is documented", () => {
    expect([...inCode].filter((pair) => !inDoc.has(pair)).sort()).toEqual([]);
  });

  it("every documented (status, code) is in the table", () => {
    expect([...inDoc].filter((pair) => !inCode.has(pair)).sort()).toEqual([]);
  });

  it("reads the doc's table (a planted row or a dropped one would be seen)", () => {
    const doc =
      "### API error codes\n\n| status | code | when | where |\n|---|---|---|---|\n| 418 | 99999 | x | y |\n\n## Next\n| 400 | 1 | z | z |\n";
    expect([...documentedPairs(doc)]).toEqual(["418 99999"]);
  });

  it("no failure status or code is written outside the table in src/api (failures are made by failureOf)", () => {
    const envelope = readFileSync(resolve(root, "src/api/kit/envelope.ts"), "utf8");
    expect(envelope).not.toMatch(/export function apiFailure\b/);
    // An envelope error or failure value spelled with a literal: `{code: 20030, …}`, `{status: 429, errors…}`.
    const literal = /\berrors:\s*\[\s*\{\s*code:\s*\d|\bstatus:\s*[45]\d\d,\s*errors\b/;
    const offenders = sourceFiles(resolve(root, "src/api"))
      .filter((path) => !path.endsWith("/codes.ts") && !path.includes("openapi"))
      .filter((path) => literal.test(readFileSync(path, "utf8")))
      .map((path) => relative(root, path));
    expect(offenders).toEqual([]);
  });
});
