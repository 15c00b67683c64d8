/**
 * `GET/PUT/DELETE /zones/{zone}/telemetry` (docs/telemetry.md "Settings"): where the zone's traces and logs go.
 * Validate (the request schema and the webhook target rules, state/zone/telemetry/settings.ts) → the edit `telemetry`, applied
 * by the zone's writer of record → envelope. Every answer shows the settings with the header values replaced by
 * `"set"` (they are secrets: stored, sent with each export, never answered), and `GET` adds this isolate's export
 * counts (`exported`, `dropped`, `last_error`, `queued`). DELETE removes the section: no telemetry, 204.
 */
import { readJsonBody } from "../kit/body";
import { apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import { API_CODES } from "../kit/codes";
import { editZone, readZone, zoneHandler, zoneTarget, type ZoneAnswer } from "../kit/zone-section";
import { err, ok } from "../../shared/result";
import { exportStats } from "../../edge/telemetry/exporter";
import { parseTelemetry } from "../../state/zone/telemetry/settings";
import { redactedTelemetry, storedTelemetry } from "../../state/zone/telemetry/stored";

/** The envelope code of invalid settings (this service's 201xx block). */
export const INVALID_TELEMETRY = API_CODES["invalid-telemetry"].code;

async function getTelemetry(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  const settings = storedTelemetry(current.value.document);
  if (settings === null) return ok(apiSuccess({ enabled: false, ...exportStats(zone) }));
  return ok(apiSuccess({ enabled: true, ...redactedTelemetry(settings), ...exportStats(zone) }));
}

async function putTelemetry(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const body = await readJsonBody(c.request);
  if (!body.ok) return err({ kind: "body", failure: body.error });
  const targets = { apiHosts: c.settings.apiHosts, loopbackAllowed: c.settings.webhookLoopback };
  const parsed = parseTelemetry(body.value, targets);
  if (!parsed.ok) return err({ kind: "invalid-telemetry", issues: parsed.error });
  const written = await editZone(c, zone, { kind: "telemetry", settings: parsed.value });
  return written.ok ? ok(apiSuccess({ enabled: true, ...redactedTelemetry(parsed.value) })) : written;
}

async function deleteTelemetry(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const written = await editZone(c, zone, { kind: "telemetry", settings: null });
  if (!written.ok) return written;
  return ok(new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } }));
}

const PATH = "/zones/:zone/telemetry";

export const telemetryRoutes: readonly ApiRoute[] = [
  { method: "GET", path: PATH, permission: "zones:read", target: zoneTarget, handle: zoneHandler(getTelemetry) },
  {
    method: "PUT",
    path: PATH,
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(putTelemetry),
    dryRun: true,
  },
  {
    method: "DELETE",
    path: PATH,
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(deleteTelemetry),
    dryRun: true,
  },
];
