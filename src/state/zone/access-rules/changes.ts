/**
 * One IP access rule created, edited or deleted (the published `/zones/{zone}/firewall/access_rules/rules[/{id}]`,
 * docs/producers.md "IP access rules"), applied to the zone's stored list. Pure, and the same checks as a whole list
 * written with `PUT /zones/{zone}/access_rules`: the rule goes through `parseAccessRules` (so a value is normalised
 * and refused exactly as there), then the list it leaves is held to the list's own limits (no two rules of one
 * configuration, at most `maxRules`, the rendered size of `ACCESS_RULES_MAX_BYTES`). The zone's writer applies a
 * change inside its serialised step (src/state/zone/edits.ts), so concurrent single-rule writes never lose one.
 */
import { err, ok, type Result } from "../../../shared/result";
import { isObject, type FieldIssue, type Issues } from "../../../shared/validation";
import { ACCESS_RULES_MAX_BYTES, presentedBytes } from "./size";
import type { AccessRule, AccessRules } from "./types";
import { ACCESS_RULE_LIMITS, accessRuleIssue, parseAccessRules, type AccessRuleFailure } from "./validate";

/** A single-rule write, as plain data (it crosses the RPC boundary to the writer). */
export type AccessRuleChange =
  /** `POST …/rules`: `body` as sent (`mode`, `configuration`, `notes`); `id` minted by the route. */
  | { readonly kind: "create"; readonly id: string; readonly body: unknown }
  /** `PATCH …/rules/{id}`: the fields given replace the rule's (`configuration` whole), the rest kept. */
  | { readonly kind: "edit"; readonly id: string; readonly body: unknown }
  | { readonly kind: "delete"; readonly id: string };

export type AccessRuleChangeFailure =
  | { readonly kind: "unknown-access-rule"; readonly id: string }
  | { readonly kind: "invalid-access-rules"; readonly issues: Issues<AccessRuleFailure["kind"]> };

/** The fields a single-rule body may carry (the published create and edit bodies, without the path's ids). */
const BODY_FIELDS = new Set(["mode", "configuration", "notes"]);

/** The list a change leaves, or why it is refused. */
export function applyAccessRuleChange(
  stored: AccessRules | null,
  change: AccessRuleChange,
): Result<AccessRules, AccessRuleChangeFailure> {
  const rules = stored?.rules ?? [];
  const at = change.kind === "create" ? -1 : rules.findIndex((r) => r.id === change.id);
  if (change.kind !== "create" && at < 0) return err({ kind: "unknown-access-rule", id: change.id });
  if (change.kind === "delete") return ok({ rules: rules.filter((_, i) => i !== at) });

  const body = change.body;
  if (!isObject(body))
    return invalid([issue("not-object", "body", "must be a JSON object {mode, configuration, notes?}")]);
  const unknown = Object.keys(body).filter((key) => !BODY_FIELDS.has(key));
  if (unknown.length > 0) {
    return invalid(
      unknown
        .slice(0, ACCESS_RULE_LIMITS.maxReported)
        .map((key) => issue("unknown-field", key, "is not a field of an access rule")),
      Math.max(0, unknown.length - ACCESS_RULE_LIMITS.maxReported),
    );
  }
  const current = at >= 0 ? rules[at] : undefined;
  // An edit starts from the rule as stored; what the body names replaces it.
  const base: Record<string, unknown> = current
    ? { mode: current.mode, configuration: { target: current.target, value: current.value }, notes: current.notes }
    : {};
  const candidate = { ...base, ...body, id: change.id };
  const parsed = parseAccessRules({ rules: [candidate] });
  if (!parsed.ok) {
    return invalid(
      parsed.error.listed.map((failure) => relative(accessRuleIssue(failure))),
      parsed.error.more,
    );
  }
  const rule = parsed.value.rules[0]!;
  const others = rules.filter((_, i) => i !== at);
  const same = others.find((r) => r.target === rule.target && r.value === rule.value);
  if (same !== undefined) {
    return invalid([
      issue(
        "duplicate-configuration",
        "configuration",
        `is already the configuration of access rule ${same.id} (${rule.target} ${rule.value})`,
      ),
    ]);
  }
  if (change.kind === "create" && others.length >= ACCESS_RULE_LIMITS.maxRules) {
    return invalid([issue("too-many-rules", "", `at most ${ACCESS_RULE_LIMITS.maxRules} access rules per zone`)]);
  }
  const next: AccessRules = {
    rules: current ? rules.map((r, i) => (i === at ? rule : r)) : [...rules, rule],
  };
  const bytes = presentedBytes(next);
  if (bytes > ACCESS_RULES_MAX_BYTES) {
    return invalid([
      issue(
        "list-too-large",
        "",
        `the zone's access rules as GET /zones/{zone}/access_rules returns them would be ${bytes} bytes, at most ` +
          `${ACCESS_RULES_MAX_BYTES}: shorten notes or remove rules`,
      ),
    ]);
  }
  return ok(next);
}

/** The rule a list holds under `id`. */
export function findAccessRule(stored: AccessRules | null, id: string): AccessRule | null {
  return stored?.rules.find((r) => r.id === id) ?? null;
}

type RuleIssue = FieldIssue<AccessRuleFailure["kind"]>;

function issue(kind: AccessRuleFailure["kind"], path: string, message: string): RuleIssue {
  return { kind, path, message };
}

/** An issue of the one-rule list, named as the single-rule body names it (`configuration.value`, not `rules[0]…`). */
function relative(found: RuleIssue): RuleIssue {
  const path = found.path === "rules[0]" ? "" : found.path.replace(/^rules\[0\]\./, "");
  return { ...found, path };
}

function invalid(listed: readonly RuleIssue[], more = 0): Result<never, AccessRuleChangeFailure> {
  return err({ kind: "invalid-access-rules", issues: { listed, more } });
}
