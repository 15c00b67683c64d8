/**
 * The event table (src/shared/log.ts `EVENTS`) is the only source of log lines: this reads src/ as text and
 * fails when (a) code writes an event the table lacks, or writes a line around it (a `console` call or an inline
 * `{"event": …}` anywhere but src/shared/log.ts), and (b) docs/configuration.md "Events" differs from the table.
 * TypeScript already refuses an unknown name or wrong fields at a `logEvent` call; this catches what types cannot:
 * a line written without `logEvent`, a stale table entry, and the docs.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { edgeErrorLine } from "../../src/errors/error-log";
import { EVENTS, type EventSpec } from "../../src/shared/log";

const root = resolve(import.meta.dirname, "../..");
const LOG_MODULE = "src/shared/log.ts";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The code of a file without its comments (a `//` inside a string loses the rest of its line: only text is lost). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/[^\n]*/g, "$1");
}

const files = sourceFiles(join(root, "src")).map((path) => ({
  path: relative(root, path).replaceAll("\\", "/"),
  code: code(readFileSync(path, "utf8")),
}));

const WRITERS = /\b(logEvent|writeEventLines|eventLine|eventLinePrefix)\(\s*/g;

/** Every (file, writer, first argument) of a call to the log module's writers outside the module itself. */
function calls(): { path: string; writer: string; name: string | null }[] {
  const out: { path: string; writer: string; name: string | null }[] = [];
  for (const file of files) {
    if (file.path === LOG_MODULE) continue;
    for (const match of file.code.matchAll(WRITERS)) {
      const rest = file.code.slice((match.index ?? 0) + match[0].length);
      const literal = /^"([^"\\]*)"/.exec(rest);
      out.push({ path: file.path, writer: match[1] ?? "", name: literal?.[1] ?? null });
    }
  }
  return out;
}

describe("(a) every log line of src/ is an event of the table", () => {
  it("only src/shared/log.ts calls the console", () => {
    const offenders = files
      .filter((f) => f.path !== LOG_MODULE && /\bconsole\s*\.\s*[a-z]+\s*\(/i.test(f.code))
      .map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  it("no line is built around the table (an inline `event` key) outside src/shared/log.ts", () => {
    const offenders = files
      .filter((f) => f.path !== LOG_MODULE && /(["'`]event["'`]\s*:|\bevent\s*:\s*["'`])/.test(f.code))
      .map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  it("every writer call names its event as a string literal that the table has", () => {
    const found = calls();
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter((c) => c.name === null)).toEqual([]);
    const unknown = found.filter((c) => c.name !== null && !Object.hasOwn(EVENTS, c.name));
    expect(unknown).toEqual([]);
  });

  it("every event of the table is written somewhere (no stale entry)", () => {
    const written = new Set(calls().map((c) => c.name));
    expect(Object.keys(EVENTS).filter((name) => !written.has(name))).toEqual([]);
  });

  it("edge_error's and error_preview's hand-built lines have exactly the table's fields, in order", () => {
    const e = { ray: "0123456789abcdef", zone: "z.example", code: 522, status: 522, cause: "c", preview: false };
    const line = JSON.parse(edgeErrorLine(e)) as object;
    expect(Object.entries(line)[0]).toEqual(["event", "edge_error"]);
    expect(Object.keys(line)).toEqual(["event", ...EVENTS.edge_error.fields]);
    const preview = JSON.parse(edgeErrorLine({ ...e, preview: true })) as object;
    expect(Object.entries(preview)[0]).toEqual(["event", "error_preview"]);
    expect(Object.keys(preview)).toEqual(["event", ...EVENTS.error_preview.fields]);
  });
});

/** The docs' rendering of one table entry. */
function row(name: string, spec: EventSpec): string {
  const level = spec.level === "per-call" ? "per line: error, warn or info" : spec.level;
  const fields = spec.fields.map((f) => `\`${f}\``).join(", ");
  return `| \`${name}\` | ${level} | ${fields} | ${spec.when} |`;
}

/** The table docs/configuration.md must hold under "### Events". */
function eventsTable(): string {
  const entries: [string, EventSpec][] = Object.entries(EVENTS);
  return ["| event | level | fields | when |", "|---|---|---|---|", ...entries.map(([n, s]) => row(n, s))].join("\n");
}

describe("(b) docs/configuration.md lists the table", () => {
  it('its "Events" table equals src/shared/log.ts EVENTS (the expected text is printed on failure)', () => {
    const doc = readFileSync(join(root, "docs/configuration.md"), "utf8");
    const section = /\n### Events\n([\s\S]*?)(?=\n#{2,3} |$)/.exec(doc)?.[1] ?? "";
    const table = section
      .split("\n")
      .filter((line) => line.startsWith("|"))
      .join("\n");
    expect(table).toBe(eventsTable());
  });
});
