/**
 * The parser: recursive descent with precedence climbing, as wirefilter does (docs/rules-language.md).
 * Precedence from tight to loose: `not` > `and` > `xor` > `or`; chains of one operator become one n-ary node.
 *
 * Limits are enforced *before* work (docs/configuration.md): the length first, then the nesting depth is checked before
 * every recursive step (parentheses, `not`, any/all and function calls each count one level, as in wirefilter),
 * so a hostile `((((…` is refused with a RuleError long before the JS stack is at risk.
 */
import type { Arg, ComparisonOp, Expr, Literal, LogicalOp, Rhs, Step, ValueExpr } from "./ast";
import { ruleError, type RuleError, type Span } from "./errors";
import { Lexer, type Lexed } from "./lexer";
import { err, ok, type Result } from "../shared/result";

export interface ParseOptions {
  /** Default 128 (wirefilter's default, docs/custom-errors.md). */
  readonly maxNestingDepth?: number;
  /** Default 4,096 characters (docs/custom-errors.md). */
  readonly maxLength?: number;
}

export const DEFAULT_MAX_NESTING_DEPTH = 128;
export const DEFAULT_MAX_LENGTH = 4096;

/** Functions people write as operators (the dashboard shows them so; docs/rules-language.md). */
const FUNCTION_OPERATORS: ReadonlySet<string> = new Set(["starts_with", "ends_with"]);

/** Operators that take a dynamic value (a field or a function result) on the right (2026 addition). */
const DYNAMIC_OPS: ReadonlySet<ComparisonOp> = new Set(["eq", "ne", "lt", "le", "gt", "ge"]);

/** Operators whose right side is never a bare word (a regex, a string, a set or a list): an identifier there is a field. */
const WORD_ONLY_LITERAL_OPS: ReadonlySet<ComparisonOp> = new Set(["matches", "wildcard", "strict wildcard", "in"]);

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/;

const ENGLISH_OPS: Readonly<Record<string, ComparisonOp>> = {
  eq: "eq",
  ne: "ne",
  lt: "lt",
  le: "le",
  gt: "gt",
  ge: "ge",
  contains: "contains",
  matches: "matches",
  in: "in",
  wildcard: "wildcard",
  bitwise_and: "bitwise_and",
};

/** C-like operators, longest first so `<=` wins over `<` (and `&&` is left for the logical layer). */
const SYMBOL_OPS: readonly (readonly [string, ComparisonOp])[] = [
  ["==", "eq"],
  ["!=", "ne"],
  ["<=", "le"],
  [">=", "ge"],
  ["<", "lt"],
  [">", "gt"],
  ["~", "matches"],
  ["&", "bitwise_and"],
];

/** Internal early exit; always caught in `parse()` and returned as a value, never seen by callers. */
class ParseAbort extends Error {
  constructor(readonly error: RuleError) {
    super(error.message);
  }
}

/** Parses a whole expression. */
export function parse(source: string, options: ParseOptions = {}): Result<Expr, RuleError> {
  const maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH;
  if (source.length > maxLength && codePointsExceed(source, maxLength)) {
    return err(
      ruleError(source, "limit", `the expression is longer than ${maxLength} characters`, {
        start: 0,
        end: source.length,
      }),
    );
  }
  try {
    return ok(new Parser(source, options.maxNestingDepth ?? DEFAULT_MAX_NESTING_DEPTH).filter());
  } catch (e) {
    if (e instanceof ParseAbort) return err(e.error);
    throw e;
  }
}

/** Counts code points only as far as needed: a 1 MiB body is refused after reading 4,097 characters. */
function codePointsExceed(source: string, max: number): boolean {
  let count = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) count++;
    if (count > max) return true;
  }
  return false;
}

class Parser {
  private readonly lex: Lexer;
  constructor(
    private readonly source: string,
    private readonly maxDepth: number,
  ) {
    this.lex = new Lexer(source);
  }

  filter(): Expr {
    // Leading and trailing whitespace, tabs included, is trimmed as wirefilter trims its input.
    // A loop, not /\s+$/: that regex is quadratic on a long run of inner spaces.
    const isTrimmed = (c: string): boolean => c === " " || c === "\t" || c === "\r" || c === "\n";
    let end = this.source.length;
    while (end > 0 && isTrimmed(this.source.charAt(end - 1))) end--;
    let lead = 0;
    while (lead < end && isTrimmed(this.source.charAt(lead))) lead++;
    this.lex.pos = lead;
    if (lead >= end) this.fail("syntax", "empty expression", lead, lead + 1);
    const expr = this.logical(0);
    this.lex.skipWs();
    if (this.lex.pos < end) {
      const word = this.lex.peekWord().text;
      if (FUNCTION_OPERATORS.has(word)) {
        this.unexpected(`\`${word}\` is a function, not an operator: write ${word}(field, "…")`);
      }
      this.unexpected("expected `and`, `or`, `xor` or the end of the expression");
    }
    return expr;
  }

