/**
 * Compiles the typed tree into nested closures, once per rule (docs/rules-language.md: wirefilter compiles to
 * boxed closures; Workers forbid `eval`/`new Function`, so closures are also our only option). Hot shapes are
 * specialised (a field compared with a constant reads the memoised field and compares inline); `and`/`or`
 * short-circuit; `xor` evaluates every operand. Missing values make every comparison false, `!=` included
 * (docs/rules-language.md).
 */
import type { Step } from "./ast";
import type { Ordering, ScalarKind, TArg, TBool, Test, TValue } from "./check";
import { valueUnits } from "./budget";
import type { EvaluationContext } from "./context";
import { regexUnits } from "./regex";
import { setPatternOf, type RegexSets, type SetSlot } from "./regex-sets";
import type { Scheme } from "./scheme";
import type { IpAddress } from "../shared/ip";
import type { Value, ValueArray, ValueMap } from "./values";

export type Predicate = (ctx: EvaluationContext) => boolean;
type ArrayPredicate = (ctx: EvaluationContext) => readonly boolean[] | undefined;
type Getter = (ctx: EvaluationContext) => Value | undefined;
type ListGetter = (ctx: EvaluationContext) => readonly (Value | undefined)[];
/** A test on a present value; `ctx` is there for the budget (budget.ts): linear tests charge before they run. */
type ValueTest = (value: Value, ctx: EvaluationContext) => boolean;

/**
 * Memo slots of calls, per scheme: the same call text gets the same slot in every rule compiled for the scheme,
 * so one evaluation context computes it once. Bounded (docs/configuration.md): past the cap, calls are simply not shared.
 */
const CALL_SLOTS = new WeakMap<Scheme, Map<string, number>>();
export const MAX_SHARED_CALLS = 4096;

let scheme: Scheme | undefined;

function slotFor(key: string): number | undefined {
  if (scheme === undefined) return undefined;
  let slots = CALL_SLOTS.get(scheme);
  if (!slots) CALL_SLOTS.set(scheme, (slots = new Map<string, number>()));
  const known = slots.get(key);
  if (known !== undefined) return known;
  if (slots.size >= MAX_SHARED_CALLS) return undefined;
  const slot = scheme.fields.length + slots.size;
  slots.set(key, slot);
  return slot;
}

export function compilePredicate(root: TBool, forScheme: Scheme): Predicate {
  // Compilation is synchronous, so a module-level "current scheme" is safe and keeps every helper's signature small.
  scheme = forScheme;
  try {
    return bool(root);
  } finally {
    scheme = undefined;
  }
}

function bool(node: TBool): Predicate {
  switch (node.kind) {
    case "logical": {
      const ops = node.operands.map(bool);
      if (node.op === "xor") return (ctx) => ops.reduce<boolean>((acc, op) => acc !== op(ctx), false);
      const [a, b] = ops;
      if (ops.length === 2 && a && b) return node.op === "and" ? (ctx) => a(ctx) && b(ctx) : (ctx) => a(ctx) || b(ctx);
      if (node.op === "and") return (ctx) => ops.every((op) => op(ctx));
      return (ctx) => ops.some((op) => op(ctx));
    }
    case "not": {
      const inner = bool(node.operand);
      return (ctx) => !inner(ctx);
    }
    case "quantifier": {
      const arg = node.argument;
      if (arg.kind === "compare" && arg.lhs.mapped) {
        // any(x[*] op lit) / all(…): walk the elements and stop at the first decisive one, no Bool array built.
        const items = mappedValue(arg.lhs);
        const t = compileTest(arg.test);
        if (node.fn === "any") {
          return (ctx) => {
            for (const v of items(ctx)) if (v !== undefined && t(v, ctx)) return true;
            return false;
          };
        }
        return (ctx) => {
          for (const v of items(ctx)) if (v === undefined || !t(v, ctx)) return false;
          return true;
        };
      }
      const list = array(arg);
      if (node.fn === "any") return (ctx) => list(ctx)?.includes(true) ?? false;
      // all(): true over an empty array (vacuous truth), false over a missing one (docs/rules-language.md).
      return (ctx) => {
        const values = list(ctx);
        return values !== undefined && values.every((v) => v);
      };
    }
    case "compare":
      return compare(node.lhs, node.test);
    case "value": {
      if (node.value.base.kind === "constant" && node.value.steps.length === 0) {
        const constant = node.value.base.value === true;
        return () => constant;
      }
      const get = value(node.value);
      return (ctx) => get(ctx) === true;
    }
  }
}

