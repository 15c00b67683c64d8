/**
 * Service-wide settings read from the Worker's vars (contract §0), parsed once per `env` object.
 * Every var has a working default so a bare `wrangler dev` serves something sensible.
 */
import { normaliseHostname } from "../http/host";

export interface Settings {
  /** Hostnames (lower-case, no port) that serve the management API. */
  readonly apiHosts: ReadonlySet<string>;
  /** Who generated the error, used in the footer. */
  readonly operatorName: string;
  /** Base URI of the per-code documentation; `null` = `{servicePrefix}/errors` on the requested zone. */
  readonly errorDocsBase: string | null;
  /** Path prefix of the service endpoints, without a trailing slash (`/cdn-cgi`). */
  readonly servicePrefix: string;
  /** Origin for hosts without zone config (dev convenience); `null` when unset or empty. */
  readonly defaultOrigin: string | null;
  /** Account tag limit (contract §5). */
  readonly tagLimit: number;
  /** How long error log lines of a burst wait to be written together (src/errors/error-log.ts); 0 = never. */
  readonly errorLogCoalesceMs: number;
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
}

export const DEFAULT_SETTINGS = {
  apiHosts: "localhost,127.0.0.1",
  operatorName: "the edge",
  servicePrefix: "/cdn-cgi",
  tagLimit: 10_000,
  errorLogCoalesceMs: 50,
} as const;

/** ERROR_LOG_COALESCE_MS bounds: a line is never held longer than a second. */
const MAX_COALESCE_MS = 1000;

const cache = new WeakMap<object, Settings>();

/** Settings for this `env`, parsed on first use and memoised for the isolate's lifetime. */
export function settingsFor(env: SettingsVars): Settings {
  let settings = cache.get(env);
  if (!settings) {
    settings = parseSettings(env);
    cache.set(env, settings);
  }
  return settings;
}

/** Parses the vars; exported for unit tests. Empty strings mean "unset" (contract §4: DEFAULT_ORIGIN). */
export function parseSettings(env: SettingsVars): Settings {
  const hosts = nonEmpty(env.API_HOSTS) ?? DEFAULT_SETTINGS.apiHosts;
  const prefix = nonEmpty(env.SERVICE_PREFIX) ?? DEFAULT_SETTINGS.servicePrefix;
  // Whole decimal numbers only: `parseInt("10abc")` would silently read 10 and lock an account out.
  const rawLimit = env.TAG_LIMIT?.trim() ?? "";
  const limit = /^[1-9][0-9]{0,8}$/.test(rawLimit) ? Number(rawLimit) : Number.NaN;
  return {
    apiHosts: new Set(
      hosts
        .split(",")
        .map(normaliseApiHost)
        .filter((h) => h.length > 0),
    ),
    operatorName: nonEmpty(env.OPERATOR_NAME) ?? DEFAULT_SETTINGS.operatorName,
    errorDocsBase: nonEmpty(env.ERROR_DOCS_BASE)?.replace(/\/+$/, "") ?? null,
    servicePrefix: "/" + prefix.replace(/^\/+|\/+$/g, ""),
    defaultOrigin: nonEmpty(env.DEFAULT_ORIGIN) ?? null,
    tagLimit: Number.isSafeInteger(limit) && limit > 0 ? limit : DEFAULT_SETTINGS.tagLimit,
    errorLogCoalesceMs: coalesceMs(env.ERROR_LOG_COALESCE_MS),
  };
}

/**
 * API_HOSTS entries are hostnames as `zoneOf` produces them: lower-case, without port or trailing dot. An operator
 * writing `localhost:8787` or `api.example.` means that host, so the port and the dot are dropped, not matched.
 */
function normaliseApiHost(entry: string): string {
  const host = entry.trim().toLowerCase();
  const withoutPort = host.startsWith("[") ? host.replace(/^(\[[^\]]*\])(:\d+)?$/, "$1") : host.replace(/:\d+$/, "");
  return normaliseHostname(withoutPort);
}

/** Whole milliseconds 0..MAX_COALESCE_MS; anything else (unset, `abc`, `-1`, `1e3`, `5000`) is the default. */
function coalesceMs(value: string | undefined): number {
  const raw = value?.trim() ?? "";
  const ms = /^(0|[1-9][0-9]{0,3})$/.test(raw) ? Number(raw) : Number.NaN;
  return ms <= MAX_COALESCE_MS ? ms : DEFAULT_SETTINGS.errorLogCoalesceMs;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
