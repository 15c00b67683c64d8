/**
 * The untyped syntax tree the parser builds (docs/rules-language.md). It knows nothing about the scheme:
 * right-hand literals that depend on the left-hand type (`10:20:30:40:50:60:70:80` is IPv6 after an IP field and
 * bytes after a String field) are kept as written (`word`) and interpreted by `check.ts`.
 */
import type { Span } from "./errors";

export type LogicalOp = "and" | "or" | "xor";

export type ComparisonOp =
  | "eq"
  | "ne"
  | "lt"
  | "le"
  | "gt"
  | "ge"
  | "contains"
  | "matches"
  | "in"
  | "wildcard"
  | "strict wildcard"
  | "bitwise_and";

/** A Bool (or, inside any()/all(), Array<Bool>) expression. */
export type Expr =
  | { readonly kind: "logical"; readonly op: LogicalOp; readonly operands: readonly Expr[]; readonly span: Span }
  | { readonly kind: "not"; readonly operand: Expr; readonly span: Span }
  | { readonly kind: "quantifier"; readonly fn: "any" | "all"; readonly argument: Expr; readonly span: Span }
  | {
      readonly kind: "comparison";
      readonly lhs: ValueExpr;
      readonly op: ComparisonOp;
      readonly rhs: Rhs;
      readonly span: Span;
    }
  /** A value used alone: a Bool field, or any value as a function argument. */
  | { readonly kind: "value"; readonly value: ValueExpr; readonly span: Span };

/** `ident { index }`: a field or a function call, then indexes. */
export type ValueExpr =
  | { readonly kind: "field"; readonly name: string; readonly steps: readonly Step[]; readonly span: Span }
  | {
      readonly kind: "call";
      readonly name: string;
      readonly args: readonly Arg[];
      readonly steps: readonly Step[];
      readonly span: Span;
    };

export type Step =
  | { readonly kind: "index"; readonly index: number; readonly span: Span }
  /** A map key, as a byte string. */
  | { readonly kind: "key"; readonly key: string; readonly span: Span }
  | { readonly kind: "each"; readonly span: Span };

/** A function argument: an expression, or a literal (string, or a bare word such as `0`, `-2`, `aa:bb`). */
export type Arg = Expr | Literal;

/** A literal: a string (already unescaped to a byte string), or a bare word kept as written. */
export type Literal =
  | { readonly kind: "string"; readonly bytes: string; readonly span: Span }
  | { readonly kind: "word"; readonly text: string; readonly span: Span };

export type Rhs =
  | Literal
  /** A regex, as the byte string handed to the regex engine (quoted form already unescaped per docs/rules-language.md). */
  | { readonly kind: "regex"; readonly pattern: string; readonly span: Span }
  | { readonly kind: "set"; readonly items: readonly Literal[]; readonly span: Span }
  | { readonly kind: "list"; readonly name: string; readonly span: Span }
  /**
   * A dynamic value on the right of an equality or ordering operator: a function call or an indexed field
   * (`len(a) gt len(b)`, `x eq m["k"][0]`). A bare word that names a field (`path ne raw.http.request.uri.path`)
   * stays a `word` here and becomes a field in check.ts, which knows the scheme (the 2026 addition; see
   * docs/rules-language.md "Dynamic values on both sides").
   */
  | { readonly kind: "value"; readonly value: ValueExpr; readonly span: Span };
