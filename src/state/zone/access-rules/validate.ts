/**
 * The bodies of IP access rules (docs/configuration.md): `PUT /zones/{zone}/access_rules` and the published single
 * rule's create and edit, each one schema, the validator, the type and the OpenAPI component (docs/architecture.md
 * "Request schemas"). A value is checked against its target inside the schema (an address, a CIDR range, a country),
 * so every rule's faults are named at once; what needs the whole list (an id or a configuration used twice, the
 * number of rules) is checked after the parse. Pure; the same function re-checks a document read back from
 * storage, so the matcher never compiles an unchecked value.
 */
import * as z from "zod/mini";
import { HEX_ID, randomId } from "../../../shared/crypto";
import { err, ok, type Result } from "../../../shared/result";
import { parseIp } from "../../../shared/ip";
import { described, fields, later, oneOf, parseWith, text, type Output } from "../../../shared/schema";
import { IssueList, isObject, oneIssue, type Issues } from "../../../shared/validation";
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

export interface ValidateOptions {
  /** Id of a rule written without one (injectable so tests are deterministic). */
  readonly newId?: () => string;
}

const NOT_A_RULE_FIELD = "is not a field of an access rule";

/** A value's canonical text for its target (RFC 5952 addresses, the network of a range, upper-case country). */
export function canonicalValue(target: AccessRuleTarget, raw: string): Result<string, string> {
  const value = raw.trim();
  switch (target) {
    case "ip": {
      // A single address; a CIDR belongs to `ip_range` (as in the published API).
      const address = parseIp(value);
      if (address === undefined) return err("must be one IPv4 or IPv6 address (a range needs target ip_range)");
      return ok(formatAddress(address));
    }
    case "ip_range": {
      const parsed = parseCidr(value);
      if ("kind" in parsed) return err(rangeMessage(parsed));
      return ok(`${formatAddress(parsed.network)}/${parsed.prefix}`);
    }
    case "country":
      // ISO 3166-1 alpha-2, compared with `request.cf.country` (upper-case); `de` is accepted as `DE`.
      if (!/^[A-Za-z]{2}$/.test(value)) return err("must be a two-letter country code (ISO 3166-1 alpha-2)");
      return ok(value.toUpperCase());
  }
}

export const ACCESS_RULE_CONFIGURATION = later(
  () =>
    fields(
      {
        target: oneOf(ACCESS_RULE_TARGETS, `must be one of: ${ACCESS_RULE_TARGETS.join(", ")}`),
        value: described(
          z.string({ error: "must be a string: an address, a CIDR range or a country code" }),
          "An address, a CIDR range or an ISO 3166-1 alpha-2 code",
        ),
      },
      NOT_A_RULE_FIELD,
      "must be an object {target, value}",
    ).check(
      z.superRefine((configuration, context) => {
        const value = canonicalValue(configuration.target, configuration.value);
        if (!value.ok)
          context.issues.push({ code: "custom", message: value.error, path: ["value"], input: configuration.value });
      }),
    ),
  { id: "AccessRuleConfiguration", example: { target: "ip", value: "198.51.100.4" } },
);

export const accessRuleMode = () => oneOf(ACCESS_RULE_MODES, `must be one of: ${ACCESS_RULE_MODES.join(", ")}`);
const NOTES_MESSAGE = `must be a string of at most ${ACCESS_RULE_LIMITS.maxNotes} characters`;
/** `null` is no notes, as the published API writes it. */
const notes = () => z.optional(z.nullable(text({ max: ACCESS_RULE_LIMITS.maxNotes }, NOTES_MESSAGE)));
export const ruleId = () => text({ pattern: HEX_ID }, "must be 32 lower-case hex characters (or be left out)");

const ruleFields = () => ({ mode: accessRuleMode(), notes: notes(), configuration: ACCESS_RULE_CONFIGURATION() });

export const ACCESS_RULE_BODY = later(
  () =>
    fields(
      { id: z.optional(described(ruleId(), "Generated when absent")), ...ruleFields() },
      NOT_A_RULE_FIELD,
      "must be an object",
    ),
  { id: "AccessRule", example: { mode: "block", configuration: { target: "country", value: "AQ" } } },
);

