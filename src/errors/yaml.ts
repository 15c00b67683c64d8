/**
 * A small, correct YAML scalar emitter for the Markdown frontmatter (docs/errors.md): every value must read back
 * through a YAML parser as exactly the original, whatever it holds (newlines, `: `, `#`, quotes, `---`, unicode,
 * control characters). Three styles, chosen per value:
 * - plain, only for text that no YAML 1.1 or 1.2 parser can read as anything but that string (a conservative
 *   character set, starts with a letter, not a boolean/null word of either version);
 * - literal block (`|-`), for readable multi-line prose made only of printable characters;
 * - double-quoted with escapes (YAML 1.2 §5.7, §7.3.1) for everything else, which can represent any string.
 */

/**
 * Plain text YAML 1.1 or 1.2 resolve to something else: booleans and null (YAML 1.1 bool/null types, 1.2 core
 * schema), and exponent-only numbers like `E6`, which some 1.1 resolvers take for a float (found by fast-check).
 */
const RESERVED = /^(?:y|n|yes|no|true|false|on|off|null|~)$|^e[-+]?[0-9]/i;
/** Plain-safe text: starts with a letter; no indicator that matters in block context; no trailing space. */
const PLAIN_SAFE = /^[A-Za-z](?:[A-Za-z0-9 _.,;()/+=?!'-]*[A-Za-z0-9_.,;()/+=?!'-])?$/;
/** Characters that may appear raw in a literal block: printable, tab, newline (YAML 1.2 §5.1 c-printable). */
const LITERAL_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\ud800-\udfff]/;

/** A YAML scalar for `value` in block context at the top level (the caller writes `key: ` before it). */
export function yamlScalar(value: string | number | boolean, options: { readonly quote?: boolean } = {}): string {
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : doubleQuoted(String(value));
  if (options.quote) return doubleQuoted(value);
  if (PLAIN_SAFE.test(value) && !RESERVED.test(value)) return value;
  if (literalBlockFits(value)) return "|-\n" + value.replace(/^(?=.)/gm, "  ");
  return doubleQuoted(value);
}

/**
 * A literal block keeps text byte for byte when: there is more than one line, no line break other than `\n`,
 * only printable characters, the first non-empty line does not start with white space (it sets the indentation),
 * no line is only white space (folded into the indentation), and no trailing newline (`|-` strips them).
 */
function literalBlockFits(value: string): boolean {
  if (!value.includes("\n") || value.endsWith("\n") || value.includes("\r")) return false;
  if (LITERAL_UNSAFE.test(value) || /^\n*[ \t]/.test(value)) return false;
  return !/^[ \t]+$/m.test(value);
}

/**
 * What a double-quoted scalar must escape: `"`, `\`, C0 and C1 controls, DEL, the line and paragraph separators
 * and the BOM; and lone surrogates (a well-formed pair is one character and is kept; a lone half cannot be written
 * as UTF-8). The surrogate rule needs look-arounds, which make the scan several times slower, so it only runs on
 * text that holds a surrogate at all.
 */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/g;
const NEEDS_ESCAPE_OR_LONE_SURROGATE =
  /["\\\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const ANY_SURROGATE = /[\ud800-\udfff]/;

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\t": "\\t",
  "\r": "\\r",
};

function escapeChar(c: string): string {
  return SHORT_ESCAPES[c] ?? "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
}

/** Double-quoted scalar (YAML 1.2 §7.3.1): can represent any string; escapes as above (§5.7). */
export function doubleQuoted(value: string): string {
  const pattern = ANY_SURROGATE.test(value) ? NEEDS_ESCAPE_OR_LONE_SURROGATE : NEEDS_ESCAPE;
  return '"' + value.replace(pattern, escapeChar) + '"';
}
