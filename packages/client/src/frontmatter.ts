/**
 * The YAML subset the service's Markdown frontmatter uses (docs/errors.md; the emitter is the service's
 * src/errors/yaml.ts): one `key: value` per line at the top level, where a value is an integer, `true`/`false`, a
 * plain scalar, a double-quoted scalar with YAML 1.2 escapes (§5.7), a literal block `|-` indented by two spaces, or
 * a block sequence of small mappings (an overlay's `links`).
 * Anything else makes the whole frontmatter unreadable (`null`): this is not a general YAML parser.
 */
export type FrontmatterScalar = string | number | boolean;

/**
 * A value: a scalar, or (`links` of an error overlaid by a custom error rule) a block sequence of
 * mappings of scalars, each item `  - key: value` followed by `    key: value` lines.
 */
export type FrontmatterValue = FrontmatterScalar | readonly Readonly<Record<string, FrontmatterScalar>>[];

/** The frontmatter at the start of `text` (`---` … `---`) and the rest of the document after it, or null. */
export function readFrontmatter(
  text: string,
): { readonly values: ReadonlyMap<string, FrontmatterValue>; readonly rest: string } | null {
  const body = text.replace(/^\ufeff/, "").replace(/\r\n/g, "\n");
  if (!body.startsWith("---\n")) return null;
  const end = body.indexOf("\n---\n", 3);
  if (end === -1) return null;
  const lines = body.slice(4, end).split("\n");
  const values = new Map<string, FrontmatterValue>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const m = /^([A-Za-z_][A-Za-z0-9_]*): ?(.*)$/.exec(line);
    if (!m) return null;
    const key = m[1] as string;
    const raw = m[2] as string;
    if (raw === "|-" || raw === "|") {
      const block: string[] = [];
      while (i + 1 < lines.length && (lines[i + 1]!.startsWith("  ") || lines[i + 1] === "")) {
        block.push(lines[++i]!.slice(2));
      }
      while (block.length > 0 && block[block.length - 1] === "") block.pop();
      values.set(key, block.join("\n") + (raw === "|" ? "\n" : ""));
      continue;
    }
    if (raw === "" && i + 1 < lines.length && lines[i + 1]!.startsWith("  - ")) {
      const items: Record<string, FrontmatterScalar>[] = [];
      while (i + 1 < lines.length && (lines[i + 1]!.startsWith("  - ") || lines[i + 1]!.startsWith("    "))) {
        const next = lines[++i]!;
        if (next.startsWith("  - ")) items.push({});
        const entry = /^([A-Za-z_][A-Za-z0-9_]*): (.*)$/.exec(next.slice(4));
        const value = entry ? scalar(entry[2] as string) : null;
        if (entry === null || value === null) return null;
        (items[items.length - 1] as Record<string, FrontmatterScalar>)[entry[1] as string] = value;
      }
      values.set(key, items);
      continue;
    }
    const value = scalar(raw);
    if (value === null) return null;
    values.set(key, value);
  }
  return { values, rest: body.slice(end + 5) };
}

function scalar(raw: string): FrontmatterScalar | null {
  if (raw.startsWith('"')) return doubleQuoted(raw);
  if (raw.startsWith("'")) {
    if (!raw.endsWith("'") || raw.length < 2) return null;
    return raw.slice(1, -1).replace(/''/g, "'");
  }
  if (raw === "true") return true;
  if (raw === "false") return false;
  if (/^-?(?:0|[1-9]\d*)$/.test(raw)) return Number(raw);
  if (raw === "" || /^[[{&*!|>%@`#]/.test(raw) || raw.includes(": ") || raw.includes(" #")) return null;
  return raw.trimEnd();
}

const ESCAPES: Readonly<Record<string, string>> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  t: "\t",
  "\t": "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  e: "\x1b",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
  N: "\u0085",
  _: "\u00a0",
  L: "\u2028",
  P: "\u2029",
};

/** A whole-line double-quoted scalar (YAML 1.2 §7.3.1), or null when it is not exactly one. */
function doubleQuoted(raw: string): string | null {
  let out = "";
  for (let i = 1; i < raw.length; i++) {
    const c = raw[i] as string;
    if (c === '"') return i === raw.length - 1 ? out : null;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const n = raw[++i];
    if (n === undefined) return null;
    const hex = n === "x" ? 2 : n === "u" ? 4 : n === "U" ? 8 : 0;
    if (hex > 0) {
      const digits = raw.slice(i + 1, i + 1 + hex);
      if (!new RegExp(`^[0-9a-fA-F]{${hex}}$`).test(digits)) return null;
      const code = parseInt(digits, 16);
      // \uXXXX may be half of a surrogate pair: kept as a UTF-16 unit so the two halves join.
      out += hex === 4 ? String.fromCharCode(code) : String.fromCodePoint(code);
      i += hex;
      continue;
    }
    const e = ESCAPES[n];
    if (e === undefined) return null;
    out += e;
  }
  return null;
}
