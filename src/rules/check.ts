/**
 * The type checker: resolves names against the scheme and the function table, types every node, interprets
 * right-hand literals by the left-hand type, compiles regexes and wildcards once, and requires a Bool root
 * (docs/rules-language.md). Its output, the typed tree, is what `compile.ts` turns into closures.
 */
import type { Arg, ComparisonOp, Expr, Literal, Rhs, Step, ValueExpr } from "./ast";
import { ruleError, type RuleError, type RuleErrorKind, type Span } from "./errors";
import { lookupFunction, type ArgInfo, type FunctionDef } from "./functions";
import type { IpAddress, IpRange } from "../shared/ip";
import { parseHexBytes, parseInt64, parseIntRange, parseIpLiteral, parseIpSetItem } from "./literals";
import { compileRegex, MAX_REPETITION_BUDGET, repetitionCost, type CompiledRegex } from "./regex";
import { printValue } from "./printer";
import type { Scheme } from "./scheme";
import { arrayOf, BOOL, BYTES, INT, IP, isBoolArray, typeName, type Type } from "./types";
import type { Value } from "./values";
import { compileWildcard, type WildcardMatcher } from "./wildcard";
import { err, ok, type Result } from "../shared/result";

export interface CheckOptions {
  /** Default 64 (docs/custom-errors.md). */
  readonly maxRegexes?: number;
  /** Unlimited by default, as in wirefilter (docs/rules-language.md). */
  readonly wildcardStarLimit?: number;
}

export const DEFAULT_MAX_REGEXES = 64;

export type Ordering = "eq" | "ne" | "lt" | "le" | "gt" | "ge";

/** A typed test applied to one present (non-missing) left-hand value. */
export type Test =
  | { readonly kind: "bytes-order"; readonly op: Ordering; readonly value: string }
  | { readonly kind: "int-order"; readonly op: Ordering; readonly value: number }
  | { readonly kind: "ip-order"; readonly op: Ordering; readonly value: IpAddress }
  | { readonly kind: "contains"; readonly needle: string }
  | { readonly kind: "regex"; readonly regex: CompiledRegex }
  | {
      readonly kind: "wildcard";
      readonly match: WildcardMatcher;
      /** The same test as a regex (set-patterns.ts), for a phase's one-pass set. */
      readonly setPattern: string;
    }
  | { readonly kind: "bytes-in"; readonly values: readonly string[] }
  | { readonly kind: "int-in"; readonly ranges: readonly (readonly [number, number])[] }
  | { readonly kind: "ip-in"; readonly ranges: readonly IpRange[] }
  | { readonly kind: "bitwise-and"; readonly mask: number }
  /**
   * A dynamic value on the right (2026 addition): compared with the left value by `op`, both of type `operand`.
   * False when either side is missing (docs/rules-language.md). Never a rule-index guard (guard.ts).
   */
  | { readonly kind: "dynamic-order"; readonly op: Ordering; readonly operand: ScalarKind; readonly rhs: TValue };

/** The types a dynamic comparison compares. */
export type ScalarKind = "Bytes" | "Int" | "Ip";

/** A typed value: a base and its index steps. `type` is the type after the steps (per element if `mapped`). */
export interface TValue {
  readonly base: TBase;
  readonly steps: readonly Step[];
  readonly type: Type;
  /** True when a `[*]` step makes this a list of element values. */
  readonly mapped: boolean;
}

export type TBase =
  | { readonly kind: "field"; readonly index: number; readonly name: string }
  | { readonly kind: "constant"; readonly value: Value }
  | {
      readonly kind: "call";
      readonly fn: FunctionDef;
      readonly args: readonly TArg[];
      readonly mapsFirstArg: boolean;
      /** Canonical text of the call (without its indexes): equal keys compute equal values in one evaluation. */
      readonly key: string;
    };

export type TArg =
  | { readonly kind: "value"; readonly value: TValue }
  | { readonly kind: "constant"; readonly value: Value }
  | { readonly kind: "bool"; readonly expr: TBool };

/** A Bool expression; when `array` it evaluates to Array<Bool> (inside any()/all()). */
export type TBool =
  | {
      readonly kind: "logical";
      readonly op: "and" | "or" | "xor";
      readonly operands: readonly TBool[];
      readonly array: boolean;
    }
  | { readonly kind: "not"; readonly operand: TBool; readonly array: boolean }
  | { readonly kind: "quantifier"; readonly fn: "any" | "all"; readonly argument: TBool; readonly array: false }
  | { readonly kind: "compare"; readonly lhs: TValue; readonly test: Test; readonly array: boolean }
  | { readonly kind: "value"; readonly value: TValue; readonly array: boolean };