/** Array<Bool> expressions (inside any()/all()): element-wise, cut to the shorter operand; missing stays missing. */
function array(node: TBool): ArrayPredicate {
  switch (node.kind) {
    case "logical": {
      const ops = node.operands.map(array);
      const combine =
        node.op === "and"
          ? (x: boolean, y: boolean) => x && y
          : node.op === "or"
            ? (x: boolean, y: boolean) => x || y
            : (x: boolean, y: boolean) => x !== y;
      return (ctx) => {
        let acc: readonly boolean[] | undefined;
        for (const op of ops) {
          const next = op(ctx);
          if (next === undefined) return undefined;
          if (acc === undefined) acc = next;
          else {
            const length = Math.min(acc.length, next.length);
            const merged: boolean[] = new Array<boolean>(length);
            for (let i = 0; i < length; i++) merged[i] = combine(acc[i] === true, next[i] === true);
            acc = merged;
          }
        }
        return acc;
      };
    }
    case "not": {
      const inner = array(node.operand);
      return (ctx) => inner(ctx)?.map((v) => !v);
    }
    case "compare": {
      const list = mappedValue(node.lhs);
      const test = compileTest(node.test);
      return (ctx) => list(ctx).map((v) => v !== undefined && test(v, ctx));
    }
    case "value": {
      if (node.value.mapped) {
        const list = mappedValue(node.value);
        return (ctx) => list(ctx).map((v) => v === true);
      }
      const get = value(node.value);
      return (ctx) => {
        const v = get(ctx) as ValueArray | undefined;
        return v?.map((x) => x === true);
      };
    }
    case "quantifier":
      throw new Error("unreachable: any()/all() are Bool");
  }
}

function compare(lhs: TValue, test: Test): Predicate {
  // Fast path: a field with no index compared with a constant reads the memoised value and compares inline.
  if (lhs.base.kind === "field" && lhs.steps.length === 0) {
    const index = lhs.base.index;
    if (test.kind === "bytes-order" || test.kind === "int-order") {
      const c = test.value;
      switch (test.op) {
        case "eq":
          return (ctx) => ctx.get(index) === c;
        case "ne":
          return (ctx) => {
            const v = ctx.get(index);
            return v !== undefined && v !== c;
          };
        default:
      }
    }
    const t = compileTest(test);
    const pattern = setPatternOf(test);
    if (pattern !== null) {
      // The phase's one-pass set answers it when it holds this field's pattern (regex-sets.ts: a regex, a
      // `contains`, a wildcard): the field is scanned once per request, whatever the rule count; otherwise the test
      // runs on its own, as everywhere else. The slot is looked up once per list the rule is evaluated in, not per
      // request: a compiled rule is evaluated in one zone's list request after request, so this is an identity
      // check on the ordinary request.
      let seen: RegexSets | null = null;
      let slot: SetSlot | undefined;
      return (ctx) => {
        const v = ctx.get(index);
        if (v === undefined) return false;
        const sets = ctx.regexSets;
        if (sets !== null) {
          if (sets !== seen) {
            seen = sets;
            slot = sets.slotOf(index, pattern);
          }
          if (slot !== undefined) return slot.answer(ctx, v as string);
        }
        return t(v, ctx);
      };
    }
    return (ctx) => {
      const v = ctx.get(index);
      return v !== undefined && t(v, ctx);
    };
  }
  const get = value(lhs);
  const t = compileTest(test);
  return (ctx) => {
    const v = get(ctx);
    return v !== undefined && t(v, ctx);
  };
}

function order<T extends string | number | bigint>(op: Ordering, c: T): (v: T) => boolean {
  switch (op) {
    case "eq":
      return (v) => v === c;
    case "ne":
      return (v) => v !== c;
    case "lt":
      return (v) => v < c;
    case "le":
      return (v) => v <= c;
    case "gt":
      return (v) => v > c;
    case "ge":
      return (v) => v >= c;
  }
}

