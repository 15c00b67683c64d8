/**
 * Every write of the rulesets API (docs/configuration.md "rulesets, rules, versions"; docs/rulesets-api.md) as one pure
 * function of the zone document: replace a phase's entry point, create / update / delete a ruleset, add a rule at a
 * position, edit one rule (position included), delete one rule. No bindings: the zone's writer of record
 * (writer.ts) applies it inside its serialised section, so concurrent rule-level edits never work from a stale
 * ruleset, and a dry run applies it to the document it read and stores nothing.
 *
 * Every edit ends in `parseRuleset` over the whole resulting rule list: one validator, so a rule added alone meets
 * exactly the limits (rules per plan, the zone's regex program size, the evaluation budget of the request phases on
 * the zone's largest request: worst-case.ts) and the version history (an unchanged rule keeps its version) of a
 * whole-ruleset PUT. Issues about the rule the request sent are named by the request's own
 * fields (`expression`, `position.before`), not by the rule's index in the stored list.
 */
import * as z from "zod/mini";
import { err, ok, type Result } from "../../../shared/result";
import { described, fields, later, oneOf, parseAt, parseWith } from "../../../shared/schema";
import { isObject, oneIssue, type IssueKind } from "../../../shared/validation";
import type { Plan, ZoneDocument } from "../schema";
import { PHASES, isPhase, type Phase } from "./phases";
import { storedRuleset } from "./stored";
import { missingAssetIssues } from "../custom-pages/assets";
import {
  parseRuleset,
  RULE_BODY,
  rulesetProgramSize,
  type RulesetFailure,
  type StoredRule,
  type StoredRuleset,
} from "./validate";
import { budgetScope } from "./stored-cost";
import { isRequestPhase } from "./worst-case";
import { HEX_ID } from "../../../shared/crypto";

/** One write of the rulesets API, as plain data (it crosses the RPC boundary to the zone's writer). */
export type RulesetEdit =
  /** `PUT …/rulesets/phases/{phase}/entrypoint`: creates the phase's ruleset when it has none. */
  | { readonly kind: "replace-phase"; readonly phase: string; readonly body: unknown }
  /** `POST /zones/{zone}/rulesets`. */
  | { readonly kind: "create"; readonly body: unknown }
  /** `PUT /zones/{zone}/rulesets/{ruleset}`. */
  | { readonly kind: "update"; readonly rulesetId: string; readonly body: unknown }
  /** `DELETE /zones/{zone}/rulesets/{ruleset}`: the ruleset and every version of it. */
  | { readonly kind: "delete"; readonly rulesetId: string }
  /** `POST /zones/{zone}/rulesets/{ruleset}/rules`. */
  | { readonly kind: "add-rule"; readonly rulesetId: string; readonly body: unknown }
  /** `PATCH /zones/{zone}/rulesets/{ruleset}/rules/{rule}`. */
  | { readonly kind: "edit-rule"; readonly rulesetId: string; readonly ruleId: string; readonly body: unknown }
  /** `DELETE /zones/{zone}/rulesets/{ruleset}/rules/{rule}`. */
  | { readonly kind: "delete-rule"; readonly rulesetId: string; readonly ruleId: string };

export type RulesetEditFailure =
  | RulesetFailure
  /** No ruleset with that id in this zone (another zone's id included): 404. */
  | { readonly kind: "unknown-ruleset"; readonly id: string }
  /** No rule with that id in the ruleset: 404. */
  | { readonly kind: "unknown-rule"; readonly rulesetId: string; readonly ruleId: string }
  /** A zone has one ruleset per phase, its entry point; create refuses a second one. */
  | { readonly kind: "phase-taken"; readonly phase: Phase; readonly id: string }
  | { readonly kind: "unknown-phase"; readonly phase: string };

/** What an edit leaves: the phase's ruleset after it (`null`: the ruleset was deleted). */
export interface RulesetEdited {
  readonly phase: Phase;
  readonly ruleset: StoredRuleset | null;
  /** The ruleset's id before the edit (the deleted one's for a delete). */
  readonly id: string;
}

/** A ruleset of the zone by id, with its phase. Ids are 32 lower-case hex; anything else is no ruleset. */
export function findRuleset(
  document: ZoneDocument,
  id: string,
): { readonly phase: Phase; readonly ruleset: StoredRuleset } | null {
  if (!HEX_ID.test(id)) return null;
  for (const phase of PHASES) {
    const ruleset = storedRuleset(document, phase);
    if (ruleset?.id === id) return { phase, ruleset };
  }
  return null;
}