  // ---- logical layer: or < xor < and < not ----

  private logical(depth: number): Expr {
    return this.chain("or", depth);
  }

  private operand(op: LogicalOp, depth: number): Expr {
    return op === "or" ? this.chain("xor", depth) : op === "xor" ? this.chain("and", depth) : this.simple(depth);
  }

  private chain(op: LogicalOp, depth: number): Expr {
    const first = this.operand(op, depth);
    const operands = [first];
    for (;;) {
      const save = this.lex.pos;
      this.lex.skipWs();
      if (this.logicalOp() !== op) {
        this.lex.pos = save;
        break;
      }
      this.consumeLogicalOp();
      this.lex.skipWs();
      operands.push(this.operand(op, depth));
    }
    if (operands.length === 1) return first;
    const last = operands[operands.length - 1] ?? first;
    return { kind: "logical", op, operands, span: { start: first.span.start, end: last.span.end } };
  }

  private logicalOp(): LogicalOp | undefined {
    if (this.lex.startsWith("&&")) return "and";
    if (this.lex.startsWith("||")) return "or";
    if (this.lex.startsWith("^^")) return "xor";
    const word = this.lex.peekWord().text;
    return word === "and" || word === "or" || word === "xor" ? word : undefined;
  }

  private consumeLogicalOp(): void {
    if (this.lex.eat("&&") || this.lex.eat("||") || this.lex.eat("^^")) return;
    this.lex.readWord();
  }

  private simple(depth: number): Expr {
    this.lex.skipWs();
    const start = this.lex.pos;
    if (this.lex.peek() === "(") {
      this.enter(depth, start);
      this.lex.pos++;
      this.lex.skipWs();
      const inner = this.logical(depth + 1);
      this.lex.skipWs();
      this.expect(")", "expected `)`");
      // Grouping leaves no node: the tree's shape already says it. Spans keep the parentheses out.
      return inner;
    }
    const word = this.lex.peekWord();
    if (word.text === "not" || (this.lex.peek() === "!" && this.lex.peek(1) !== "=")) {
      this.enter(depth, start);
      this.lex.pos += word.text === "not" ? 3 : 1;
      this.lex.skipWs();
      const operand = this.simple(depth + 1);
      return { kind: "not", operand, span: { start, end: operand.span.end } };
    }
    if ((word.text === "any" || word.text === "all") && this.followedByParen(word.span.end)) {
      this.enter(depth, start);
      this.lex.pos = word.span.end;
      this.lex.skipWs();
      this.lex.pos++;
      const argument = this.argument(depth + 1);
      if (argument.kind === "string" || argument.kind === "word") {
        this.fail(
          "type",
          `${word.text}() takes an Array<Bool> expression, not a literal`,
          argument.span.start,
          argument.span.end,
        );
      }
      this.lex.skipWs();
      this.expect(")", "expected `)`: the argument of any()/all() is one comparison; wrap `and`/`or` in parentheses");
      return { kind: "quantifier", fn: word.text, argument, span: { start, end: this.lex.pos } };
    }
    return this.comparison(depth);
  }

  private comparison(depth: number): Expr {
    const lhs = this.value(depth);
    const save = this.lex.pos;
    this.lex.skipWs();
    const op = this.comparisonOp();
    if (op === undefined) {
      this.lex.pos = save;
      return { kind: "value", value: lhs, span: lhs.span };
    }
    this.lex.skipWs();
    const rhs = this.rhs(op, depth);
    return { kind: "comparison", lhs, op, rhs, span: { start: lhs.span.start, end: rhs.span.end } };
  }

  /** Reads a comparison operator if one is next; English keywords need the whole word. */
  private comparisonOp(): ComparisonOp | undefined {
    for (const [symbol, op] of SYMBOL_OPS) {
      if (!this.lex.startsWith(symbol)) continue;
      if (symbol === "&" && this.lex.startsWith("&&")) return undefined;
      this.lex.pos += symbol.length;
      return op;
    }
    const word = this.lex.peekWord();
    if (word.text === "strict") {
      // `strict wildcard`: exactly one space between the two words (docs/rules-language.md).
      if (this.source.startsWith(" wildcard", word.span.end)) {
        const after = this.source.charAt(word.span.end + 9);
        if (!/[0-9A-Za-z_:.\-/]/.test(after)) {
          this.lex.pos = word.span.end + 9;
          return "strict wildcard";
        }
      }
      this.fail("syntax", "expected `strict wildcard` (one space between the words)", word.span.start, word.span.end);
    }
    const op = Object.hasOwn(ENGLISH_OPS, word.text) ? ENGLISH_OPS[word.text] : undefined;
    if (op !== undefined) this.lex.pos = word.span.end;
    return op;
  }

