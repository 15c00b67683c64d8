/**
 * Service-wide settings read from the Worker's vars (docs/architecture.md): the ONE place every var is parsed and
 * validated. Pure (no bindings): `scripts/check-config.ts` imports this module (through tsx) to check wrangler.toml
 * and `.dev.vars` with the same rules before `npm run dev` / `npm run deploy` start anything.
 *
 * Every var has a working default so a bare `wrangler dev` serves something sensible. A value that is present but
 * invalid is never silently replaced: it is one problem `{var, value, problem, used}` naming what is used instead,
 * written once per isolate as the log line `{"event":"config_invalid",…}` (level error: the operator must act)
 * and printed by `npm run check-config`. The model is API_TOKENS (src/api/kit/auth.ts): logged precisely, fails closed.
 * docs/configuration.md lists each var's rules and fallback.
 */
import { normaliseHostname } from "./host";
import { eventLine, writeEventLines } from "./log";
import { parseOriginUrl } from "./origin-url";

export interface Settings {
  /** Hostnames (lower-case, no port) that serve the management API. */
  readonly apiHosts: ReadonlySet<string>;
  /** Who generated the error, used in the footer. */
  readonly operatorName: string;
  /** Base URI of the per-code documentation; `null` = `{servicePrefix}/errors` on the requested zone. */
  readonly errorDocsBase: string | null;
  /** Path prefix of the service endpoints, without a trailing slash (`/cdn-cgi`). */
  readonly servicePrefix: string;
  /**
   * Origin for hosts without zone config (dev convenience); `null` when unset or empty. Kept as written even when
   * invalid: zone traffic then answers a structured 500 (src/edge/zone-traffic.ts), there is no safe fallback.
   */
  readonly defaultOrigin: string | null;
  /** Account tag limit (docs/tags-api.md). */
  readonly tagLimit: number;
  /** How long error log lines of a burst wait to be written together (src/errors/error-log.ts); 0 = never. */
  readonly errorLogCoalesceMs: number;
  /**
   * `npm run dev` only: a random value per run, echoed by `GET /openapi.json` as `X-Dev-Instance` so the dev
   * script seeds only a server it started itself. `null` when unset (always, in a deployment).
   */
  readonly devInstance: string | null;
  /**
   * WEBHOOK_LOOPBACK=allow: alert webhooks may go to a loopback receiver (http allowed there), for `wrangler dev` and
   * the tests only; `npm run check-config -- --deploy` refuses it (docs/analytics.md "Webhook targets").
   */
  readonly webhookLoopback: boolean;
  /**
   * RATE_LIMIT_TIMEOUT_MS: how long a request waits for its rate counter before it goes on uncounted (fail open,
   * docs/producers.md "Fail open").
   */
  readonly rateLimitTimeoutMs: number;
}

/** The vars this module reads; all optional so tests and partial configs still get defaults. */
export interface SettingsVars {
  API_HOSTS?: string;
  OPERATOR_NAME?: string;
  ERROR_DOCS_BASE?: string;
  SERVICE_PREFIX?: string;
  DEFAULT_ORIGIN?: string;
  TAG_LIMIT?: string;
  ERROR_LOG_COALESCE_MS?: string;
  DEV_INSTANCE?: string;
  WEBHOOK_LOOPBACK?: string;
  RATE_LIMIT_TIMEOUT_MS?: string;
}

/** One invalid var: what it held, what is wrong with it, and what the service uses instead. */
export interface SettingsProblem {
  readonly kind: "invalid-var";
  readonly var: keyof SettingsVars;
  readonly value: string;
  readonly problem: string;
  /** The value used instead, or what happens when there is no safe fallback. */
  readonly used: string;
}

export interface CheckedSettings {
  readonly settings: Settings;
  readonly problems: readonly SettingsProblem[];
}

export const DEFAULT_SETTINGS = {
  apiHosts: "localhost,127.0.0.1",
  operatorName: "the edge",
  servicePrefix: "/cdn-cgi",
  tagLimit: 10_000,
  errorLogCoalesceMs: 50,
  rateLimitTimeoutMs: 1000,
} as const;

