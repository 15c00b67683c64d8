/**
 * Validation of `PUT /zones/{zone}/access_rules` bodies (contract §6): every rule checked before anything is
 * stored, unknown fields refused, every failure reported as a closed `{kind}` value naming the rule index (the
 * API edge maps kinds to messages with `accessRuleMessage`). Pure; the same function re-checks a document read
 * back from storage, so the matcher never compiles an unchecked value.
 */
import { randomId } from "../../../shared/crypto";
import { err, ok, type Result } from "../../../shared/result";
import { parseIp } from "../../../shared/ip";
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
  /** Failures reported for one body: enough to fix a batch, bounded so a 1 MiB body cannot return 1 MiB of errors. */
  maxReported: 50,
} as const;

export type AccessRuleFailure =
  | { readonly kind: "not_object" }
  | { readonly kind: "rules_not_array" }
  | { readonly kind: "unknown_field"; readonly index: number | null; readonly field: string }
  | { readonly kind: "too_many_rules"; readonly count: number; readonly max: number }
  | { readonly kind: "rule_not_object"; readonly index: number }
  | { readonly kind: "bad_id"; readonly index: number }
  | { readonly kind: "duplicate_id"; readonly index: number; readonly first: number }
  | { readonly kind: "bad_mode"; readonly index: number }
  | { readonly kind: "bad_configuration"; readonly index: number }
  | { readonly kind: "bad_target"; readonly index: number }
  | { readonly kind: "bad_ip"; readonly index: number }
  | { readonly kind: "bad_range"; readonly index: number; readonly reason: RangeFailure }
  | { readonly kind: "bad_country"; readonly index: number }
  | { readonly kind: "duplicate_configuration"; readonly index: number; readonly first: number }
  | { readonly kind: "bad_notes"; readonly index: number }
  /** The valid list would render larger than GET's limit (ids and `notes` filled in, values canonical). */
  | { readonly kind: "list_too_large"; readonly bytes: number; readonly max: number };

export interface ValidateOptions {
  /** Id of a rule written without one (injectable so tests are deterministic). */
  readonly newId?: () => string;
}

const BODY_FIELDS = new Set(["rules"]);
const RULE_FIELDS = new Set(["id", "mode", "configuration", "notes"]);
const CONFIGURATION_FIELDS = new Set(["target", "value"]);
const ID = /^[0-9a-f]{32}$/;

export function parseAccessRules(
  body: unknown,
  options: ValidateOptions = {},
): Result<AccessRules, AccessRuleFailure[]> {
  if (!isObject(body)) return err([{ kind: "not_object" }]);
  const failures: AccessRuleFailure[] = [];
  for (const key of Object.keys(body))
    if (!BODY_FIELDS.has(key)) failures.push({ kind: "unknown_field", index: null, field: key });
  const list = body.rules;
  if (!Array.isArray(list)) return err([...failures, { kind: "rules_not_array" }]);
  // Enforced before any rule is looked at (contract §8: limits before work).
  if (list.length > ACCESS_RULE_LIMITS.maxRules)
    return err([{ kind: "too_many_rules", count: list.length, max: ACCESS_RULE_LIMITS.maxRules }]);

  const newId = options.newId ?? randomId;
  const rules: AccessRule[] = [];
  const ids = new Map<string, number>();
  const configurations = new Map<string, number>();
  for (let index = 0; index < list.length && failures.length < ACCESS_RULE_LIMITS.maxReported; index++) {
    const rule = parseRule(list[index], index, failures);
    if (rule === null) continue;
    const id = rule.id ?? newId();
    const sameId = ids.get(id);
    if (sameId !== undefined) failures.push({ kind: "duplicate_id", index, first: sameId });
    ids.set(id, index);
    // The published API refuses a second rule for the same configuration; so do we (it would be dead weight).
    const key = `${rule.target}\u0000${rule.value}`;
    const same = configurations.get(key);
    if (same !== undefined) failures.push({ kind: "duplicate_configuration", index, first: same });
    configurations.set(key, index);
    rules.push({ ...rule, id });
  }
  return failures.length > 0 ? err(failures.slice(0, ACCESS_RULE_LIMITS.maxReported)) : ok({ rules });
}

type ParsedRule = Omit<AccessRule, "id"> & { readonly id: string | undefined };

function parseRule(raw: unknown, index: number, failures: AccessRuleFailure[]): ParsedRule | null {
  if (!isObject(raw)) {
    failures.push({ kind: "rule_not_object", index });
    return null;
  }
  const before = failures.length;
  for (const key of Object.keys(raw))
    if (!RULE_FIELDS.has(key)) failures.push({ kind: "unknown_field", index, field: key });
  const id = raw.id;
  if (id !== undefined && (typeof id !== "string" || !ID.test(id))) failures.push({ kind: "bad_id", index });
  if (!(ACCESS_RULE_MODES as readonly unknown[]).includes(raw.mode)) failures.push({ kind: "bad_mode", index });
  const notes = raw.notes ?? "";
  if (typeof notes !== "string" || notes.length > ACCESS_RULE_LIMITS.maxNotes)
    failures.push({ kind: "bad_notes", index });
  const configuration = parseConfiguration(raw.configuration, index, failures);
  if (failures.length > before || configuration === null) return null;
  return { id: id as string | undefined, mode: "block", ...configuration, notes: notes as string };
}

