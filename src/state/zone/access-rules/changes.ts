/**
 * One IP access rule created, edited or deleted (the published `/zones/{zone}/firewall/access_rules/rules[/{id}]`,
 * docs/producers.md "IP access rules"), applied to the zone's stored list. Pure, and the same checks as a whole list
 * written with `PUT /zones/{zone}/access_rules`: the rule goes through `parseAccessRules` (so a value is normalised
 * and refused exactly as there), then the list it leaves is held to the list's own limits (no two rules of one
 * configuration, at most `maxRules`, the rendered size of `ACCESS_RULES_MAX_BYTES`). The zone's writer applies a
 * change inside its serialised step (src/state/zone/edits.ts), so concurrent single-rule writes never lose one.
 */
import { err, ok, type Result } from "../../../shared/result";
import { parseWith } from "../../../shared/schema";
import { oneIssue, type Issues } from "../../../shared/validation";
import { ACCESS_RULES_MAX_BYTES, presentedBytes } from "./size";
import type { AccessRule, AccessRules } from "./types";
import { ACCESS_RULE_CREATE, ACCESS_RULE_EDIT, ACCESS_RULE_LIMITS, storedRule } from "./validate";

/** A single-rule write, as plain data (it crosses the RPC boundary to the writer). */
export type AccessRuleChange =
  /** `POST …/rules`: `body` as sent (`mode`, `configuration`, `notes`); `id` minted by the route. */
  | { readonly kind: "create"; readonly id: string; readonly body: unknown }
  /** `PATCH …/rules/{id}`: the fields given replace the rule's (`configuration` whole), the rest kept. */
  | { readonly kind: "edit"; readonly id: string; readonly body: unknown }
  | { readonly kind: "delete"; readonly id: string };

export type AccessRuleChangeFailure =
  | { readonly kind: "unknown-access-rule"; readonly id: string }
  | { readonly kind: "invalid-access-rules"; readonly issues: Issues };

/** The list a change leaves, or why it is refused. */
export function applyAccessRuleChange(
  stored: AccessRules | null,
  change: AccessRuleChange,
): Result<AccessRules, AccessRuleChangeFailure> {
  const rules = stored?.rules ?? [];
  const at = change.kind === "create" ? -1 : rules.findIndex((r) => r.id === change.id);
  if (change.kind !== "create" && at < 0) return err({ kind: "unknown-access-rule", id: change.id });
  if (change.kind === "delete") return ok({ rules: rules.filter((_, i) => i !== at) });

  const current = at >= 0 ? rules[at] : undefined;
  const options = { root: "body", cap: ACCESS_RULE_LIMITS.maxReported };
  let rule: AccessRule;
  if (current === undefined) {
    const parsed = parseWith(ACCESS_RULE_CREATE, change.body, options);
    if (!parsed.ok) return invalid(parsed.error);
    rule = storedRule(parsed.value, change.id);
  } else {
    // An edit starts from the rule as stored; what the body names replaces it.
    const parsed = parseWith(ACCESS_RULE_EDIT, change.body, options);
    if (!parsed.ok) return invalid(parsed.error);
    const { mode, notes, configuration } = parsed.value;
    rule = storedRule(
      {
        mode: mode ?? current.mode,
        notes: notes === undefined ? current.notes : notes,
        configuration: configuration ?? { target: current.target, value: current.value },
      },
      change.id,
    );
  }
  const others = rules.filter((_, i) => i !== at);
  const same = others.find((r) => r.target === rule.target && r.value === rule.value);
  if (same !== undefined) {
    return invalid(
      oneIssue(
        "duplicate",
        "configuration",
        `is already the configuration of access rule ${same.id} (${rule.target} ${rule.value})`,
      ),
    );
  }
  if (change.kind === "create" && others.length >= ACCESS_RULE_LIMITS.maxRules) {
    return invalid(oneIssue("out-of-range", "", `at most ${ACCESS_RULE_LIMITS.maxRules} access rules per zone`));
  }
  const next: AccessRules = {
    rules: current ? rules.map((r, i) => (i === at ? rule : r)) : [...rules, rule],
  };
  const bytes = presentedBytes(next);
  if (bytes > ACCESS_RULES_MAX_BYTES) {
    return invalid(
      oneIssue(
        "out-of-range",
        "",
        `the zone's access rules as GET /zones/{zone}/access_rules returns them would be ${bytes} bytes, at most ` +
          `${ACCESS_RULES_MAX_BYTES}: shorten notes or remove rules`,
      ),
    );
  }
  return ok(next);
}

/** The rule a list holds under `id`. */
export function findAccessRule(stored: AccessRules | null, id: string): AccessRule | null {
  return stored?.rules.find((r) => r.id === id) ?? null;
}

function invalid(issues: Issues): Result<never, AccessRuleChangeFailure> {
  return err({ kind: "invalid-access-rules", issues });
}