function compileTest(test: Test): ValueTest {
  switch (test.kind) {
    case "bytes-order":
    case "int-order":
      return order(test.op, test.value) as ValueTest;
    case "ip-order": {
      const c = test.value;
      const same = order<number | bigint>(test.op, c);
      // IPv4 and IPv6 are incomparable: every test across families is false except `!=` (docs/rules-language.md).
      return (v) => (typeof v === typeof c ? same(v as IpAddress) : test.op === "ne");
    }
    // The linear tests charge the budget before they run (budget.ts); re2js cannot be interrupted once started.
    case "contains": {
      const needle = test.needle;
      return (v, ctx) => {
        const s = v as string;
        ctx.charge(s.length, "contains");
        return s.includes(needle);
      };
    }
    case "regex": {
      // `regexUnits` bounds every path re2js may take (its NFA, and the DFA states it may build: regex.ts); charged
      // even when the regex's memo of its last subject answers, so an outcome never depends on what the isolate
      // evaluated before.
      const regex = test.regex;
      const { programSize, classes } = regex;
      return (v, ctx) => {
        const s = v as string;
        ctx.charge(regexUnits(s.length, 1, programSize, classes), "a regular expression");
        return regex.test(s);
      };
    }
    case "wildcard": {
      // Folding (a copy) then scans that only move forward: twice the subject.
      const match = test.match;
      return (v, ctx) => {
        const s = v as string;
        ctx.charge(2 * s.length, "wildcard");
        return match(s);
      };
    }
    case "bytes-in": {
      const set = new Set(test.values);
      return (v) => set.has(v as string);
    }
    case "int-in": {
      // Small sets (e.g. 7 ports) become a Set of their members; larger ones keep sorted ranges.
      const members = test.ranges.reduce((n, [lo, hi]) => n + (hi - lo + 1), 0);
      if (members <= 256) {
        const set = new Set<number>();
        for (const [lo, hi] of test.ranges) for (let n = lo; n <= hi; n++) set.add(n);
        return (v) => set.has(v as number);
      }
      return inRanges(test.ranges) as ValueTest;
    }
    case "ip-in": {
      const v4 = test.ranges.filter((r): r is readonly [number, number] => typeof r[0] === "number");
      const v6 = test.ranges.filter((r): r is readonly [bigint, bigint] => typeof r[0] === "bigint");
      const in4 = inRanges(v4);
      const in6 = inRanges(v6);
      return (v) => (typeof v === "number" ? in4(v) : in6(v as bigint));
    }
    case "dynamic-order":
      return dynamicTest(test.op, test.operand, value(test.rhs));
    case "bitwise-and": {
      const mask = test.mask;
      if (Number.isInteger(mask) && mask >= -(2 ** 31) && mask < 2 ** 31) {
        return (v) => {
          const n = v as number;
          return n >= -(2 ** 31) && n < 2 ** 31
            ? (n & mask) !== 0
            : (BigInt.asIntN(64, BigInt(n)) & BigInt(mask)) !== 0n;
        };
      }
      const big = BigInt(mask);
      return (v) => (BigInt.asIntN(64, BigInt(v as number)) & big) !== 0n;
    }
  }
}

/**
 * A comparison of two dynamic values (the 2026 addition: `http.request.uri.path ne raw.http.request.uri.path`).
 * The right side is read only when the left is present; either missing makes every operator false, `ne` included
 * (docs/rules-language.md). Comparing two byte strings is linear in the shorter one (`===` stops at the first difference,
 * `<` at the first differing byte), and neither side is bounded by a literal any more, so it is charged that length
 * before it runs (budget.ts). Ints and IPs compare in constant time and are not charged.
 */
function dynamicTest(op: Ordering, operand: ScalarKind, rhs: Getter): ValueTest {
  const compare = dynamicOrder(op);
  switch (operand) {
    case "Bytes":
      return (v, ctx) => {
        const r = rhs(ctx);
        if (r === undefined) return false;
        const a = v as string;
        const b = r as string;
        ctx.charge(Math.min(a.length, b.length), "a comparison of two values");
        return compare(a, b);
      };
    case "Int":
      return (v, ctx) => {
        const r = rhs(ctx);
        return r !== undefined && compare(v as number, r as number);
      };
    case "Ip":
      // IPv4 and IPv6 are incomparable: across families only `ne` is true, as with a literal (docs/rules-language.md).
      return (v, ctx) => {
        const r = rhs(ctx);
        if (r === undefined) return false;
        return typeof v === typeof r ? compare(v as IpAddress, r as IpAddress) : op === "ne";
      };
  }
}

