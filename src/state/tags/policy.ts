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
import * as z from "zod/mini";
import { isObject } from "../../shared/validation";
import { err, messageOf, ok, type Result } from "../../shared/result";
import { dateTime, described, later, oneOf, pathOf, type Answer } from "../../shared/schema";
import type { PolicyViolation } from "./errors";
import { RESOURCE_TYPE_KEY, TAG_KEY, TAG_VALUE } from "./tag-schema";
import { codePointLength, isWellFormed } from "./text";
import type { TagPairs } from "./types";

/** Bounds of one policy (docs/tags-api.md "Policies"), so evaluating a write stays cheap. */
export const MAX_POLICY_KEYS = 1_000;
export const MAX_POLICY_VALUES = 1_000;
export const MAX_PATTERN_CODE_POINTS = 256;
export const MAX_PATTERNS = 100;

/** The policy of an account that never set one: allows everything, reports nothing. */
export const NO_POLICY: TagPolicy = {
  mode: "advisory",
  key_case: "any",
  allowed_keys: null,
  allowed_values: {},
  required_keys: {},
};

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

/** What a refusal says after the field's path: its own separator first (`mode must be …`, `allowed_keys: "x" is …`). */
const says = (rule: string): string => ` ${rule}`;

/** How a policy applies (also what `GET …/policy/required_keys` answers per row). */
export const POLICY_MODE = later(() => oneOf(["advisory", "enforced"], says('must be "advisory" or "enforced"')), {
  id: "TagPolicyMode",
  description:
    "advisory (the default): violations reported in `messages`; enforced: a write that breaks it is refused (1023–1026)",
  example: "enforced",
});

/** The keys of `allowed_keys` and of one resource type's `required_keys`. */
export const POLICY_KEYS = later(() =>
  z
    .array(TAG_KEY(), { error: says("must be an array of tag keys") })
    .check(z.maxLength(MAX_POLICY_KEYS, { error: says(`has more than ${MAX_POLICY_KEYS} keys`) })),
);

/** The branches of a value rule, by the one field that chooses it. */
const RULE_FIELDS = ["values", "pattern"] as const;

const countPatterns = (values: unknown): number =>
  typeof values === "object" && values !== null
    ? Object.values(values).filter((rule) => typeof rule === "object" && rule !== null && "pattern" in rule).length
    : 0;

/** A rule on one key's values: a list of values, or a pattern (the union's branches in `RULE_FIELDS` order). */
function valueRule() {
  const values = says(`must be an array of at most ${MAX_POLICY_VALUES} strings`);
  const pattern = described(
    z.string({ error: says("must be a string") }).check(
      z.refine((pattern: string) => compilePattern(pattern).ok, {
        error: (issue) => {
          const compiled = typeof issue.input === "string" ? compilePattern(issue.input) : null;
          return `: ${compiled === null || compiled.ok ? "is not valid" : compiled.error}`;
        },
      }),
      z.meta({ maxLength: MAX_PATTERN_CODE_POINTS }),
    ),
    "RE2 syntax; the whole value must match.",
  );
  return z.union(
    [
      z.strictObject({
        values: z.array(TAG_VALUE(), { error: values }).check(z.maxLength(MAX_POLICY_VALUES, { error: values })),
      }),
      z.strictObject({ pattern }),
    ],
    { error: says('must be {"values": [...]} or {"pattern": "..."}') },
  );
}

/** The policy as stored and as the API shows it (`GET`, `PUT …/tags/policy`); its fields are the body's. */
export const TAG_POLICY = later(
  () =>
    z.object({
      mode: POLICY_MODE(),
      key_case: described(oneOf(["any", "lower", "upper"], says('must be "any", "lower" or "upper"')), {
        description: "The case every key set must have",
        default: "any",
      }),
      allowed_keys: z.nullable(described(POLICY_KEYS(), "`null` (or absent from a body): any key.")),
      allowed_values: z
        .record(TAG_KEY(), valueRule(), {
          error: (issue) =>
            issue.code === "invalid_key"
              ? `: ${JSON.stringify(issue.input)} is not a valid tag key`
              : says("must be an object of key → {values} or {pattern}"),
        })
        .check(
          z.meta({
            description: `Per key, a list of values or an RE2 pattern; at most ${MAX_PATTERNS} patterns in all.`,
            "x-max-patterns": MAX_PATTERNS,
          }),
        ),
      required_keys: described(
        z.record(RESOURCE_TYPE_KEY(), POLICY_KEYS(), {
          error: (issue) =>
            issue.code === "invalid_key"
              ? `: unknown resource type ${JSON.stringify(issue.input)}`
              : says("must be an object of resource type → keys"),
        }),
        "Resource type → keys; a stored policy leaves out a type with no keys.",
      ),
      updated_at: z.optional(dateTime()),
    }),
  {
    id: "TagPolicy",
    description: "The stored policy: the fields of TagPolicyBody, each filled in, and when it was set.",
  },
);
export type TagPolicy = Answer<typeof TAG_POLICY>;
/** A rule on one key's values: an explicit list, or a pattern the whole value must match. */
export type ValueRule = TagPolicy["allowed_values"][string];

