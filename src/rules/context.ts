/**
 * The evaluation context: field values for one evaluation, built lazily. A value is produced the first time a
 * compiled rule reads it and memoised, so 300 rules that test `http.request.uri.path` parse the URL once,
 * and a field no rule uses is never computed (docs/rules-language.md).
 */
import { BudgetExceeded, MAX_RULE_UNITS, RequestBudget } from "./budget";
import type { RegexSet } from "./regex-set";
import type { RegexSets, SetPass } from "./regex-sets";
import type { FieldDecl, Scheme } from "./scheme";
import type { Value } from "./values";

/** Marks a field computed as missing, so `undefined` in the memo can mean "not computed yet". */
const MISSING: unique symbol = Symbol("missing");

/** The serial number of the next context made. */
let nextSerial = 0;

export class EvaluationContext {
  /**
   * Allocated on first read: creating a context costs one small object, nothing per field. A literal `[]`, not
   * `new Array(n)`: the latter measured several times slower across rules (elements-kind transitions in V8).
   */
  private memo: (Value | typeof MISSING | undefined)[] | undefined;

  /** Units spent by the rule being evaluated (budget.ts); set by `Rule.evaluate`. */
  spent = 0;
  /**
   * What the rule being evaluated may spend: the smaller of the rule's units and what the request has left; -1
   * until its first charge (`Rule.evaluate` resets it), since most rules charge nothing (see `budget`).
   */
  limit = -1;

  private resolved: RequestBudget | undefined;

  /**
   * The one-pass regex sets of the rule list being evaluated (regex-sets.ts), set by `firstMatch`/`allMatches`
   * (rule-list.ts) for the request phases; null elsewhere, and then every regex runs on its own.
   */
  regexSets: RegexSets | null = null;
  /**
   * This context among those of the isolate: a set's last pass is known to be this request's by this number,
   * not by a reference that would keep the request alive (regex-sets.ts).
   */
  readonly serial = nextSerial++;
  private passes: Map<RegexSet, SetPass> | undefined;

  /** The passes of sets run on this context (one request): a set scans a subject once, whatever the rule count. */
  get setPasses(): Map<RegexSet, SetPass> {
    return (this.passes ??= new Map());
  }

  constructor(
    readonly scheme: Scheme,
    private readonly produce: (field: FieldDecl) => Value | undefined,
    /**
     * The request's budget, shared with every other context of the same request (budget.ts `requestBudget`), or
     * how to find it. Found on the first charge only: most rules charge nothing (literal comparisons, guards,
     * header lookups), and finding the request's budget is a WeakMap lookup and insertion keyed by the Request
     * (~1 % of an error's samples in workerd's profiler). Nothing can be observed in between: the
     * request's remaining units change only by what a rule spent, so a budget found later holds the same value.
     */
    private readonly source: RequestBudget | (() => RequestBudget) = new RequestBudget(),
  ) {}

  /** The request's budget (found on first use). */
  get budget(): RequestBudget {
    return (this.resolved ??= typeof this.source === "function" ? this.source() : this.source);
  }

  /**
   * Charges `units` of work about to be done (budget.ts), before doing it: throws `BudgetExceeded` (caught by
   * `Rule.evaluate`, never seen by callers) when it would pass the rule's limit, and then nothing is run or counted.
   */
  charge(units: number, what: string): void {
    // The rule's limit, on its first charge: what the request had left when the rule started (nothing is taken
    // from the request's budget before the rule ends, rule.ts), capped by the rule's own units.
    if (this.limit < 0) this.limit = Math.min(MAX_RULE_UNITS, this.budget.remaining);
    const spent = this.spent + units;
    if (spent > this.limit) {
      throw new BudgetExceeded(
        `${what} needs ${units} units; the rule has ${this.limit - this.spent} of its ${this.limit} left` +
          (this.limit < this.budget.remaining ? "" : " (the rest of the request's budget)"),
      );
    }
    this.spent = spent;
  }

  /** The value of field `index` (missing: undefined). */
  get(index: number): Value | undefined {
    const memo = (this.memo ??= []);
    const cached = memo[index];
    if (cached !== undefined) return cached === MISSING ? undefined : cached;
    const field = this.scheme.fields[index];
    const value = field === undefined ? undefined : this.produce(field);
    memo[index] = value === undefined ? MISSING : value;
    return value;
  }

  /**
   * The value of a pure computation (a function call) shared by the rules evaluated on this context, computed on
   * first use: `lower(http.request.uri.path)` in 50 rules is lowered once per error. Slots are numbered after the
   * fields (compile.ts assigns them).
   */
  remember(slot: number, compute: (ctx: EvaluationContext) => Value | undefined): Value | undefined {
    const memo = (this.memo ??= []);
    const cached = memo[slot];
    if (cached !== undefined) return cached === MISSING ? undefined : cached;
    const value = compute(this);
    memo[slot] = value === undefined ? MISSING : value;
    return value;
  }
}

/** A context from ready values (tests, benchmarks); names not given are missing. */
export function contextFromValues(
  scheme: Scheme,
  values: Readonly<Record<string, Value | undefined>>,
  budget?: RequestBudget,
): EvaluationContext {
  return new EvaluationContext(
    scheme,
    (field) => (Object.hasOwn(values, field.name) ? values[field.name] : undefined),
    budget,
  );
}
