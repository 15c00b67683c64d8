/**
 * Validation of `PUT /zones/{zone}/access_rules` bodies (docs/configuration.md): every rule checked before anything is
 * stored, unknown fields refused, every failure reported as a closed `{kind}` value naming the rule index (the
 * API edge maps kinds to messages with `accessRuleMessage`). Pure; the same function re-checks a document read
 * back from storage, so the matcher never compiles an unchecked value.
 */
import { randomId } from "../../../shared/crypto";
import { err, ok, type Result } from "../../../shared/result";
import { parseIp } from "../../../shared/ip";
import { CappedList, isObject, isOneOf, type Capped, type FieldIssue, type Issues } from "../../../shared/validation";
import { formatAddress, parseCidr, type RangeFailure } from "./address";
import {
  ACCESS_RULE_MODES,
  ACCESS_RULE_TARGETS,
  type AccessRule,
  type AccessRules,
  type AccessRuleTarget,
} from "./types";

export const ACCESS_RULE_LIMITS = {
  /**
   * Rules per zone; the matcher is O(log n) per request. The list's size as GET renders it is bounded too, by
   * exactly 10,000 of the longest rules (size.ts `ACCESS_RULES_MAX_BYTES`), which is also PUT's body limit.
   */
  maxRules: 10_000,
  maxNotes: 1024,
  /**
   * Failures listed for one body: enough to fix a batch, bounded so a 1.6 MB body cannot return megabytes of
   * errors (140,000 unknown keys answer 50 and one line counting the rest).
   */
  maxReported: 50,
} as const;

export type AccessRuleFailure =
  | { readonly kind: "not-object" }
  | { readonly kind: "rules-not-array" }
  | { readonly kind: "unknown-field"; readonly index: number | null; readonly field: string }
  | { readonly kind: "too-many-rules"; readonly count: number; readonly max: number }
  | { readonly kind: "rule-not-object"; readonly index: number }
  | { readonly kind: "bad-id"; readonly index: number }
  | { readonly kind: "duplicate-id"; readonly index: number; readonly first: number }
  | { readonly kind: "bad-mode"; readonly index: number }
  | { readonly kind: "bad-configuration"; readonly index: number }
  | { readonly kind: "bad-target"; readonly index: number }
  | { readonly kind: "bad-ip"; readonly index: number }
  | { readonly kind: "bad-range"; readonly index: number; readonly reason: RangeFailure }
  | { readonly kind: "bad-country"; readonly index: number }
  | { readonly kind: "duplicate-configuration"; readonly index: number; readonly first: number }
  | { readonly kind: "bad-notes"; readonly index: number }
  /** The valid list would render larger than GET's limit (ids and `notes` filled in, values canonical). */
  | { readonly kind: "list-too-large"; readonly bytes: number; readonly max: number };

export interface ValidateOptions {
  /** Id of a rule written without one (injectable so tests are deterministic). */
  readonly newId?: () => string;
}

const BODY_FIELDS = new Set(["rules"]);
const RULE_FIELDS = new Set(["id", "mode", "configuration", "notes"]);
const CONFIGURATION_FIELDS = new Set(["target", "value"]);
const ID = /^[0-9a-f]{32}$/;

/** Where failures go: the first `maxReported` kept, the rest counted (src/shared/validation.ts `CappedList`). */
type Failures = CappedList<AccessRuleFailure>;

