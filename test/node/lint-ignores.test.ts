/**
 * `npm run lint` passes with any build output present: eslint (type-aware, so a generated .d.ts that no tsconfig
 * includes is a parse error) and prettier must both skip build and tool output wherever it appears, a workspace
 * package's `dist/` as much as the root's. Asked of the real configs (eslint.config.mjs, .prettierignore) through each
 * tool's own API, the one its command line uses to skip a file; nothing needs to exist on disk.
 */
import { resolve } from "node:path";
import { ESLint } from "eslint";
import { getFileInfo } from "prettier";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

/** What `npm run build`, `npm run build -w packages/client`, `npm pack`, coverage and wrangler leave behind. */
const BUILD_OUTPUT = [
  "dist/index.js",
  "packages/client/dist/index.js",
  "packages/client/dist/index.d.ts",
  "packages/client/dist/fetch.d.ts",
  "packages/another/dist/index.d.ts",
  "packages/client/node_modules/ky/index.d.ts",
  "packages/client/.wrangler/tmp/bundle.js",
  "coverage/index.js",
  "packages/client/coverage/prettify.js",
  "packages/client/tsconfig.build.tsbuildinfo",
];

/** Sources that must stay linted (the ignores are not a blanket). */
const SOURCES = ["src/index.ts", "packages/client/src/index.ts", "scripts/dev.mjs", "test/node/lint-ignores.test.ts"];

describe("build output is ignored by eslint and prettier, at any depth", () => {
  it.each(BUILD_OUTPUT)("eslint ignores %s", async (path) => {
    const eslint = new ESLint({ cwd: root });
    expect(await eslint.isPathIgnored(resolve(root, path))).toBe(true);
  });

  it.each(BUILD_OUTPUT)("prettier ignores %s", async (path) => {
    const info = await getFileInfo(resolve(root, path), { ignorePath: resolve(root, ".prettierignore") });
    expect(info.ignored).toBe(true);
  });

  it.each(SOURCES)("both still check %s", async (path) => {
    const eslint = new ESLint({ cwd: root });
    expect(await eslint.isPathIgnored(resolve(root, path))).toBe(false);
    const info = await getFileInfo(resolve(root, path), { ignorePath: resolve(root, ".prettierignore") });
    expect(info.ignored).toBe(false);
  });
});
