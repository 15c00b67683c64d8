/**
 * What the rule linter (lint.ts, docs/lint.md) can prove about one expression, read off its syntax tree
 * (src/rules/ast.ts) without evaluating it: its disjuncts (`A or B or …`), each a set of conjuncts (`A and B and
 * …`) in canonical text (the printer's normal form, src/rules/printer.ts, aliases resolved), the fields each
 * conjunct reads, and whether a disjunct's literal comparisons contradict each other or a field's domain.
 *
 * Only what is certain is claimed: a disjunct is "impossible" when its own top-level comparisons with literals
 * leave a field no value (`f eq "a" and f eq "b"`, `code eq 200` where codes are 400–599). Anything else (a
 * function, a regex, `not`, `xor`, a quantifier, a dynamic right-hand side) is opaque: it may be true or false.
 * Every comparison on a missing value is false (docs/rules-language.md "Missing values"), so two literal
 * constraints on the same left-hand side can both hold only for one present value, which is what is checked.
 * Pure: no bindings.
 */
import { parse, print } from "../../../rules";
import type { Expr, Literal, ValueExpr } from "../../../rules/ast";
import { CUSTOM_ERROR_ALIASES } from "../../../rules/fields/custom-errors";

/** An inclusive integer interval. */
export interface Interval {
  readonly min: number;
  readonly max: number;
}

/** The values a field can take in a phase: integer intervals, or a finite set of byte strings. */
export type Domain =
  | { readonly kind: "ints"; readonly intervals: readonly Interval[] }
  | { readonly kind: "bytes"; readonly values: readonly string[] };

export interface Conjunct {
  /** Canonical text: equal texts are the same test. */
  readonly text: string;
  /** Canonical names of the fields it reads, with `["key"]` map keys after a field (`http.request.headers["accept"]`). */
  readonly reads: readonly string[];
  readonly node: Expr;
}

export interface Disjunct {
  /** Its conjuncts, `true` dropped (it holds for every request). */
  readonly conjuncts: readonly Conjunct[];
  /** Their texts. */
  readonly texts: ReadonlySet<string>;
}

export interface Analysed {
  readonly disjuncts: readonly Disjunct[];
}

/** An expression's disjunctive shape (one level: `or` of `and`s; anything deeper is one opaque conjunct). */
export function analyse(source: string): Analysed | null {
  const parsed = parse(source);
  if (!parsed.ok) return null;
  const root = canonicalNames(parsed.value);
  const disjuncts = flatten(root, "or").map((d): Disjunct => {
    const conjuncts = flatten(d, "and")
      .filter((c) => !isTrue(c))
      .map((node) => ({ text: print(node), reads: reads(node), node }));
    return { conjuncts, texts: new Set(conjuncts.map((c) => c.text)) };
  });
  return { disjuncts };
}

function flatten(node: Expr, op: "and" | "or"): Expr[] {
  return node.kind === "logical" && node.op === op ? node.operands.flatMap((o) => flatten(o, op)) : [node];
}

function isTrue(node: Expr): boolean {
  return node.kind === "value" && node.value.kind === "field" && node.value.name === "true" && !node.value.steps.length;
}

/** The tree with `cf.response.*` aliases renamed to the names they stand for, so both spellings compare equal. */
function canonicalNames(node: Expr): Expr {
  switch (node.kind) {
    case "logical":
      return { ...node, operands: node.operands.map(canonicalNames) };
    case "not":
      return { ...node, operand: canonicalNames(node.operand) };
    case "quantifier":
      return { ...node, argument: canonicalNames(node.argument) };
    case "comparison":
      return {
        ...node,
        lhs: canonicalValue(node.lhs),
        rhs: node.rhs.kind === "value" ? { ...node.rhs, value: canonicalValue(node.rhs.value) } : node.rhs,
      };
    case "value":
      return { ...node, value: canonicalValue(node.value) };
  }
}

function canonicalValue(value: ValueExpr): ValueExpr {
  if (value.kind === "field") return { ...value, name: CUSTOM_ERROR_ALIASES[value.name] ?? value.name };
  return {
    ...value,
    args: value.args.map((a) => (a.kind === "string" || a.kind === "word" ? a : canonicalNames(a))),
  };
}

/** Every field a node reads, with the first map key when one follows (`http.request.headers["accept"]`). */
function reads(node: Expr): string[] {
  const out = new Set<string>();
  const visitValue = (v: ValueExpr): void => {
    if (v.kind === "field") {
      out.add(v.name);
      const first = v.steps[0];
      if (first?.kind === "key") out.add(`${v.name}[${JSON.stringify(first.key.toLowerCase())}]`);
      return;
    }
    for (const a of v.args) if (a.kind !== "string" && a.kind !== "word") visit(a);
  };
  const visit = (n: Expr): void => {
    switch (n.kind) {
      case "logical":
        n.operands.forEach(visit);
        return;
      case "not":
        visit(n.operand);
        return;
      case "quantifier":
        visit(n.argument);
        return;
      case "comparison":
        visitValue(n.lhs);
        if (n.rhs.kind === "value") visitValue(n.rhs.value);
        else if (n.rhs.kind === "word") out.add(n.rhs.text);
        return;
      case "value":
        visitValue(n.value);
    }
  };
  visit(node);
  return [...out];
}

/**
 * An integer literal as the engine reads one (docs/rules-language.md "Types, literals, operators": decimal, `0x`
 * hex, a leading 0 is octal), or undefined.
 */
