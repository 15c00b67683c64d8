/**
 * The README's examples do what their comments say, against a real `npm run dev` (scripts/dev.mjs: wrangler dev, the
 * example origin, the seeded zone shop.example), run by bash exactly as written except for the ports.
 *
 * Every example command in the README's `sh` blocks ends with a comment that starts with `→` and the status codes it
 * answers, in order (`→ 522`, `→ 5 × 200, then 429`); each `` `text` `` after the arrow must appear in what the
 * command printed or in a response header. A command whose comment states none of this fails the test, so a new
 * example cannot be added without saying what it does.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "../servers/ports.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const LINKED = ["scripts", "node_modules", "src", "fixtures", "wrangler.toml", "package.json", "tsconfig.json"];

export interface Example {
  /** The command as written (continuation lines joined). */
  readonly command: string;
  /** Statuses the command's requests answer, in order. */
  readonly statuses: readonly number[];
  /** Texts that must appear in its output or response headers. */
  readonly texts: readonly string[];
  readonly line: number;
}

/** The examples of every `sh` block of a Markdown text (blocks that only install or run the project are skipped). */
export function examplesOf(markdown: string): Example[] {
  const examples: Example[] = [];
  const lines = markdown.split("\n");
  let inBlock = false;
  let pending = "";
  let pendingLine = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (/^```(sh|bash)\s*$/.test(line)) {
      inBlock = true;
      continue;
    }
    if (inBlock && line.startsWith("```")) {
      inBlock = false;
      continue;
    }
    if (!inBlock || (pending === "" && (line.trim() === "" || line.trimStart().startsWith("#")))) continue;
    if (pending === "") pendingLine = i + 1;
    if (line.endsWith("\\")) {
      pending += `${line}\n`;
      continue;
    }
    const whole = pending + line;
    pending = "";
    if (!/\bcurl\b/.test(whole)) continue; // `npm …` lines: the README's commands, not examples
    const arrow = /\s#\s*→\s*(.*)$/.exec(whole);
    const comment = arrow?.[1] ?? "";
    const statuses: number[] = [];
    const head = /^((?:\d+ × )?\d{3}(?:(?:,? then |, )(?:\d+ × )?\d{3})*)/.exec(comment)?.[1] ?? "";
    for (const part of head.split(/,? then |, /)) {
      const m = /^(?:(\d+) × )?(\d{3})$/.exec(part);
      if (m !== null) for (let n = 0; n < Number(m[1] ?? 1); n++) statuses.push(Number(m[2]));
    }
    const texts = [...comment.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? "");
    const command = arrow === null ? whole : whole.slice(0, arrow.index);
    examples.push({ command: command.trim(), statuses, texts, line: pendingLine });
  }
  return examples;
}

const readme = readFileSync(join(root, "README.md"), "utf8");
const examples = examplesOf(readme);

describe("the README's examples", () => {
  it("every example states what it answers", () => {
    expect(examples.length).toBeGreaterThan(10);
    const silent = examples.filter((e) => e.statuses.length === 0).map((e) => `README.md:${e.line} ${e.command}`);
    expect(silent).toEqual([]);
  });

  it("the parser reads statuses and texts", () => {
    const [example] = examplesOf("```sh\ncurl a \\\n  b   # → 5 × 200, then 429: `x-y` and `z`\n```\n");
    expect(example).toEqual({
      command: "curl a \\\n  b",
      statuses: [200, 200, 200, 200, 200, 429],
      texts: ["x-y", "z"],
      line: 2,
    });
  });
});

describe("against a real npm run dev", () => {
  let dir = "";
  let child: ChildProcess | undefined;
  let output = "";
  let port = 0;
  let originPort = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "edge-readme-"));
    for (const name of [...LINKED, ".dev.vars.example"]) symlinkSync(join(root, name), join(dir, name));
    port = await freePort();
    originPort = await freePort();
    child = spawn(process.execPath, ["scripts/dev.mjs", "--port", String(port), "--origin-port", String(originPort)], {
      cwd: dir,
      env: { ...process.env, PORT: "", ORIGIN_PORT: "" },
      detached: true,
    });
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 150_000;
    while (!/\[dev\] (seeded|kept|could NOT)/.test(output) && child.exitCode === null && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 200));
    }
    expect(output).toMatch(/\[dev\] (seeded|kept)/);
  }, 180_000);

  afterAll(() => {
    if (child?.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  it.each(examples.map((e) => [`README.md:${e.line}`, e] as const))("%s", (_where, example) => {
    const headers = join(dir, `headers-${example.line}.txt`);
    writeFileSync(headers, "");
    // Every curl of the example dumps its response headers (status lines included), appended to one file in order.
    const script = [
      `curl() { command curl -sS -D "$HEADERS.one" "$@"; local s=$?; cat "$HEADERS.one" >> "$HEADERS"; return $s; }`,
      example.command.replaceAll("8787", String(port)).replaceAll("8788", String(originPort)),
    ].join("\n");
    const run = spawnSync("bash", ["-c", script], {
      cwd: dir,
      encoding: "utf8",
      timeout: 30_000,
      env: { ...process.env, HEADERS: headers },
    });
    const dumped = readFileSync(headers, "utf8");
    const statuses = [...dumped.matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)].map((m) => Number(m[1]));
    expect(statuses, `${example.command}\n${run.stdout}${run.stderr}`).toEqual(example.statuses);
    for (const text of example.texts) {
      expect(`${dumped}\n${run.stdout}`.toLowerCase(), `README.md:${example.line} should show ${text}`).toContain(
        text.toLowerCase(),
      );
    }
  });
});