/** Applies one edit to the zone document of a zone on `plan`. Pure: `newId` mints ids, `now` stamps. */
export function applyRulesetEdit(
  document: ZoneDocument,
  plan: Plan,
  edit: RulesetEdit,
  now: Date,
  newId: () => string,
): Result<RulesetEdited, RulesetEditFailure> {
  const others = (phase: Phase): number =>
    PHASES.filter((p) => p !== phase).reduce((n, p) => n + rulesetProgramSize(p, storedRuleset(document, p)), 0);
  const parse = (
    body: unknown,
    phase: Phase,
    previous: StoredRuleset | null,
  ): Result<StoredRuleset, RulesetFailure> => {
    // A request phase's rules must fit the evaluation budget on the zone's largest request (worst-case.ts).
    const budget = isRequestPhase(phase) ? budgetScope(document, phase) : undefined;
    const parsed = parseRuleset(body, phase, {
      plan,
      previous,
      now,
      newId,
      otherPhasesProgramSize: others(phase),
      budget,
    });
    if (!parsed.ok) return parsed;
    // An asset a rule names must exist in the document this edit is applied to (docs/custom-errors.md).
    const missing = missingAssetIssues(parsed.value.rules, document);
    return missing === null ? parsed : err(missing);
  };
  const done = (phase: Phase, id: string, parsed: Result<StoredRuleset, RulesetFailure>) =>
    parsed.ok ? ok({ phase, id, ruleset: parsed.value }) : parsed;

  switch (edit.kind) {
    case "replace-phase": {
      if (!isPhase(edit.phase)) return err({ kind: "unknown-phase", phase: edit.phase });
      const previous = storedRuleset(document, edit.phase);
      return done(edit.phase, previous?.id ?? "", parse(edit.body, edit.phase, previous));
    }
    case "create": {
      const head = readCreate(edit.body);
      if (!head.ok) return head;
      const existing = storedRuleset(document, head.value);
      if (existing) return err({ kind: "phase-taken", phase: head.value, id: existing.id });
      // `rules` may be left out on create (an empty ruleset), as published.
      const body = isObject(edit.body) && edit.body.rules === undefined ? { ...edit.body, rules: [] } : edit.body;
      return done(head.value, "", parse(body, head.value, null));
    }
    case "update": {
      const found = findRuleset(document, edit.rulesetId);
      if (!found) return err({ kind: "unknown-ruleset", id: edit.rulesetId });
      return done(found.phase, found.ruleset.id, parse(edit.body, found.phase, found.ruleset));
    }
    case "delete": {
      // Allowed on every plan: removing rules never gives a zone a feature its plan lacks (docs/rulesets-api.md).
      const found = findRuleset(document, edit.rulesetId);
      if (!found) return err({ kind: "unknown-ruleset", id: edit.rulesetId });
      return ok({ phase: found.phase, id: found.ruleset.id, ruleset: null });
    }
    case "add-rule":
    case "edit-rule":
    case "delete-rule": {
      const found = findRuleset(document, edit.rulesetId);
      if (!found) return err({ kind: "unknown-ruleset", id: edit.rulesetId });
      const placed = placeRule(found.ruleset, edit);
      if (!placed.ok) return placed;
      const parsed = parse({ rules: placed.value.rules }, found.phase, found.ruleset);
      const failure = parsed.ok ? null : parsed.error;
      if ((failure?.kind === "invalid-ruleset" || failure?.kind === "over-budget") && placed.value.index !== null) {
        return err({ kind: failure.kind, issues: renamed(failure.issues, placed.value.index) });
      }
      return done(found.phase, found.ruleset.id, parsed);
    }
  }
}

/**
 * What a create must name before the rest of its body is read (`parseRuleset`'s): `kind`, then `name`, then `phase`,
 * one refusal at a time. The other fields pass through unread.
 */
const RULESET_CREATE_HEAD = later(() =>
  z.looseObject(
    {
      kind: z.literal("zone", {
        error: (issue) =>
          issue.input === undefined
            ? 'is required: "zone"'
            : 'must be "zone": this service holds only zone entry point rulesets',
      }),
      name: z
        .unknown()
        .check(z.refine((name) => name !== undefined, { error: "is required", params: { kind: "missing" } })),
      phase: oneOf(PHASES, (issue) =>
        typeof issue.input === "string"
          ? `must be one of ${PHASES.join(", ")}`
          : `is required: one of ${PHASES.join(", ")}`,
      ),
    },
    { error: "must be a JSON object {name, kind, phase, rules?}" },
  ),
);