/**
 * `PUT /accounts/{a}/tags/policy` (docs/tags-api.md "Policies"): the stored policy's fields, each of which the body
 * may leave out or `null` (its default).
 */
export const TAG_POLICY_BODY = later(
  () => {
    const { mode, key_case, allowed_keys, allowed_values, required_keys } = TAG_POLICY().shape;
    return z
      .strictObject(
        {
          mode: z.optional(z.nullable(mode)),
          key_case: z.optional(z.nullable(key_case)),
          allowed_keys: z.optional(allowed_keys),
          allowed_values: z.optional(z.nullable(allowed_values)),
          required_keys: z.optional(z.nullable(required_keys)),
        },
        {
          error: (issue) =>
            issue.code === "unrecognized_keys"
              ? `unknown field ${JSON.stringify(issue.keys[0])}`
              : "the body must be a JSON object",
        },
      )
      .check(
        // A count over the map's entries: no per-field bound says it (the document carries it as x-max-patterns).
        z.refine((policy) => countPatterns(policy.allowed_values) <= MAX_PATTERNS, {
          error: `at most ${MAX_PATTERNS} patterns`,
        }),
      );
  },
  {
    id: "TagPolicyBody",
    description:
      'The account\'s tag policy (docs/tags-api.md "Policies"); every failure is 1022 with the field and reason.',
    example: {
      mode: "enforced",
      key_case: "lower",
      allowed_keys: ["env", "team", "cost-center"],
      allowed_values: { env: { values: ["prod", "staging", "dev"] }, team: { pattern: "[a-z][a-z0-9-]*" } },
      required_keys: { worker: ["team", "env"], r2_bucket: ["team"] },
    },
  },
);

/**
 * The refusal of a policy body, in the order docs/tags-api.md gives: the body's unknown field first, then field by
 * field, entries in the order sent; a list's own size before its items.
 */
function firstIssue(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue | undefined {
  const first = issues.find((issue) => issue.code === "unrecognized_keys" && issue.path.length === 0) ?? issues[0];
  if (first === undefined) return undefined;
  const within = first.path;
  const size = issues.find(
    (issue) =>
      issue.code === "too_big" && issue.path.length < within.length && issue.path.every((s, i) => within[i] === s),
  );
  return size ?? first;
}

/**
 * What a refusal says: the field's path and its rule. An item of a list or a key of a map is named by its list or
 * map and its value (the rule's own `: …`); a value rule that names exactly one of `values` and `pattern` is that
 * branch, and its refusal is the branch's.
 */
function refusalOf(issue: z.core.$ZodIssue | undefined, prefix: readonly PropertyKey[] = []): string {
  if (issue === undefined) return "is not valid";
  const path = [...prefix, ...issue.path];
  if (issue.code === "invalid_union") {
    const given = isObject(issue.input) ? Object.keys(issue.input) : [];
    const branch = given.length === 1 ? RULE_FIELDS.findIndex((field) => field === given[0]) : -1;
    const inner = issue.errors[branch];
    if (inner !== undefined) return refusalOf(firstIssue(inner), path);
  }
  const item = issue.code === "invalid_key" || typeof path[path.length - 1] === "number";
  const where = pathOf(item ? path.slice(0, -1) : path);
  return where === "" ? issue.message.replace(/^:? /, "") : `${where}${issue.message}`;
}

/** Validates a `PUT /tags/policy` body into a policy (every failure is 1022 with its reason). */
export function parsePolicy(body: unknown): Result<TagPolicy, string> {
  const parsed = TAG_POLICY_BODY().safeParse(body, { reportInput: true, error: () => says("is not valid") });
  if (!parsed.success) return err(refusalOf(firstIssue(parsed.error.issues)));
  const given = parsed.data;
  const allowedValues: Record<string, ValueRule> = {};
  for (const [key, rule] of Object.entries(given.allowed_values ?? {}))
    allowedValues[key] = "values" in rule ? { values: [...new Set(rule.values)] } : { pattern: rule.pattern };
  const required: Record<string, readonly string[]> = {};
  for (const [type, keys] of Object.entries(given.required_keys ?? {}))
    if (keys.length > 0) required[type] = [...new Set(keys)];
  return ok({
    mode: given.mode ?? "advisory",
    key_case: given.key_case ?? "any",
    allowed_keys:
      given.allowed_keys === undefined || given.allowed_keys === null ? null : [...new Set(given.allowed_keys)],
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
