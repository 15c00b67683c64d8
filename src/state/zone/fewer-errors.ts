/**
 * The zone's "fewer errors" settings (docs/fewer-errors.md): stale if error, stale if slow, a fallback origin, a
 * circuit breaker and maintenance mode. Top-level fields of the zone document, all optional and off when absent.
 * Pure: the stored shape, its bounds and its validator; the edge compiles them once per zone version
 * (src/edge/fewer-errors/compiled.ts).
 */
import { compileExpression } from "../../rules/rule-list";
import { parseOriginUrl } from "../../shared/origin-url";
import { isObject, type IssueList } from "../../shared/validation";

export interface CircuitBreakerSettings {
  /** Consecutive connection-level failures that open the circuit. */
  readonly failures: number;
  /** Seconds the circuit stays open before one probe is let through. */
  readonly open_seconds: number;
}

export interface MaintenanceSettings {
  readonly enabled: boolean;
  /** `Retry-After` of the 503, in seconds. */
  readonly retry_after: number;
  /** A Rules-language expression: requests it matches go on to the origin. Absent: none does. */
  readonly allow?: string;
}

/** The fields as written (wire names); each absent when off. */
export interface FewerErrorsSettings {
  readonly stale_if_error?: number;
  readonly stale_after_ms?: number;
  readonly fallback_origin?: string;
  readonly circuit_breaker?: CircuitBreakerSettings;
  readonly maintenance?: MaintenanceSettings;
}

export const FEWER_ERRORS_FIELDS = [
  "stale_if_error",
  "stale_after_ms",
  "fallback_origin",
  "circuit_breaker",
  "maintenance",
] as const;

/** Bounds (docs/configuration.md "Zones"); defaults of the nested fields when left out. */
export const FEWER_ERRORS_LIMITS = {
  staleIfError: { min: 0, max: 31_536_000 },
  staleAfterMs: { min: 0, max: 600_000 },
  breakerFailures: { default: 5, min: 1, max: 1000 },
  breakerOpenSeconds: { default: 30, min: 1, max: 86_400 },
  maintenanceRetryAfter: { default: 300, min: 0, max: 86_400 },
  allowLength: { max: 4096 },
} as const;

type Bounds = { readonly min: number; readonly max: number };

function integerIn(value: unknown, path: string, bounds: Bounds, issues: IssueList): number | undefined {
  if (typeof value === "number" && Number.isInteger(value) && value >= bounds.min && value <= bounds.max) return value;
  issues.add("out-of-range", path, `must be an integer from ${bounds.min} to ${bounds.max}`);
  return undefined;
}

function onlyKeys(value: Record<string, unknown>, path: string, known: readonly string[], issues: IssueList): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) issues.add("unknown-field", `${path}.${key.slice(0, 40)}`, `is not a field of ${path}`);
  }
}

/**
 * Reads the fields from a `PUT|PATCH /zones/{zone}` body (`null` or absent: off). Every refused field goes to
 * `issues`; the answer holds the valid ones.
 */
export function readFewerErrors(input: Readonly<Record<string, unknown>>, issues: IssueList): FewerErrorsSettings {
  const out: {
    stale_if_error?: number;
    stale_after_ms?: number;
    fallback_origin?: string;
    circuit_breaker?: CircuitBreakerSettings;
    maintenance?: MaintenanceSettings;
  } = {};
  const L = FEWER_ERRORS_LIMITS;
  if (input.stale_if_error != null) {
    const v = integerIn(input.stale_if_error, "stale_if_error", L.staleIfError, issues);
    if (v !== undefined) out.stale_if_error = v;
  }
  if (input.stale_after_ms != null) {
    const v = integerIn(input.stale_after_ms, "stale_after_ms", L.staleAfterMs, issues);
    if (v !== undefined) out.stale_after_ms = v;
  }
  if (input.fallback_origin != null) {
    const raw = input.fallback_origin;
    const parsed = typeof raw === "string" ? parseOriginUrl(raw) : null;
    if (parsed === null) issues.add("wrong-type", "fallback_origin", "must be a URL string");
    else if (!parsed.ok) issues.add("invalid", "fallback_origin", parsed.error);
    else out.fallback_origin = parsed.value.origin;
  }
  const breaker = readBreaker(input.circuit_breaker, issues);
  if (breaker !== undefined) out.circuit_breaker = breaker;
  const maintenance = readMaintenance(input.maintenance, issues);
  if (maintenance !== undefined) out.maintenance = maintenance;
  return out;
}

function readBreaker(value: unknown, issues: IssueList): CircuitBreakerSettings | undefined {
  if (value == null) return undefined;
  if (!isObject(value)) {
    issues.add("wrong-type", "circuit_breaker", "must be an object {failures, open_seconds}");
    return undefined;
  }
  onlyKeys(value, "circuit_breaker", ["failures", "open_seconds"], issues);
  const L = FEWER_ERRORS_LIMITS;
  const failures =
    value.failures == null
      ? L.breakerFailures.default
      : integerIn(value.failures, "circuit_breaker.failures", L.breakerFailures, issues);
  const open =
    value.open_seconds == null
      ? L.breakerOpenSeconds.default
      : integerIn(value.open_seconds, "circuit_breaker.open_seconds", L.breakerOpenSeconds, issues);
  return failures === undefined || open === undefined ? undefined : { failures, open_seconds: open };
}

function readMaintenance(value: unknown, issues: IssueList): MaintenanceSettings | undefined {
  if (value == null) return undefined;
  if (!isObject(value)) {
    issues.add("wrong-type", "maintenance", "must be an object {enabled, retry_after, allow}");
    return undefined;
  }
  onlyKeys(value, "maintenance", ["enabled", "retry_after", "allow"], issues);
  const L = FEWER_ERRORS_LIMITS;
  if (typeof value.enabled !== "boolean") {
    issues.add(value.enabled === undefined ? "missing" : "wrong-type", "maintenance.enabled", "must be true or false");
  }
  const retryAfter =
    value.retry_after == null
      ? L.maintenanceRetryAfter.default
      : integerIn(value.retry_after, "maintenance.retry_after", L.maintenanceRetryAfter, issues);
  let allow: string | undefined;
  if (value.allow != null) {
    const source = value.allow;
    if (typeof source !== "string" || source.length === 0 || source.length > L.allowLength.max) {
      issues.add("invalid", "maintenance.allow", `must be an expression of 1 to ${L.allowLength.max} characters`);
    } else {
      // The request fields of the firewall (docs/rules-language.md): what a request is known by before the origin.
      const compiled = compileExpression("http_request_firewall_custom", source);
      if (compiled.ok) allow = source;
      else issues.add("invalid", "maintenance.allow", compiled.error.message);
    }
  }
  if (typeof value.enabled !== "boolean" || retryAfter === undefined) return undefined;
  if (value.allow != null && allow === undefined) return undefined;
  return { enabled: value.enabled, retry_after: retryAfter, ...(allow === undefined ? {} : { allow }) };
}
