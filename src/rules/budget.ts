/**
 * The evaluation budget (contract §2.2, §9): no intermediate value grows past `MAX_VALUE_BYTES`, and one evaluation
 * produces at most `MAX_WORK_BYTES` of intermediate values in all. Without it, nested `join(split(…))` grows a string
 * ~128× per level (192 characters of expression took 1.9 s on a 227-byte header, one more level threw
 * `RangeError: Invalid string length`). An evaluation that would pass the budget stops at once with
 * `BudgetExceeded`, which `Rule.matches` turns into a non-match and records on the context for the caller to log.
 */

/** The largest string (bytes) or array (elements) a function may produce: 1 MiB. */
export const MAX_VALUE_BYTES = 1024 * 1024;
/** The most bytes of intermediate values one evaluation may produce, all function results together: 8 MiB. */
export const MAX_WORK_BYTES = 8 * 1024 * 1024;

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
