/**
 * The evaluation budget (docs/rules-language.md "Evaluation budget"): it bounds the CPU one rule and one request may
 * spend in the engine, and the size of every intermediate value. A budget that counted only the bytes of function
 * results let 25 legal firewall rules of 4 regexes each (`a[ab]{998}w`) and one 14 KB `User-Agent` keep the isolate
 * busy ~20 s, delaying every other zone's traffic. re2js cannot be interrupted, so work is charged BEFORE it is done: an
 * operation whose cost would pass what is left is not run, and the rule is over budget.
 *
 * Over budget FAILS CLOSED where it protects (docs/rules-language.md "Evaluation budget"): in the request phases
 * (firewall, rate limiting) it counts as a match, so no input a client chooses can switch a block off or a request
 * out of a count; in custom error rules it is a non-match (only content is at stake). Either way the caller logs it
 * with zone, phase and rule (over-budget-log.ts). And it should not happen: the request phases' rules are refused
 * when written unless their worst case, on the largest request the zone accepts, fits (worst-case.ts), so every
 * request the zone accepts is evaluated completely.
 *
 * Costs are in *units*, calibrated inside workerd on this repository's machine (docs/rules-language.md "Evaluation
 * budget"): the slowest regular-expression run measured did ~45,000 units/ms, with
 *   - a regex run: `regexUnits` (regex.ts): (subject bytes + 1) × (the compiled program's size + 1), the bound of
 *     re2js's NFA, plus the DFA states the run may build (at most `REGEX_DFA_STATES`, each charged as a closure
 *     over the program): re2js's lazy DFA can build a state per byte of a subject it has not seen, and before its
 *     memory was bounded that ran as slowly as 5,800–26,800 (bytes × program) per ms on 32 KB subjects (regex.ts);
 *   - `contains`, `wildcard`/`strict wildcard`: the subject's bytes (× the wildcard's literal pieces);
 *   - a function call: the bytes (Strings) and 8 per element (Arrays) of its arguments, before it runs, and of its
 *     result, after it is built (each result is also capped at `MAX_VALUE_BYTES`, so "after" overshoots by ≤ 1 MiB).
 *   - a comparison of two dynamic values (`http.request.uri.path ne raw.http.request.uri.path`,
 *     `lower(a) eq b`): the shorter String's bytes, before it runs (Ints and IPs: nothing, constant time);
 *   - `coalesce()`: the chosen argument's units twice (as its argument and as its result); `concat()` (≤ 32
 *     arguments) is a function call like any other.
 * `==`/`!=`/`<`… against a LITERAL compare at most the literal's length, and `in {…}` hashes a value once (V8
 * caches a string's hash): both are bounded by the expression and the request, not by rules × subject, and are not
 * charged, so a rule index's guard (guard.ts) costs nothing and skipping a rule stays unobservable. A comparison
 * with a dynamic value on the right is no longer bounded by a literal (two 1 MiB `concat` results, or two long
 * header values), hence its charge; it is never a guard.
 */

/** The largest string (bytes) or array (elements) a function may produce: 1 MiB (memory, not time). */
export const MAX_VALUE_BYTES = 1024 * 1024;
/**
 * What one rule may spend: ~89 ms at the slowest rate measured (45,000 units/ms). Sized so that a scanner rule
 * (`http.user_agent matches "(?i)(sqlmap|nikto|…10 names)"`, 76 instructions) fits on the largest User-Agent the
 * default 32 KiB header limit accepts: its worst case is 2.75 million units (docs/rules-language.md).
 */
export const MAX_RULE_UNITS = 4_000_000;
/**
 * What the rules of the request phases (firewall, then rate limiting) may spend together on one request: ~178 ms at
 * the slowest rate measured. Checked when a ruleset is written, against the worst case of every rule on the largest
 * request the zone accepts (worst-case.ts); a ruleset that cannot fit is refused, so at run time these rules never
 * meet the budget.
 */
export const MAX_REQUEST_PHASE_UNITS = 8_000_000;
/**
 * What one request may spend in all its phases together: the request phases' `MAX_REQUEST_PHASE_UNITS`, then
 * custom error rules on the same request's error path draw on what is left (at least 2,000,000 units): ~222 ms at
 * the slowest rate measured.
 */
export const MAX_REQUEST_UNITS = 10_000_000;
/** Units per array element of a function's argument or result (an element costs more than a byte). */
export const UNITS_PER_ELEMENT = 8;

/** Thrown inside the engine only: `Rule.evaluate` turns it into an `over-budget` outcome. */
export class BudgetExceeded extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "BudgetExceeded";
  }
}

/** Refuses a value about to be built when it would pass `MAX_VALUE_BYTES`. */
export function guardSize(size: number, what: string): void {
  if (size > MAX_VALUE_BYTES) throw new BudgetExceeded(`${what} would be ${size} bytes, over ${MAX_VALUE_BYTES}`);
}

/** What is left of one request's units, shared by every evaluation context built for that request. */
export class RequestBudget {
  remaining: number;
  constructor(readonly total: number = MAX_REQUEST_UNITS) {
    this.remaining = total;
  }
}

/**
 * The budget of each request, keyed by the `Request` object itself: zone traffic hands the same object to the
 * request phases (src/edge/request-phases), to the error pipeline (custom error rules on a generated error) and to the
 * origin-error path (src/edge/custom-errors/apply.ts), so every phase of one request draws on one budget without a
 * parameter threaded through the error pipeline. A WeakMap: the entry goes with the request.
 */
const budgets = new WeakMap<Request, RequestBudget>();

export function requestBudget(request: Request): RequestBudget {
  let budget = budgets.get(request);
  if (budget === undefined) budgets.set(request, (budget = new RequestBudget()));
  return budget;
}

/** The units of a String or Array value (function arguments and results); 0 for anything else. */
export function valueUnits(v: unknown): number {
  if (typeof v === "string") return v.length;
  if (Array.isArray(v)) return v.length * UNITS_PER_ELEMENT;
  return 0;
}
