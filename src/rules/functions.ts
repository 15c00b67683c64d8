/**
 * The functions of docs/rules-language.md with their argument rules (docs/rules-language.md). Each has a type check
 * (run once, at compile time) and an implementation (run per evaluation). Implementations receive evaluated
 * arguments (`undefined` = missing) and return `undefined` for a missing result (docs/rules-language.md: a missing
 * argument gives a missing result, except `concat`, which reads a missing String as "", and `coalesce`, whose
 * point is to skip missing arguments).
 * `any`/`all` are quantifiers handled by the parser and compiler, as in wirefilter.
 */
import type { Span } from "./errors";
import { arrayOf, BOOL, BYTES, INT, sameType, typeName, type Type } from "./types";
import { asciiLower, asciiUpper, fromByteString, toByteString, type Value, type ValueArray } from "./values";
import { err, ok, type Result } from "../shared/result";
import { guardSize } from "./budget";

/** What the checker knows about one argument. */
export interface ArgInfo {
  readonly type: Type;
  /** A literal written in the expression (not a field, call or comparison). */
  readonly literal: boolean;
  /** The literal's value, when `literal`. */
  readonly value?: Value;
  readonly span: Span;
}

export interface ArgProblem {
  readonly message: string;
  /** Index of the offending argument; absent means the call as a whole. */
  readonly arg?: number;
}

export interface FunctionDef {
  readonly name: string;
  readonly check: (args: readonly ArgInfo[]) => Result<Type, ArgProblem>;
  readonly apply: (args: readonly (Value | undefined)[]) => Value | undefined;
  /**
   * `"first-present"` (coalesce): compile.ts evaluates the arguments one by one and stops at the first that is
   * not missing, instead of evaluating them all before `apply`.
   */
  readonly evaluation?: "first-present";
  /** The same for exactly one argument, without an argument array (hot: lower/upper/len). */
  readonly apply1?: (arg: Value | undefined) => Value | undefined;
}

const problem = (message: string, arg?: number): Result<never, ArgProblem> =>
  err(arg === undefined ? { message } : { message, arg });

function arity(name: string, args: readonly ArgInfo[], min: number, max: number): Result<true, ArgProblem> {
  if (args.length < min || args.length > max) {
    const expected = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
    const one = max === 1 || (max === Infinity && min === 1);
    return problem(`${name}() takes ${expected} argument${one ? "" : "s"}, got ${args.length}`);
  }
  return ok(true);
}

/**
 * "src must be a field" (docs/rules-language.md): the source argument of a transformation is a field or
 * the result of another function, never a literal (wirefilter `InvalidArgumentKind`).
 */
function source(
  name: string,
  args: readonly ArgInfo[],
  accepts: (t: Type) => boolean,
  expected: string,
): Result<true, ArgProblem> {
  const a = args[0];
  if (a === undefined) return problem(`${name}() needs a source argument`);
  if (a.literal)
    return problem(`the first argument of ${name}() must be a field or a function result, not a literal`, 0);
  if (!accepts(a.type))
    return problem(`${name}() expects ${expected} as its first argument, got ${typeName(a.type)}`, 0);
  return ok(true);
}

function argOf(
  name: string,
  args: readonly ArgInfo[],
  i: number,
  kind: Type["kind"],
  mustBeLiteral = false,
): Result<true, ArgProblem> {
  const a = args[i];
  if (a === undefined) return ok(true);
  if (a.type.kind !== kind)
    return problem(
      `argument ${i + 1} of ${name}() must be ${kind === "Bytes" ? "a String" : `an ${kind}`}, got ${typeName(a.type)}`,
      i,
    );
  if (mustBeLiteral && !a.literal) return problem(`argument ${i + 1} of ${name}() must be a literal`, i);
  return ok(true);
}

const all = (...checks: (() => Result<true, ArgProblem>)[]): Result<true, ArgProblem> => {
  for (const c of checks) {
    const r = c();
    if (!r.ok) return r;
  }
  return ok(true);
};

const isBytes = (t: Type): boolean => t.kind === "Bytes";

function stringTransform(name: string, fn: (s: string) => string): FunctionDef {
  return {
    name,
    check: (args) => {
      const r = all(
        () => arity(name, args, 1, 1),
        () => source(name, args, isBytes, "a String"),
      );
      return r.ok ? ok(BYTES) : r;
    },
    apply: ([s]) => (typeof s === "string" ? fn(s) : undefined),
    apply1: (s) => (typeof s === "string" ? fn(s) : undefined),
  };
}