/** The phase a create names, after `kind` and `name` (`RULESET_CREATE_HEAD`). */
function readCreate(body: unknown): Result<Phase, RulesetEditFailure> {
  const parsed = parseWith(RULESET_CREATE_HEAD, body, { root: "body", cap: 1 });
  if (parsed.ok) return ok(parsed.value.phase);
  return err({ kind: "invalid-ruleset", issues: { listed: parsed.error.listed.slice(0, 1), more: 0 } });
}

/** A stored rule as a request body would send it (its id kept, so its history is kept). */
function asBody(rule: StoredRule): Record<string, unknown> {
  const { version: _version, last_updated: _updated, ...body } = rule;
  return body;
}

/** The rule list a rule-level edit leaves, and where the request's rule ended up (`null` for a delete). */
function placeRule(
  ruleset: StoredRuleset,
  edit: Extract<RulesetEdit, { kind: "add-rule" | "edit-rule" | "delete-rule" }>,
): Result<{ readonly rules: readonly unknown[]; readonly index: number | null }, RulesetEditFailure> {
  const rules = ruleset.rules.map(asBody);
  if (edit.kind === "delete-rule") {
    const at = ruleset.rules.findIndex((r) => r.id === edit.ruleId);
    if (at < 0) return err({ kind: "unknown-rule", rulesetId: ruleset.id, ruleId: edit.ruleId });
    return ok({ rules: rules.filter((_, i) => i !== at), index: null });
  }
  if (!isObject(edit.body)) {
    return err({ kind: "invalid-ruleset", issues: oneIssue("wrong-type", "body", "must be a JSON object (a rule)") });
  }
  const { position, ...definition } = edit.body;
  if (edit.kind === "add-rule") {
    if (typeof definition.id === "string" && rules.some((r) => r.id === definition.id)) {
      return err({
        kind: "invalid-ruleset",
        issues: oneIssue("duplicate", "id", "is used by another rule of this ruleset (edit that rule instead)"),
      });
    }
    const index = readPosition(position, rules, rules.length + 1, null);
    if (!index.ok) return index;
    return ok({ rules: [...rules.slice(0, index.value), definition, ...rules.slice(index.value)], index: index.value });
  }
  const at = ruleset.rules.findIndex((r) => r.id === edit.ruleId);
  if (at < 0) return err({ kind: "unknown-rule", rulesetId: ruleset.id, ruleId: edit.ruleId });
  if (definition.id !== undefined && definition.id !== edit.ruleId) {
    return err({
      kind: "invalid-ruleset",
      issues: oneIssue("not-allowed", "id", "must be the rule id of the path (a rule's id never changes)"),
    });
  }
  // A body of only `position` moves the rule and keeps its definition (published "change the order of a rule");
  // any other field makes the body the rule's whole new definition (published "update the definition").
  const moved = Object.keys(definition).every((k) => k === "id");
  const rule = moved ? rules[at]! : { ...definition, id: edit.ruleId };
  const rest = rules.filter((_, i) => i !== at);
  const index = position === undefined ? ok(at) : readPosition(position, rest, rules.length, edit.ruleId);
  if (!index.ok) return index;
  return ok({ rules: [...rest.slice(0, index.value), rule, ...rest.slice(index.value)], index: index.value });
}

/** A position's anchor: a rule id (`""`: the first, or the last). */
const ruleAnchor = () => z.string({ error: "must be a rule id (a string)" });
/** A position's index: 1 is the first rule (its upper bound is the ruleset's size, checked after the parse). */
const positionIndex = () => z.int({ error: "must be an integer (1 is the first rule)" }).check(z.minimum(1));
const NOT_A_POSITION_FIELD = "is not a position field";
const POSITION_SHAPE = 'must be an object: {"before": id}, {"after": id} or {"index": n}';

/**
 * `position` as a rule-level write reads it, one refusal at a time in the published API's order: its keys first
 * (an unknown one, then exactly one of the three), then the value's type.
 */