  private rhs(op: ComparisonOp, depth: number): Rhs {
    const start = this.lex.pos;
    if (this.atDynamicValue() || (WORD_ONLY_LITERAL_OPS.has(op) && this.atIdent())) {
      // Published 2026 addition: "dynamic values on both sides of equality and ordering comparisons"
      // (developers.cloudflare.com/changelog/post/2026-10-01-dynamic-comparison-values/). Other operators keep a
      // literal on the right.
      if (!DYNAMIC_OPS.has(op)) {
        const word = this.lex.peekWord();
        this.fail(
          "syntax",
          `\`${op}\` takes a literal on the right; a field or a function result on the right is allowed only with eq, ne, lt, le, gt, ge`,
          word.span.start,
          word.span.end,
        );
      }
      const value = this.value(depth);
      return { kind: "value", value, span: value.span };
    }
    switch (op) {
      case "matches":
        return this.lexed(this.lex.readRegex(), (pattern, span) => ({ kind: "regex", pattern, span }));
      case "wildcard":
      case "strict wildcard":
        if (!this.lex.atString()) this.unexpected('expected a string ("…" or r"…") after wildcard');
        return this.lexed(this.lex.readString(), (bytes, span) => ({ kind: "string", bytes, span }));
      case "in": {
        if (this.lex.eat("$")) {
          const name = this.lex.readWord();
          if (!/^[a-z0-9_]+(\.[a-z0-9_]+)*$/.test(name.text)) {
            this.fail("syntax", "expected a list name ([a-z0-9_.])", start, Math.max(name.span.end, start + 1));
          }
          return { kind: "list", name: name.text, span: { start, end: name.span.end } };
        }
        if (!this.lex.eat("{")) this.unexpected("expected `{` (a set) or `$` (a list) after `in`");
        const items: Literal[] = [];
        for (;;) {
          this.lex.skipWs();
          if (this.lex.eat("}")) break;
          if (this.lex.atEnd()) this.fail("syntax", "expected `}`: the set is not closed", start, this.source.length);
          items.push(this.literal("expected a value or `}` in the set"));
        }
        return { kind: "set", items, span: { start, end: this.lex.pos } };
      }
      default:
        return this.literal("expected a value after the operator");
    }
  }

  /** A string literal or a bare word (int, IP, hex bytes), to be typed by `check.ts`. */
  private literal(message: string): Literal {
    if (this.lex.atString())
      return this.lexed(this.lex.readString(), (bytes, span) => ({ kind: "string", bytes, span }));
    const word = this.lex.readWord();
    if (word.text === "") this.unexpected(message);
    return { kind: "word", text: word.text, span: word.span };
  }

  /** `ident { index }` where ident is a field or a call; no whitespace before `[`. */
  private value(depth: number): ValueExpr {
    const start = this.lex.pos;
    const word = this.lex.peekWord();
    if (!IDENT.test(word.text)) {
      if (word.text === "") this.unexpected("expected a field, a function call, `(`, `not` or `any`/`all`");
      this.fail("syntax", `expected a field name, found \`${word.text}\``, word.span.start, word.span.end);
    }
    this.lex.pos = word.span.end;
    let value: ValueExpr;
    if (this.followedByParen(word.span.end)) {
      this.enter(depth, start);
      this.lex.skipWs();
      this.lex.pos++;
      const args = this.arguments(depth + 1);
      value = { kind: "call", name: word.text, args, steps: [], span: { start, end: this.lex.pos } };
    } else {
      value = { kind: "field", name: word.text, steps: [], span: word.span };
    }
    const steps = this.steps();
    if (steps.length === 0) return value;
    const last = steps[steps.length - 1];
    return { ...value, steps, span: { start, end: last?.span.end ?? value.span.end } };
  }