function affix(name: string, test: (s: string, affix: string) => boolean): FunctionDef {
  return {
    name,
    check: (args) => {
      const r = all(
        () => arity(name, args, 2, 2),
        () => source(name, args, isBytes, "a String"),
        () => argOf(name, args, 1, "Bytes"),
      );
      return r.ok ? ok(BOOL) : r;
    },
    apply: ([s, a]) => (typeof s === "string" && typeof a === "string" ? test(s, a) : undefined),
  };
}

const len: FunctionDef = {
  name: "len",
  check: (args) => {
    const r = all(
      () => arity("len", args, 1, 1),
      () => source("len", args, (t) => t.kind === "Bytes" || t.kind === "Array", "a String or an Array"),
    );
    return r.ok ? ok(INT) : r;
  },
  apply: ([v]) => (typeof v === "string" || Array.isArray(v) ? (v as string | ValueArray).length : undefined),
  apply1: (v) => (typeof v === "string" || Array.isArray(v) ? (v as string | ValueArray).length : undefined),
};

/**
 * At most 32 arguments: the published limit since 2026-09-22 (docs/rules-language.md "2026 additions"); an
 * expression with 33 is refused when written.
 */
export const MAX_CONCAT_ARGS = 32;

const concat: FunctionDef = {
  name: "concat",
  check: (args) => {
    const r = arity("concat", args, 1, MAX_CONCAT_ARGS);
    if (!r.ok) return r;
    const first = args[0]?.type ?? BYTES;
    if (first.kind !== "Bytes" && first.kind !== "Array") {
      return problem(`concat() takes Strings or Arrays, got ${typeName(first)}`, 0);
    }
    for (let i = 1; i < args.length; i++) {
      const t = args[i]?.type ?? BYTES;
      if (typeName(t) !== typeName(first))
        return problem(`concat() arguments must all be ${typeName(first)}, got ${typeName(t)}`, i);
    }
    return ok(first);
  },
  apply: (args) => {
    if (args.some((a) => Array.isArray(a))) {
      guardSize(
        args.reduce<number>((n, a) => n + (Array.isArray(a) ? (a as ValueArray).length : 0), 0),
        "concat()",
      );
      const out: (Value | undefined)[] = [];
      for (const a of args) if (Array.isArray(a)) out.push(...(a as ValueArray));
      return out;
    }
    guardSize(
      args.reduce<number>((n, a) => n + (typeof a === "string" ? a.length : 0), 0),
      "concat()",
    );
    let out = "";
    for (const a of args) if (typeof a === "string") out += a;
    return out;
  },
};

/**
 * `coalesce(a, b, …)`: "returns the first argument that is not nil" (developers.cloudflare.com/changelog/post/
 * 2026-10-01-coalesce-function/), e.g. `http.request.uri.path eq coalesce(http.request.uri.args["p"][0], "/")`.
 * Arguments are fields, function results or literals, all of one type (any type: String, Int, IP, Bool, Array,
 * Map); the result has that type and is missing only when every argument is. Only a missing value is skipped: ""
 * and an empty array are values. compile.ts evaluates the arguments lazily, left to right, and stops at the first
 * present one (`evaluation: "first-present"`); `apply` is the same rule on evaluated arguments.
 */
const coalesce: FunctionDef = {
  name: "coalesce",
  evaluation: "first-present",
  check: (args) => {
    const r = arity("coalesce", args, 1, Infinity);
    if (!r.ok) return r;
    const first = args[0]?.type ?? BYTES;
    for (let i = 1; i < args.length; i++) {
      const t = args[i]?.type ?? BYTES;
      if (!sameType(t, first))
        return problem(`coalesce() arguments must all be ${typeName(first)}, got ${typeName(t)}`, i);
    }
    return ok(first);
  },
  apply: (args) => args.find((a) => a !== undefined),
};

const substring: FunctionDef = {
  name: "substring",
  check: (args) => {
    const r = all(
      () => arity("substring", args, 2, 3),
      () => source("substring", args, isBytes, "a String"),
      () => argOf("substring", args, 1, "Int"),
      () => argOf("substring", args, 2, "Int"),
    );
    return r.ok ? ok(BYTES) : r;
  },
  // Byte offsets; negative ones count from the end (FUN), which is exactly String.prototype.slice on bytes.
  apply: ([s, start, end]) => {
    if (typeof s !== "string" || typeof start !== "number") return undefined;
    if (end !== undefined && typeof end !== "number") return undefined;
    return s.slice(start, end);
  },
};