export function parseAccessRules(
  body: unknown,
  options: ValidateOptions = {},
): Result<AccessRules, Capped<AccessRuleFailure>> {
  const failures: Failures = new CappedList(ACCESS_RULE_LIMITS.maxReported);
  if (!isObject(body)) return err({ listed: [{ kind: "not-object" }], more: 0 });
  const list = body.rules;
  // The one field first, so a body of many unknown keys still says what is wrong with it.
  if (!Array.isArray(list)) failures.push({ kind: "rules-not-array" });
  for (const key of Object.keys(body))
    if (!BODY_FIELDS.has(key)) failures.push({ kind: "unknown-field", index: null, field: key });
  if (!Array.isArray(list)) return err(failures.capped);
  // Enforced before any rule is looked at (docs/configuration.md: limits before work).
  if (list.length > ACCESS_RULE_LIMITS.maxRules)
    return err({ listed: [{ kind: "too-many-rules", count: list.length, max: ACCESS_RULE_LIMITS.maxRules }], more: 0 });

  const newId = options.newId ?? randomId;
  const rules: AccessRule[] = [];
  const ids = new Map<string, number>();
  const configurations = new Map<string, number>();
  // Every rule is checked, so the count of failures not listed is exact; the work is that of a valid list.
  for (let index = 0; index < list.length; index++) {
    const rule = parseRule(list[index], index, failures);
    if (rule === null) continue;
    const id = rule.id ?? newId();
    const sameId = ids.get(id);
    if (sameId !== undefined) failures.push({ kind: "duplicate-id", index, first: sameId });
    ids.set(id, index);
    // The published API refuses a second rule for the same configuration; so do we (it would be dead weight).
    const key = `${rule.target}\u0000${rule.value}`;
    const same = configurations.get(key);
    if (same !== undefined) failures.push({ kind: "duplicate-configuration", index, first: same });
    configurations.set(key, index);
    rules.push({ ...rule, id });
  }
  return failures.count > 0 ? err(failures.capped) : ok({ rules });
}

type ParsedRule = Omit<AccessRule, "id"> & { readonly id: string | undefined };

function parseRule(raw: unknown, index: number, failures: Failures): ParsedRule | null {
  if (!isObject(raw)) {
    failures.push({ kind: "rule-not-object", index });
    return null;
  }
  const before = failures.count;
  for (const key of Object.keys(raw))
    if (!RULE_FIELDS.has(key)) failures.push({ kind: "unknown-field", index, field: key });
  const id = raw.id;
  const validId = id === undefined || (typeof id === "string" && ID.test(id));
  if (!validId) failures.push({ kind: "bad-id", index });
  if (!isOneOf(ACCESS_RULE_MODES, raw.mode)) failures.push({ kind: "bad-mode", index });
  const notes = raw.notes ?? "";
  const validNotes = typeof notes === "string" && notes.length <= ACCESS_RULE_LIMITS.maxNotes;
  if (!validNotes) failures.push({ kind: "bad-notes", index });
  const configuration = parseConfiguration(raw.configuration, index, failures);
  if (failures.count > before || configuration === null || typeof notes !== "string") return null;
  return { id: typeof id === "string" ? id : undefined, mode: "block", ...configuration, notes };
}

function parseConfiguration(
  raw: unknown,
  index: number,
  failures: Failures,
): { target: AccessRuleTarget; value: string } | null {
  if (!isObject(raw)) {
    failures.push({ kind: "bad-configuration", index });
    return null;
  }
  for (const key of Object.keys(raw))
    if (!CONFIGURATION_FIELDS.has(key)) failures.push({ kind: "unknown-field", index, field: `configuration.${key}` });
  const target = raw.target;
  if (!isOneOf(ACCESS_RULE_TARGETS, target)) {
    failures.push({ kind: "bad-target", index });
    return null;
  }
  const value = typeof raw.value === "string" ? raw.value.trim() : null;
  switch (target) {
    case "ip": {
      // A single address; a CIDR belongs to `ip_range` (as in the published API).
      const address = value === null ? undefined : parseIp(value);
      if (address === undefined) {
        failures.push({ kind: "bad-ip", index });
        return null;
      }
      return { target: "ip", value: formatAddress(address) };
    }
    case "ip_range": {
      const parsed = value === null ? ({ kind: "not-cidr" } as const) : parseCidr(value);
      if ("kind" in parsed) {
        failures.push({ kind: "bad-range", index, reason: parsed });
        return null;
      }
      return { target: "ip_range", value: `${formatAddress(parsed.network)}/${parsed.prefix}` };
    }
    case "country": {
      // ISO 3166-1 alpha-2, compared with `request.cf.country` (upper-case); `de` is accepted as `DE`.
      if (value === null || !/^[A-Za-z]{2}$/.test(value)) {
        failures.push({ kind: "bad-country", index });
        return null;
      }
      return { target: "country", value: value.toUpperCase() };
    }
  }
}