function parseConfiguration(
  raw: unknown,
  index: number,
  failures: AccessRuleFailure[],
): { target: AccessRuleTarget; value: string } | null {
  if (!isObject(raw)) {
    failures.push({ kind: "bad_configuration", index });
    return null;
  }
  for (const key of Object.keys(raw))
    if (!CONFIGURATION_FIELDS.has(key)) failures.push({ kind: "unknown_field", index, field: `configuration.${key}` });
  const target = raw.target;
  if (typeof target !== "string" || !(ACCESS_RULE_TARGETS as readonly string[]).includes(target)) {
    failures.push({ kind: "bad_target", index });
    return null;
  }
  const value = typeof raw.value === "string" ? raw.value.trim() : null;
  switch (target as AccessRuleTarget) {
    case "ip": {
      // A single address; a CIDR belongs to `ip_range` (as in the published API).
      const address = value === null ? undefined : parseIp(value);
      if (address === undefined) {
        failures.push({ kind: "bad_ip", index });
        return null;
      }
      return { target: "ip", value: formatAddress(address) };
    }
    case "ip_range": {
      const parsed = value === null ? ({ kind: "not_cidr" } as const) : parseCidr(value);
      if ("kind" in parsed) {
        failures.push({ kind: "bad_range", index, reason: parsed });
        return null;
      }
      return { target: "ip_range", value: `${formatAddress(parsed.network)}/${parsed.prefix}` };
    }
    case "country": {
      // ISO 3166-1 alpha-2, compared with `request.cf.country` (upper-case); `de` is accepted as `DE`.
      if (value === null || !/^[A-Za-z]{2}$/.test(value)) {
        failures.push({ kind: "bad_country", index });
        return null;
      }
      return { target: "country", value: value.toUpperCase() };
    }
  }
}

/** The message of one failure, for the API envelope's `errors[].message` (rule indexes are 0-based, as sent). */
export function accessRuleMessage(failure: AccessRuleFailure): string {
  switch (failure.kind) {
    case "not_object":
      return "body must be a JSON object {rules: [...]}";
    case "rules_not_array":
      return "rules must be an array";
    case "unknown_field":
      return failure.index === null
        ? `${failure.field} is not a field of the body`
        : `rules[${failure.index}].${failure.field} is not a field of an access rule`;
    case "too_many_rules":
      return `at most ${failure.max} access rules per zone (got ${failure.count})`;
    case "rule_not_object":
      return `rules[${failure.index}] must be an object`;
    case "bad_id":
      return `rules[${failure.index}].id must be 32 lower-case hex characters (or be left out)`;
    case "duplicate_id":
      return `rules[${failure.index}].id is already used by rules[${failure.first}]`;
    case "bad_mode":
      return `rules[${failure.index}].mode must be one of: ${ACCESS_RULE_MODES.join(", ")}`;
    case "bad_configuration":
      return `rules[${failure.index}].configuration must be an object {target, value}`;
    case "bad_target":
      return `rules[${failure.index}].configuration.target must be one of: ${ACCESS_RULE_TARGETS.join(", ")}`;
    case "bad_ip":
      return `rules[${failure.index}].configuration.value must be one IPv4 or IPv6 address (a range needs target ip_range)`;
    case "bad_range":
      return `rules[${failure.index}].configuration.value ${rangeMessage(failure.reason)}`;
    case "bad_country":
      return `rules[${failure.index}].configuration.value must be a two-letter country code (ISO 3166-1 alpha-2)`;
    case "duplicate_configuration":
      return `rules[${failure.index}] has the same configuration as rules[${failure.first}]`;
    case "bad_notes":
      return `rules[${failure.index}].notes must be a string of at most ${ACCESS_RULE_LIMITS.maxNotes} characters`;
    case "list_too_large":
      return (
        `the rules as GET returns them (ids, notes and canonical values filled in) would be ${failure.bytes} bytes, ` +
        `at most ${failure.max}: shorten notes or remove rules`
      );
  }
}

function rangeMessage(reason: RangeFailure): string {
  switch (reason.kind) {
    case "not_cidr":
      return "must be a CIDR range address/prefix";
    case "bad_address":
      return "has an invalid network address";
    case "prefix_out_of_bounds":
      return `must have an ${reason.family === "v4" ? "IPv4" : "IPv6"} prefix length from /${reason.min} to /${reason.max}`;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
