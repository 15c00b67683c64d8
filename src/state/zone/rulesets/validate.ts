/**
 * Validation of `PUT /zones/{zone}/rulesets/phases/{phase}/entrypoint` bodies (contract §2.1, §4, §6): pure, no
 * bindings. Every expression is compiled against its phase's field set and every limit checked before anything is
 * stored; a refused body changes nothing. Errors name the rule index, and for expressions the 1-based line and
 * column with what was expected (the engine's `RuleError`).
 *
 * Shapes follow the published rulesets API: a ruleset `{id, name, kind: "zone", phase, version, last_updated,
 * rules}` whose rules carry `id`, `version`, `expression`, `action`, `action_parameters`, `enabled`, `description`,
 * `last_updated` (and `ratelimit` in `http_ratelimit`), so its official clients can drive this API.
 */
import { parseCharacteristic } from "./characteristics";
import { RATE_LIMIT_BOUNDS } from "./ratelimit";
import { compile } from "../../../rules";
import { err, ok, type Result } from "../../../shared/result";
import type { Plan } from "../schema";
import { PHASE_SPECS, type Phase } from "./phases";

/** contract §2.1: custom error responses. */
export const CONTENT_TYPES = ["application/json", "text/html", "text/plain", "text/xml"] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];
export const LIMITS = {
  /**
   * The zone's regular expressions together, in all three phases, compiled: at most this many re2js instructions
   * (issue 19). Per expression the engine already caps 64 regexes, 10,000 instructions per regex and 4,000 counted
   * repetitions; this bounds what one zone makes every isolate compile and hold (once per config version) — 25
   * firewall rules of four `a[ab]{998}w` each are ~100,000.
   */
  zoneProgramSize: 200_000,
  contentBytes: { min: 1, max: 10_240 },
  statusCode: { min: 400, max: 599 },
  descriptionLength: 500,
} as const;

export interface ServeErrorParameters {
  readonly content: string;
  readonly content_type: ContentType;
  readonly status_code?: number;
}

export interface RateLimit {
  readonly characteristics: readonly string[];
  readonly period: number;
  readonly requests_per_period: number;
  readonly mitigation_timeout: number;
}

/** A rule as stored in the zone document's `rulesets` section (and shown by the API). */
export interface StoredRule {
  readonly id: string;
  readonly version: string;
  readonly expression: string;
  readonly action: "serve_error" | "block";
  readonly action_parameters?: ServeErrorParameters;
  readonly ratelimit?: RateLimit;
  readonly description: string;
  readonly enabled: boolean;
  readonly last_updated: string;
}

export interface StoredRuleset {
  readonly id: string;
  readonly version: string;
  readonly last_updated: string;
  readonly rules: readonly StoredRule[];
}

/** One refused field; `index` is the rule's position in `rules` when the field belongs to a rule. */
export interface RulesetFieldError {
  readonly index?: number;
  readonly field: string;
  readonly message: string;
}

export type RulesetFailure =
  /** The zone's plan cannot use the phase (contract §2.1: 403, code 1100). */
  | { readonly kind: "plan-forbids"; readonly plan: Plan; readonly phase: Phase }
  | { readonly kind: "invalid-ruleset"; readonly errors: readonly RulesetFieldError[] };

const RULESET_FIELDS = new Set(["rules", "name", "description", "kind", "phase"]);
const RULE_FIELDS = new Set([
  "id",
  "ref",
  "expression",
  "action",
  "action_parameters",
  "ratelimit",
  "description",
  "enabled",
]);
const ID = /^[0-9a-f]{32}$/;

/**
 * Validates a body for `phase` on a zone of `plan`, against the ruleset stored before (kept ids keep their rule's
 * history: its version goes up by one when the rule changes). `newId` mints ids (random 32 hex in production).
 */
