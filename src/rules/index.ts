/**
 * The Rules language engine (contract §2.2, issue 3). The pipeline is visible in the files:
 *
 *   scheme.ts → lexer.ts → parser.ts → check.ts → compile.ts → context.ts (lazy field values)
 *
 * `compile(source, scheme)` runs it once and returns a `Rule` (or a `RuleError` value); `rule.matches(ctx)`
 * evaluates the closures against one context. Pure: no bindings, no `eval`.
 */
import { check, type CheckOptions } from "./check";
import { compilePredicate } from "./compile";
import type { EvaluationContext } from "./context";
import type { RuleError } from "./errors";
import { parse, type ParseOptions } from "./parser";
import type { Scheme } from "./scheme";
import { err, ok, type Result } from "../result";

export type CompileOptions = ParseOptions & CheckOptions;

export interface Rule {
  readonly source: string;
  readonly scheme: Scheme;
  /** Canonical names of the fields the rule reads (wirefilter's `uses`). */
  readonly fields: readonly string[];
  readonly regexCount: number;
  /** True when the expression matches; never throws for any context built on the rule's scheme. */
  matches(ctx: EvaluationContext): boolean;
}

export function compile(source: string, scheme: Scheme, options: CompileOptions = {}): Result<Rule, RuleError> {
  const ast = parse(source, options);
  if (!ast.ok) return ast;
  const checked = check(source, ast.value, scheme, options);
  if (!checked.ok) return checked;
  const predicate = compilePredicate(checked.value.root);
  return ok({
    source,
    scheme,
    fields: checked.value.fields,
    regexCount: checked.value.regexCount,
    matches(ctx: EvaluationContext): boolean {
      if (ctx.scheme !== scheme) throw new TypeError("rule evaluated against a context of another scheme");
      return predicate(ctx);
    },
  });
}

/** Only validates (parse + type check), for write-time refusal without keeping the compiled closures. */
export function validate(source: string, scheme: Scheme, options: CompileOptions = {}): Result<true, RuleError> {
  const ast = parse(source, options);
  if (!ast.ok) return ast;
  const checked = check(source, ast.value, scheme, options);
  return checked.ok ? ok(true) : err(checked.error);
}

export { EvaluationContext, contextFromValues } from "./context";
export { formatRuleError, type RuleError, type RuleErrorKind, type Span } from "./errors";
export { defineScheme, type FieldDecl, type Scheme } from "./scheme";
export { arrayOf, BOOL, BYTES, INT, IP, mapOf, parseTypeName, typeName, type Type } from "./types";
export { toByteString, fromByteString, type Value } from "./values";
export { parseIp } from "./ip";
export { parse } from "./parser";
export { print } from "./printer";
export { customErrorFields } from "./fields/custom-errors";
export { requestFields } from "./fields/request";
export type { FieldSet } from "./fields/field-set";
export type { ErrorInfo, RuleInput } from "./fields/input";