const urlDecode: FunctionDef = {
  name: "url_decode",
  check: (args) => {
    const r = all(
      () => arity("url_decode", args, 1, 2),
      () => source("url_decode", args, isBytes, "a String"),
      () => argOf("url_decode", args, 1, "Bytes", true),
    );
    if (!r.ok) return r;
    const opts = args[1]?.value;
    if (opts !== undefined && (typeof opts !== "string" || !/^(r|u|ur|ru)$/.test(opts))) {
      return problem('url_decode() options are "r" (recursive), "u" (%uXXXX) or "ur"', 1);
    }
    return ok(BYTES);
  },
  apply: ([s, opts]) => {
    if (typeof s !== "string") return undefined;
    const options = typeof opts === "string" ? opts : "";
    const unicode = options.includes("u");
    return options.includes("r") ? percentDecodeRecursive(s, unicode) : percentDecode(s, unicode);
  },
};

/**
 * Recursive decoding (`"r"`) in one linear pass: the result of decoding until nothing changes. Decoding again and
 * again until a fixpoint was quadratic (`"%" + "25" × n + "41"` needs n rounds: 13 s at 64 KB). Here the output is a
 * stack: each character pushed may complete an escape with the characters before it (`%2` + a decoded `5`), which
 * is then decoded in place, and a decoded `+` is a space, as the next round would make it. Each input character is
 * pushed once and each decoding removes characters, so the work is linear in the input.
 */
export function percentDecodeRecursive(s: string, unicode: boolean): string {
  if (!s.includes("%") && !s.includes("+")) return s;
  const out: string[] = [];
  const push = (c: string): void => {
    out.push(c === "+" ? " " : c);
    for (;;) {
      const n = out.length;
      if (n >= 3 && out[n - 3] === "%" && isHex(out[n - 2]) && isHex(out[n - 1])) {
        const decoded = String.fromCharCode(parseInt(out[n - 2]! + out[n - 1]!, 16));
        out.length = n - 3;
        out.push(decoded === "+" ? " " : decoded);
        continue;
      }
      if (
        unicode &&
        n >= 6 &&
        out[n - 6] === "%" &&
        (out[n - 5] === "u" || out[n - 5] === "U") &&
        out.slice(n - 4).every(isHex)
      ) {
        const decoded = toByteString(String.fromCharCode(parseInt(out.slice(n - 4).join(""), 16)));
        out.length = n - 6;
        for (const b of decoded) out.push(b === "+" ? " " : b);
        continue;
      }
      return;
    }
  };
  for (const c of s) push(c);
  return out.join("");
}

function isHex(c: string | undefined): boolean {
  return c !== undefined && c.length === 1 && /[0-9a-fA-F]/.test(c);
}