export interface Checked {
  readonly root: TBool;
  /** Canonical names of the fields the expression reads. */
  readonly fields: readonly string[];
  readonly regexCount: number;
  /** Sum of the compiled regexes' program sizes (re2js instructions). */
  readonly programSize: number;
}

class CheckAbort extends Error {
  constructor(readonly error: RuleError) {
    super(error.message);
  }
}

export function check(
  source: string,
  expr: Expr,
  scheme: Scheme,
  options: CheckOptions = {},
): Result<Checked, RuleError> {
  const checker = new Checker(source, scheme, options);
  try {
    const root = checker.bool(expr);
    if (root.array) {
      checker.fail("type", "the expression must be Bool, got Array<Bool>; use any(…) or all(…)", expr.span);
    }
    return ok({
      root,
      fields: [...checker.fields],
      regexCount: checker.regexCount,
      programSize: checker.programSize,
    });
  } catch (e) {
    if (e instanceof CheckAbort) return err(e.error);
    throw e;
  }
}

class Checker {
  readonly fields = new Set<string>();
  regexCount = 0;
  programSize = 0;
  private repetitions = 0;
  private readonly maxRegexes: number;

  constructor(
    private readonly source: string,
    private readonly scheme: Scheme,
    private readonly options: CheckOptions,
  ) {
    this.maxRegexes = options.maxRegexes ?? DEFAULT_MAX_REGEXES;
  }

  bool(expr: Expr): TBool {
    switch (expr.kind) {
      case "logical": {
        const operands = expr.operands.map((o) => this.bool(o));
        const array = operands[0]?.array ?? false;
        operands.forEach((o, i) => {
          if (o.array !== array) {
            const span = expr.operands[i]?.span ?? expr.span;
            this.fail(
              "type",
              `type mismatch: expected ${array ? "Array<Bool>" : "Bool"}, got ${o.array ? "Array<Bool>" : "Bool"}`,
              span,
            );
          }
        });
        return { kind: "logical", op: expr.op, operands, array };
      }
      case "not": {
        const operand = this.bool(expr.operand);
        return { kind: "not", operand, array: operand.array };
      }
      case "quantifier": {
        const argument = this.bool(expr.argument);
        if (!argument.array) this.fail("type", `${expr.fn}() expects Array<Bool>, got Bool`, expr.argument.span);
        return { kind: "quantifier", fn: expr.fn, argument, array: false };
      }
      case "value": {
        const value = this.value(expr.value, true);
        if (value.mapped) {
          if (value.type.kind !== "Bool")
            this.fail("type", `expected Bool elements, got ${typeName(value.type)}`, expr.span);
          return { kind: "value", value, array: true };
        }
        if (value.type.kind === "Bool") return { kind: "value", value, array: false };
        if (isBoolArray(value.type)) return { kind: "value", value, array: true };
        return this.fail(
          "type",
          `expected a Bool, got ${typeName(value.type)}; compare it with an operator`,
          expr.span,
        );
      }
      case "comparison":
        return this.comparison(expr);
    }
  }

  private comparison(expr: Extract<Expr, { kind: "comparison" }>): TBool {
    const lhs = this.value(expr.lhs, true);
    const type = lhs.type;
    const opSpan: Span = { start: expr.lhs.span.end, end: expr.rhs.span.start };
    if (type.kind === "Bool") {
      // Wirefilter's parser ends a Bool comparison at the field, so this is a syntax error there (vectors).
      this.fail(
        "syntax",
        "a Bool value takes no operator (there are no true/false literals; use the field alone or `not`)",
        trimSpan(this.source, opSpan),
      );
    }
    if (type.kind === "Array" || type.kind === "Map") {
      this.fail(
        "type",
        `operator \`${expr.op}\` is not supported on ${typeName(type)}; index it ([0], ["key"]) or use any(…[*] …)`,
        expr.lhs.span,
      );
    }
    if (!supports(type.kind, expr.op)) {
      this.fail("type", `operator \`${expr.op}\` is not supported on ${typeName(type)}`, trimSpan(this.source, opSpan));
    }
    const test = this.test(type, expr.op, expr.rhs);
    return { kind: "compare", lhs, test, array: lhs.mapped };
  }

