/**
 * The zone document (contract §6): what `PUT /zones/{zone}` accepts and what KV stores. Pure validation;
 * the same checks guard both the API body and a document read back from KV (a corrupt document is an
 * internal failure, never trusted).
 */
import { hostnameProblem, hostnameProblemMessage, normaliseHostname } from "../../shared/host";
import { err, ok, type Result } from "../../shared/result";
import { parseOriginUrl, type OriginTarget } from "../../shared/origin-url";

export const PLANS = ["free", "pro", "business", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];

/** Defaults and bounds of the per-zone settings (contract §3, §4). Timeouts are seconds, fractions allowed. */
export const ZONE_LIMITS = {
  /** 19 s: the published platform's connect timeout (contract §3). */
  connectTimeout: { default: 19, min: 0.05, max: 60 },
  /** 100 s (contract §3); the published platform lets Enterprise raise it to 6,000 s. */
  readTimeout: { default: 100, min: 0.05, max: 6000 },
  /** 32 KiB (contract §4, 1038); at most 128 KiB, beyond which the runtime itself refuses the request. */
  maxRequestHeaderBytes: { default: 32 * 1024, min: 1024, max: 128 * 1024 },
} as const;

/** The settings a client writes with `PUT /zones/{zone}` (wire names, seconds). */
export interface ZoneSettings {
  readonly plan: Plan;
  readonly origin: string;
  readonly connect_timeout: number;
  readonly read_timeout: number;
  readonly max_request_header_bytes: number;
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
}

/** One invalid field, reported in the API's `errors`. */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

const KNOWN_FIELDS = new Set(["plan", "origin", "connect_timeout", "read_timeout", "max_request_header_bytes"]);
/**
 * Validates a zone name (a DNS hostname, contract §0) and returns it lower-cased. The shape is `hostnameProblem`'s,
 * the same check zone traffic makes before any KV read, so a name this refuses is exactly a host that answers 1001
 * without a lookup (docs/producers.md).
 */
export function parseZoneName(raw: string): Result<string, string> {
  const name = normaliseHostname(raw);
  if (/^[0-9.]+$/.test(name) || name.includes(":")) return err("zone must be a hostname, not an IP address");
  const problem = hostnameProblem(name);
  if (problem !== null) return err(`zone must be a hostname: ${hostnameProblemMessage(problem)}`);
  return ok(name);
}

/** Validates a `PUT /zones/{zone}` body; every invalid field is reported at once. */
export function parseZoneSettings(
  body: unknown,
): Result<{ settings: ZoneSettings; target: OriginTarget }, FieldError[]> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return err([{ field: "body", message: "must be a JSON object" }]);
  }
  const input = body as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const key of Object.keys(input)) {
    if (!KNOWN_FIELDS.has(key)) errors.push({ field: key, message: "is not a zone setting" });
  }

  const plan = input.plan;
  if (typeof plan !== "string" || !(PLANS as readonly string[]).includes(plan)) {
    errors.push({ field: "plan", message: `must be one of ${PLANS.join(", ")}` });
  }
  let target: OriginTarget | null = null;
  if (typeof input.origin !== "string") errors.push({ field: "origin", message: "must be a URL string" });
  else {
    const parsed = parseOriginUrl(input.origin);
    if (parsed.ok) target = parsed.value;
    else errors.push({ field: "origin", message: parsed.error });
  }
  const connect = bounded(input, "connect_timeout", ZONE_LIMITS.connectTimeout, false, errors);
  const read = bounded(input, "read_timeout", ZONE_LIMITS.readTimeout, false, errors);
  const headerBytes = bounded(input, "max_request_header_bytes", ZONE_LIMITS.maxRequestHeaderBytes, true, errors);

  if (errors.length > 0 || target === null) return err(errors);
  return ok({
    settings: {
      plan: plan as Plan,
      origin: target.origin,
      connect_timeout: connect,
      read_timeout: read,
      max_request_header_bytes: headerBytes,
    },
    target,
  });
}

function bounded(
  input: Record<string, unknown>,
  field: string,
  limits: { readonly default: number; readonly min: number; readonly max: number },
  integer: boolean,
  errors: FieldError[],
): number {
  const value = input[field];
  if (value === undefined) return limits.default;
  const valid = typeof value === "number" && Number.isFinite(value) && (!integer || Number.isInteger(value));
  if (!valid || value < limits.min || value > limits.max) {
    const kind = integer ? "an integer" : "a number";
    errors.push({ field, message: `must be ${kind} from ${limits.min} to ${limits.max}` });
    return limits.default;
  }
  return value;
}
