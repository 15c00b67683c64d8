/**
 * The zone document (docs/configuration.md): what `PUT /zones/{zone}` accepts and what KV stores. Pure validation;
 * the same checks guard both the API body and a document read back from KV (a corrupt document is an
 * internal failure, never trusted).
 */
import { hostnameProblem, hostnameProblemMessage, normaliseHostname } from "../../shared/host";
import { err, ok, type Result } from "../../shared/result";
import { IssueList, isObject, isOneOf, readNumber, readInt, readString, type Issues } from "../../shared/validation";
import { parseOriginUrl, type OriginTarget } from "../../shared/origin-url";

export const PLANS = ["free", "pro", "business", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];

/** The zone's plan cannot use a feature (docs/custom-errors.md: 403 with code 1100), e.g. custom error rules on free. */
export interface PlanForbids {
  readonly kind: "plan-forbids";
  readonly plan: Plan;
  /** What the plan cannot use (`custom error pages`, a phase name). */
  readonly feature: string;
  /** Why, for the client (`custom error rules need a paid plan`). */
  readonly reason: string;
}

/** Defaults and bounds of the per-zone settings (docs/origin.md, docs/producers.md). Timeouts are seconds, fractions allowed. */
export const ZONE_LIMITS = {
  /** 19 s: the published platform's connect timeout (docs/origin.md). */
  connectTimeout: { default: 19, min: 0.05, max: 60 },
  /** 100 s (docs/origin.md); the published platform lets Enterprise raise it to 6,000 s. */
  readTimeout: { default: 100, min: 0.05, max: 6000 },
  /** 32 KiB (docs/producers.md, 1038); at most 128 KiB, beyond which the runtime itself refuses the request. */
  maxRequestHeaderBytes: { default: 32 * 1024, min: 1024, max: 128 * 1024 },
} as const;

/**
 * The zone's retry-hint profile (docs/errors.md "Retry-hint profiles"): `published` sends the catalog's hints exactly,
 * `agent` caps every hint at 60 s and spreads it by Ray ID so the clients of one failing origin do not retry in step,
 * `auto` sends `agent` hints to clients that retry by themselves (SDKs, MCP, the client package) and the published
 * ones to everyone else. The default stays `published`: the published catalog exactly unless the operator opts in.
 */
export const RETRY_HINTS = ["published", "agent", "auto"] as const;
export type RetryHints = (typeof RETRY_HINTS)[number];

/** The account a zone belongs to, in the published zone object's shape (`account: {id}`). */
export interface ZoneAccount {
  /** 32 lower-case hex characters, as the tagging API's account ids (docs/tags-api.md). */
  readonly id: string;
}

/** An account id: 32 lower-case hex characters (the published platform's account identifiers). */
export const ACCOUNT_ID = /^[0-9a-f]{32}$/;

/** The settings a client writes with `PUT /zones/{zone}` (wire names, seconds). */
export interface ZoneSettings {
  readonly plan: Plan;
  readonly origin: string;
  /** Absent: the zone belongs to no account (reached only by tokens that name it, docs/configuration.md "Zones"). */
  readonly account?: ZoneAccount;
  readonly connect_timeout: number;
  readonly read_timeout: number;
  readonly max_request_header_bytes: number;
  /** Absent in a document written before the field existed: read as `published`. */
  readonly retry_hints: RetryHints;
}

export const ZONE_DOC_SCHEMA = 1;

/** The stored document (KV `zone:{zone}`): an envelope, the zone's settings, and the sections features own. */
export interface ZoneDocument {
  readonly schema: number;
  readonly version: number;
  readonly zone: string;
  readonly modified_on: string;
  readonly [section: string]: unknown;
}

/** A zone as the service uses it: settings, parsed origin, and the document's revision. */
export interface Zone {
  readonly zone: string;
  readonly settings: ZoneSettings;
  readonly target: OriginTarget;
  /** Incremented on every write; consumers compile derived state once per version. */
  readonly version: number;
  readonly modifiedOn: string;
  /** The whole stored document: the sections other features own (rulesets, pages, access rules) read from it. */
  readonly document: ZoneDocument;
  /**
   * Which life of the name this is: the version the zone was created at (writer.ts), unique per name because
   * versions never repeat; 0 for a zone created before incarnations were recorded. What a deleted zone left behind
   * and cannot be enumerated (rate-limit counters) is keyed by it, so a zone created again starts afresh
   * (docs/configuration.md "Deleting a zone").
   */
  readonly incarnation: number;
}

