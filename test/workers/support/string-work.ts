/**
 * Counting the work string code does, so that a complexity claim ("linear in the input") is tested by counting, not
 * by a wall clock that a busy machine slows down at random (docs/development.md "Tests that do not depend on the
 * clock").
 *
 * `countStringWork(run)` replaces the methods of `String.prototype`, `RegExp.prototype.test`, `Array.prototype.join`
 * and `String.fromCharCode` with wrappers for the duration of one synchronous call, and charges each call one unit
 * plus the characters it reads or writes: `charCodeAt` 1, `indexOf` the characters it scanned, `slice` the
 * characters it copied, `split`, `replace`, `toLowerCase`, a regular expression's `test` their whole subject, `join`
 * the string it built. The sum is deterministic: the same input always costs the same units, whatever else the
 * machine runs. What a method does not see (`+=`, indexing `s[i]`, `for … of` over a string) is not charged, so a
 * test also checks that the units reach at least the input's length: the meter saw the scan.
 */

type Charge = (self: string, args: readonly unknown[], result: unknown) => number;

const lengthOf = (value: unknown): number =>
  typeof value === "string" ? value.length : Array.isArray(value) ? value.length : 0;

/** The whole subject, plus what was built. */
const whole: Charge = (self, _args, result) => self.length + lengthOf(result);
/** What was copied out. */
const copied: Charge = (_self, _args, result) => lengthOf(result);
/** One character. */
const one: Charge = () => 0;

const STRING_CHARGES: Readonly<Record<string, Charge>> = {
  charCodeAt: one,
  codePointAt: one,
  charAt: one,
  at: one,
  slice: copied,
  substring: copied,
  substr: copied,
  indexOf: (self, args, result) => {
    const from = Math.max(0, Number(args[1] ?? 0) || 0);
    const found = result as number;
    return Math.max(0, (found === -1 ? self.length : found + String(args[0]).length) - from);
  },
  lastIndexOf: whole,
  includes: (self, args) => Math.max(0, self.length - (Number(args[1] ?? 0) || 0)),
  startsWith: (_self, args) => String(args[0]).length,
  endsWith: (_self, args) => String(args[0]).length,
  search: whole,
  match: whole,
  matchAll: whole,
  split: whole,
  replace: whole,
  replaceAll: whole,
  toLowerCase: whole,
  toUpperCase: whole,
  toLocaleLowerCase: whole,
  toLocaleUpperCase: whole,
  trim: whole,
  trimStart: whole,
  trimEnd: whole,
  normalize: whole,
  padStart: copied,
  padEnd: copied,
  repeat: copied,
  concat: copied,
  localeCompare: whole,
};

/** Runs `run` (synchronous) and returns its value with the units of string work it did. */
export function countStringWork<T>(run: () => T): { value: T; units: number } {
  const meter = installMeters(false);
  try {
    const value = run();
    if (value instanceof Promise) throw new Error("countStringWork counts synchronous work only");
    return { value, units: meter.units() };
  } finally {
    meter.restore();
  }
}

/**
 * Runs `run` (a request through the Worker, awaited) and returns its value with the units of work it did: the string
 * work above, plus what a query string's handling costs where no string method sees it: `Array.prototype.concat`
 * the length of the array it built (itty-router's `Router.fetch` built `request.query` with one `concat` per
 * repeated key, quadratic), and each call of a `URLSearchParams` method the number of entries it holds (a `getAll`
 * per key scans them all). The meters stay on across the awaits, so whatever else the isolate runs meanwhile is
 * charged too: compare two inputs with a bound that such extra work cannot reach (8× the input, not 64×).
 */
export async function countRequestWork<T>(run: () => Promise<T>): Promise<{ value: T; units: number }> {
  const meter = installMeters(true);
  try {
    const value = await run();
    return { value, units: meter.units() };
  } finally {
    meter.restore();
  }
}

/** The entries a `URLSearchParams` holds (its `size`), 0 when it does not say. */
const entriesOf = (self: unknown): number => {
  const size: unknown = self instanceof URLSearchParams ? self.size : undefined;
  return typeof size === "number" ? size : 0;
};

const SEARCH_PARAMS_METHODS = ["append", "delete", "get", "getAll", "has", "set", "sort", "forEach", "toString"];

/** Wraps the metered methods; `units()` is what they charged so far, `restore()` puts the originals back. */
function installMeters(queries: boolean): { units: () => number; restore: () => void } {
  let units = 0;
  const restore: (() => void)[] = [];
  const wrap = <O extends object>(
    owner: O,
    name: string,
    charge: (self: never, args: unknown[], r: unknown) => number,
  ) => {
    const target = owner as unknown as Record<string, unknown>;
    const original = target[name] as (...args: unknown[]) => unknown;
    target[name] = function (this: never, ...args: unknown[]): unknown {
      const result = original.apply(this, args);
      units += 1 + charge(this, args, result);
      return result;
    };
    restore.push(() => {
      target[name] = original;
    });
  };
  for (const [name, charge] of Object.entries(STRING_CHARGES)) {
    wrap(String.prototype, name, (self: string, args, result) => charge(String(self), args, result));
  }
  wrap(RegExp.prototype, "test", (_self: RegExp, args) => lengthOf(String(args[0])));
  wrap(Array.prototype, "join", (_self: unknown[], _args, result) => lengthOf(result));
  wrap(String, "fromCharCode", (_self: never, args) => args.length);
  if (queries) {
    wrap(Array.prototype, "concat", (_self: unknown[], _args, result) => lengthOf(result));
    for (const name of SEARCH_PARAMS_METHODS) {
      wrap(URLSearchParams.prototype, name, (self: URLSearchParams) => entriesOf(self));
    }
  }
  return {
    units: () => units,
    restore: () => {
      for (const undo of restore.reverse()) undo();
    },
  };
}
