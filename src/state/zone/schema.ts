/**
 * The zone document (docs/configuration.md): what `PUT /zones/{zone}` accepts and what KV stores. Pure validation;
 * the same checks guard both the API body and a document read back from KV (a corrupt document is an
 * internal failure, never trusted).
 */
import { HOSTNAME_LIMITS, hostnameProblem, hostnameProblemMessage, normaliseHostname } from "../../shared/host";
import { err, ok, type Result } from "../../shared/result";
import { oneIssue, type Issues } from "../../shared/validation";
import {
  described,
  fields,
  int,
  later,
  named,
  num,
  oneOf,
  parseWith,
  patchOf,
  text,
  type Output,
} from "../../shared/schema";
// Imported here, not re-exported by shared/schema.ts: a namespace re-export keeps all of zod (its locales too) in the bundle.
import * as z from "zod/mini";
import { parseOriginUrl, type OriginTarget } from "../../shared/origin-url";
import { compileExpression } from "../../rules/rule-list";
import { LANGUAGES } from "../../shared/language-tags";
import { HEX_ID } from "../../shared/crypto";

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
  /** Seconds a kept copy may answer a failure past its freshness (docs/fewer-errors.md); at most a week. */
  staleIfError: { default: 0, min: 0, max: 7 * 86_400 },
  /** Milliseconds to wait for the origin's headers when a copy exists; at most the default read timeout. */
  staleAfterMs: { default: 0, min: 0, max: 100_000 },
} as const;

/**
 * The zone's retry-hint profile (docs/errors.md "Retry-hint profiles"): `published` sends the catalog's hints exactly,
 * `agent` caps every hint at 60 s and spreads it by Ray ID so the clients of one failing origin do not retry in step,
 * `auto` sends `agent` hints to clients that retry by themselves (SDKs, MCP, the client package) and the published
 * ones to everyone else. The default stays `published`: the published catalog exactly unless the operator opts in.
 */
export const RETRY_HINTS = ["published", "agent", "auto"] as const;
export type RetryHints = (typeof RETRY_HINTS)[number];

/** An account id: 32 lower-case hex characters (the published platform's account identifiers). */
export const ACCOUNT_ID = HEX_ID;

/**
 * An account id as a body or a path gives it (`account.id`, `/accounts/{account_id}/…`): the component
 * `AccountId`, whose pattern is the one the routes match the path with.
 */
export const ACCOUNT_ID_TEXT = named(text({ pattern: ACCOUNT_ID }, "must be 32 lower-case hex characters"), {
  id: "AccountId",
  example: "023e105f4ecef8ad9ca31a8372d0c353",
});

/** Whether `value` is an account id (a path's `account_id`: anything else is an unknown route, 404). */
export const isAccountId = (value: string): boolean => ACCOUNT_ID_TEXT.safeParse(value).success;

/**
 * `account`: absent or `null` (no account), or `{id}` with a 32 lower-case hex id and no other key (the published
 * zone create body's `account`; its `name` is the platform's, not writable).
 */
export const ZONE_ACCOUNT = later(
  () =>
    fields(
      { id: ACCOUNT_ID_TEXT },
      "is not a field of account (only id)",
      'must be an object {"id": "<32 lower-case hex characters>"} or null',
    ),
  { id: "ZoneAccount", example: { id: "023e105f4ecef8ad9ca31a8372d0c353" } },
);

/** The account a zone belongs to, in the published zone object's shape (`account: {id}`). */
export type ZoneAccount = Output<typeof ZONE_ACCOUNT>;

/** A bounded setting with its default, in seconds or bytes as `ZONE_LIMITS` has it. */
const limited = (limits: { readonly default: number; readonly min: number; readonly max: number }, integer = false) =>
  z._default(integer ? int(limits.min, limits.max) : num(limits.min, limits.max), limits.default);

/** An origin URL (docs/origin.md): `http(s)://host[:port]`, the message of `parseOriginUrl` when refused. */
const originUrl = () =>
  text({}, "must be a URL string").check(
    z.superRefine((raw, context) => {
      const parsed = parseOriginUrl(raw);
      if (!parsed.ok) context.issues.push({ code: "custom", message: parsed.error, input: raw });
    }),
  );

/** Bounds and defaults of the fail-over settings (docs/fewer-errors.md). */
export const FAILOVER_LIMITS = {
  /** Consecutive connection-level failures that open an origin's circuit (Envoy's outlier detection default: 5). */
  breakerFailures: { default: 5, min: 1, max: 1000 },
  /** Seconds an open circuit skips its origin before one probe (Envoy's base ejection time: 30 s). */
  breakerOpenSeconds: { default: 30, min: 1, max: 3600 },
  /** Seconds of the maintenance error's `Retry-After`. */
  maintenanceRetryAfter: { default: 300, min: 1, max: 86_400 },
  /** Characters of the maintenance `allow` expression (a firewall rule's expression is at most 4,096 too). */
  allowLength: { max: 4096 },
} as const;