export function intOf(text: string): number | undefined {
  const m = /^(-?)(0x[0-9a-f]+|0[0-7]*|[1-9][0-9]*)$/i.exec(text);
  if (!m) return undefined;
  const digits = m[2] ?? "";
  const n = /^0x/i.test(digits)
    ? Number.parseInt(digits.slice(2), 16)
    : digits.length > 1 && digits.startsWith("0")
      ? Number.parseInt(digits, 8)
      : Number(digits);
  return m[1] === "-" ? -n : n;
}

function intervalOf(literal: Literal): Interval | undefined {
  if (literal.kind !== "word") return undefined;
  const range = /^(.+)\.\.(.+)$/.exec(literal.text);
  if (range) {
    const min = intOf(range[1] ?? "");
    const max = intOf(range[2] ?? "");
    return min === undefined || max === undefined ? undefined : { min, max };
  }
  const n = intOf(literal.text);
  return n === undefined ? undefined : { min: n, max: n };
}

/** What a disjunct's literal comparisons leave of one left-hand side. */
interface Constraint {
  ints: Interval[] | null;
  bytes: Set<string> | null;
  excludedInts: Set<number>;
  excludedBytes: Set<string>;
}

/** Proofs already made, per disjunct and domain table (a disjunct is kept with its analysed expression). */
const proved = new WeakMap<Disjunct, Map<Readonly<Record<string, Domain>>, string | null>>();

/** Why a disjunct can never hold, or null when nothing is proved. */
export function impossibility(disjunct: Disjunct, domains: Readonly<Record<string, Domain>>): string | null {
  let known = proved.get(disjunct);
  if (known === undefined) {
    known = new Map();
    proved.set(disjunct, known);
  }
  const cached = known.get(domains);
  if (cached !== undefined) return cached;
  const found = prove(disjunct, domains);
  known.set(domains, found);
  return found;
}

function prove(disjunct: Disjunct, domains: Readonly<Record<string, Domain>>): string | null {
  const constraints = new Map<string, Constraint>();
  const of = (lhs: string): Constraint => {
    let c = constraints.get(lhs);
    if (c === undefined) {
      const domain = domains[lhs];
      c = {
        ints: domain?.kind === "ints" ? [...domain.intervals] : null,
        bytes: domain?.kind === "bytes" ? new Set(domain.values) : null,
        excludedInts: new Set(),
        excludedBytes: new Set(),
      };
      constraints.set(lhs, c);
    }
    return c;
  };
  for (const { node } of disjunct.conjuncts) {
    if (node.kind !== "comparison" || node.lhs.steps.some((s) => s.kind === "each")) continue;
    const lhs = printLhs(node.lhs);
    const rhs = node.rhs;
    if (node.op === "eq" || node.op === "in") {
      const items = rhs.kind === "set" ? rhs.items : rhs.kind === "string" || rhs.kind === "word" ? [rhs] : null;
      if (items === null) continue;
      const strings = items.filter((i) => i.kind === "string").map((i) => i.bytes);
      const ints = items.map(intervalOf);
      const c = of(lhs);
      if (strings.length === items.length) c.bytes = intersectBytes(c.bytes, strings);
      else if (ints.every((i) => i !== undefined)) c.ints = intersectInts(c.ints, ints);
    } else if (node.op === "ne" && (rhs.kind === "string" || rhs.kind === "word")) {
      const c = of(lhs);
      if (rhs.kind === "string") c.excludedBytes.add(rhs.bytes);
      else {
        const n = intOf(rhs.text);
        if (n !== undefined) c.excludedInts.add(n);
      }
    } else if (["lt", "le", "gt", "ge"].includes(node.op) && rhs.kind === "word") {
      const n = intOf(rhs.text);
      if (n === undefined) continue;
      const bound: Interval =
        node.op === "lt"
          ? { min: -Infinity, max: n - 1 }
          : node.op === "le"
            ? { min: -Infinity, max: n }
            : node.op === "gt"
              ? { min: n + 1, max: Infinity }
              : { min: n, max: Infinity };
      const c = of(lhs);
      c.ints = intersectInts(c.ints, [bound]);
    }
  }
  for (const [lhs, c] of constraints) {
    if (c.bytes !== null) {
      const left = [...c.bytes].filter((v) => !c.excludedBytes.has(v));
      if (left.length === 0) return `${lhs} can have no value that every comparison of it allows`;
    }
    if (c.ints !== null) {
      const left = c.ints.filter((i) => !(i.min === i.max && c.excludedInts.has(i.min)));
      if (left.length === 0) {
        const domain = domains[lhs];
        const range = domain?.kind === "ints" ? ` (it is ${domain.intervals.map(showInterval).join(" or ")} here)` : "";
        return `${lhs} can have no value that every comparison of it allows${range}`;
      }
    }
  }
  return null;
}

function printLhs(value: ValueExpr): string {
  return print({ kind: "value", value, span: value.span });
}

function showInterval(i: Interval): string {
  return i.min === i.max ? String(i.min) : `${i.min}–${i.max}`;
}

function intersectBytes(current: Set<string> | null, values: readonly string[]): Set<string> {
  return new Set(current === null ? values : values.filter((v) => current.has(v)));
}

function intersectInts(current: Interval[] | null, with_: readonly Interval[]): Interval[] {
  if (current === null) return [...with_];
  const out: Interval[] = [];
  for (const a of current)
    for (const b of with_) {
      const min = Math.max(a.min, b.min);
      const max = Math.min(a.max, b.max);
      if (min <= max) out.push({ min, max });
    }
  return out;
}
