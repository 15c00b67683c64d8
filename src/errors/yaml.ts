/**
 * A small, correct YAML scalar emitter for the Markdown frontmatter (contract §1.2): every value must read back
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

/** Double-quoted scalar: escapes `\`, `"`, every non-printable and every line-break character. */
export function doubleQuoted(value: string): string {
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += "\\\\";
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x09) out += "\\t";
    else if (c === 0x0d) out += "\\r";
    else if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029 || c === 0xfeff) {
      out += "\\u" + c.toString(16).padStart(4, "0");
    } else if (c >= 0xd800 && c <= 0xdfff) {
      // A well-formed pair is copied as is; a lone surrogate is escaped so the text stays valid UTF-8.
      const next = value.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        out += value[i]! + value[i + 1]!;
        i++;
      } else out += "\\u" + c.toString(16);
    } else out += value[i];
  }
  return out + '"';
}