const KNOWN_FIELDS = new Set([
  "plan",
  "origin",
  "account",
  "connect_timeout",
  "read_timeout",
  "max_request_header_bytes",
  "retry_hints",
]);
/**
 * Validates a zone name (a DNS hostname, docs/architecture.md) and returns it lower-cased. The shape is `hostnameProblem`'s,
 * the same check zone traffic makes before any KV read, so a name this refuses is exactly a host that answers 1001
 * without a lookup (docs/producers.md).
 */
export function parseZoneName(raw: string): Result<string, string> {
  const name = normaliseHostname(raw);
  if (/^[0-9.]+$/.test(name)) return err("zone must be a hostname, not an IP address");
  if (name.includes(":")) return err("zone must be a hostname, without a port (nor an IPv6 address)");
  const problem = hostnameProblem(name);
  if (problem !== null) return err(`zone must be a hostname: ${hostnameProblemMessage(problem)}`);
  return ok(name);
}

/** Validates a `PUT /zones/{zone}` body; every invalid field is reported at once (capped, `IssueList`). */
export function parseZoneSettings(body: unknown): Result<{ settings: ZoneSettings; target: OriginTarget }, Issues> {
  const issues = new IssueList();
  if (!isObject(body)) {
    issues.add("wrong-type", "body", "must be a JSON object");
    return err(issues.issues);
  }
  const input = body;
  for (const key of Object.keys(input)) {
    if (!KNOWN_FIELDS.has(key)) issues.add("unknown-field", key, "is not a zone setting");
  }
  const plan = input.plan;
  if (!isOneOf(PLANS, plan)) issues.add("not-allowed", "plan", `must be one of ${PLANS.join(", ")}`);
  let target: OriginTarget | null = null;
  const origin = readString(input.origin, "origin", { message: "must be a URL string" });
  if (!origin.ok) issues.push(origin.error);
  else {
    const parsed = parseOriginUrl(origin.value);
    if (parsed.ok) target = parsed.value;
    else issues.add("invalid", "origin", parsed.error);
  }
  const account = readAccount(input.account, issues);
  const connect = bounded(input, "connect_timeout", ZONE_LIMITS.connectTimeout, false, issues);
  const read = bounded(input, "read_timeout", ZONE_LIMITS.readTimeout, false, issues);
  const headerBytes = bounded(input, "max_request_header_bytes", ZONE_LIMITS.maxRequestHeaderBytes, true, issues);
  const retryHints = input.retry_hints === undefined ? "published" : input.retry_hints;
  if (!isOneOf(RETRY_HINTS, retryHints)) {
    issues.add("not-allowed", "retry_hints", `must be one of ${RETRY_HINTS.join(", ")}`);
  }

  if (issues.count > 0 || target === null || !isOneOf(PLANS, plan) || !isOneOf(RETRY_HINTS, retryHints)) {
    return err(issues.issues);
  }
  return ok({
    settings: {
      plan,
      origin: target.origin,
      ...(account === null ? {} : { account }),
      connect_timeout: connect,
      read_timeout: read,
      max_request_header_bytes: headerBytes,
      retry_hints: retryHints,
    },
    target,
  });
}

/** The id of the account a zone belongs to, `null` for none. */
export function zoneAccountId(settings: ZoneSettings): string | null {
  return settings.account?.id ?? null;
}

/**
 * `account`: absent or `null` (no account), or `{id}` with a 32 lower-case hex id and no other key (the published
 * zone create body's `account`; its `name` is the platform's, not writable).
 */
function readAccount(value: unknown, issues: IssueList): ZoneAccount | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) {
    issues.add("wrong-type", "account", 'must be an object {"id": "<32 lower-case hex characters>"} or null');
    return null;
  }
  let valid = true;
  for (const key of Object.keys(value)) {
    if (key !== "id") {
      issues.add(
        "unknown-field",
        `account.${key.length > 40 ? `${key.slice(0, 40)}…` : key}`,
        "is not a field of account (only id)",
      );
      valid = false;
    }
  }
  const id = value.id;
  if (typeof id !== "string" || !ACCOUNT_ID.test(id)) {
    issues.add(id === undefined ? "missing" : "invalid", "account.id", "must be 32 lower-case hex characters");
    valid = false;
  }
  return valid && typeof id === "string" ? { id } : null;
}

function bounded(
  input: Readonly<Record<string, unknown>>,
  field: string,
  limits: { readonly default: number; readonly min: number; readonly max: number },
  integer: boolean,
  issues: IssueList,
): number {
  const value = input[field];
  if (value === undefined) return limits.default;
  const bounds = {
    ...limits,
    message: `must be ${integer ? "an integer" : "a number"} from ${limits.min} to ${limits.max}`,
  };
  const read = integer ? readInt(value, field, bounds) : readNumber(value, field, bounds);
  if (read.ok) return read.value;
  issues.push(read.error);
  return limits.default;
}
