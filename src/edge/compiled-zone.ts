/**
 * A zone compiled once per (zone, version) (AGENTS.md: compile once per config version), behind the one lookup
 * every reader of a zone uses (zone traffic, `/cdn-cgi/error/{code}`, the preview API): its route (origin plan and
 * limits), its URL normalisation, its request phases (IP access matcher, firewall and rate-limiting rule lists) and
 * its custom errors (rule list and customised pages). Synchronous on a hit: a fresh zone costs two Map lookups and
 * no promise; a miss reads KV once (src/state/zone/cache.ts, the raw documents, TTL and negative entries).
 *
 * Keyed by zone and checked against the document's version, not its object: the raw cache re-reads KV every 10 s
 * and gets a new object for the same version, which must not recompile anything; a version number is never reused
 * for a zone (the writer's counter survives deletion, src/state/zone/writer.ts). Bounded like the raw cache
 * (docs/configuration.md). Here, not in state/, because it holds edge values (the access matcher, the origin plan).
 */
import { compileCustomErrors, type CompiledCustomErrors } from "./custom-errors/compiled";
import type { ForwardPlan } from "./origin/forward";
import { failoverConfig, type FailoverConfig } from "./origin/fail-over";
import { compileMaintenance, type CompiledMaintenance } from "./origin/maintenance";
import { compileRequestPhase, requestPhaseConfig, type CompiledRequestPhase } from "./request-phases/compile";
import { BoundedCache } from "../shared/bounded-cache";
import { logUnusableRules } from "../rules/rule-list";
import type { OriginTarget } from "../shared/origin-url";
import { causeOf, err, ok, type Result } from "../shared/result";
import { DEFAULT_URL_NORMALIZATION, type UrlNormalization } from "../shared/url-normalise";
import { cachedZone, lookupZone, MAX_ENTRIES } from "../state/zone/cache";
import type { Zone, ZoneSettings } from "../state/zone/schema";
import type { StoreFailure } from "../state/zone/store";
import { storedUrlNormalization } from "../state/zone/url-normalization/stored";
import { DEFAULT_SHARDS, storedShardPlan } from "../state/analytics/shards";
import { logsEndpointOf, storedTelemetry } from "../state/zone/telemetry/stored";
import type { TelemetryTarget } from "./telemetry/exporter";
import type { StaleSettings } from "./stale/stale";
import { LanguageChooser } from "../errors/language";

/** Where traffic goes and the limits it meets: the same shape for a configured zone and for DEFAULT_ORIGIN. */
export interface Route {
  readonly plan: ForwardPlan;
  readonly maxRequestHeaderBytes: number;
}

export interface CompiledZone {
  readonly zone: string;
  readonly version: number;
  readonly route: Route;
  /** The zone's `url_normalization` (docs/rules-language.md), the defaults when never written. */
  readonly normalization: UrlNormalization;
  readonly phases: CompiledRequestPhase;
  /** False when the zone has no request-phase rule: the request skips the phases without a promise. */
  readonly hasPhases: boolean;
  readonly customErrors: CompiledCustomErrors;
  /** How many analytics shards the zone's records go to now (docs/analytics.md "Shards"). */
  readonly analyticsShards: number;
  /** The zone's `retry_hints` (docs/errors.md "Retry-hint profiles"). */
  readonly retryHints: ZoneSettings["retry_hints"];
  /** The zone's `read_timeout` in seconds: the 524 text names it (docs/errors.md "Words"). */
  readonly readTimeout: number;
  /** Its fallback origin and circuit breaker (docs/fewer-errors.md); null when it has neither. */
  readonly failover: FailoverConfig | null;
  /** Its maintenance mode when on (docs/fewer-errors.md "Maintenance mode"); null when off. */
  readonly maintenance: CompiledMaintenance | null;
  /** Where the zone's traces and logs go (docs/telemetry.md); `null`: no telemetry, and traffic pays one check. */
  readonly telemetry: TelemetryTarget | null;
  /** `stale_if_error` and `stale_after_ms` (docs/fewer-errors.md), 0 when absent. */
  readonly stale: StaleSettings;
  /** The zone's `languages` (docs/languages.md "A zone's languages"), chosen from; `undefined`: every language. */
  readonly languages: LanguageChooser | undefined;
}

