/**
 * Where a zone's telemetry settings live: one section of the zone document (`telemetry`), written only by
 * src/api/telemetry/routes.ts, read back through the same schema that checks a `PUT` body (a stored value that
 * is not settings is never trusted: no telemetry). Every read path answers them redacted. Pure.
 */
import type { ZoneDocument } from "../schema";
import { readTelemetry, type RedactedTelemetry, type TelemetrySettings } from "./settings";

export const TELEMETRY_SECTION = "telemetry";

/** The stored settings, or `null` when none were written (or what is stored is not settings: never trusted). */
export function storedTelemetry(document: ZoneDocument): TelemetrySettings | null {
  const value = document[TELEMETRY_SECTION];
  if (value === undefined) return null;
  return readTelemetry(value);
}

/** The settings as every read path answers them: header names kept, values never (`"set"`). */
export function redactedTelemetry(settings: TelemetrySettings): RedactedTelemetry {
  const headers = Object.fromEntries(Object.keys(settings.otlp.headers).map((name) => [name, "set" as const]));
  return { ...settings, otlp: { ...settings.otlp, headers } };
}

/**
 * Where the log records go: `logs_endpoint`, else the traces endpoint with its OTLP path `/v1/traces` turned into
 * `/v1/logs` (the OTLP/HTTP default paths, https://opentelemetry.io/docs/specs/otlp/#otlphttp-request); `null`
 * when neither says (no logs are sent).
 */
export function logsEndpointOf(settings: TelemetrySettings): string | null {
  if (settings.otlp.logs_endpoint !== undefined) return settings.otlp.logs_endpoint;
  const url = new URL(settings.otlp.endpoint);
  if (!url.pathname.endsWith("/v1/traces")) return null;
  url.pathname = `${url.pathname.slice(0, -"/v1/traces".length)}/v1/logs`;
  return url.href;
}
