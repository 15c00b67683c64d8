/**
 * The static worst case of a rule of the request phases (docs/rules-language.md "Evaluation budget"): the most units
 * (budget.ts) one evaluation can charge on any request a zone accepts, read off the checked tree without running
 * it. The request phases fail closed (rule-list.ts `failsClosed`), so a rule over budget would block or count every
 * request it cannot finish on; a ruleset is therefore refused when written unless every rule's worst case, and their
 * sum, fit the budget (src/state/zone/rulesets/worst-case.ts). Then every request the zone accepts is evaluated
 * completely, and no padding a client chooses changes an outcome.
 *
 * What bounds a request (`RequestLimits`): its header section, at most the zone's `max_request_header_bytes` as the
 * rules see it (names, values as UTF-8 byte strings, 4 bytes per field: src/edge/zone-traffic.ts refuses more with
 * 1038 before any rule runs), and its URL, at most `URL_BYTES` as sent (the published platform refuses longer ones
 * before a Worker runs). From those, each field's largest value (`fieldBound`); from those, every function's largest
 * result and every operation's charge, exactly as compile.ts charges them, taking every branch (`and`/`or` may stop
 * early, never later) and never the shared memo of a call (it only saves).
 *
 * Sizes are bounds on sums: `bytes` is the most bytes of all the Strings in a value (for a `[*]` list, in all its
 * elements together), `items` the most elements of its arrays and maps (for a list, the most elements it has). A
 * charge linear in each element's bytes (a regex, `contains`, a function on `[*]`) is then bounded by the sum, not by
 * elements × largest element. Pure: no bindings.
 */
import { MAX_VALUE_BYTES, UNITS_PER_ELEMENT } from "./budget";
import type { TArg, TBool, Test, TValue } from "./check";
import type { ArgInfo } from "./functions";
import { regexUnits } from "./regex";
import { setPassUnits } from "./regex-set";
import { planRegexSets, setMember, type FieldSet, type RegexSets } from "./regex-sets";
import type { Rule } from "./rule";
import { BOOL, BYTES, INT, IP, arrayOf, type Type } from "./types";
import type { Value } from "./values";

/** The largest request a zone accepts, as far as rules can read it. */
export interface RequestLimits {
  /** The zone's header limit (`max_request_header_bytes`): names + values (UTF-8) + 4 per field. */
  readonly headerBytes: number;
}

/**
 * The longest URL a request can have: 16 KB, the published limit of Workers
 * (developers.cloudflare.com/workers/platform/limits/, "URL size"), as sent. The runtime's URL parser and the
 * zone's normalisation encode a byte as at most 3 (`%XX`), so a URL field is at most 3 × this.
 */
export const URL_BYTES = 16 * 1024;
/** An encoded URL byte is at most `%XX`. */
const URL_EXPANSION = 3;
/** A DNS name (RFC 1035 §2.3.4): the zone host of `http.host` and the URLs. */
const HOST_BYTES = 253;
/**
 * `http.request.method`: the runtime's HTTP server answers 501 to a method it does not know, and the longest it
 * knows is `UNSUBSCRIBE` (11 bytes, measured through workerd); 32 leaves room.
 */
const METHOD_BYTES = 32;
/** `ip.src.country`: `request.cf.country`, an ISO 3166-1 alpha-2 code (`T1` for Tor); 8 leaves room. */
const COUNTRY_BYTES = 8;
/** The least a header field counts against the limit: a one-letter name, an empty value and 4 (`: `, CRLF). */
const MIN_FIELD_BYTES = 5;

/** The most one evaluation of a rule can charge, or why nothing bounds it. */
export type WorstCase =
  { readonly kind: "bounded"; readonly units: number } | { readonly kind: "unbounded"; readonly reason: string };

/** A value's size: the most bytes of its Strings and the most elements of its containers (sums for a list). */
export interface Bound {
  readonly bytes: number;
  readonly items: number;
}

/**
 * The worst case of `rule` (compiled for the request fields) on any request within `limits`, alone: every regex runs
 * on its own (no set), as in a list of one rule without sets.
 */
export function worstCase(rule: Pick<Rule, "tree">, limits: RequestLimits): WorstCase {
  return ruleCost(rule, limits, null).cost;
}

function ruleCost(
  rule: Pick<Rule, "tree">,
  limits: RequestLimits,
  sets: RegexSets | null,
): { readonly cost: WorstCase; readonly used: ReadonlySet<FieldSet> } {
  const analysis = new Analysis(limits, sets);
  try {
    return { cost: { kind: "bounded", units: analysis.bool(rule.tree).units }, used: analysis.used };
  } catch (e) {
    if (e instanceof Unbounded) return { cost: { kind: "unbounded", reason: e.reason }, used: analysis.used };
    throw e;
  }
}

