/**
 * The account's tag policy (docs/tags-api.md "Policies"): allowed keys, allowed values per key (a list, or an RE2
 * pattern the whole value must match), required keys per resource type, and a key case rule; `advisory` reports
 * violations in `messages`, `enforced` refuses the write. Pure: parsing, compiling and evaluating, no storage.
 *
 * Patterns run on re2js (linear in the value, no backtracking), compiled with the rules engine's bounds: the
 * counted repetitions are budgeted before compiling, the program size is capped, and the lazy DFA is bounded
 * (src/rules/regex.ts), so a hostile pattern costs a bounded compile and a linear run on a value of at most
 * 1,024 code points.
 */
import { RE2JS } from "re2js";
import { boundDfa, MAX_REGEX_PROGRAM_SIZE, MAX_REPETITION_BUDGET, repetitionCost } from "../../rules/regex";
import { err, messageOf, ok, type Result } from "../../shared/result";
import { MAX_KEY_CODE_POINTS, MAX_VALUE_CODE_POINTS, type PolicyViolation } from "./errors";
import { isKnownResourceType } from "./resource-types";
import { codePointLength, isWellFormed } from "./text";
import type { TagPairs } from "./types";

export const POLICY_MODES = ["advisory", "enforced"] as const;
export type PolicyMode = (typeof POLICY_MODES)[number];
export const KEY_CASES = ["any", "lower", "upper"] as const;
export type KeyCase = (typeof KEY_CASES)[number];

/** Bounds of one policy (docs/tags-api.md "Policies"), so evaluating a write stays cheap. */
export const MAX_POLICY_KEYS = 1_000;
export const MAX_POLICY_VALUES = 1_000;
export const MAX_PATTERN_CODE_POINTS = 256;
export const MAX_PATTERNS = 100;

/** A rule on one key's values: an explicit list, or a pattern the whole value must match. */
export type ValueRule = { readonly values: readonly string[] } | { readonly pattern: string };

/** The policy as stored and as the API shows it. */
export interface TagPolicy {
  readonly mode: PolicyMode;
  readonly key_case: KeyCase;
  /** null: any valid key is allowed. */
  readonly allowed_keys: readonly string[] | null;
  readonly allowed_values: Readonly<Record<string, ValueRule>>;
  readonly required_keys: Readonly<Record<string, readonly string[]>>;
  readonly updated_at?: string;
}

/** The policy of an account that never set one: allows everything, reports nothing. */
export const NO_POLICY: TagPolicy = {
  mode: "advisory",
  key_case: "any",
  allowed_keys: null,
  allowed_values: {},
  required_keys: {},
};

const TAG_KEY = /^[\p{L}\p{Mn}\p{Mc}\p{Nd}_.\-]+$/u;

