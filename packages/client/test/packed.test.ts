/**
 * The client as a user gets it from the registry: `npm pack` (its `prepack` builds dist/), the tarball installed into a
 * fresh project outside the repository with ky 1 or ky 2 beside it (`npm install --prefer-offline`: from the npm cache
 * that `npm ci` filled, or the registry for ky 2, which `npm ci` skips on Node 20 as an optional dependency of the
 * repository; the peer range is checked by that install), then a small TypeScript file that imports it is type
 * checked under `moduleResolution` node10, node16 and bundler, and run against the real Worker (support/worker.ts).
 * The ky snippets of docs/client.md and all the TypeScript snippets of the package's README are type checked in the
 * same projects, so the docs cannot drift from the published types.
 *
 * Bounded: every child process has a timeout (npm and tsc 40 s, the consumer 30 s), the setup 55 s; it takes 10–25 s
 * on a loaded 2-core machine. `CLIENT_PACK_NODE=/path/to/node` runs the consumer with another Node release
 * (docs/client.md "Supported versions").
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker, type TestWorker } from "./support/worker.js";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const packageDir = resolve(import.meta.dirname, "..");
const repoRoot = resolve(packageDir, "../..");
/** ky 1.14.3: what `npm install ky` gives on Node 20; ky 2.1.0: the newest 2.x, Node ≥ 22 (both in package-lock.json). */
const KY_VERSIONS = ["1.14.3", "2.1.0"] as const;
const RESOLUTIONS = {
  node10: { module: "esnext", moduleResolution: "node10", ignoreDeprecations: "6.0" },
  node16: { module: "node16", moduleResolution: "node16" },
  bundler: { module: "preserve", moduleResolution: "bundler" },
} as const;

interface PackResult {
  readonly filename: string;
  readonly unpackedSize: number;
  readonly files: readonly { readonly path: string; readonly size: number }[];
}

async function npm(cwd: string, args: readonly string[]): Promise<string> {
  try {
    const { stdout } = await run("npm", [...args], { cwd, timeout: 40_000, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(" ")} (in ${cwd}) failed:\n${stdout}\n${stderr}`);
  }
}

async function pack(dir: string, destination: string, dryRun = false): Promise<PackResult> {
  const args = ["pack", "--json", "--pack-destination", destination, ...(dryRun ? ["--dry-run"] : [])];
  const out = await npm(dir, args);
  // The JSON array is the last thing npm prints (a lifecycle script may print before it).
  const [result] = JSON.parse(out.slice(out.indexOf("[\n"))) as PackResult[];
  if (result === undefined) throw new Error(`npm pack printed no result:\n${out}`);
  return result;
}

/** The fenced ```ts blocks of a Markdown text, optionally only those under the `## {section}` heading. */
function tsBlocks(markdown: string, section?: string): string[] {
  const text =
    section === undefined ? markdown : (markdown.split(/^## /m).find((part) => part.startsWith(`${section}\n`)) ?? "");
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? "");
}

/** Markdown links that would be dead on the registry's page: anything but an absolute URL or an in-page anchor. */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? "")
    .filter((href) => !/^(https?:\/\/|#)/.test(href));
}

const consumer = (base: string): string => `import ky, { HTTPError } from "ky";
import { kyAfterResponse, kyRetry, parse, type EdgeError } from "@edge-errors/client";

const seen: EdgeError[] = [];
const waits: number[] = [];
const retry = kyRetry({ maxAttempts: 2, random: () => 0 });
const chosen = retry.delay;
// Record the wait the policy chose; do not spend it.
retry.delay = (attempt) => {
  waits.push(chosen(attempt));
  return 0;
};
const api = ky.create({ retry, hooks: { afterResponse: [kyAfterResponse((e) => seen.push(e))] } });
let thrown = "";
try {
  await api.get("${base}/cdn-cgi/error/521").text();
} catch (error) {
  thrown = error instanceof HTTPError ? "HTTPError " + String(error.response.status) : String(error);
}
const head = await parse(await fetch("${base}/cdn-cgi/error/1020", { method: "HEAD" }));
console.log(JSON.stringify({ thrown, waits, seen: seen.map((e) => [e.code, e.retryAfter]), head: head && [head.source, head.code] }));
`;

let worker: TestWorker;
let scratch: string;
let packed: PackResult;
let kitPacked: PackResult;
let tarball: string;
let readme: string;
let snippetCount = { docs: 0, readme: 0 };
const projects = new Map<string, string>();
/** `tsc` of each project under the three resolutions (one `tsc -b`), started once installed: its output, "" if clean. */
const checks = new Map<string, Promise<string>>();

function typecheck(dir: string): Promise<string> {
  const tsc = require.resolve("typescript/bin/tsc");
  const configs = Object.keys(RESOLUTIONS).map((name) => `tsconfig.${name}.json`);
  return run(process.execPath, [tsc, "-b", ...configs], { cwd: dir, timeout: 40_000 }).then(
    () => "",
    (error: Error & { stdout?: string }) => error.stdout || error.message,
  );
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "edge-errors-client-pack-"));
  const started = startWorker();
  [packed, kitPacked] = await Promise.all([
    pack(packageDir, scratch),
    pack(join(repoRoot, "packages/conformance"), scratch, true),
  ]);
  tarball = join(scratch, packed.filename);
  readme = await readFile(join(packageDir, "README.md"), "utf8");
  const docs = await readFile(join(repoRoot, "docs/client.md"), "utf8");
  const snippets = [...tsBlocks(docs, "ky"), ...tsBlocks(readme)];
  snippetCount = { docs: tsBlocks(docs, "ky").length, readme: tsBlocks(readme).length };
  worker = await started;
  // One fresh project per ky version, installed side by side (each install takes a few seconds).
  await Promise.all(
    KY_VERSIONS.map(async (version) => {
      const dir = join(scratch, `ky-${version}`);
      await mkdir(dir);
      await writeFile(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
      await npm(dir, ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball, `ky@${version}`]);
      await writeFile(join(dir, "consumer.ts"), consumer(worker.base));
      const files = ["consumer.ts"];
      for (const [i, snippet] of snippets.entries()) {
        files.push(`snippet-${i}.ts`);
        await writeFile(join(dir, `snippet-${i}.ts`), `${snippet}\nexport {};\n`);
      }
      for (const [name, options] of Object.entries(RESOLUTIONS)) {
        const compilerOptions = {
          ...options,
          target: "es2022",
          lib: ["es2022", "dom"],
          strict: true,
          noEmit: true,
          // As most projects do; the package's own declarations are checked when it is built.
          skipLibCheck: true,
        };
        await writeFile(join(dir, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions, files }, null, 1));
      }
      checks.set(version, typecheck(dir));
      projects.set(version, dir);
    }),
  );
}, 55_000);

