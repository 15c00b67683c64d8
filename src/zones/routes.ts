/**
 * Zone configuration API: `PUT/GET/DELETE /zones/{zone}` (contract §6), in the v4 envelope, behind
 * `zones:read` / `zones:write` scoped by zone (contract §7). Order of checks, cheapest first and nothing
 * stored until everything passed: token (401) → permission and scope (403) → zone name (400) → body size
 * (413) and JSON (400) → settings (400) → KV.
 */
import type { ApiArgs, ApiRouter } from "../api/router";
import { requireAccess, type Permission } from "../api/auth";
import { readJsonBody } from "../api/body";
import { API_FAILURES, apiFailure, apiFailureResponse, apiSuccess, type ApiFailure } from "../api/envelope";
import { newRayId } from "../http/ray";
import { remember } from "./cache";
import { effectivePort, pointsAtApi } from "./origin-url";
import { parseZoneName, parseZoneSettings, type Zone } from "./schema";
import { deleteZone, readZone, writeZone, type StoreFailure } from "./store";

type Handler = (request: Request & { params: Record<string, string> }, ...args: ApiArgs) => Promise<Response>;

/** Zone API error codes (Cloudflare's v4 codes where one exists). */
const ZONE_FAILURES = {
  invalidName: (why: string) => apiFailure(400, 7003, `Invalid zone identifier: ${why}`),
  notFound: (zone: string) => apiFailure(404, 1001, `Zone not found: ${zone}`),
  invalidSettings: (errors: readonly { field: string; message: string }[]): ApiFailure => ({
    status: 400,
    errors: errors.map((e) => ({ code: 1004, message: `Invalid zone setting: ${e.field} ${e.message}` })),
  }),
} as const;

export function registerZoneRoutes(router: ApiRouter): void {
  router.get("/zones/:zone", guarded("zones:read", getZone));
  router.put("/zones/:zone", guarded("zones:write", putZone));
  router.delete("/zones/:zone", guarded("zones:write", removeZone));
  router.all("/zones/:zone", () => apiFailureResponse(API_FAILURES.methodNotAllowed(["GET", "PUT", "DELETE"])));
}

/** Authenticates and authorises for the zone in the path, then validates its name. */
function guarded(permission: Permission, next: (request: Request, zone: string, ...args: ApiArgs) => Promise<Response>): Handler {
  return async (request, ...args) => {
    const raw = percentDecoded(request.params.zone ?? "").toLowerCase();
    const name = parseZoneName(raw);
    // Scope is checked on the normalised name (`a.example.` is `a.example`), still before the name's own 400.
    const access = await requireAccess(request, args[0], { permission, zone: name.ok ? name.value : raw });
    if (!access.ok) return apiFailureResponse(access.error);
    if (!name.ok) return apiFailureResponse(ZONE_FAILURES.invalidName(name.error));
    return next(request, name.value, ...args);
  };
}

/**
 * The zone path segment, percent-decoded. A malformed escape (`%zz`, a truncated UTF-8 sequence) is kept as sent:
 * scoped tokens never match it (403) and `parseZoneName` refuses the `%` (400), where `decodeURIComponent`'s
 * URIError would have escaped as a 500 before authentication.
 */
function percentDecoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

async function getZone(_request: Request, zone: string, env: Env): Promise<Response> {
  const found = await readZone(env.CONFIG, zone);
  if (!found.ok) return storeFailure(found.error, zone);
  return found.value ? apiSuccess(present(found.value)) : apiFailureResponse(ZONE_FAILURES.notFound(zone));
}

async function putZone(request: Request, zone: string, env: Env, _ctx: ExecutionContext, settings: ApiArgs[2]): Promise<Response> {
  const body = await readJsonBody(request);
  if (!body.ok) return apiFailureResponse(body.error);
  const parsed = parseZoneSettings(body.value);
  if (!parsed.ok) return apiFailureResponse(ZONE_FAILURES.invalidSettings(parsed.error));
  if (pointsAtApi(parsed.value.target, settings.apiHosts, effectivePort(new URL(request.url)))) {
    return apiFailureResponse(
      ZONE_FAILURES.invalidSettings([{ field: "origin", message: "must not be a host of API_HOSTS (contract §3)" }]),
    );
  }
  const written = await writeZone(env.CONFIG, zone, parsed.value.settings, parsed.value.target);
  if (!written.ok) return storeFailure(written.error, zone);
  remember(zone, written.value); // visible on this isolate at once (contract §6)
  return apiSuccess(present(written.value));
}

async function removeZone(_request: Request, zone: string, env: Env): Promise<Response> {
  const deleted = await deleteZone(env.CONFIG, zone);
  if (!deleted.ok) return storeFailure(deleted.error, zone);
  remember(zone, null);
  return deleted.value ? apiSuccess({ id: zone }) : apiFailureResponse(ZONE_FAILURES.notFound(zone));
}

/** The zone as the API shows it: the settings as written, plus the document's version. */
function present(zone: Zone): Record<string, unknown> {
  return { zone: zone.zone, ...zone.settings, version: zone.version, modified_on: zone.modifiedOn };
}

/** `CONFIG` failing is the service's own failure: a 500 envelope with a ray to quote, logged once. */
function storeFailure(failure: StoreFailure, zone: string): Response {
  const ray = newRayId();
  console.error(JSON.stringify({ event: "api_error", ray, zone, code: 500, cause: failure.cause }));
  return apiFailureResponse(API_FAILURES.internal(ray));
}