/**
 * `circuit_breaker` (docs/fewer-errors.md "Circuit breaker"): each field defaults when left out. Whether it is on is
 * whether the field is present.
 */
export const CIRCUIT_BREAKER = later(
  () =>
    fields(
      {
        failures: described(limited(FAILOVER_LIMITS.breakerFailures, true), "consecutive connection-level failures"),
        open_seconds: described(limited(FAILOVER_LIMITS.breakerOpenSeconds, true), "seconds the circuit stays open"),
      },
      "is not a field of circuit_breaker",
      "must be an object {failures, open_seconds}",
    ),
  { id: "CircuitBreaker", example: { failures: 5, open_seconds: 30 } },
);

const LANGUAGES_LIST = `must be a list of 1 to ${LANGUAGES.length} languages, each once`;

/**
 * `languages` (docs/languages.md "A zone's languages"): the languages the zone's errors are written in, in the
 * zone's order: the first is what a request that matches none of them gets; one member pins the zone to it.
 */
export const ZONE_LANGUAGES = later(
  () =>
    z.array(oneOf(LANGUAGES), { error: LANGUAGES_LIST }).check(
      z.minLength(1, { error: LANGUAGES_LIST }),
      z.maxLength(LANGUAGES.length, { error: LANGUAGES_LIST }),
      z.refine((list) => new Set(list).size === list.length, { error: LANGUAGES_LIST }),
    ),
  { id: "ZoneLanguages", example: ["de", "en"] },
);

/** `maintenance.allow`: a Rules-language expression over the request fields (what a firewall rule sees). */
const allowExpression = () =>
  text(
    { min: 1, max: FAILOVER_LIMITS.allowLength.max },
    `must be an expression of 1 to ${FAILOVER_LIMITS.allowLength.max} characters`,
  ).check(
    z.superRefine((source, context) => {
      const compiled = compileExpression("http_request_firewall_custom", source);
      if (!compiled.ok) context.issues.push({ code: "custom", message: compiled.error.message, input: source });
    }),
  );

/** `maintenance` (docs/fewer-errors.md "Maintenance mode"). */
export const MAINTENANCE = later(
  () =>
    fields(
      {
        enabled: z.boolean({ error: "must be true or false" }),
        retry_after: described(
          limited(FAILOVER_LIMITS.maintenanceRetryAfter, true),
          "seconds: the error's Retry-After",
        ),
        allow: described(
          z.optional(allowExpression()),
          "a Rules-language expression: the requests it matches reach the origin as usual",
        ),
      },
      "is not a field of maintenance",
      "must be an object {enabled, retry_after, allow}",
    ),
  { id: "Maintenance", example: { enabled: true, retry_after: 600, allow: "ip.src in {203.0.113.0/24}" } },
);

const ZONE_SETTINGS_UNKNOWN = "is not a zone setting";

/**
 * `PUT /zones/{zone}`'s body (and the `settings` of every stored zone document), in wire names and seconds: the
 * validator, the type (`ZoneSettings`) and the OpenAPI schema `ZoneSettings` (and, each field nullable, `ZonePatch`).
 * A new zone setting is one line here (with its docs/configuration.md entry): PATCH, the document and the type
 * follow.
 */
export const ZONE_SETTINGS = later(
  () =>
    fields(
      {
        plan: oneOf(PLANS),
        origin: described(originUrl(), "`http(s)://host[:port]`"),
        account: described(
          z.optional(z.nullable(ZONE_ACCOUNT())),
          "The account the zone belongs to (the published zone object's `account`); absent or null: none. A token " +
            "scoped to accounts reaches exactly the zones of its accounts and may name only those.",
        ),
        connect_timeout: described(limited(ZONE_LIMITS.connectTimeout), "seconds"),
        read_timeout: described(limited(ZONE_LIMITS.readTimeout), "seconds"),
        max_request_header_bytes: limited(ZONE_LIMITS.maxRequestHeaderBytes, true),
        /** Absent in a document written before the field existed: read as `published`. */
        retry_hints: described(
          z._default(oneOf(RETRY_HINTS), "published"),
          "`published`: the catalog's Retry-After hints exactly; `agent`: every hint at most 60 s, spread by Ray ID; " +
            "`auto`: `agent` for SDKs (x-stainless-* headers), MCP requests and the client package, `published` for " +
            'everyone else (docs/errors.md "Retry-hint profiles")',
        ),
        fallback_origin: described(
          z.optional(originUrl()),
          '`http(s)://host[:port]`: tried once when the origin fails (docs/fewer-errors.md "Fail over"); absent: none',
        ),
        circuit_breaker: described(z.optional(CIRCUIT_BREAKER()), "absent: no circuit breaker"),
        languages: described(
          z.optional(ZONE_LANGUAGES()),
          "The languages the zone's errors are written in, matched against `Accept-Language`; the first is the " +
            "fallback, one alone pins it; absent: every language, English the fallback (docs/languages.md)",
        ),
        stale_if_error: z.optional(
          described(
            int(ZONE_LIMITS.staleIfError.min, ZONE_LIMITS.staleIfError.max),
            "seconds a kept copy of a good GET answer may answer an origin failure past its freshness; absent or 0: only " +
              'what the origin allows with `Cache-Control: stale-if-error` (docs/fewer-errors.md "Stale if error")',
          ),
        ),
        stale_after_ms: z.optional(
          described(
            int(ZONE_LIMITS.staleAfterMs.min, ZONE_LIMITS.staleAfterMs.max),
            "milliseconds: with a usable copy, an origin that has sent no headers by then is answered from the copy; " +
              'absent or 0: off (docs/fewer-errors.md "Stale if slow")',
          ),
        ),
        maintenance: described(z.optional(MAINTENANCE()), "absent: no maintenance mode"),
      },
      ZONE_SETTINGS_UNKNOWN,
    ),
  {
    id: "ZoneSettings",
    example: {
      plan: "pro",
      origin: "https://origin.example.com",
      account: { id: "023e105f4ecef8ad9ca31a8372d0c353" },
      connect_timeout: 10,
    },
  },
);

