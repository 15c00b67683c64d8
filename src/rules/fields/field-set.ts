/**
 * A field set: a scheme whose every field has an extractor. `context(input)` gives an EvaluationContext whose
 * values are extracted on first use and memoised, so a rule that never mentions a field never pays for it.
 */
import { requestBudget, type RequestBudget } from "../budget";
import { EvaluationContext } from "../context";
import { defineScheme, type Scheme } from "../scheme";
import type { Type } from "../types";
import type { Value } from "../values";
import { RequestFacts, type RuleInput } from "./input";

export interface FieldDef {
  readonly type: Type;
  /** Where the value comes from, for docs/rules-language.md's field table. */
  readonly source: string;
  readonly extract: (facts: RequestFacts) => Value | undefined;
}

export interface FieldSet {
  readonly scheme: Scheme;
  readonly definitions: Readonly<Record<string, FieldDef>>;
  readonly aliases: Readonly<Record<string, string>>;
  /** The context of one evaluation; its budget is the request's (budget.ts) unless one is given (benchmarks). */
  context(input: RuleInput, budget?: RequestBudget): EvaluationContext;
}

export function defineFieldSet(
  definitions: Readonly<Record<string, FieldDef>>,
  aliases: Readonly<Record<string, string>> = {},
): FieldSet {
  const types: Record<string, Type> = {};
  for (const [name, def] of Object.entries(definitions)) types[name] = def.type;
  const scheme = defineScheme(types, aliases);
  const extractors = scheme.fields.map((f) => definitions[f.name]?.extract);
  return {
    scheme,
    definitions,
    aliases,
    context(input, budget) {
      const facts = new RequestFacts(input);
      // Every context of one request draws on the request's one budget (budget.ts), whichever phase builds it.
      return new EvaluationContext(
        scheme,
        (field) => extractors[field.index]?.(facts),
        budget ?? (() => requestBudget(input.request)),
      );
    },
  };
}