  private test(type: Type, op: ComparisonOp, rhs: Rhs): Test {
    switch (op) {
      case "eq":
      case "ne":
      case "lt":
      case "le":
      case "gt":
      case "ge": {
        const dynamic = this.dynamic(rhs);
        if (dynamic !== undefined) return this.dynamicTest(type, op, dynamic, rhs.span);
        const literal = this.scalar(rhs);
        if (type.kind === "Int") return { kind: "int-order", op, value: this.int(literal) };
        if (type.kind === "Ip") return { kind: "ip-order", op, value: this.ip(literal) };
        return { kind: "bytes-order", op, value: this.bytes(literal) };
      }
      case "contains":
        this.refuseDynamic(op, rhs);
        return { kind: "contains", needle: this.bytes(this.scalar(rhs)) };
      case "bitwise_and": {
        this.refuseDynamic(op, rhs);
        const mask = this.int(this.scalar(rhs));
        return { kind: "bitwise-and", mask };
      }
      case "matches": {
        if (rhs.kind !== "regex") return this.fail("syntax", "expected a regular expression", rhs.span);
        this.regexCount++;
        if (this.regexCount > this.maxRegexes) {
          this.fail("limit", `more than ${this.maxRegexes} regular expressions in one expression`, rhs.span);
        }
        this.repetitions += repetitionCost(rhs.pattern);
        if (this.repetitions > MAX_REPETITION_BUDGET) {
          this.fail(
            "limit",
            `regular expressions repeat too much: counted repetitions add up to more than ${MAX_REPETITION_BUDGET}`,
            rhs.span,
          );
        }
        const regex = compileRegex(rhs.pattern);
        if (!regex.ok) return this.fail("regex", regex.error, rhs.span);
        this.programSize += regex.value.programSize;
        return { kind: "regex", regex: regex.value };
      }
      case "wildcard":
      case "strict wildcard": {
        if (rhs.kind !== "string") return this.fail("syntax", "expected a string after wildcard", rhs.span);
        const matcher = compileWildcard(rhs.bytes, op === "wildcard", this.options.wildcardStarLimit);
        if (!matcher.ok) return this.fail("literal", matcher.error, rhs.span);
        return { kind: "wildcard", match: matcher.value.match, setPattern: matcher.value.setPattern };
      }
      case "in": {
        if (rhs.kind === "list")
          return this.fail("unknown-identifier", `unknown list \`$${rhs.name}\` (lists are not supported)`, rhs.span);
        if (rhs.kind !== "set") return this.fail("syntax", "expected a set { … }", rhs.span);
        if (type.kind === "Int")
          return { kind: "int-in", ranges: mergeRanges(rhs.items.map((item) => this.intRange(item))) };
        if (type.kind === "Ip")
          return { kind: "ip-in", ranges: mergeIpRanges(rhs.items.map((item) => this.ipRange(item))) };
        return { kind: "bytes-in", values: [...new Set(rhs.items.map((item) => this.bytes(item)))] };
      }
    }
  }

  /**
   * The right side as a dynamic value, when it is one: a call or an indexed field (parsed as such), or a bare word
   * that names a field of the scheme (`raw.http.request.uri.path`). A bare word that names no field stays a literal,
   * so every literal keeps its meaning and its error (`num == true`: "expected an integer").
   */
  private dynamic(rhs: Rhs): TValue | undefined {
    if (rhs.kind === "value") return this.value(rhs.value, false);
    if (rhs.kind === "word" && this.scheme.field(rhs.text) !== undefined) {
      return this.value({ kind: "field", name: rhs.text, steps: [], span: rhs.span }, false);
    }
    return undefined;
  }

  /**
   * Both sides must have the same scalar type (wirefilter's TypeMismatch), refused when written with the position
   * of the right side. Published: developers.cloudflare.com/ruleset-engine/rules-language/operators/#compare-dynamic-values.
   */
  private dynamicTest(left: Type, op: Ordering, rhs: TValue, span: Span): Test {
    const right = rhs.type;
    if (left.kind !== "Bytes" && left.kind !== "Int" && left.kind !== "Ip") {
      return this.fail("type", `operator \`${op}\` is not supported on ${typeName(left)}`, span);
    }
    if (right.kind !== left.kind) {
      return this.fail(
        "type",
        `expected a value of type ${typeName(left)} (the type of the left side), got ${typeName(right)}`,
        span,
      );
    }
    return { kind: "dynamic-order", op, operand: left.kind, rhs };
  }

