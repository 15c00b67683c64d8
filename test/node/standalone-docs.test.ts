/**
 * The repository stands alone and its docs stay true to the tree:
 * - no tracked file (docs, README, OpenAPI text, messages, pages, the client package, comments, fixtures) refers to a
 *   document a reader of this repository does not have: a planning contract, a specification or notes kept beside
 *   the repository, or an issue tracker's numbers. Decisions are stated in docs/ and public sources are cited by
 *   URL or RFC section;
 * - every repository path that docs and comments name (`src/…`, `test/…`, `docs/….md`, …) exists;
 * - every relative Markdown link resolves to a file.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const THIS_FILE = "test/node/standalone-docs.test.ts";

/** Tracked text files (binary files and the lockfile say nothing a reader follows). */
function trackedTextFiles(): string[] {
  const out = execFileSync("git", ["ls-files", "-z"], { encoding: "utf8" });
  return out
    .split("\0")
    .filter((p) => p !== "" && p !== THIS_FILE && !p.endsWith("package-lock.json") && existsSync(p))
    .filter((p) => !/\.(png|jpe?g|gif|webp|ico|woff2?|tgz)$/i.test(p));
}

/** References to documents outside the repository, each with what it catches. */
const OUTSIDE: readonly (readonly [RegExp, string])[] = [
  [/\bcontract ?§/i, "a section of a planning contract"],
  [/\bthe contract\b/i, "a planning contract"],
  [/contract\.md/, "a planning contract"],
  [/seed-spec/i, "the original specification"],
  [/\bshared\/(?:spec|notes|data)\b/, "a folder beside the repository"],
  [/(?<![\w./-])notes\/[\w-]+\.md/, "research notes beside the repository"],
  [/platform-2026/, "research notes beside the repository"],
  [/toolchain\.md/, "research notes beside the repository (the project's own is docs/development.md)"],
  [/\.md ?§ ?\d/, "a numbered section of a notes file (the project's docs have no numbered sections)"],
  [/\b[Ii]ssues? \d+\b/, "an issue tracker's number"],
  [/\bresearch notes\b|\bshared notes\b/i, "research notes beside the repository"],
];

/** Paths into the repository named in prose or comments. */
const PATH = /(?<![\w./@"'-])((?:src|test|docs|scripts|bench|fixtures|packages)\/[\w./-]*[\w/])/g;

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split("\n").length;
}

describe("the repository stands alone", () => {
  const files = trackedTextFiles();

  it("lists the tracked files it checks", () => {
    expect(files).toContain("README.md");
    expect(files.some((f) => f.startsWith("src/"))).toBe(true);
  });

  it("no file refers to a document outside the repository", () => {
    const found: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      for (const [pattern, what] of OUTSIDE) {
        const global = new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
        for (const m of text.matchAll(global)) found.push(`${file}:${lineOf(text, m.index)} ${what}: "${m[0]}"`);
      }
    }
    expect(found).toEqual([]);
  });

  it("every repository path named in docs and comments exists", () => {
    const missing: string[] = [];
    const prose = files.filter((f) => /\.(md|ts|mjs|js|toml|json)$/.test(f) && !f.startsWith("fixtures/"));
    for (const file of prose) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(PATH)) {
        const named = m[1] ?? "";
        // Patterns and placeholders are not paths: `src/api/*/`, `test/workers/<area>`, `docs/{name}.md`.
        if (/[*<>{}]|\.\.\./.test(text.slice(m.index, m.index + named.length + 2))) continue;
        const path = named.replace(/\.$/, "");
        if (existsSync(path) || existsSync(`${path}.ts`)) continue;
        // Generated or run-time output, named on purpose.
        if (
          /^(?:test\/artifacts|packages\/[\w-]+\/(?:dist|node_modules|\.wrangler|coverage)|bench\/results)\b|\.tsbuildinfo$/.test(
            path,
          )
        )
          continue;
        missing.push(`${file}:${lineOf(text, m.index)} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("every relative Markdown link resolves", () => {
    const broken: string[] = [];
    for (const file of files.filter((f) => f.endsWith(".md"))) {
      const text = readFileSync(file, "utf8");
      const dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/") + 1) : "";
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1] ?? "";
        if (/^(?:[a-z][a-z0-9+.-]*:|#)/i.test(target)) continue;
        const path = decodeURIComponent(target.split("#")[0] ?? "");
        if (!existsSync(`${dir}${path}`)) broken.push(`${file}:${lineOf(text, m.index)} ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