function dynamicOrder(op: Ordering): <T extends string | number | bigint>(a: T, b: T) => boolean {
  switch (op) {
    case "eq":
      return (a, b) => a === b;
    case "ne":
      return (a, b) => a !== b;
    case "lt":
      return (a, b) => a < b;
    case "le":
      return (a, b) => a <= b;
    case "gt":
      return (a, b) => a > b;
    case "ge":
      return (a, b) => a >= b;
  }
}

/** Membership in sorted, disjoint inclusive ranges: a scan for small sets, binary search beyond. */
function inRanges<T extends number | bigint>(ranges: readonly (readonly [T, T])[]): (v: T) => boolean {
  const los = ranges.map((r) => r[0]);
  const his = ranges.map((r) => r[1]);
  if (ranges.length <= 8) {
    return (v) => {
      for (let i = 0; i < los.length; i++) if (v >= (los[i] as T) && v <= (his[i] as T)) return true;
      return false;
    };
  }
  return (v) => {
    let lo = 0;
    let hi = ranges.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = ranges[mid];
      if (r === undefined) return false;
      if (v < r[0]) hi = mid - 1;
      else if (v > r[1]) lo = mid + 1;
      else return true;
    }
    return false;
  };
}

// ---- values ----

/** A value without `[*]`: one value or missing. */
function value(v: TValue): Getter {
  let get = base(v);
  for (const step of v.steps) get = applyStep(get, step);
  return get;
}

function applyStep(get: Getter, step: Step): Getter {
  if (step.kind === "index") {
    const i = step.index;
    return (ctx) => (get(ctx) as ValueArray | undefined)?.[i];
  }
  if (step.kind === "key") {
    const key = step.key;
    return (ctx) => (get(ctx) as ValueMap | undefined)?.get(key);
  }
  throw new Error("unreachable: [*] in a single value");
}

/** A value with `[*]`: the flat list of element values (nested `[*]` flatten); a missing base gives []. */
function mappedValue(v: TValue): ListGetter {
  const firstEach = v.steps.findIndex((s) => s.kind === "each");
  if (firstEach === v.steps.length - 1) {
    // The common shape `a["k"][*]`: one container, iterated in place (an array is not even copied).
    let container = base(v);
    for (const step of v.steps.slice(0, -1)) container = applyStep(container, step);
    return (ctx) => {
      const c = container(ctx);
      return c === undefined ? NONE : elements(c);
    };
  }
  const get = base(v);
  const steps = v.steps;
  return (ctx) => {
    const root = get(ctx);
    if (root === undefined) return [];
    let items: (Value | undefined)[] = [root];
    for (const step of steps) {
      const next: (Value | undefined)[] = [];
      for (const item of items) {
        if (step.kind === "each") {
          if (item !== undefined) next.push(...elements(item));
        } else if (step.kind === "index") {
          next.push(item === undefined ? undefined : (item as ValueArray)[step.index]);
        } else {
          next.push(item === undefined ? undefined : (item as ValueMap).get(step.key));
        }
      }
      items = next;
    }
    return items;
  };
}

const NONE: readonly (Value | undefined)[] = Object.freeze([]);

/** Elements of an array, or the values of a map in key order (wirefilter iterates maps sorted by key). */
function elements(container: Value): readonly (Value | undefined)[] {
  if (Array.isArray(container)) return container as ValueArray;
  const map = container as ValueMap;
  return [...map.keys()].sort().map((k) => map.get(k));
}

