/**
 * Prints a syntax tree back to canonical source (English operators, explicit parentheses around every nested
 * logical node, strings with `\xHH` escapes). `parse(print(ast))` gives the same tree (tested by property),
 * which also makes the printer the normal form used in messages and docs.
 */
import type { Arg, Expr, Literal, Rhs, Step, ValueExpr } from "./ast";
import { fromByteString } from "./values";

export function print(expr: Expr): string {
  switch (expr.kind) {
    case "logical":
      return expr.operands.map((o) => (o.kind === "logical" ? `(${print(o)})` : print(o))).join(` ${expr.op} `);
    case "not":
      return `not ${expr.operand.kind === "logical" ? `(${print(expr.operand)})` : print(expr.operand)}`;
    case "quantifier":
      return `${expr.fn}(${argument(expr.argument)})`;
    case "comparison":
      return `${value(expr.lhs)} ${expr.op} ${rhs(expr.rhs)}`;
    case "value":
      return value(expr.value);
  }
}

function argument(arg: Arg): string {
  switch (arg.kind) {
    case "string":
    case "word":
      return literal(arg);
    case "logical":
      return `(${print(arg)})`;
    default:
      return print(arg);
  }
}

/** A value (field or call, with its indexes) in canonical form; also the memo key of a call (compile.ts). */
export function printValue(v: ValueExpr): string {
  return value(v);
}

function value(v: ValueExpr): string {
  const head = v.kind === "field" ? v.name : `${v.name}(${v.args.map(argument).join(", ")})`;
  return head + v.steps.map(step).join("");
}

function step(s: Step): string {
  switch (s.kind) {
    case "each":
      return "[*]";
    case "index":
      return `[${s.index}]`;
    case "key":
      return `[${quote(s.key)}]`;
  }
}

function rhs(r: Rhs): string {
  switch (r.kind) {
    case "regex":
      return raw(r.pattern);
    case "set":
      return `{ ${r.items.map(literal).join(" ")} }`.replace("{  }", "{}");
    case "list":
      return `$${r.name}`;
    case "value":
      return value(r.value);
    default:
      return literal(r);
  }
}

function literal(l: Literal): string {
  return l.kind === "word" ? l.text : quote(l.bytes);
}

/** A quoted string whose unescaping gives back exactly these bytes. */
export function quote(bytes: string): string {
  let out = '"';
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += "\\\\";
    else if (c >= 0x20 && c < 0x7f) out += bytes.charAt(i);
    else out += `\\x${c.toString(16).padStart(2, "0")}`;
  }
  return out + '"';
}

/** A raw string with enough `#` that the content cannot close it early. */
function raw(pattern: string): string {
  const text = fromByteString(pattern);
  let hashes = 0;
  for (const m of text.matchAll(/"(#*)/g)) hashes = Math.max(hashes, (m[1]?.length ?? 0) + 1);
  const h = "#".repeat(hashes);
  return `r${h}"${text}"${h}`;
}
