/**
 * The trace of one run of the custom error rules (docs/custom-errors.md "Why did my rule not match"): what
 * `firstMatch` (src/rules/rule-list.ts) did on the rule list traffic uses, recorded by a tracer in that loop, turned
 * into one outcome per stored rule:
 *
 *   match · no-match · over-budget   the loop evaluated the rule (its units from the request's budget,
 *                                    src/rules/budget.ts)
 *   skipped-by-index                 the rule index (src/rules/rule-index.ts) left it out: its guard cannot match
 *                                    this request
 *   not-reached                      after the first match, or the rule step did not run at all
 *   disabled · unusable              not in the compiled list (`enabled: false`; an expression that no longer compiles)
 *
 * plus the values of the fields the rules read, once per field and bounded (`MAX_SHOWN_*`): the answer to "why did
 * my rule not match" is usually a value that is not what the author thought (a normalised path, a lower-cased
 * header name, a missing `CF-Connecting-IP`). Reading a field here costs no budget: fields are memoised in the
 * context the loop used, and extracting one is bounded by the request (docs/rules-language.md).
 */
import type { EvaluationContext } from "../../rules/context";
import type { RuleOutcome } from "../../rules/rule";
import type { RuleList, RuleListTracer } from "../../rules/rule-list";
import { fromByteString, type Value, type ValueArray, type ValueMap } from "../../rules/values";
import type { StoredRule } from "../../state/zone/rulesets/validate";

/** A traced rule's outcome (the type and the document's enum). */
export const TRACED_OUTCOMES = [
  "match",
  "no-match",
  "over-budget",
  "skipped-by-index",
  "not-reached",
  "disabled",
  "unusable",
] as const;
export type TracedOutcome = (typeof TRACED_OUTCOMES)[number];

export interface RuleTrace {
  /** 0-based position in the ruleset as stored (or sent in the draft). */
  readonly index: number;
  readonly id: string;
  readonly description: string;
  readonly expression: string;
  readonly outcome: TracedOutcome;
  /** Budget units the evaluation spent (0 when not evaluated). */
  readonly cost: number;
  /** Why, when the outcome has a reason: the budget's message, the index's guard, the compile error. */
  readonly reason?: string;
  /** The fields the expression reads (canonical names); their values are in the trace's `fields`. */
  readonly fields?: readonly string[];
}

/** A field's value as shown: JSON, bounded. */
export type ShownValue =
  string | number | boolean | null | readonly ShownValue[] | { readonly [k: string]: ShownValue };

/** Strings are cut to this many characters, arrays and maps to this many entries (the rest counted). */
export const MAX_SHOWN_CHARS = 256;
export const MAX_SHOWN_ENTRIES = 16;

/** Records the evaluations of one `firstMatch` run (the rule step runs at most once per error). */
export class RuleRecorder implements RuleListTracer {
  readonly evaluations = new Map<number, { readonly outcome: RuleOutcome; readonly units: number }>();
  matched: number | undefined;
  ran = false;
  context: EvaluationContext | undefined;

  started(ctx: EvaluationContext): void {
    this.ran = true;
    this.context = ctx;
  }

  evaluated(position: number, outcome: RuleOutcome, units: number): void {
    this.evaluations.set(position, { outcome, units });
    if (outcome.kind === "match") this.matched = position;
  }

  /** The units the run spent: what the rules took from the request's budget. */
  get units(): number {
    let sum = 0;
    for (const e of this.evaluations.values()) sum += e.units;
    return sum;
  }
}

/**
 * One outcome per stored rule, in stored order, and the values of the fields read. The rule step does not run for
 * an origin response under 400, or on a zone whose plan does not serve rules: every enabled rule is then
 * `not-reached`.
 */
