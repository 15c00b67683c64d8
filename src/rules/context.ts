/**
 * The evaluation context: field values for one evaluation, built lazily. A value is produced the first time a
 * compiled rule reads it and memoised, so 300 rules that test `http.request.uri.path` parse the URL once,
 * and a field no rule uses is never computed (rules-language.md §8; issue 3).
 */
import type { FieldDecl, Scheme } from "./scheme";
import type { Value } from "./values";

const UNSET: unique symbol = Symbol("unset");

export class EvaluationContext {
  private readonly memo: (Value | undefined | typeof UNSET)[];

  constructor(
    readonly scheme: Scheme,
    private readonly produce: (field: FieldDecl) => Value | undefined,
  ) {
    this.memo = new Array<Value | undefined | typeof UNSET>(scheme.fields.length).fill(UNSET);
  }

  /** The value of field `index` (missing: undefined). */
  get(index: number): Value | undefined {
    const cached = this.memo[index];
    if (cached !== UNSET) return cached;
    const field = this.scheme.fields[index];
    const value = field === undefined ? undefined : this.produce(field);
    this.memo[index] = value;
    return value;
  }
}

/** A context from ready values (tests, benchmarks); names not given are missing. */
export function contextFromValues(scheme: Scheme, values: Readonly<Record<string, Value | undefined>>): EvaluationContext {
  return new EvaluationContext(scheme, (field) => (Object.hasOwn(values, field.name) ? values[field.name] : undefined));
}