/** ERROR_LOG_COALESCE_MS bounds: a line is never held longer than a second. */
const MAX_COALESCE_MS = 1000;
/** RATE_LIMIT_TIMEOUT_MS bounds: a request never waits more than 10 s for its counter. */
const MAX_RATE_LIMIT_TIMEOUT_MS = 10_000;
/** TAG_LIMIT bounds: whole decimal numbers of up to 9 digits. */
const TAG_LIMIT_PATTERN = /^[1-9][0-9]{0,8}$/;
/** OPERATOR_NAME is printed in every footer: one readable line. */
const MAX_OPERATOR_NAME = 200;
/** A path segment as the service endpoints match it (RFC 3986 §2.3 unreserved characters). */
const PREFIX_PATTERN = /^(?:\/[A-Za-z0-9\-_.~]+)+$/;
/**
 * ASCII a URI reference never holds (RFC 3986 §2: not unreserved, reserved or `%`): whitespace, controls and
 * `<>"{}|\^\``. Non-ASCII is allowed (an IRI, RFC 3987 §3.1: `new URL` percent-encodes it).
 */
const NOT_IN_URI = /[\x00-\x20\x7f<>"{}|\\^`]/;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
/** A hostname or IP literal as API_HOSTS holds it (after the port is dropped). */
const HOST_PATTERN =
  /^(?:\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*)$/;

const cache = new WeakMap<object, Settings>();
/** Problems already logged by this isolate (bounded: vars change only on deploy). */
const logged = new Set<string>();

/**
 * Settings for this `env`, parsed on first use and memoised for the isolate's lifetime. Each invalid var is logged
 * once per isolate, whatever the number of `env` objects.
 */
export function settingsFor(env: SettingsVars): Settings {
  let settings = cache.get(env);
  if (!settings) {
    const checked = checkSettings(env);
    settings = checked.settings;
    cache.set(env, settings);
    for (const problem of checked.problems) logProblem(problem);
  }
  return settings;
}

/** The log line of one invalid var (docs/configuration.md "Validation"). Exported for tests. */
export function configInvalidLine(p: SettingsProblem): string {
  return eventLine("config_invalid", { var: p.var, value: p.value, problem: p.problem, used: p.used });
}

function logProblem(problem: SettingsProblem): void {
  const line = configInvalidLine(problem);
  if (logged.has(line) || logged.size >= 64) return;
  logged.add(line);
  writeEventLines("config_invalid", line);
}

/** Parses the vars (the problems dropped); exported for unit tests. Empty strings mean "unset" (docs/producers.md). */
export function parseSettings(env: SettingsVars): Settings {
  return checkSettings(env).settings;
}

/** Parses and validates the vars: the settings to use, and one problem per invalid var. */
export function checkSettings(env: SettingsVars): CheckedSettings {
  const problems: SettingsProblem[] = [];
  const problem = (name: keyof SettingsVars, value: string, what: string, used: string) =>
    problems.push({ kind: "invalid-var", var: name, value, problem: what, used });

  const servicePrefix = parsePrefix(env.SERVICE_PREFIX, problem);
  const apiHosts = parseApiHosts(env.API_HOSTS, problem);
  return {
    settings: {
      apiHosts,
      operatorName: parseOperatorName(env.OPERATOR_NAME, problem),
      errorDocsBase: parseErrorDocsBase(env.ERROR_DOCS_BASE, servicePrefix, problem),
      servicePrefix,
      defaultOrigin: parseDefaultOrigin(env.DEFAULT_ORIGIN, apiHosts, problem),
      tagLimit: parseTagLimit(env.TAG_LIMIT, problem),
      errorLogCoalesceMs: parseCoalesceMs(env.ERROR_LOG_COALESCE_MS, problem),
      devInstance: nonEmpty(env.DEV_INSTANCE) ?? null,
      webhookLoopback: parseWebhookLoopback(env.WEBHOOK_LOOPBACK, problem),
      rateLimitTimeoutMs: parseRateLimitTimeoutMs(env.RATE_LIMIT_TIMEOUT_MS, problem),
    },
    problems,
  };
}

type Report = (name: keyof SettingsVars, value: string, problem: string, used: string) => void;

/**
 * API_HOSTS entries are hostnames as `zoneOf` produces them: lower-case, without port or trailing dot. An operator
 * writing `localhost:8787` or `api.example.` means that host, so the port and the dot are dropped, not matched.
 * An entry that is no hostname (`https://api.example`, `api example`) is dropped and reported.
 */
function parseApiHosts(value: string | undefined, report: Report): ReadonlySet<string> {
  const raw = nonEmpty(value);
  if (raw === undefined) return new Set(DEFAULT_SETTINGS.apiHosts.split(","));
  const hosts = new Set<string>();
  const bad: string[] = [];
  for (const entry of raw.split(",")) {
    if (entry.trim() === "") continue;
    const host = normaliseApiHost(entry);
    if (HOST_PATTERN.test(host)) hosts.add(host);
    else bad.push(entry.trim());
  }
  if (bad.length > 0) {
    const used = hosts.size > 0 ? [...hosts].join(",") : "none: the management API answers on no host";
    report("API_HOSTS", raw, `not a hostname: ${bad.map((b) => JSON.stringify(b)).join(", ")}`, used);
  }
  return hosts;
}

function normaliseApiHost(entry: string): string {
  const host = entry.trim().toLowerCase();
  const withoutPort = host.startsWith("[") ? host.replace(/^(\[[^\]]*\])(:\d+)?$/, "$1") : host.replace(/:\d+$/, "");
  return normaliseHostname(withoutPort);
}

