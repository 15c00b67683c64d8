/**
 * The lexer: a cursor over the source that the parser drives, because the Rules language lexes by context
 * (docs/rules-language.md: raw strings count hashes, quoted regexes escape differently from quoted strings,
 * `strict wildcard` is two words, no whitespace is allowed before `[`). Each reader returns a value or a
 * `LexError`; the lexer never throws.
 */
import type { Span } from "./errors";
import { toByteString } from "./values";

export interface LexError {
  readonly message: string;
  readonly span: Span;
}
export type Lexed<T> =
  { readonly ok: true; readonly value: T; readonly span: Span } | { readonly ok: false; readonly error: LexError };

/** Raw strings allow at most 255 `#` (wirefilter bytes.rs). */
export const MAX_RAW_HASHES = 255;

/** `[0-9A-Za-z_:.\-/]` by char code: the lexer's hottest test, kept off the regex engine. */
function isWordChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x30 && c <= 0x3a) ||
    c === 0x5f ||
    c === 0x2e ||
    c === 0x2d ||
    c === 0x2f
  );
}
const HEX2 = /^[0-9a-fA-F]{2}$/;
const OCT3 = /^[0-7]{3}$/;

export class Lexer {
  pos = 0;
  constructor(readonly source: string) {}

  /** Whitespace is space, CR and LF only: a TAB is not whitespace (wirefilter lex.rs). */
  skipWs(): void {
    const s = this.source;
    let p = this.pos;
    while (p < s.length) {
      const c = s.charCodeAt(p);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d) break;
      p++;
    }
    this.pos = p;
  }

  atEnd(): boolean {
    return this.pos >= this.source.length;
  }

  peek(offset = 0): string {
    return this.source.charAt(this.pos + offset);
  }

  startsWith(text: string): boolean {
    return this.source.startsWith(text, this.pos);
  }

  /** Consumes `text` if it is next. */
  eat(text: string): boolean {
    if (!this.startsWith(text)) return false;
    this.pos += text.length;
    return true;
  }

  /**
   * A word: a maximal run of `[0-9A-Za-z_:.\-/]`. Identifiers (`http.request.uri.path`), keywords (`and`) and bare
   * literals (`10.0.0.0/8`, `2082..2083`, `6F:72:67`, `-12`, `0x1f`) are all words; the parser decides which by
   * position, and `check.ts` interprets literals by type. Keywords need the whole word, so `t andf` is not `t and f`.
   */
  peekWord(): { readonly text: string; readonly span: Span } {
    const s = this.source;
    let p = this.pos;
    while (p < s.length && isWordChar(s.charCodeAt(p))) p++;
    return { text: s.slice(this.pos, p), span: { start: this.pos, end: p } };
  }

  readWord(): { readonly text: string; readonly span: Span } {
    const word = this.peekWord();
    this.pos = word.span.end;
    return word;
  }

  /** True when a string literal (quoted or raw) starts here. */
  atString(): boolean {
    const c = this.peek();
    return c === '"' || (c === "r" && (this.peek(1) === '"' || this.peek(1) === "#"));
  }

  /**
   * A string literal as a byte string. Quoted: escapes `\"`, `\\`, `\xHH`, `\OOO` only (docs/rules-language.md).
   * Raw: `r"…"`, `r#"…"#` with up to 255 hashes, no escapes.
   */
  readString(): Lexed<string> {
    return this.peek() === "r" ? this.readRaw() : this.readQuoted();
  }

  /**
   * A regex literal (docs/rules-language.md): raw strings as usual; in quoted form `\"` becomes `"` outside a character class, every
   * other backslash sequence is passed to the regex engine unchanged, and a `"` inside `[…]` does not end it.
   */
  readRegex(): Lexed<string> {
    if (this.peek() === "r") return this.readRaw();
    const s = this.source;
    const start = this.pos;
    if (s.charAt(start) !== '"') return this.fail('expected a regular expression ("…" or r"…")', start, start + 1);
    let p = start + 1;
    let out = "";
    let inClass = false;
    while (p < s.length) {
      const c = s.charAt(p);
      if (c === "\\") {
        const next = s.charAt(p + 1);
        if (next === "") break;
        if (next === '"' && !inClass) out += '"';
        else out += c + next;
        p += 2;
        continue;
      }
      if (c === '"' && !inClass) {
        this.pos = p + 1;
        return { ok: true, value: toByteString(out), span: { start, end: p + 1 } };
      }
      if (c === "[" && !inClass) {
        inClass = true;
        out += c;
        p++;
        // `[]…]` and `[^]…]`: a leading `]` is a literal member of the class.
        if (s.charAt(p) === "^") out += s.charAt(p++);
        if (s.charAt(p) === "]") out += s.charAt(p++);
        continue;
      }
      if (c === "]" && inClass) inClass = false;
      out += c;
      p++;
    }
    return this.fail("missing closing quote", start, s.length);
  }

  private readQuoted(): Lexed<string> {
    const s = this.source;
    const start = this.pos;
    let p = start + 1;
    let out = "";
    let chunkStart = p;
    while (p < s.length) {
      const c = s.charAt(p);
      if (c === '"') {
        out += toByteString(s.slice(chunkStart, p));
        this.pos = p + 1;
        return { ok: true, value: out, span: { start, end: p + 1 } };
      }
      if (c !== "\\") {
        p++;
        continue;
      }
      out += toByteString(s.slice(chunkStart, p));
      const next = s.charAt(p + 1);
      if (next === "") break;
      if (next === '"' || next === "\\") {
        out += next;
        p += 2;
      } else if (next === "x") {
        const hex = s.slice(p + 2, p + 4);
        if (!HEX2.test(hex)) return this.fail("invalid escape: \\x needs exactly two hex digits", p, p + 4);
        out += String.fromCharCode(parseInt(hex, 16));
        p += 4;
      } else if (next >= "0" && next <= "7") {
        const oct = s.slice(p + 1, p + 4);
        const code = OCT3.test(oct) ? parseInt(oct, 8) : 256;
        if (code > 255)
          return this.fail("invalid escape: an octal escape needs exactly three digits (\\000–\\377)", p, p + 4);
        out += String.fromCharCode(code);
        p += 4;
      } else {
        return this.fail(`invalid escape \\${next}: only \\", \\\\, \\xHH and \\OOO are allowed`, p, p + 2);
      }
      chunkStart = p;
    }
    return this.fail("missing closing quote", start, s.length);
  }

  private readRaw(): Lexed<string> {
    const s = this.source;
    const start = this.pos;
    let p = start + 1;
    let hashes = 0;
    while (s.charAt(p) === "#") {
      hashes++;
      p++;
    }
    if (hashes > MAX_RAW_HASHES) return this.fail(`a raw string takes at most ${MAX_RAW_HASHES} '#'`, start, p);
    if (s.charAt(p) !== '"') return this.fail('expected " or # after r', p, p + 1);
    const close = '"' + "#".repeat(hashes);
    const end = s.indexOf(close, p + 1);
    if (end === -1) return this.fail("missing closing quote of the raw string", start, s.length);
    this.pos = end + close.length;
    return { ok: true, value: toByteString(s.slice(p + 1, end)), span: { start, end: this.pos } };
  }

  private fail(message: string, start: number, end: number): Lexed<never> {
    return {
      ok: false,
      error: { message, span: { start, end: Math.min(Math.max(end, start + 1), this.source.length) } },
    };
  }
}