function base(v: TValue): Getter {
  const b = v.base;
  switch (b.kind) {
    case "field": {
      const index = b.index;
      return (ctx) => ctx.get(index);
    }
    case "constant": {
      const c = b.value;
      return () => c;
    }
    case "call": {
      const one = b.fn.apply1;
      const only = b.args[0];
      const name = `${b.fn.name}()`;
      let compute: Getter;
      if (one && b.args.length === 1 && only?.kind === "value" && !b.mapsFirstArg) {
        const arg = value(only.value);
        compute = (ctx) => {
          const a = arg(ctx);
          ctx.charge(valueUnits(a), name);
          return produced(ctx, one(a), name);
        };
      } else if (b.fn.evaluation === "first-present") {
        compute = firstPresent(b.args, b.mapsFirstArg, name);
      } else {
        compute = call(b.fn.apply, b.args, b.mapsFirstArg, name);
      }
      const slot = slotFor(b.key);
      return slot === undefined ? compute : (ctx) => ctx.remember(slot, compute);
    }
  }
}

/**
 * A function call's charges (budget.ts): its arguments' units before it runs (every function is at most linear in
 * them: lookup_json_* parses, url_decode and lower scan), its result's units once built (a result is capped at
 * `MAX_VALUE_BYTES` while it is built, by the function itself).
 */
function produced(ctx: EvaluationContext, v: Value | undefined, name: string): Value | undefined {
  ctx.charge(valueUnits(v), `the result of ${name}`);
  return v;
}

function charged(
  apply: (args: readonly (Value | undefined)[]) => Value | undefined,
  name: string,
): (args: readonly (Value | undefined)[], ctx: EvaluationContext) => Value | undefined {
  return (args, ctx) => {
    let units = 0;
    for (const a of args) units += valueUnits(a);
    ctx.charge(units, name);
    return produced(ctx, apply(args), name);
  };
}

function call(
  rawApply: (args: readonly (Value | undefined)[]) => Value | undefined,
  args: readonly TArg[],
  mapsFirstArg: boolean,
  name: string,
): Getter {
  const apply = charged(rawApply, name);
  const getters = args.map(argument);
  const first = args[0];
  if (mapsFirstArg && first?.kind === "value") {
    // f(x[*], …): f is applied per element; the other arguments are evaluated once per call (wirefilter docs/rules-language.md).
    const list = mappedValue(first.value);
    const rest = getters.slice(1);
    return (ctx) => {
      const others = rest.map((g) => g(ctx));
      return list(ctx).map((item) => apply([item, ...others], ctx));
    };
  }
  const [g0, g1] = getters;
  if (getters.length === 1 && g0) return (ctx) => apply([g0(ctx)], ctx);
  if (getters.length === 2 && g0 && g1) return (ctx) => apply([g0(ctx), g1(ctx)], ctx);
  return (ctx) =>
    apply(
      getters.map((g) => g(ctx)),
      ctx,
    );
}

/**
 * `coalesce(a, b, …)`: the arguments are evaluated left to right and the first present one is the result, so a
 * fallback after a present value costs nothing. Charges (budget.ts: a function's arguments and its result): the
 * chosen argument's units, as an argument and again as the result (a missing argument is 0 units); calls among the
 * arguments charge their own work when they run. With `[*]` in the first argument, each element that is missing
 * falls back to the other arguments, evaluated at most once per call.
 */
function firstPresent(args: readonly TArg[], mapsFirstArg: boolean, name: string): Getter {
  const getters = args.map(argument);
  const pick = (ctx: EvaluationContext, from: number): Value | undefined => {
    for (let i = from; i < getters.length; i++) {
      const v = (getters[i] as Getter)(ctx);
      if (v !== undefined) {
        ctx.charge(2 * valueUnits(v), name);
        return v;
      }
    }
    return undefined;
  };
  const first = args[0];
  if (mapsFirstArg && first?.kind === "value") {
    const list = mappedValue(first.value);
    return (ctx) => {
      let fallback: { readonly v: Value | undefined } | undefined;
      return list(ctx).map((item) => {
        if (item !== undefined) {
          ctx.charge(2 * valueUnits(item), name);
          return item;
        }
        fallback ??= { v: pick(ctx, 1) };
        return fallback.v;
      });
    };
  }
  return (ctx) => pick(ctx, 0);
}

function argument(arg: TArg): Getter {
  switch (arg.kind) {
    case "constant": {
      const c = arg.value;
      return () => c;
    }
    case "value":
      return arg.value.mapped ? mappedValue(arg.value) : value(arg.value);
    case "bool":
      return arg.expr.array ? array(arg.expr) : bool(arg.expr);
  }
}