  /** `contains` and `&` keep a literal on the right (the published addition covers equality and ordering only). */
  private refuseDynamic(op: ComparisonOp, rhs: Rhs): void {
    if (rhs.kind === "word" && this.scheme.field(rhs.text) !== undefined) {
      this.fail(
        "syntax",
        `\`${op}\` takes a literal on the right; a field or a function result on the right is allowed only with eq, ne, lt, le, gt, ge`,
        rhs.span,
      );
    }
  }

  private scalar(rhs: Rhs): Literal {
    if (rhs.kind === "string" || rhs.kind === "word") return rhs;
    return this.fail("syntax", "expected a single value", rhs.span);
  }

  private int(literal: Literal): number {
    if (literal.kind === "string") return this.fail("literal", "expected an integer, found a string", literal.span);
    const n = parseInt64(literal.text);
    return n.ok ? n.value : this.fail("literal", n.error, literal.span);
  }

  private intRange(literal: Literal): readonly [number, number] {
    if (literal.kind === "string")
      return this.fail("literal", "expected an integer or a range a..b, found a string", literal.span);
    const r = parseIntRange(literal.text);
    return r.ok ? r.value : this.fail("literal", r.error, literal.span);
  }

  private ip(literal: Literal): IpAddress {
    if (literal.kind === "string") return this.fail("literal", "expected an IP address, found a string", literal.span);
    const r = parseIpLiteral(literal.text);
    return r.ok ? r.value : this.fail("literal", r.error, literal.span);
  }

  private ipRange(literal: Literal): IpRange {
    if (literal.kind === "string")
      return this.fail("literal", "expected an IP address, CIDR or range, found a string", literal.span);
    const r = parseIpSetItem(literal.text);
    return r.ok ? r.value : this.fail("literal", r.error, literal.span);
  }

  private bytes(literal: Literal): string {
    if (literal.kind === "string") return literal.bytes;
    const r = parseHexBytes(literal.text);
    return r.ok ? r.value : this.fail("literal", r.error, literal.span);
  }

  /** Types a value; `[*]` is allowed only where the caller says (comparison left side, bare value, first argument). */
  value(v: ValueExpr, allowMapped: boolean): TValue {
    let base: TBase;
    let type: Type;
    if (v.kind === "field") {
      const nameSpan: Span = { start: v.span.start, end: v.span.start + v.name.length };
      const decl = this.scheme.field(v.name);
      if (decl) {
        base = { kind: "field", index: decl.index, name: decl.name };
        type = decl.type;
        this.fields.add(decl.name);
      } else if (v.name === "true") {
        // Cloudflare's built-in "match everything" expression (docs/rules-language.md).
        base = { kind: "constant", value: true };
        type = BOOL;
      } else {
        return this.fail("unknown-identifier", `unknown field \`${v.name}\``, nameSpan);
      }
    } else {
      const call = this.call(v);
      base = call.base;
      type = call.type;
    }
    let mapped = false;
    for (const step of v.steps) {
      if (step.kind === "each") {
        if (type.kind === "Array") type = type.element;
        else if (type.kind === "Map") type = type.value;
        else this.fail("type", `cannot use [*] on ${typeName(type)}: only arrays and maps can be iterated`, step.span);
        mapped = true;
      } else if (step.kind === "index") {
        if (type.kind !== "Array")
          this.fail(
            "type",
            `cannot index ${typeName(type)} with [${step.index}]: only arrays take a number`,
            step.span,
          );
        type = type.element;
      } else {
        if (type.kind !== "Map")
          this.fail("type", `cannot index ${typeName(type)} with a key: only maps take ["key"]`, step.span);
        type = type.value;
      }
    }
    if (mapped && !allowMapped) {
      this.fail(
        "type",
        "[*] is only allowed on the left of a comparison and in the first argument of a function",
        v.span,
      );
    }
    return { base, steps: v.steps, type, mapped };
  }

