/** Shared helpers for the rules tests: a small scheme with every type, and compile-or-throw. */
import {
  arrayOf,
  BOOL,
  BYTES,
  compile,
  contextFromValues,
  defineScheme,
  INT,
  IP,
  mapOf,
  type Rule,
  type RuleError,
  type Value,
} from "../../../src/rules";

export const scheme = defineScheme({
  s: BYTES,
  s2: BYTES,
  n: INT,
  b: BOOL,
  ip: IP,
  arr: arrayOf(BYTES),
  ints: arrayOf(INT),
  bools: arrayOf(BOOL),
  m: mapOf(arrayOf(BYTES)),
  json: BYTES,
});

export function rule(source: string): Rule {
  const r = compile(source, scheme);
  if (!r.ok) throw new Error(`${source}: ${r.error.kind}: ${r.error.message}`);
  return r.value;
}

export function failure(source: string): RuleError {
  const r = compile(source, scheme);
  if (r.ok) throw new Error(`${source}: expected a compile error`);
  return r.error;
}

export function evaluate(source: string, values: Record<string, Value | undefined>): boolean {
  return rule(source).matches(contextFromValues(scheme, values));
}