function isKey(value: unknown): value is string {
  return typeof value === "string" && TAG_KEY.test(value) && codePointLength(value) <= MAX_KEY_CODE_POINTS;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function keyList(value: unknown, where: string): Result<string[], string> {
  if (!Array.isArray(value)) return err(`${where} must be an array of tag keys`);
  const list: readonly unknown[] = value;
  if (list.length > MAX_POLICY_KEYS) return err(`${where} has more than ${MAX_POLICY_KEYS} keys`);
  const keys = list.filter(isKey);
  if (keys.length !== list.length)
    return err(`${where}: ${JSON.stringify(list.find((k) => !isKey(k)))} is not a valid tag key`);
  return ok([...new Set(keys)]);
}

/** Compiles a value pattern with the rules engine's bounds; the whole value must match (docs/tags-api.md). */
export function compilePattern(pattern: string): Result<RE2JS, string> {
  if (!isWellFormed(pattern) || codePointLength(pattern) > MAX_PATTERN_CODE_POINTS)
    return err(`a pattern is at most ${MAX_PATTERN_CODE_POINTS} characters`);
  if (repetitionCost(pattern) > MAX_REPETITION_BUDGET)
    return err(`counted repetitions over ${MAX_REPETITION_BUDGET} in all`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (e) {
    return err(`invalid RE2 pattern: ${messageOf(e).replace(/^error parsing regexp: /, "")}`);
  }
  if (re.programSize() > MAX_REGEX_PROGRAM_SIZE)
    return err(`pattern too large (compiled program over ${MAX_REGEX_PROGRAM_SIZE} instructions)`);
  boundDfa(re);
  return ok(re);
}

/** Validates a `PUT /tags/policy` body into a policy (every failure is 1022 with its reason). */
export function parsePolicy(body: unknown): Result<TagPolicy, string> {
  if (!isPlainObject(body)) return err("the body must be a JSON object");
  const known = new Set(["mode", "key_case", "allowed_keys", "allowed_values", "required_keys"]);
  const extra = Object.keys(body).find((k) => !known.has(k));
  if (extra !== undefined) return err(`unknown field ${JSON.stringify(extra)}`);
  const mode = body.mode ?? "advisory";
  if (!POLICY_MODES.includes(mode as PolicyMode)) return err('mode must be "advisory" or "enforced"');
  const keyCase = body.key_case ?? "any";
  if (!KEY_CASES.includes(keyCase as KeyCase)) return err('key_case must be "any", "lower" or "upper"');
  let allowedKeys: string[] | null = null;
  if (body.allowed_keys !== undefined && body.allowed_keys !== null) {
    const keys = keyList(body.allowed_keys, "allowed_keys");
    if (!keys.ok) return keys;
    allowedKeys = keys.value;
  }
  const allowedValues: Record<string, ValueRule> = {};
  const rawValues = body.allowed_values ?? {};
  if (!isPlainObject(rawValues)) return err("allowed_values must be an object of key → {values} or {pattern}");
  let patterns = 0;
  for (const [key, rule] of Object.entries(rawValues)) {
    if (!isKey(key)) return err(`allowed_values: ${JSON.stringify(key)} is not a valid tag key`);
    if (!isPlainObject(rule) || Object.keys(rule).length !== 1)
      return err(`allowed_values.${key} must be {"values": [...]} or {"pattern": "..."}`);
    if ("values" in rule) {
      const raw: unknown = rule.values;
      if (!Array.isArray(raw) || raw.length > MAX_POLICY_VALUES)
        return err(`allowed_values.${key}.values must be an array of at most ${MAX_POLICY_VALUES} strings`);
      const list: readonly unknown[] = raw;
      const isValue = (v: unknown): v is string =>
        typeof v === "string" && isWellFormed(v) && codePointLength(v) <= MAX_VALUE_CODE_POINTS;
      const values = list.filter(isValue);
      if (values.length !== list.length)
        return err(
          `allowed_values.${key}.values: ${JSON.stringify(list.find((v) => !isValue(v)))} is not a valid value`,
        );
      allowedValues[key] = { values: [...new Set(values)] };
    } else if ("pattern" in rule) {
      if (typeof rule.pattern !== "string") return err(`allowed_values.${key}.pattern must be a string`);
      if (++patterns > MAX_PATTERNS) return err(`at most ${MAX_PATTERNS} patterns`);
      const compiled = compilePattern(rule.pattern);
      if (!compiled.ok) return err(`allowed_values.${key}.pattern: ${compiled.error}`);
      allowedValues[key] = { pattern: rule.pattern };
    } else return err(`allowed_values.${key} must be {"values": [...]} or {"pattern": "..."}`);
  }
  const required: Record<string, readonly string[]> = {};
  const rawRequired = body.required_keys ?? {};
  if (!isPlainObject(rawRequired)) return err("required_keys must be an object of resource type → keys");
  for (const [type, keys] of Object.entries(rawRequired)) {
    if (!isKnownResourceType(type)) return err(`required_keys: unknown resource type ${JSON.stringify(type)}`);
    const list = keyList(keys, `required_keys.${type}`);
    if (!list.ok) return list;
    if (list.value.length > 0) required[type] = list.value;
  }
  return ok({
    mode: mode as PolicyMode,
    key_case: keyCase as KeyCase,
    allowed_keys: allowedKeys,
    allowed_values: allowedValues,
    required_keys: required,
  });
}

/** A policy ready to evaluate: sets and compiled patterns. */
export interface CompiledPolicy {
  readonly policy: TagPolicy;
  /** True when the policy has no rule at all (nothing to evaluate). */
  readonly empty: boolean;
  check(type: string, tags: TagPairs, changed: ReadonlySet<string> | null): PolicyViolation[];
}

export function compilePolicy(policy: TagPolicy): CompiledPolicy {
  const allowedKeys = policy.allowed_keys === null ? null : new Set(policy.allowed_keys);
  const valueTests = new Map<string, (value: string) => boolean>();
  for (const [key, rule] of Object.entries(policy.allowed_values)) {
    if ("values" in rule) {
      const set = new Set(rule.values);
      valueTests.set(key, (v) => set.has(v));
    } else {
      const re = compilePattern(rule.pattern);
      // A stored pattern compiled when it was set; if a later build refused it, nothing matches (reported).
      valueTests.set(key, re.ok ? (v) => re.value.matches(v) : () => false);
    }
  }
  const empty =
    policy.key_case === "any" &&
    allowedKeys === null &&
    valueTests.size === 0 &&
    Object.keys(policy.required_keys).length === 0;
  return {
    policy,
    empty,
    /**
     * The violations of one resource's tag set. `changed` = the keys the write sets (their values new or
     * different): only they are held to the key, value and case rules, so a tag stored before the policy does not
     * block an unrelated write; required keys are checked on the whole set. `null`: check every key (compliance).
     * An empty set is never a violation: the resource has left the tagged resources.
     */
    check(type, tags, changed) {
      if (empty || tags.length === 0) return [];
      const out: PolicyViolation[] = [];
      for (const [key, value] of tags) {
        if (changed !== null && !changed.has(key)) continue;
        if (allowedKeys !== null && !allowedKeys.has(key)) out.push({ kind: "key-not-allowed", key });
        else {
          const test = valueTests.get(key);
          if (test && !test(value)) out.push({ kind: "value-not-allowed", key, value });
        }
        if (policy.key_case === "lower" && key !== key.toLowerCase())
          out.push({ kind: "key-case", key, case: "lower" });
        if (policy.key_case === "upper" && key !== key.toUpperCase())
          out.push({ kind: "key-case", key, case: "upper" });
      }
      const required = policy.required_keys[type];
      if (required) {
        const present = new Set(tags.map(([k]) => k));
        for (const key of required) if (!present.has(key)) out.push({ kind: "required-key-missing", key, type });
      }
      return out;
    },
  };
}