  private call(v: Extract<ValueExpr, { kind: "call" }>): { base: TBase; type: Type } {
    const nameSpan: Span = { start: v.span.start, end: v.span.start + v.name.length };
    const fn = lookupFunction(v.name);
    if (!fn) {
      if (v.name === "any" || v.name === "all")
        return this.fail("type", `${v.name}() returns Bool and cannot be indexed`, nameSpan);
      return this.fail("unknown-identifier", `unknown function \`${v.name}\``, nameSpan);
    }
    const args: TArg[] = [];
    const infos: ArgInfo[] = [];
    let mapsFirstArg = false;
    v.args.forEach((arg, i) => {
      const typed = this.argument(arg, i === 0);
      args.push(typed.arg);
      infos.push(typed.info);
      if (typed.arg.kind === "value" && typed.arg.value.mapped) mapsFirstArg = true;
    });
    const result = fn.check(infos);
    if (!result.ok) {
      const at = result.error.arg === undefined ? undefined : v.args[result.error.arg];
      return this.fail("type", result.error.message, at?.span ?? nameSpan);
    }
    const key = printValue({ ...v, steps: [] });
    return {
      base: { kind: "call", fn, args, mapsFirstArg, key },
      type: mapsFirstArg ? arrayOf(result.value) : result.value,
    };
  }

  private argument(arg: Arg, first: boolean): { arg: TArg; info: ArgInfo } {
    switch (arg.kind) {
      case "string":
        return {
          arg: { kind: "constant", value: arg.bytes },
          info: { type: BYTES, literal: true, value: arg.bytes, span: arg.span },
        };
      case "word": {
        const guessed = guessLiteral(arg.text);
        if (!guessed)
          return this.fail(
            "literal",
            `expected a field, a string, an integer or an IP address, found \`${arg.text}\``,
            arg.span,
          );
        return {
          arg: { kind: "constant", value: guessed.value },
          info: { type: guessed.type, literal: true, value: guessed.value, span: arg.span },
        };
      }
      case "value": {
        // A mapped first argument is checked by its element type; the call then returns an array (see call()).
        const value = this.value(arg.value, first);
        return { arg: { kind: "value", value }, info: { type: value.type, literal: false, span: arg.span } };
      }
      default: {
        const expr = this.bool(arg);
        return {
          arg: { kind: "bool", expr },
          info: { type: expr.array ? arrayOf(BOOL) : BOOL, literal: false, span: arg.span },
        };
      }
    }
  }

  fail(kind: RuleErrorKind, message: string, span: Span): never {
    throw new CheckAbort(ruleError(this.source, kind, message, span));
  }
}

/** A bare literal argument is read as IP, then Int, then hex bytes (wirefilter's order, docs/rules-language.md). */
function guessLiteral(text: string): { type: Type; value: Value } | undefined {
  const ip = parseIpLiteral(text);
  if (ip.ok) return { type: IP, value: ip.value };
  const n = parseInt64(text);
  if (n.ok) return { type: INT, value: n.value };
  const b = parseHexBytes(text);
  if (b.ok) return { type: BYTES, value: b.value };
  return undefined;
}

const ORDERING: ReadonlySet<ComparisonOp> = new Set(["eq", "ne", "lt", "le", "gt", "ge"]);

/** Operator support by type (docs/rules-language.md; ordering on IP as wirefilter has it). */
function supports(kind: Type["kind"], op: ComparisonOp): boolean {
  switch (kind) {
    case "Bytes":
      return op !== "bitwise_and";
    case "Int":
      return ORDERING.has(op) || op === "in" || op === "bitwise_and";
    case "Ip":
      return ORDERING.has(op) || op === "in";
    default:
      return false;
  }
}

function trimSpan(source: string, span: Span): Span {
  let { start, end } = span;
  while (start < end && " \r\n".includes(source.charAt(start))) start++;
  while (end > start && " \r\n".includes(source.charAt(end - 1))) end--;
  return { start, end: Math.max(end, start + 1) };
}

/** Sorted, merged inclusive ranges: membership is then a binary search (wirefilter's RangeSet, docs/rules-language.md). */
function mergeRanges(ranges: readonly (readonly [number, number])[]): (readonly [number, number])[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function mergeIpRanges(ranges: readonly IpRange[]): IpRange[] {
  const v4 = ranges.filter((r): r is readonly [number, number] => typeof r[0] === "number");
  const v6 = ranges.filter((r): r is readonly [bigint, bigint] => typeof r[0] === "bigint");
  const sorted6 = [...v6].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out6: [bigint, bigint][] = [];
  for (const [lo, hi] of sorted6) {
    const last = out6[out6.length - 1];
    if (last && lo <= last[1] + 1n) last[1] = last[1] > hi ? last[1] : hi;
    else out6.push([lo, hi]);
  }
  return [...mergeRanges(v4), ...out6];
}