afterAll(async () => {
  await worker?.dispose();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

describe("the packed client", () => {
  it("is small: no conformance kit inside, under 100 KB unpacked", () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths.filter((p) => p.includes("conformance"))).toEqual([]);
    expect(paths).toEqual(expect.arrayContaining(["LICENSE", "README.md", "package.json", "dist/index.js"]));
    expect(paths).toContain("dist/index.d.ts");
    expect(packed.unpackedSize).toBeLessThan(100_000);
  });

  it("names no repository that does not exist, and its README has no link that breaks on the registry's page", async () => {
    const manifest = JSON.parse(await readFile(join(packageDir, "package.json"), "utf8")) as Record<string, unknown>;
    // No public repository is known to hold the source: no repository, homepage or bugs URL rather than a dead one.
    for (const key of ["repository", "homepage", "bugs"]) expect(manifest, key).not.toHaveProperty(key);
    expect(manifest).toMatchObject({
      license: "MIT",
      types: "./dist/index.d.ts",
      peerDependencies: { ky: expect.any(String) as unknown },
      peerDependenciesMeta: { ky: { optional: true } },
    });
    expect(await readFile(join(packageDir, "LICENSE"), "utf8")).toMatch(/^MIT License\n\nCopyright \(c\) 2026/);
    expect(relativeLinks(readme)).toEqual([]);
    expect(readme).not.toContain("github.com/edge-errors");
  });

  it("the conformance kit is its own package, with working links too", async () => {
    const dir = join(repoRoot, "packages/conformance");
    expect(kitPacked.files.map((f) => f.path).sort()).toEqual([
      "LICENSE",
      "README.md",
      "kit/head.json",
      "kit/html.json",
      "kit/json.json",
      "kit/markdown.json",
      "kit/mcp.json",
      "kit/overlay.json",
      "kit/problem-json.json",
      "kit/rate-limit.json",
      "kit/stream.json",
      "package.json",
    ]);
    const kitReadme = await readFile(join(dir, "README.md"), "utf8");
    expect(relativeLinks(kitReadme)).toEqual([]);
    expect(kitReadme).not.toContain("github.com/edge-errors");
    const kitManifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
    for (const key of ["repository", "homepage", "bugs"]) expect(kitManifest, key).not.toHaveProperty(key);
  });

  it('type checks the snippets of docs/client.md "ky" and of the README (found, not silently skipped)', () => {
    expect(snippetCount).toEqual({ docs: 1, readme: 2 });
  });

  describe.each(KY_VERSIONS)("installed beside ky %s", (version) => {
    it("type checks, with the docs' ky snippets and the README's, under moduleResolution node10, node16 and bundler", async () => {
      expect(await checks.get(version)).toBe("");
    }, 45_000);

    it("runs against the real Worker: waits the 521's 120 s, hands each error to the hook, throws ky's HTTPError", async () => {
      const dir = projects.get(version) ?? "";
      const node = process.env.CLIENT_PACK_NODE ?? process.execPath;
      const tsx = pathToFileURL(require.resolve("tsx")).href;
      const { stdout } = await run(node, ["--import", tsx, "consumer.ts"], { cwd: dir, timeout: 30_000 });
      expect(JSON.parse(stdout)).toEqual({
        thrown: "HTTPError 521",
        waits: [120_000],
        seen: [
          [521, 120],
          [521, 120],
        ],
        head: ["proxy-status", 1020],
      });
    }, 30_000);
  });
});