/**
 * One failure in the validation vocabulary's shape (src/shared/validation.ts): `path` is the field as sent
 * (`rules[3].configuration.value`; `""` for the list as a whole), `message` what is wrong with it.
 */
export function accessRuleIssue(failure: AccessRuleFailure): FieldIssue<AccessRuleFailure["kind"]> {
  const issue = (path: string, message: string): FieldIssue<AccessRuleFailure["kind"]> => ({
    kind: failure.kind,
    path,
    message,
  });
  const rule = "index" in failure && failure.index !== null ? `rules[${failure.index}]` : "";
  switch (failure.kind) {
    case "not-object":
      return issue("body", "must be a JSON object {rules: [...]}");
    case "rules-not-array":
      return issue("rules", "must be an array");
    case "unknown-field":
      return failure.index === null
        ? issue(failure.field, "is not a field of the body")
        : issue(`${rule}.${failure.field}`, "is not a field of an access rule");
    case "too-many-rules":
      return issue("", `at most ${failure.max} access rules per zone (got ${failure.count})`);
    case "rule-not-object":
      return issue(rule, "must be an object");
    case "bad-id":
      return issue(`${rule}.id`, "must be 32 lower-case hex characters (or be left out)");
    case "duplicate-id":
      return issue(`${rule}.id`, `is already used by rules[${failure.first}]`);
    case "bad-mode":
      return issue(`${rule}.mode`, `must be one of: ${ACCESS_RULE_MODES.join(", ")}`);
    case "bad-configuration":
      return issue(`${rule}.configuration`, "must be an object {target, value}");
    case "bad-target":
      return issue(`${rule}.configuration.target`, `must be one of: ${ACCESS_RULE_TARGETS.join(", ")}`);
    case "bad-ip":
      return issue(`${rule}.configuration.value`, "must be one IPv4 or IPv6 address (a range needs target ip_range)");
    case "bad-range":
      return issue(`${rule}.configuration.value`, rangeMessage(failure.reason));
    case "bad-country":
      return issue(`${rule}.configuration.value`, "must be a two-letter country code (ISO 3166-1 alpha-2)");
    case "duplicate-configuration":
      return issue(rule, `has the same configuration as rules[${failure.first}]`);
    case "bad-notes":
      return issue(`${rule}.notes`, `must be a string of at most ${ACCESS_RULE_LIMITS.maxNotes} characters`);
    case "list-too-large":
      return issue(
        "",
        `the rules as GET returns them (ids, notes and canonical values filled in) would be ${failure.bytes} bytes, ` +
          `at most ${failure.max}: shorten notes or remove rules`,
      );
  }
}

/** Failures as the capped issue list of the API's 400 (capped at `maxReported` while collected). */
export function accessRuleIssues(
  failures: Capped<AccessRuleFailure> | readonly AccessRuleFailure[],
): Issues<AccessRuleFailure["kind"]> {
  const { listed, more } = isCapped(failures) ? failures : { listed: failures, more: 0 };
  return { listed: listed.map(accessRuleIssue), more };
}

function isCapped(
  failures: Capped<AccessRuleFailure> | readonly AccessRuleFailure[],
): failures is Capped<AccessRuleFailure> {
  return !Array.isArray(failures);
}

/** The message of one failure, as the API envelope's `errors[].message` (rule indexes are 0-based, as sent). */
export function accessRuleMessage(failure: AccessRuleFailure): string {
  const { path, message } = accessRuleIssue(failure);
  return path === "" ? message : `${path} ${message}`;
}

function rangeMessage(reason: RangeFailure): string {
  switch (reason.kind) {
    case "not-cidr":
      return "must be a CIDR range address/prefix";
    case "bad-address":
      return "has an invalid network address";
    case "prefix-out-of-bounds":
      return `must have an ${reason.family === "v4" ? "IPv4" : "IPv6"} prefix length from /${reason.min} to /${reason.max}`;
  }
}