/** The zone (`null`: no zone config for this host), or why CONFIG could not be read. */
export type ZoneLookup = Result<CompiledZone | null, StoreFailure>;

const compiled = new BoundedCache<string, CompiledZone>({ capacity: MAX_ENTRIES });
const NO_ZONE: ZoneLookup = ok(null);

/**
 * The compiled zone of `host`: a value on a hit (no promise), a promise on a miss (one KV read). One of the few
 * seams where a value may be a promise (docs/architecture.md "Per-isolate caches": the `proxy` row). `CONFIG`
 * unavailable (a KV failure, or even the binding itself) is the service's own internal failure outside user code:
 * a value the caller answers with a structured 500 (docs/origin.md), never an exception's 1101. A host that is not a
 * DNS hostname is never read from KV and is `null` (state/zone/cache.ts).
 */
export function compiledZone(env: { readonly CONFIG: KVNamespace }, host: string): ZoneLookup | Promise<ZoneLookup> {
  const hit = cachedZone(host);
  if (hit === undefined) return readCompiledZone(env, host);
  if (hit === null) return NO_ZONE;
  return ok(compiledOf(hit));
}

async function readCompiledZone(env: { readonly CONFIG: KVNamespace }, host: string): Promise<ZoneLookup> {
  try {
    const read = await lookupZone(env.CONFIG, host);
    if (!read.ok) return read;
    return read.value === null ? NO_ZONE : ok(compiledOf(read.value));
  } catch (e) {
    return err({ kind: "unavailable", cause: `CONFIG unavailable: ${causeOf(e)}` });
  }
}

/** The compiled value of this version of the zone, compiled on its first request on this isolate. */
export function compiledOf(zone: Zone): CompiledZone {
  const known = compiled.get(zone.zone);
  if (known !== undefined && known.version === zone.version) return known;
  const value = compileZone(zone);
  compiled.set(zone.zone, value);
  return value;
}

/** Compiles without the cache (tests, benchmarks). */
export function compileZone(zone: Zone): CompiledZone {
  const normalization = storedUrlNormalization(zone.document) ?? DEFAULT_URL_NORMALIZATION;
  const phases = compileRequestPhase(requestPhaseConfig(zone));
  // Stored rules that cannot run: logged once per version, when compiled (docs/producers.md).
  logUnusableRules(zone.zone, zone.version, phases.problems);
  const route = routeTo(zone.target, zone.settings);
  return {
    zone: zone.zone,
    version: zone.version,
    route,
    normalization,
    phases,
    hasPhases: phases.access !== null || phases.firewall !== null || phases.rateLimits !== null,
    customErrors: compileCustomErrors(zone, normalization),
    // A malformed section is refused by the API that writes it; read as the default here rather than fail traffic.
    analyticsShards: shardCount(zone),
    retryHints: zone.settings.retry_hints,
    readTimeout: zone.settings.read_timeout,
    failover: failoverConfig(zone.zone, zone.settings, route.plan),
    maintenance: compileMaintenance(zone.settings),
    telemetry: telemetryOf(zone),
    stale: { ifErrorSeconds: zone.settings.stale_if_error ?? 0, afterMs: zone.settings.stale_after_ms ?? 0 },
    languages: zone.settings.languages === undefined ? undefined : new LanguageChooser(zone.settings.languages),
  };
}

function telemetryOf(zone: Zone): TelemetryTarget | null {
  const settings = storedTelemetry(zone.document);
  return settings === null ? null : { zone: zone.zone, settings, logsEndpoint: logsEndpointOf(settings) };
}

function shardCount(zone: Zone): number {
  const plan = storedShardPlan(zone.document);
  return plan.ok ? plan.value.shards : DEFAULT_SHARDS;
}

/** A route from an origin and its limits (docs/origin.md: timeouts in seconds in the document, ms in the plan). */
export function routeTo(
  target: OriginTarget,
  limits: Pick<ZoneSettings, "connect_timeout" | "read_timeout" | "max_request_header_bytes">,
): Route {
  return {
    plan: { target, connectTimeoutMs: limits.connect_timeout * 1000, readTimeoutMs: limits.read_timeout * 1000 },
    maxRequestHeaderBytes: limits.max_request_header_bytes,
  };
}