/** `%XX` → byte, `+` → space, `%uXXXX` → UTF-8 (with "u"); malformed sequences stay as written. */
function percentDecode(s: string, unicode: boolean): string {
  if (!s.includes("%") && !s.includes("+")) return s;
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charAt(i);
    if (c === "+") {
      out += " ";
    } else if (
      c === "%" &&
      unicode &&
      (s.charAt(i + 1) === "u" || s.charAt(i + 1) === "U") &&
      /^[0-9a-fA-F]{4}$/.test(s.slice(i + 2, i + 6))
    ) {
      out += toByteString(String.fromCharCode(parseInt(s.slice(i + 2, i + 6), 16)));
      i += 5;
    } else if (c === "%" && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) {
      out += String.fromCharCode(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

const join: FunctionDef = {
  name: "join",
  check: (args) => {
    const r = all(
      () => arity("join", args, 2, 2),
      () => source("join", args, (t) => t.kind === "Array" && t.element.kind === "Bytes", "an Array<String>"),
      () => argOf("join", args, 1, "Bytes"),
    );
    return r.ok ? ok(BYTES) : r;
  },
  apply: ([a, sep]) => {
    if (!Array.isArray(a) || typeof sep !== "string") return undefined;
    const parts = (a as ValueArray).filter((x): x is string => typeof x === "string");
    // Measured before it is built: nested join(split(…)) multiplies the size by up to 128 per level.
    guardSize(
      parts.reduce((n, p) => n + p.length, Math.max(0, parts.length - 1) * sep.length),
      "join()",
    );
    return parts.join(sep);
  },
};

/** Maximum pieces of `split` (FUN: limit 1…128). */
const SPLIT_MAX = 128;

const split: FunctionDef = {
  name: "split",
  check: (args) => {
    const r = all(
      () => arity("split", args, 3, 3),
      () => source("split", args, isBytes, "a String"),
      () => argOf("split", args, 1, "Bytes", true),
      () => argOf("split", args, 2, "Int", true),
    );
    if (!r.ok) return r;
    const sep = args[1]?.value;
    if (sep === "") return problem("the separator of split() must not be empty", 1);
    const limit = args[2]?.value;
    if (typeof limit !== "number" || limit < 1 || limit > SPLIT_MAX)
      return problem(`the limit of split() must be 1 to ${SPLIT_MAX}`, 2);
    return ok(arrayOf(BYTES));
  },
  // At most `limit` pieces; the last one keeps the rest of the input (like Rust's `splitn`).
  apply: ([s, sep, limit]) => {
    if (typeof s !== "string" || typeof sep !== "string" || typeof limit !== "number") return undefined;
    const pieces: string[] = [];
    let pos = 0;
    while (pieces.length < limit - 1) {
      const at = s.indexOf(sep, pos);
      if (at === -1) break;
      pieces.push(s.slice(pos, at));
      pos = at + sep.length;
    }
    pieces.push(s.slice(pos));
    return pieces;
  },
};

const removeBytes: FunctionDef = {
  name: "remove_bytes",
  check: (args) => {
    const r = all(
      () => arity("remove_bytes", args, 2, 2),
      () => source("remove_bytes", args, isBytes, "a String"),
      () => argOf("remove_bytes", args, 1, "Bytes", true),
    );
    return r.ok ? ok(BYTES) : r;
  },
  // Removes every occurrence of each byte listed in the second argument (FUN example: "\x2e\x77").
  apply: ([s, set]) => {
    if (typeof s !== "string" || typeof set !== "string") return undefined;
    let out = "";
    for (let i = 0; i < s.length; i++) if (!set.includes(s.charAt(i))) out += s.charAt(i);
    return out;
  },
};

function lookupJson(name: string, result: Type, pick: (v: unknown) => Value | undefined): FunctionDef {
  return {
    name,
    check: (args) => {
      const r = all(
        () => arity(name, args, 2, Infinity),
        () => source(name, args, isBytes, "a String"),
      );
      if (!r.ok) return r;
      for (let i = 1; i < args.length; i++) {
        const a = args[i];
        if (a === undefined || (a.type.kind !== "Bytes" && a.type.kind !== "Int")) {
          return problem(`the path of ${name}() is made of String keys and Int indexes`, i);
        }
      }
      return ok(result);
    },
    apply: ([json, ...path]) => {
      if (typeof json !== "string") return undefined;
      let node: unknown;
      try {
        node = JSON.parse(fromByteString(json));
      } catch {
        return undefined;
      }
      for (const key of path) {
        if (typeof key === "number" && Array.isArray(node)) node = node[key];
        else if (typeof key === "string" && node !== null && typeof node === "object" && !Array.isArray(node)) {
          const k = fromByteString(key);
          node = Object.hasOwn(node, k) ? (node as Record<string, unknown>)[k] : undefined;
        } else return undefined;
        if (node === undefined) return undefined;
      }
      return pick(node);
    },
  };
}

const FUNCTIONS: readonly FunctionDef[] = [
  stringTransform("lower", asciiLower),
  stringTransform("upper", asciiUpper),
  len,
  affix("starts_with", (s, a) => s.startsWith(a)),
  affix("ends_with", (s, a) => s.endsWith(a)),
  concat,
  coalesce,
  substring,
  urlDecode,
  join,
  split,
  removeBytes,
  lookupJson("lookup_json_string", BYTES, (v) => (typeof v === "string" ? toByteString(v) : undefined)),
  lookupJson("lookup_json_integer", INT, (v) => (typeof v === "number" && Number.isInteger(v) ? v : undefined)),
];

const BY_NAME = new Map(FUNCTIONS.map((f) => [f.name, f]));

export function lookupFunction(name: string): FunctionDef | undefined {
  return BY_NAME.get(name);
}