export const ACCESS_RULES_BODY = later(
  () =>
    fields(
      {
        rules: z
          .array(ACCESS_RULE_BODY(), { error: "must be an array" })
          .check(z.maxLength(ACCESS_RULE_LIMITS.maxRules)),
      },
      "is not a field of the body",
      "must be a JSON object {rules: [...]}",
    ),
  {
    id: "AccessRulesBody",
    example: {
      rules: [
        { mode: "block", configuration: { target: "ip_range", value: "198.51.100.0/24" }, notes: "abuse, ticket 42" },
        { mode: "block", configuration: { target: "country", value: "AQ" } },
      ],
    },
  },
);

/** `POST …/firewall/access_rules/rules`: one rule, its id minted by the route. */
export const ACCESS_RULE_CREATE = later(
  () => fields(ruleFields(), NOT_A_RULE_FIELD, "must be a JSON object {mode, configuration, notes?}"),
  {
    id: "AccessRuleCreate",
    example: { mode: "block", configuration: { target: "ip", value: "198.51.100.4" }, notes: "abuse, ticket 42" },
  },
);

/** `PATCH …/firewall/access_rules/rules/{rule_id}`: the fields given replace the rule's. */
export const ACCESS_RULE_EDIT = later(
  () =>
    fields(
      { mode: z.optional(accessRuleMode()), notes: notes(), configuration: z.optional(ACCESS_RULE_CONFIGURATION()) },
      NOT_A_RULE_FIELD,
      "must be a JSON object {mode, configuration, notes?}",
    ),
  { id: "AccessRuleEdit", example: { notes: "abuse, ticket 43" } },
);

/** A rule as parsed, before its id is minted and its value made canonical. */
export type ParsedRule = Output<typeof ACCESS_RULE_BODY>;

/** The stored rule of a parsed one (the schema's check accepted the value, so it has a canonical form). */
export function storedRule(rule: Omit<ParsedRule, "id">, id: string): AccessRule {
  const { target, value } = rule.configuration;
  const canonical = canonicalValue(target, value);
  return { id, mode: rule.mode, target, value: canonical.ok ? canonical.value : value, notes: rule.notes ?? "" };
}

export function parseAccessRules(body: unknown, options: ValidateOptions = {}): Result<AccessRules, Issues> {
  // Enforced before any rule is looked at (docs/configuration.md: limits before work).
  const count = isObject(body) && Array.isArray(body.rules) ? body.rules.length : 0;
  if (count > ACCESS_RULE_LIMITS.maxRules) {
    return err(
      oneIssue("out-of-range", "", `at most ${ACCESS_RULE_LIMITS.maxRules} access rules per zone (got ${count})`),
    );
  }
  // The one field first, so a body of many unknown keys still says what is wrong with it.
  const parsed = parseWith(ACCESS_RULES_BODY, body, {
    root: "body",
    cap: ACCESS_RULE_LIMITS.maxReported,
    unknownKeys: "last",
  });
  if (!parsed.ok) return parsed;

  const newId = options.newId ?? randomId;
  const issues = new IssueList(ACCESS_RULE_LIMITS.maxReported);
  const rules: AccessRule[] = [];
  const ids = new Map<string, number>();
  const configurations = new Map<string, number>();
  for (const [index, parsedRule] of parsed.value.rules.entries()) {
    const rule = storedRule(parsedRule, parsedRule.id ?? newId());
    const sameId = ids.get(rule.id);
    if (sameId !== undefined) issues.add("duplicate", `rules[${index}].id`, `is already used by rules[${sameId}]`);
    ids.set(rule.id, index);
    // The published API refuses a second rule for the same configuration; so do we (it would be dead weight).
    const key = `${rule.target}\u0000${rule.value}`;
    const same = configurations.get(key);
    if (same !== undefined) issues.add("duplicate", `rules[${index}]`, `has the same configuration as rules[${same}]`);
    configurations.set(key, index);
    rules.push(rule);
  }
  return issues.count > 0 ? err(issues.issues) : ok({ rules });
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