function parseOperatorName(value: string | undefined, report: Report): string {
  const raw = nonEmpty(value);
  if (raw === undefined) return DEFAULT_SETTINGS.operatorName;
  // C0 controls and DEL would break the footer's one line.
  const control = [...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  if (control || raw.length > MAX_OPERATOR_NAME) {
    report(
      "OPERATOR_NAME",
      raw,
      `must be one line of at most ${MAX_OPERATOR_NAME} characters`,
      DEFAULT_SETTINGS.operatorName,
    );
    return DEFAULT_SETTINGS.operatorName;
  }
  return raw;
}

/**
 * SERVICE_PREFIX: `/segment[/segment…]` of unreserved characters; one trailing slash is dropped (`/_edge/` is
 * `/_edge`). Anything else (`cdn-cgi` without its `/`, `/`, spaces) is reported: a prefix decides which requests
 * never reach zone traffic, so a guess is never made silently. A missing leading `/` is the one mistake whose
 * meaning is certain: `/` is prepended, and said.
 */
function parsePrefix(value: string | undefined, report: Report): string {
  const raw = nonEmpty(value);
  if (raw === undefined) return DEFAULT_SETTINGS.servicePrefix;
  const trimmed = raw.length > 1 ? raw.replace(/\/$/, "") : raw;
  if (PREFIX_PATTERN.test(trimmed)) return trimmed;
  if (!trimmed.startsWith("/") && PREFIX_PATTERN.test(`/${trimmed}`)) {
    report("SERVICE_PREFIX", raw, "must start with /", `/${trimmed}`);
    return `/${trimmed}`;
  }
  report(
    "SERVICE_PREFIX",
    raw,
    "must be /segment[/segment…] of letters, digits, -, _, ., ~",
    DEFAULT_SETTINGS.servicePrefix,
  );
  return DEFAULT_SETTINGS.servicePrefix;
}

/**
 * ERROR_DOCS_BASE: a URI reference (RFC 3986 §4.1): an absolute URI (`https://docs.example/errors`,
 * `urn:example:errors`) or a reference resolved against the requested zone (`/help/errors`, `//docs.example/e`).
 * A value that is neither (`ht tp://bad base`) would put a garbage `type` in every error; the default
 * (`{SERVICE_PREFIX}/errors`, the service's own reference of the code) is a correct `type` (docs/errors.md), so
 * it is used instead, and said.
 */
function parseErrorDocsBase(value: string | undefined, servicePrefix: string, report: Report): string | null {
  const raw = nonEmpty(value);
  if (raw === undefined) return null;
  const base = raw.replace(/\/+$/, "");
  const valid =
    base.length > 0 &&
    !NOT_IN_URI.test(base) &&
    !/%(?![0-9a-f]{2})/i.test(base) &&
    (SCHEME.test(base) ? URL.canParse(base) : URL.canParse(base, "http://zone.invalid/"));
  if (valid) return base;
  report(
    "ERROR_DOCS_BASE",
    raw,
    'must be a URI reference (RFC 3986): an absolute URI or a path, without spaces or <>"{}|\\^`',
    `${servicePrefix}/errors on the requested zone`,
  );
  return null;
}

/**
 * DEFAULT_ORIGIN: an origin like any zone's (docs/origin.md). There is no safe fallback for an invalid one (any other
 * origin would be a wrong answer), so it is kept and zone traffic without zone config answers a structured 500
 * naming the problem (src/edge/zone-traffic.ts); reported here so `npm run check-config` catches it first.
 */
function parseDefaultOrigin(value: string | undefined, apiHosts: ReadonlySet<string>, report: Report): string | null {
  const raw = nonEmpty(value);
  if (raw === undefined) return null;
  const parsed = parseOriginUrl(raw);
  const used = "none: hosts without zone config answer a structured 500";
  if (!parsed.ok) report("DEFAULT_ORIGIN", raw, parsed.error, used);
  else if (apiHosts.has(normaliseHostname(parsed.value.hostname)))
    report("DEFAULT_ORIGIN", raw, "must not be a host of API_HOSTS (docs/origin.md)", used);
  return raw;
}

/** TAG_LIMIT: whole decimal numbers only: `parseInt("10abc")` would silently read 10 and lock an account out. */
function parseTagLimit(value: string | undefined, report: Report): number {
  const raw = nonEmpty(value);
  if (raw === undefined) return DEFAULT_SETTINGS.tagLimit;
  if (TAG_LIMIT_PATTERN.test(raw)) return Number(raw);
  report("TAG_LIMIT", raw, "must be a whole number from 1 to 999999999", String(DEFAULT_SETTINGS.tagLimit));
  return DEFAULT_SETTINGS.tagLimit;
}

/**
 * A var of whole milliseconds from `min` to `max`, written as plain digits (`abc`, `-1`, `1e3` or a value out of range
 * are reported, and `fallback` is used).
 */
function wholeMs(
  name: keyof SettingsVars,
  value: string | undefined,
  bounds: { readonly min: 0 | 1; readonly max: number; readonly fallback: number },
  report: Report,
): number {
  const raw = nonEmpty(value);
  if (raw === undefined) return bounds.fallback;
  const ms = /^(0|[1-9][0-9]*)$/.test(raw) && raw.length <= 6 ? Number(raw) : Number.NaN;
  if (ms >= bounds.min && ms <= bounds.max) return ms;
  report(name, raw, `must be whole milliseconds from ${bounds.min} to ${bounds.max}`, String(bounds.fallback));
  return bounds.fallback;
}

/** ERROR_LOG_COALESCE_MS: whole milliseconds 0..MAX_COALESCE_MS. */
const parseCoalesceMs = (value: string | undefined, report: Report): number =>
  wholeMs(
    "ERROR_LOG_COALESCE_MS",
    value,
    { min: 0, max: MAX_COALESCE_MS, fallback: DEFAULT_SETTINGS.errorLogCoalesceMs },
    report,
  );

/** RATE_LIMIT_TIMEOUT_MS: whole milliseconds 1..MAX_RATE_LIMIT_TIMEOUT_MS (`0` is reported). */
const parseRateLimitTimeoutMs = (value: string | undefined, report: Report): number =>
  wholeMs(
    "RATE_LIMIT_TIMEOUT_MS",
    value,
    { min: 1, max: MAX_RATE_LIMIT_TIMEOUT_MS, fallback: DEFAULT_SETTINGS.rateLimitTimeoutMs },
    report,
  );

/** WEBHOOK_LOOPBACK: unset, or `allow`; anything else is reported and loopback stays refused (fails closed). */
function parseWebhookLoopback(value: string | undefined, report: Report): boolean {
  const raw = nonEmpty(value);
  if (raw === undefined) return false;
  if (raw === "allow") return true;
  report("WEBHOOK_LOOPBACK", raw, 'must be "allow" or unset', "unset: loopback webhook targets are refused");
  return false;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
