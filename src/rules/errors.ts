/**
 * Errors are values (docs/rules-language.md: "an invalid expression is refused when written, with the position and a
 * message like wirefilter's"). Every failure of `compile()` is one `RuleError`; nothing else escapes.
 */

/** Offsets into the source, in UTF-16 code units, `end` exclusive. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * - `syntax`: the text is not an expression (wirefilter's parse errors).
 * - `literal`: a literal is malformed or does not fit the type on the left (`tcp.port == "x"`, bad IP, i64 overflow).
 * - `unknown-identifier`: a field or function the scheme does not have.
 * - `type`: a well-formed expression whose types do not fit (wirefilter's TypeMismatch, UnsupportedOp, …).
 * - `regex`: a regular expression the RE2 engine refuses (syntax, look-around, back-references, too big).
 * - `limit`: length, nesting depth or regex-count limit exceeded.
 */
export type RuleErrorKind = "syntax" | "literal" | "unknown-identifier" | "type" | "regex" | "limit";

export interface RuleError {
  readonly kind: RuleErrorKind;
  readonly message: string;
  /** 1-based line of `span.start`. */
  readonly line: number;
  /** 1-based column (in characters) of `span.start` within its line. */
  readonly column: number;
  readonly span: Span;
}

/** Builds a RuleError, computing line and column from the source. */
export function ruleError(source: string, kind: RuleErrorKind, message: string, span: Span): RuleError {
  const start = Math.max(0, Math.min(span.start, source.length));
  const end = Math.max(start, Math.min(span.end, source.length));
  const lineStart = source.lastIndexOf("\n", start - 1) + 1;
  let line = 1;
  for (let i = source.indexOf("\n"); i !== -1 && i < start; i = source.indexOf("\n", i + 1)) line++;
  return { kind, message, line, column: charCount(source, lineStart, start) + 1, span: { start, end } };
}

/** Code points between two offsets, so columns count characters, not UTF-16 units. */
function charCount(source: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = source.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}

/**
 * Wirefilter's format: a header with the position, the offending line, carets under the span (clipped to the
 * line, at least one) and the message.
 *
 *     Filter parsing error (2:8):
 *     num == true or
 *            ^^^^ expected an integer
 */
export function formatRuleError(source: string, error: RuleError): string {
  const lineStart = source.lastIndexOf("\n", error.span.start - 1) + 1;
  const newline = source.indexOf("\n", lineStart);
  const lineEnd = newline === -1 ? source.length : newline;
  const lineText = source.slice(lineStart, lineEnd).replace(/\r$/, "");
  const spanEnd = Math.min(Math.max(error.span.end, error.span.start), lineStart + lineText.length);
  const width = Math.max(1, charCount(source, error.span.start, spanEnd));
  const title = error.kind === "type" ? "Filter type error" : "Filter parsing error";
  return `${title} (${error.line}:${error.column}):\n${lineText}\n${" ".repeat(error.column - 1)}${"^".repeat(width)} ${error.message}\n`;
}