const POSITION = later(() =>
  z.pipe(
    fields(
      { before: z.optional(z.unknown()), after: z.optional(z.unknown()), index: z.optional(z.unknown()) },
      NOT_A_POSITION_FIELD,
      POSITION_SHAPE,
    ).check(
      z.superRefine((position, context) => {
        const keys = Object.keys(position);
        if (keys.length === 1) return;
        context.issues.push({
          code: "custom",
          input: position,
          message: `must have exactly one of before, after or index${keys.length > 1 ? `, not ${keys.join(" and ")}` : ""}`,
          params: { kind: keys.length === 0 ? "missing" : "not-allowed" },
        });
      }),
    ),
    fields(
      { before: z.optional(ruleAnchor()), after: z.optional(ruleAnchor()), index: z.optional(positionIndex()) },
      NOT_A_POSITION_FIELD,
    ),
  ),
);

/**
 * A rule and where to put it, as the document states it: `position` is one of three objects made of the fields
 * `POSITION` reads (its index's upper bound depends on the ruleset).
 */
export const RULE_REQUEST = later(
  () =>
    z.object({
      ...RULE_BODY().shape,
      position: z.optional(
        described(
          z.union([
            fields({ before: ruleAnchor() }, NOT_A_POSITION_FIELD),
            fields({ after: ruleAnchor() }, NOT_A_POSITION_FIELD),
            fields({ index: positionIndex() }, NOT_A_POSITION_FIELD),
          ]),
          'Exactly one of `before` (a rule id; `""` = first), `after` (a rule id; `""` = last) or `index` (1 = ' +
            "first; at most the ruleset's rule count after the write). Absent: last on POST, unchanged on PATCH.",
        ),
      ),
    }),
  {
    id: "RuleRequest",
    description:
      "A rule (`RuleBody`) and where to put it. On PATCH, a body of only `position` moves the rule and keeps its " +
      "definition; any other field makes the body the rule's whole new definition.",
    example: {
      expression: 'http.request.uri.path eq "/wp-login.php"',
      action: "block",
      description: "No WordPress here",
      position: { index: 1 },
    },
  },
);

/**
 * Where `position` puts a rule in `rules` (the other rules of the ruleset), 0-based, per the published Rulesets API:
 * exactly one of `before` (a rule id; `""` = first), `after` (a rule id; `""` = last) or `index` (1 = first, at
 * most `lastIndex`); none (`position` absent) = last. `self` is the rule being moved (it cannot be its own anchor).
 */
function readPosition(
  position: unknown,
  rules: readonly Record<string, unknown>[],
  lastIndex: number,
  self: string | null,
): Result<number, RulesetEditFailure> {
  const issue = (kind: IssueKind, path: string, message: string): Result<never, RulesetEditFailure> =>
    err({ kind: "invalid-ruleset", issues: oneIssue(kind, path, message) });
  if (position === undefined) return ok(rules.length);
  const range = `must be from 1 to ${lastIndex} (the ruleset would have ${lastIndex} rules)`;
  let first: Result<never, RulesetEditFailure> | undefined;
  const parsed = parseAt(POSITION, position, "position", (kind, path, message) => {
    // The index's lower bound is the schema's; its refusal names the range, which depends on the ruleset.
    first ??= issue(kind, path, kind === "out-of-range" && path === "position.index" ? range : message);
  });
  if (parsed === undefined) return first ?? issue("invalid", "position", POSITION_SHAPE);
  const { before, after, index } = parsed;
  if (index !== undefined) return index > lastIndex ? issue("out-of-range", "position.index", range) : ok(index - 1);
  const [key, value] = before !== undefined ? (["before", before] as const) : (["after", after ?? ""] as const);
  if (value === "") return ok(key === "before" ? 0 : rules.length);
  if (value === self) return issue("invalid", `position.${key}`, "must name another rule, not the rule itself");
  const at = rules.findIndex((r) => r.id === value);
  if (at < 0) return issue("invalid", `position.${key}`, `names no rule of this ruleset: ${JSON.stringify(value)}`);
  return ok(key === "before" ? at : at + 1);
}

/** Issues of the list as the request named them: `rules[i].field` of the request's rule becomes `field`. */
function renamed(issues: RulesetFailureIssues, index: number): RulesetFailureIssues {
  const prefix = `rules[${index}].`;
  const listed = issues.listed.map((issue) =>
    issue.path.startsWith(prefix) ? { ...issue, path: issue.path.slice(prefix.length) } : issue,
  );
  return { listed, more: issues.more };
}

type RulesetFailureIssues = Extract<RulesetFailure, { kind: "invalid-ruleset" }>["issues"];