export function ruleTraces(
  stored: readonly StoredRule[],
  /** The phase's compiled list: custom errors', or a request phase's (src/api/explain/request-phases.ts). */
  compiled: { readonly rules: RuleList },
  recorder: RuleRecorder,
): { readonly rules: RuleTrace[]; readonly fields: Record<string, ShownValue> } {
  const positions = new Map(compiled.rules.rules.map((entry, position) => [entry.id, position]));
  const problems = new Map(compiled.rules.problems.map((p) => [p.ruleId, p.reason]));
  const ctx = recorder.context;
  const fields: Record<string, ShownValue> = {};
  const rules = stored.map((rule, index): RuleTrace => {
    const base = { index, id: rule.id, description: rule.description, expression: rule.expression };
    if (!rule.enabled) return { ...base, outcome: "disabled", cost: 0, reason: "enabled is false" };
    const position = positions.get(rule.id);
    if (position === undefined) {
      const reason = problems.get(rule.id) ?? "not in the compiled list (nothing to serve)";
      return { ...base, outcome: "unusable", cost: 0, reason };
    }
    const entry = compiled.rules.rules[position];
    const read = entry?.rule.fields ?? [];
    if (ctx !== undefined)
      for (const name of read) if (!Object.hasOwn(fields, name)) fields[name] = shownField(ctx, name);
    const withFields = { ...base, fields: read };
    const evaluation = recorder.evaluations.get(position);
    if (evaluation !== undefined) {
      const { outcome, units } = evaluation;
      return outcome.kind === "over-budget"
        ? { ...withFields, outcome: "over-budget", cost: units, reason: outcome.reason }
        : { ...withFields, outcome: outcome.kind, cost: units };
    }
    if (!recorder.ran) return { ...withFields, outcome: "not-reached", cost: 0, reason: "the rule step did not run" };
    if (recorder.matched !== undefined && position > recorder.matched)
      return { ...withFields, outcome: "not-reached", cost: 0, reason: "an earlier rule matched" };
    return { ...withFields, outcome: "skipped-by-index", cost: 0, reason: guardReason(entry?.rule, ctx) };
  });
  return { rules, fields };
}

/** Why the index left a rule out: its guard field, the values it needs, the value the request has. */
function guardReason(
  rule: { readonly guard: { readonly field: number; readonly values: readonly Value[] } | null } | undefined,
  ctx: EvaluationContext | undefined,
): string {
  const guard = rule?.guard;
  if (guard === null || guard === undefined || ctx === undefined) return "the rule index left it out";
  const name = ctx.scheme.fields[guard.field]?.name ?? "a field";
  const needs = guard.values.slice(0, MAX_SHOWN_ENTRIES).map((v) => JSON.stringify(shown(v)));
  const more = guard.values.length > MAX_SHOWN_ENTRIES ? `, … ${guard.values.length - MAX_SHOWN_ENTRIES} more` : "";
  const value = ctx.get(guard.field);
  const has = value === undefined ? "no value" : JSON.stringify(shown(value));
  return `the rule index left it out: it needs ${name} in {${needs.join(", ")}${more}}, the request has ${has}`;
}

function shownField(ctx: EvaluationContext, name: string): ShownValue {
  const decl = ctx.scheme.field(name);
  if (decl === undefined) return null;
  const value = ctx.get(decl.index);
  return value === undefined ? null : shown(value, decl.type.kind === "Ip");
}

/** A value as JSON: Bytes decoded as UTF-8, IPs written out, cut to the bounds. */
export function shown(value: Value | undefined, ip = false): ShownValue {
  if (value === undefined) return null;
  if (typeof value === "string") return cut(fromByteString(value));
  if (typeof value === "boolean") return value;
  if (typeof value === "bigint") return ipv6(value);
  if (typeof value === "number") return ip ? ipv4(value) : value;
  if (Array.isArray(value)) {
    const list = value as ValueArray;
    const items = list.slice(0, MAX_SHOWN_ENTRIES).map((v) => shown(v, ip));
    return list.length > MAX_SHOWN_ENTRIES ? [...items, `… ${list.length - MAX_SHOWN_ENTRIES} more`] : items;
  }
  const map = value as ValueMap;
  const out: Record<string, ShownValue> = {};
  let count = 0;
  for (const [key, v] of map) {
    if (count++ === MAX_SHOWN_ENTRIES) {
      out["…"] = `${map.size - MAX_SHOWN_ENTRIES} more`;
      break;
    }
    out[cut(fromByteString(key))] = shown(v);
  }
  return out;
}

function cut(text: string): string {
  return text.length <= MAX_SHOWN_CHARS ? text : `${text.slice(0, MAX_SHOWN_CHARS)}… (${text.length} characters)`;
}

function ipv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join(".");
}

function ipv6(n: bigint): string {
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(((n >> shift) & 0xffffn).toString(16));
  return groups.join(":");
}