/** A rule's worst case in its phase's list (`phaseWorstCase`). */
export interface RuleInPhase {
  /**
   * What it may spend in one evaluation: its own work and the pass of every set it reads (the first rule of a
   * request to read a set runs the set's pass): checked against one rule's budget.
   */
  readonly alone: WorstCase;
  /**
   * What it adds to the phase's worst case: its own work and the passes of the sets no earlier rule reads (a set's
   * pass runs at most once per request): summed against the request phases' budget.
   */
  readonly share: WorstCase;
}

/**
 * The worst case of each rule of a request phase's list, in order, with the list's one-pass regex sets
 * (regex-sets.ts, planned from the same rules as rule-list.ts plans them at the edge): `null` for a rule that is not
 * evaluated (disabled), which neither reads nor adds to a set.
 */
export function phaseWorstCase(
  rules: readonly (Pick<Rule, "tree"> | null)[],
  limits: RequestLimits,
): readonly (RuleInPhase | null)[] {
  const present = rules.filter((r): r is Pick<Rule, "tree"> => r !== null);
  const sets = planRegexSets(present.map((r) => r.tree));
  const paid = new Set<FieldSet>();
  return rules.map((rule) => {
    if (rule === null) return null;
    const { cost, used } = ruleCost(rule, limits, sets);
    if (cost.kind === "unbounded") return { alone: cost, share: cost };
    let alone = cost.units;
    let share = cost.units;
    for (const entry of used) {
      const pass = passUnits(entry, limits);
      alone += pass;
      if (!paid.has(entry)) {
        paid.add(entry);
        share += pass;
      }
    }
    return { alone: { kind: "bounded", units: alone }, share: { kind: "bounded", units: share } };
  });
}

/** One pass of a set over its field's largest value within `limits`. */
function passUnits(entry: FieldSet, limits: RequestLimits): number {
  const bound = fieldBound(entry.fieldName, limits);
  if (bound === null) return Infinity;
  return setPassUnits(bound.bytes, entry.set.idTotal);
}

/**
 * The largest value of a request field on a request within `limits`, or null for a field this model does not know
 * (a response field: custom error rules are not bounded statically, they fail open).
 */
export function fieldBound(name: string, limits: RequestLimits): Bound | null {
  const headers = Math.max(0, limits.headerBytes);
  const fields = Math.floor(headers / MIN_FIELD_BYTES);
  const header = (field: string): Bound => one(Math.max(0, headers - field.length - 4));
  const url = URL_EXPANSION * URL_BYTES;
  const fullUri = "https://".length + HOST_BYTES + url;
  switch (name) {
    case "http.host":
      return one(HOST_BYTES);
    case "http.request.method":
      return one(METHOD_BYTES);
    case "http.request.uri":
    case "http.request.uri.path":
    case "http.request.uri.query":
    case "raw.http.request.uri":
    case "raw.http.request.uri.path":
    case "raw.http.request.uri.query":
      return one(url);
    case "http.request.full_uri":
    case "raw.http.request.full_uri":
      return one(fullUri);
    case "http.request.uri.args":
      // Every name and value is a piece of the query between `&` and `=`.
      return { bytes: url, items: url };
    case "http.request.headers":
    case "http.request.headers.names":
    case "http.request.headers.values":
      return { bytes: headers, items: fields };
    case "http.user_agent":
      return header("user-agent");
    case "http.referer":
      return header("referer");
    case "http.cookie":
      return header("cookie");
    case "ip.src.country":
      return one(COUNTRY_BYTES);
    case "ip.src":
    case "ip.src.asnum":
    case "ssl":
    case "true":
      return SCALAR;
    default:
      return null;
  }
}

const SCALAR: Bound = { bytes: 0, items: 1 };
const one = (bytes: number): Bound => ({ bytes, items: 1 });

/** Thrown inside the analysis only: `worstCase` turns it into `unbounded`. */
class Unbounded extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** A value's cost to compute and its size; `count` is how many values it is (1, or a `[*]` list's elements). */
interface Analysed {
  readonly units: number;
  readonly bound: Bound;
  readonly count: number;
}

/** The units of values of type `type` whose sizes sum to `bound` (budget.ts `valueUnits`). */
function unitsOf(type: Type, bound: Bound): number {
  if (type.kind === "Bytes") return bound.bytes;
  if (type.kind === "Array") return UNITS_PER_ELEMENT * bound.items;
  return 0;
}