export function parseRuleset(
  body: unknown,
  phase: Phase,
  plan: Plan,
  previous: StoredRuleset | null,
  now: Date,
  newId: () => string,
  /** The compiled regex program size of the zone's OTHER phases (`rulesetProgramSize`), for the zone's cap. */
  otherPhasesProgramSize = 0,
): Result<StoredRuleset, RulesetFailure> {
  const spec = PHASE_SPECS[phase];
  if (spec.maxRules[plan] === 0) return err({ kind: "plan-forbids", plan, phase });
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return invalid([{ field: "body", message: "must be a JSON object with a `rules` array" }]);
  }
  const input = body as Record<string, unknown>;
  const errors: RulesetFieldError[] = [];
  for (const key of Object.keys(input))
    if (!RULESET_FIELDS.has(key)) errors.push({ field: key, message: "is not a ruleset field" });
  if (input.phase !== undefined && input.phase !== phase)
    errors.push({ field: "phase", message: `must be ${phase} (the path's phase)` });
  if (!Array.isArray(input.rules)) return invalid([...errors, { field: "rules", message: "must be an array" }]);
  const rules = input.rules as unknown[];
  const max = spec.maxRules[plan];
  if (rules.length > max) {
    errors.push({ field: "rules", message: `at most ${max} rules in ${phase} on the ${plan} plan (contract §2.1)` });
    return invalid(errors);
  }
  const stamp = now.toISOString();
  const before = new Map((previous?.rules ?? []).map((r) => [r.id, r]));
  const seen = new Set<string>();
  const stored: StoredRule[] = [];
  let programSize = 0;
  for (const [index, raw] of rules.entries()) {
    const rule = parseRule(raw, index, phase, errors);
    if (!rule) continue;
    programSize += rule.programSize;
    const id = rule.id ?? newId();
    if (seen.has(id)) {
      errors.push({ index, field: "id", message: "is used by another rule of this ruleset" });
      continue;
    }
    seen.add(id);
    const old = before.get(id);
    const candidate = { ...rule.value, id };
    const unchanged = old !== undefined && sameRule(old, candidate);
    stored.push({
      ...candidate,
      version: old ? (unchanged ? old.version : String(Number(old.version) + 1)) : "1",
      last_updated: unchanged ? old.last_updated : stamp,
    });
  }
  if (errors.length === 0 && otherPhasesProgramSize + programSize > LIMITS.zoneProgramSize) {
    errors.push({
      field: "rules",
      message:
        `the zone's regular expressions would compile to ${otherPhasesProgramSize + programSize} instructions ` +
        `(${programSize} in ${phase}, ${otherPhasesProgramSize} in the other phases), over the zone's limit of ` +
        `${LIMITS.zoneProgramSize} (docs/rules-language.md "Evaluation budget")`,
    });
  }
  if (errors.length > 0) return invalid(errors);
  return ok({
    id: previous?.id ?? newId(),
    version: String(Number(previous?.version ?? "0") + 1),
    last_updated: stamp,
    rules: stored,
  });
}

type RuleFields = Omit<StoredRule, "id" | "version" | "last_updated">;

function parseRule(
  raw: unknown,
  index: number,
  phase: Phase,
  errors: RulesetFieldError[],
): { id: string | undefined; value: RuleFields; programSize: number } | null {
  const spec = PHASE_SPECS[phase];
  const at = (field: string, message: string): void => void errors.push({ index, field, message });
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    at("rule", "must be an object");
    return null;
  }
  const r = raw as Record<string, unknown>;
  const count = errors.length;
  for (const key of Object.keys(r)) if (!RULE_FIELDS.has(key)) at(key, "is not a rule field");
  if (r.id !== undefined && (typeof r.id !== "string" || !ID.test(r.id)))
    at("id", "must be 32 lower-case hex characters");
  if (r.action !== spec.action) at("action", `must be "${spec.action}" in ${phase}`);
  if (
    r.description !== undefined &&
    (typeof r.description !== "string" || r.description.length > LIMITS.descriptionLength)
  ) {
    at("description", `must be a string of at most ${LIMITS.descriptionLength} characters`);
  }
  if (r.enabled !== undefined && typeof r.enabled !== "boolean") at("enabled", "must be true or false");
  let expression = "";
  let programSize = 0;
  if (typeof r.expression !== "string" || r.expression.length === 0) at("expression", "must be a non-empty string");
  else {
    expression = r.expression;
    // Compiled against the phase's fields, with the engine's limits (length, depth, regex count: contract §2.1).
    const compiled = compile(expression, spec.fields.scheme);
    if (!compiled.ok) {
      const e = compiled.error;
      at("expression", `${e.line}:${e.column}: ${e.message}`);
    } else programSize = compiled.value.programSize;
  }
  const parameters = phase === "http_custom_errors" ? parseServeError(r.action_parameters, at) : undefined;
  if (phase !== "http_custom_errors" && r.action_parameters !== undefined)
    at("action_parameters", `is not used in ${phase}`);
  const ratelimit = phase === "http_ratelimit" ? parseRateLimit(r.ratelimit, at) : undefined;
  if (phase !== "http_ratelimit" && r.ratelimit !== undefined) at("ratelimit", `is only used in http_ratelimit`);
  if (errors.length > count) return null;
  return {
    id: r.id as string | undefined,
    programSize,
    value: {
      expression,
      action: spec.action,
      ...(parameters ? { action_parameters: parameters } : {}),
      ...(ratelimit ? { ratelimit } : {}),
      description: (r.description as string | undefined) ?? "",
      enabled: (r.enabled as boolean | undefined) ?? true,
    },
  };
}