/**
 * `PATCH /zones/{zone}`'s body: any field of `ZoneSettings`, or `null` to reset it to its default. The merged
 * settings are then validated by `ZONE_SETTINGS` (edits.ts).
 */
export const ZONE_PATCH = later(() => patchOf(ZONE_SETTINGS().shape, ZONE_SETTINGS_UNKNOWN), {
  id: "ZonePatch",
  description: "Any fields of `ZoneSettings`, each replacing the stored one; `null` resets it to its default.",
  example: { plan: "business", read_timeout: 30, account: { id: "023e105f4ecef8ad9ca31a8372d0c353" } },
});

/** The settings a client writes with `PUT /zones/{zone}` (wire names, seconds); `account` absent: none. */
export type ZoneSettings = Readonly<Omit<Output<typeof ZONE_SETTINGS>, "account"> & { account?: ZoneAccount }>;

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

/**
 * A zone's name as a path or a query gives it (a DNS hostname, docs/architecture.md), read lower-cased without its
 * trailing dot. The shape is `hostnameProblem`'s, the same check zone traffic makes before any KV read, so a name
 * this refuses is exactly a host that answers 1001 without a lookup (docs/producers.md). The component `ZoneName`:
 * the first refusal ends the parse, so the length bound the document states is checked by `hostnameProblem` with
 * its own wording before `maxLength` is reached.
 */
export const ZONE_NAME = later(
  () =>
    z.string().check(
      z.overwrite(normaliseHostname),
      z.superRefine((name, context) => {
        const why = zoneNameProblem(name);
        if (why !== null) context.issues.push({ code: "custom", message: why, input: name, continue: false });
      }),
      z.maxLength(HOSTNAME_LIMITS.maxLength),
    ),
  { id: "ZoneName", description: "Hostname.", example: "www.example.com" },
);

/** Why a normalised name is no zone name, worded as the zones API answers it; `null` when it is one. */
function zoneNameProblem(name: string): string | null {
  if (/^[0-9.]+$/.test(name)) return "zone must be a hostname, not an IP address";
  if (name.includes(":")) return "zone must be a hostname, without a port (nor an IPv6 address)";
  const problem = hostnameProblem(name);
  return problem === null ? null : `zone must be a hostname: ${hostnameProblemMessage(problem)}`;
}

/** Validates a zone name with `ZONE_NAME` and returns it lower-cased, or the refusal's wording. */
export function parseZoneName(raw: string): Result<string, string> {
  const parsed = ZONE_NAME().safeParse(raw);
  return parsed.success ? ok(parsed.data) : err(parsed.error.issues[0]?.message ?? "zone must be a hostname");
}

/** Validates a `PUT /zones/{zone}` body; every invalid field is reported at once (capped). */
export function parseZoneSettings(body: unknown): Result<{ settings: ZoneSettings; target: OriginTarget }, Issues> {
  const parsed = parseWith(ZONE_SETTINGS, body, { root: "body" });
  if (!parsed.ok) return parsed;
  const { account, ...rest } = parsed.value;
  // The schema's refinement accepted the origin, so this parse succeeds; its normalised form is what is stored.
  const target = parseOriginUrl(rest.origin);
  if (!target.ok) return err(oneIssue("invalid", "origin", target.error));
  const fallback = rest.fallback_origin === undefined ? undefined : parseOriginUrl(rest.fallback_origin);
  if (fallback !== undefined && !fallback.ok) return err(oneIssue("invalid", "fallback_origin", fallback.error));
  const settings = {
    ...rest,
    origin: target.value.origin,
    ...(fallback === undefined ? {} : { fallback_origin: fallback.value.origin }),
    ...(account ? { account } : {}),
  };
  return ok({ settings, target: target.value });
}

/** The id of the account a zone belongs to, `null` for none. */
export function zoneAccountId(settings: ZoneSettings): string | null {
  return settings.account?.id ?? null;
}