  private steps(): Step[] {
    const steps: Step[] = [];
    while (this.lex.peek() === "[") {
      const start = this.lex.pos++;
      this.lex.skipWs();
      let step: Step;
      if (this.lex.eat("*")) {
        step = { kind: "each", span: { start, end: this.lex.pos } };
      } else if (this.lex.peek() === '"') {
        const key = this.lex.readString();
        if (!key.ok) this.fail("literal", key.error.message, key.error.span.start, key.error.span.end);
        step = { kind: "key", key: key.value, span: { start, end: this.lex.pos } };
      } else {
        const word = this.lex.readWord();
        if (/^[0-9]+$/.test(word.text)) {
          const index = Number(word.text);
          if (index > 0xffffffff)
            this.fail("literal", "array index out of range (0 … 4294967295)", word.span.start, word.span.end);
          step = { kind: "index", index, span: { start, end: word.span.end } };
        } else if (word.text.startsWith("-")) {
          this.fail("syntax", "expected a non-negative integer as index", word.span.start, word.span.end);
        } else {
          this.fail(
            "syntax",
            'expected `*`, a non-negative integer or a quoted key ("…") as index',
            start + 1,
            Math.max(word.span.end, start + 2),
          );
        }
      }
      this.lex.skipWs();
      this.expect("]", "expected `]`");
      steps.push({ ...step, span: { start, end: this.lex.pos } });
    }
    return steps;
  }

  private arguments(depth: number): Arg[] {
    const args: Arg[] = [];
    this.lex.skipWs();
    if (this.lex.eat(")")) return args;
    for (;;) {
      this.lex.skipWs();
      args.push(this.argument(depth));
      this.lex.skipWs();
      if (this.lex.eat(")")) return args;
      if (!this.lex.eat(",")) this.unexpected("expected `,` or `)` after a function argument");
    }
  }

  /**
   * One function argument (wirefilter's func_arg): a string; a whole logical expression when it starts with
   * `(`, `not`/`!` or `any(`/`all(`; else one value with at most one comparison; else a bare literal.
   */
  private argument(depth: number): Arg {
    this.lex.skipWs();
    if (this.lex.atString())
      return this.lexed(this.lex.readString(), (bytes, span) => ({ kind: "string", bytes, span }));
    const word = this.lex.peekWord();
    const c = this.lex.peek();
    if (
      c === "(" ||
      (c === "!" && this.lex.peek(1) !== "=") ||
      word.text === "not" ||
      ((word.text === "any" || word.text === "all") && this.followedByParen(word.span.end))
    ) {
      return this.logical(depth);
    }
    if (IDENT.test(word.text)) return this.comparison(depth);
    if (word.text === "") this.unexpected("expected a function argument");
    this.lex.pos = word.span.end;
    return { kind: "word", text: word.text, span: word.span };
  }

  // ---- helpers ----

  /**
   * True when the right-hand side is a function call or an indexed field (`ident(` or `ident[`). A bare word is
   * left to check.ts: `raw.http.request.uri.path` is a field there, `de.ad.be.ef` stays hex bytes when no field
   * has that name, and the old literal errors (`num == true`) are unchanged.
   */
  private atIdent(): boolean {
    return !this.lex.atString() && IDENT.test(this.lex.peekWord().text);
  }

  private atDynamicValue(): boolean {
    if (this.lex.atString()) return false;
    const word = this.lex.peekWord();
    if (!IDENT.test(word.text)) return false;
    return this.source.charAt(word.span.end) === "[" || this.followedByParen(word.span.end);
  }

  private followedByParen(from: number): boolean {
    let p = from;
    while (p < this.source.length && " \r\n".includes(this.source.charAt(p))) p++;
    return this.source.charAt(p) === "(";
  }

  /** Checked before recursing, so depth past the limit is an error, never a stack overflow. */
  private enter(depth: number, start: number): void {
    if (depth + 1 > this.maxDepth) {
      this.fail("limit", `nesting deeper than ${this.maxDepth} levels`, start, start + 1);
    }
  }

  private lexed<T, N>(result: Lexed<T>, build: (value: T, span: Span) => N): N {
    if (!result.ok) this.fail("literal", result.error.message, result.error.span.start, result.error.span.end);
    return build(result.value, result.span);
  }

  private expect(text: string, message: string): void {
    if (!this.lex.eat(text)) this.unexpected(message);
  }

  private unexpected(message: string): never {
    const p = this.lex.pos;
    if (p >= this.source.length) this.fail("syntax", `${message}, found the end of the expression`, p, p);
    const c = this.source.charAt(p);
    if (c === "\t") this.fail("syntax", "a tab is not whitespace in an expression; use spaces", p, p + 1);
    const word = this.lex.peekWord();
    const end = word.text === "" ? p + 1 : word.span.end;
    this.fail("syntax", `${message}, found \`${this.source.slice(p, end)}\``, p, end);
  }

  private fail(kind: RuleError["kind"], message: string, start: number, end: number): never {
    throw new ParseAbort(ruleError(this.source, kind, message, { start, end }));
  }
}