function parseServeError(raw: unknown, at: (field: string, message: string) => void): ServeErrorParameters | undefined {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    at("action_parameters", "must be an object {content, content_type, status_code?}");
    return undefined;
  }
  const p = raw as Record<string, unknown>;
  for (const key of Object.keys(p)) {
    if (!["content", "content_type", "status_code"].includes(key))
      at(`action_parameters.${key}`, "is not a parameter of serve_error");
  }
  const { min, max } = LIMITS.contentBytes;
  const bytes = typeof p.content === "string" ? new TextEncoder().encode(p.content).byteLength : -1;
  if (bytes < min || bytes > max) at("action_parameters.content", `must be a string of ${min} to ${max} bytes`);
  if (typeof p.content_type !== "string" || !(CONTENT_TYPES as readonly string[]).includes(p.content_type)) {
    at("action_parameters.content_type", `must be one of ${CONTENT_TYPES.join(", ")}`);
  }
  const status = p.status_code;
  if (status !== undefined && !(Number.isInteger(status) && (status as number) >= 400 && (status as number) <= 599)) {
    at("action_parameters.status_code", "must be an integer from 400 to 599 (contract §2.1)");
  }
  if (typeof p.content !== "string" || typeof p.content_type !== "string") return undefined;
  return {
    content: p.content,
    content_type: p.content_type as ContentType,
    ...(status === undefined ? {} : { status_code: status as number }),
  };
}

function parseRateLimit(raw: unknown, at: (field: string, message: string) => void): RateLimit | undefined {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    at("ratelimit", "must be an object {characteristics, period, requests_per_period, mitigation_timeout}");
    return undefined;
  }
  const p = raw as Record<string, unknown>;
  for (const key of Object.keys(p)) {
    if (!["characteristics", "period", "requests_per_period", "mitigation_timeout"].includes(key))
      at(`ratelimit.${key}`, "is not a rate-limiting field");
  }
  // The request phase's own parser and bounds (src/edge/request-phases/rate-limit): what is accepted here is exactly what counts.
  const chars = p.characteristics;
  const { min: fewest, max: most } = RATE_LIMIT_BOUNDS.characteristics;
  if (!Array.isArray(chars) || chars.length < fewest || chars.length > most) {
    at("ratelimit.characteristics", `must be a list of ${fewest} to ${most} characteristics, e.g. ["ip.src"]`);
  } else {
    for (const [i, c] of chars.entries()) {
      const parsed = typeof c === "string" ? parseCharacteristic(c) : err("must be a string");
      if (!parsed.ok) at(`ratelimit.characteristics[${i}]`, parsed.error);
    }
    if (new Set(chars).size !== chars.length) at("ratelimit.characteristics", "must not repeat a characteristic");
  }
  const whole = (field: string, value: unknown, bounds: { readonly min: number; readonly max: number }): void => {
    if (!Number.isInteger(value) || (value as number) < bounds.min || (value as number) > bounds.max)
      at(`ratelimit.${field}`, `must be an integer from ${bounds.min} to ${bounds.max}`);
  };
  whole("period", p.period, RATE_LIMIT_BOUNDS.period);
  whole("requests_per_period", p.requests_per_period, RATE_LIMIT_BOUNDS.requestsPerPeriod);
  whole("mitigation_timeout", p.mitigation_timeout, RATE_LIMIT_BOUNDS.mitigationTimeout);
  if (!Array.isArray(chars)) return undefined;
  return {
    characteristics: chars as string[],
    period: p.period as number,
    requests_per_period: p.requests_per_period as number,
    mitigation_timeout: p.mitigation_timeout as number,
  };
}

/** The compiled regex program size of a stored ruleset (its expressions compiled against the phase's fields). */
export function rulesetProgramSize(phase: Phase, ruleset: StoredRuleset | null): number {
  let size = 0;
  for (const rule of ruleset?.rules ?? []) {
    const compiled = compile(rule.expression, PHASE_SPECS[phase].fields.scheme);
    if (compiled.ok) size += compiled.value.programSize;
  }
  return size;
}

function sameRule(a: StoredRule, b: RuleFields & { id: string }): boolean {
  const strip = ({ version: _v, last_updated: _l, ...rest }: StoredRule): RuleFields & { id: string } => rest;
  return JSON.stringify(strip(a)) === JSON.stringify(b);
}

function invalid(errors: readonly RulesetFieldError[]): Result<never, RulesetFailure> {
  return err({ kind: "invalid-ruleset", errors });
}

/** The ruleset as the published API shows it. */
export function presentRuleset(zone: string, phase: Phase, stored: StoredRuleset | null): Record<string, unknown> {
  return {
    id: stored?.id ?? "",
    name: `${zone} ${phase}`,
    description: "",
    kind: "zone",
    phase,
    version: stored?.version ?? "0",
    last_updated: stored?.last_updated ?? null,
    rules: (stored?.rules ?? []).map((r) => ({ ...r, ref: r.id })),
  };
}