function constantBound(value: Value): Bound {
  if (typeof value === "string") return one(value.length);
  if (Array.isArray(value))
    return {
      bytes: value.reduce((n: number, v) => n + (typeof v === "string" ? v.length : 0), 0),
      items: value.length,
    };
  return SCALAR;
}

function constantType(value: Value): Type {
  if (typeof value === "string") return BYTES;
  if (typeof value === "number") return INT;
  if (typeof value === "boolean") return BOOL;
  if (typeof value === "bigint") return IP;
  return arrayOf(BYTES);
}

class Analysis {
  /** The sets the rule reads (their passes are charged by `phaseWorstCase`, once per request). */
  readonly used = new Set<FieldSet>();

  constructor(
    private readonly limits: RequestLimits,
    private readonly sets: RegexSets | null,
  ) {}

  /** A Bool (or Array<Bool>) expression: its units, and for Array<Bool> its most elements. */
  bool(node: TBool): { readonly units: number; readonly items: number } {
    switch (node.kind) {
      case "logical": {
        let units = 0;
        let items = 1;
        for (const operand of node.operands) {
          const a = this.bool(operand);
          units += a.units;
          items = Math.max(items, a.items);
        }
        return { units, items };
      }
      case "not":
        return this.bool(node.operand);
      case "quantifier":
        return { units: this.bool(node.argument).units, items: 1 };
      case "compare": {
        // A test on a plain field that the phase's set holds (a regex, `contains`, a wildcard) is answered by the
        // set's pass (compile.ts `compare`).
        const member = this.sets === null ? null : setMember(node);
        const entry = member === null ? undefined : this.sets?.setOf(member.field, member.pattern);
        if (entry !== undefined) {
          this.used.add(entry);
          return { units: 0, items: 1 };
        }
        const lhs = this.value(node.lhs);
        return { units: lhs.units + this.test(node.test, lhs), items: lhs.count };
      }
      case "value": {
        const v = this.value(node.value);
        return { units: v.units, items: node.array ? v.count : 1 };
      }
    }
  }

  /** A test's charges on a value, or on each element of a `[*]` list (compile.ts `compileTest`). */
  private test(test: Test, subject: Analysed): number {
    const { bound, count } = subject;
    switch (test.kind) {
      case "contains":
        return bound.bytes;
      case "wildcard":
        return 2 * bound.bytes;
      case "regex":
        return regexUnits(bound.bytes, count, test.regex.programSize, test.regex.classes);
      case "dynamic-order": {
        // The right side is read once per value tested (compile.ts `dynamicTest`), and two Strings charge the
        // shorter one's bytes.
        const rhs = this.value(test.rhs);
        const compare = test.operand === "Bytes" ? Math.min(bound.bytes, count * rhs.bound.bytes) : 0;
        return count * rhs.units + compare;
      }
      case "bytes-order":
      case "int-order":
      case "ip-order":
      case "bytes-in":
      case "int-in":
      case "ip-in":
      case "bitwise-and":
        return 0;
    }
  }

  /** A value (or a `[*]` list): its base's cost and size; index steps cost nothing and keep the bound. */
  value(v: TValue): Analysed {
    const base = this.base(v);
    // After `[*]` the value is a list: as many values as the container had elements (at least its keys).
    return v.mapped ? { ...base, count: base.bound.items } : base;
  }

  private base(v: TValue): Analysed {
    const b = v.base;
    switch (b.kind) {
      case "field": {
        const bound = fieldBound(b.name, this.limits);
        if (bound === null) throw new Unbounded(`the field ${b.name} has no bound in the request phases`);
        return { units: 0, bound, count: 1 };
      }
      case "constant":
        return { units: 0, bound: constantBound(b.value), count: 1 };
      case "call":
        return this.call(b);
    }
  }

  /** A function call (compile.ts `base`, `call`, `firstPresent`): its arguments, its charges, its result. */
  private call(b: Extract<TValue["base"], { kind: "call" }>): Analysed {
    const args = b.args.map((arg) => this.argument(arg));
    const name = b.fn.name;
    const infos: ArgInfo[] = args.map((a, i) => {
      const arg = b.args[i];
      const literal = arg?.kind === "constant";
      return {
        type: a.type,
        literal,
        ...(literal ? { value: arg.value } : {}),
        span: { start: 0, end: 0 },
      };
    });
    const checked = b.fn.check(infos);
    if (!checked.ok) throw new Unbounded(`${name}(): ${checked.error.message}`);
    const resultType = checked.value;
    const [first, ...rest] = args;
    if (first === undefined) throw new Unbounded(`${name}() without arguments`);
    // With `[*]` in the first argument the function runs once per element; the other arguments once per call.
    const count = b.mapsFirstArg ? first.count : 1;
    const evaluated = args.reduce((n, a) => n + a.units, 0);
    const result = this.result(name, { resultType, first: first.bound, rest, count, args: b.args });
    const resultUnits = unitsOf(resultType, result);
    if (b.fn.evaluation === "first-present") {
      // coalesce: the chosen argument's units twice, per element; a missing element's fallback once per call.
      const others = rest.reduce((n, a) => Math.max(n, unitsOf(a.type, a.bound)), 0);
      return { units: evaluated + 2 * unitsOf(first.type, first.bound) + 2 * others, bound: result, count: 1 };
    }
    // Its arguments before it runs (the other arguments again for each element), its result after.
    const others = rest.reduce((n, a) => n + unitsOf(a.type, a.bound), 0);
    const charged = unitsOf(first.type, first.bound) + count * others + resultUnits;
    return { units: evaluated + charged, bound: result, count: 1 };
  }

  /** An argument's cost, type (per element for a `[*]` one) and size. */
  private argument(arg: TArg): Analysed & { readonly type: Type } {
    switch (arg.kind) {
      case "constant":
        return { units: 0, bound: constantBound(arg.value), count: 1, type: constantType(arg.value) };
      case "value":
        return { ...this.value(arg.value), type: arg.value.type };
      case "bool": {
        const a = this.bool(arg.expr);
        return {
          units: a.units,
          bound: { bytes: 0, items: a.items },
          count: 1,
          type: arg.expr.array ? arrayOf(BOOL) : BOOL,
        };
      }
    }
  }

  /**
   * The size of a function's result (of all its results together, on a `[*]` list of `count` elements whose sizes
   * sum to `first`), from functions.ts. Only `concat`, `join`, `coalesce` and `lookup_json_string` can give more
   * bytes than their source: `lookup_json_string` decodes its source as UTF-8, where an invalid byte becomes U+FFFD
   * (3 bytes). `concat` and `join` refuse to build a value over `MAX_VALUE_BYTES` (an over-budget evaluation), so a
   * call that may is unbounded here.
   */
  private result(
    name: string,
    call: {
      readonly resultType: Type;
      readonly first: Bound;
      readonly rest: readonly (Analysed & { readonly type: Type })[];
      readonly count: number;
      readonly args: readonly TArg[];
    },
  ): Bound {
    const { resultType, first, rest, count, args } = call;
    switch (name) {
      case "lower":
      case "upper":
      case "url_decode":
      case "remove_bytes":
      case "substring":
        return { bytes: first.bytes, items: count };
      case "lookup_json_string":
        return { bytes: 3 * first.bytes, items: count };
      case "len":
      case "starts_with":
      case "ends_with":
      case "lookup_json_integer":
        return { bytes: 0, items: count };
      case "split": {
        const limit = args[2]?.kind === "constant" && typeof args[2].value === "number" ? args[2].value : Infinity;
        return { bytes: first.bytes, items: Math.min(count * limit, first.bytes + count) };
      }
      case "concat": {
        const bytes = rest.reduce((n, a) => n + a.bound.bytes, 0);
        const items = rest.reduce((n, a) => n + a.bound.items, 0);
        const array = resultType.kind === "Array";
        // One result's largest size (with `[*]`, an element is at most the list's sum), as functions.ts guards it.
        const built = array ? first.items + items : first.bytes + bytes;
        if (built > MAX_VALUE_BYTES) {
          const what = array ? "elements" : "bytes";
          throw new Unbounded(`concat() may build ${built} ${what}, over the limit of ${MAX_VALUE_BYTES}`);
        }
        return { bytes: first.bytes + count * bytes, items: array ? first.items + count * items : count };
      }
      case "join": {
        // Each element's pieces and a separator between two: at most one separator per piece.
        const separator = rest[0]?.bound.bytes ?? 0;
        const bytes = first.bytes + first.items * separator;
        if (bytes > MAX_VALUE_BYTES)
          throw new Unbounded(`join() may build ${bytes} bytes, over the limit of ${MAX_VALUE_BYTES}`);
        return { bytes, items: count };
      }
      case "coalesce": {
        const bytes = rest.reduce((n, a) => Math.max(n, a.bound.bytes), 0);
        const items = rest.reduce((n, a) => Math.max(n, a.bound.items), 0);
        return { bytes: first.bytes + count * bytes, items: first.items + count * items };
      }
      default:
        throw new Unbounded(`${name}() has no size bound`);
    }
  }
}
