/**
 * Zone configuration API: `PUT/GET/DELETE /zones/{zone}` (contract §6), in the v4 envelope, behind `zones:read` /
 * `zones:write` scoped by zone (contract §7). The root (src/api/kit/mount.ts) has already authenticated and authorised;
 * here, cheapest first and nothing stored until everything passed: zone name (400) → body size (413) and JSON (400)
 * → settings (400) → the zone's writer of record (writer.ts), which serialises writes of one zone.
 */
import { readJsonBody } from "../kit/body";
import { API_FAILURES, apiFailureResponse, apiSuccess, type ApiFailure } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import { normaliseHostname } from "../../shared/host";
import { logEvent } from "../../shared/log";
import { newRayId } from "../../shared/ray";
import { causeOf, err, ok, type Result } from "../../shared/result";
import { remember } from "../../state/zone/cache";
import { pointsAtApi } from "../../shared/origin-url";
import {
  parseZoneName,
  parseZoneSettings,
  type FieldError,
  type Zone,
  type ZoneDocument,
} from "../../state/zone/schema";
import { parseDocument, type StoreFailure } from "../../state/zone/store";
import type { ZoneWriteFailure, ZoneWriter } from "../../state/zone/writer";

/** Everything that can go wrong in a zone endpoint, as values; `zoneFailure` is the one mapping to the wire. */
export type ZoneFailure =
  | { readonly kind: "invalid-name"; readonly why: string }
  | { readonly kind: "invalid-settings"; readonly errors: readonly FieldError[] }
  | ZoneWriteFailure
  | StoreFailure
  | { readonly kind: "api"; readonly failure: ApiFailure };

/** At most this many field errors are listed; the rest are counted (a body of 50,000 unknown keys, issue 8). */
export const MAX_LISTED_ERRORS = 20;

/** The one mapping of zone failures to HTTP status and v4 code (Cloudflare's codes where one exists). */
export function zoneFailure(failure: ZoneFailure, zone: string): Response {
  switch (failure.kind) {
    case "invalid-name":
      return apiFailureResponse({
        status: 400,
        errors: [{ code: 7003, message: `Invalid zone identifier: ${failure.why}` }],
      });
    case "invalid-settings":
      return apiFailureResponse({ status: 400, errors: listed(failure.errors, 1004, "Invalid zone setting") });
    case "not-found":
      return apiFailureResponse({ status: 404, errors: [{ code: 1001, message: `Zone not found: ${zone}` }] });
    case "conflict":
      // Only after the callers' retries ran out (a zone written to without pause): the client may retry.
      return apiFailureResponse({
        status: 409,
        errors: [
          {
            code: 10409,
            message: `The zone changed while this write was prepared (now version ${failure.current}); retry`,
          },
        ],
      });
    case "unavailable":
    case "corrupt": {
      // CONFIG (or the writer) failing is the service's own failure: a 500 with a ray to quote, logged once.
      const ray = newRayId();
      logEvent("api_error", { ray, zone, code: 500, cause: failure.cause });
      return apiFailureResponse(API_FAILURES.internal(ray));
    }
    case "too-large":
      // The request is fine on its own; the zone's whole configuration would outgrow what one zone can store.
      return apiFailureResponse({
        status: 413,
        errors: [
          {
            code: 10413,
            message:
              `The zone's configuration would be ${failure.bytes} bytes, over its limit of ${failure.limit} ` +
              "bytes (rules, notes and descriptions of every section together); nothing was stored",
          },
        ],
      });
    case "api":
      return apiFailureResponse(failure.failure);
  }
}

/** Field errors as envelope errors: the first `MAX_LISTED_ERRORS`, then one line counting the rest. */
export function listed(
  errors: readonly FieldError[],
  code: number,
  prefix: string,
): { code: number; message: string }[] {
  const shown = errors
    .slice(0, MAX_LISTED_ERRORS)
    .map((e) => ({ code, message: `${prefix}: ${e.field} ${e.message}` }));
  if (errors.length > MAX_LISTED_ERRORS) {
    shown.push({ code, message: `${prefix}: and ${errors.length - MAX_LISTED_ERRORS} more errors not listed` });
  }
  return shown;
}

/** The zone path segment, percent-decoded, lower-cased, without a trailing dot; a malformed escape kept as sent. */
export function zoneParam(params: Readonly<Record<string, string>>): string {
  const segment = params.zone ?? "";
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // `%zz`: kept as sent; a scoped token never matches it (403) and the name check refuses the `%` (400).
  }
  return normaliseHostname(decoded);
}

/** The route target of every zone endpoint: the zone named in the path, for the token's zone scope. */
export function zoneTarget(
  params: Readonly<Record<string, string>>,
): Result<{ kind: "zone"; name: string }, ApiFailure> {
  return ok({ kind: "zone", name: zoneParam(params) });
}

/** The validated zone name of a request (400 when it is not a hostname). */
export function zoneName(c: ApiContext): Result<string, ZoneFailure> {
  const name = parseZoneName(zoneParam(c.params));
  return name.ok ? name : err({ kind: "invalid-name", why: name.error });
}

/**
 * The writer's RPC surface as the class declares it. Its values are plain JSON (structured clone keeps them as
 * they are), so the stub is typed by the class itself rather than by the RPC mapping, which turns the document's
 * `unknown` sections into `never`.
 */
type WriterRpc = Pick<ZoneWriter, "read" | "putSettings" | "putSection" | "putPart" | "remove">;

/** The zone's writer of record. An RPC that throws (the object unreachable) is `unavailable`, never an escape. */
export async function withWriter<T>(
  env: Env,
  zone: string,
  call: (writer: WriterRpc) => Promise<Result<T, ZoneWriteFailure>>,
): Promise<Result<T, ZoneWriteFailure>> {
  try {
    const stub: unknown = env.ZONE_WRITER.get(env.ZONE_WRITER.idFromName(zone));
    return await call(stub as WriterRpc);
  } catch (e) {
    return err({ kind: "unavailable", cause: `ZONE_WRITER failed: ${causeOf(e)}` });
  }
}

/**
 * Makes a document the writer just stored visible on this isolate at once (contract §6: a change is visible on the
 * writing isolate immediately), whichever section changed.
 */
export function rememberWritten(zone: string, document: ZoneDocument): void {
  const parsed = parseDocument(zone, document);
  if (parsed.ok) remember(zone, parsed.value);
}

/** The zone as the API shows it: the settings as written, plus the document's version. */
function present(zone: Zone): Record<string, unknown> {
  return { zone: zone.zone, ...zone.settings, version: zone.version, modified_on: zone.modifiedOn };
}

async function getZone(c: ApiContext): Promise<Response> {
  const zone = zoneName(c);
  if (!zone.ok) return zoneFailure(zone.error, "");
  const found = await withWriter(c.env, zone.value, (w) => w.read(zone.value));
  if (!found.ok) return zoneFailure(found.error, zone.value);
  if (found.value === null) return zoneFailure({ kind: "not-found" }, zone.value);
  const parsed = parseDocument(zone.value, found.value);
  return parsed.ok ? apiSuccess(present(parsed.value)) : zoneFailure(parsed.error, zone.value);
}

async function putZone(c: ApiContext): Promise<Response> {
  const zone = zoneName(c);
  if (!zone.ok) return zoneFailure(zone.error, "");
  const body = await readJsonBody(c.request);
  if (!body.ok) return zoneFailure({ kind: "api", failure: body.error }, zone.value);
  const parsed = parseZoneSettings(body.value);
  if (!parsed.ok) return zoneFailure({ kind: "invalid-settings", errors: parsed.error }, zone.value);
  if (pointsAtApi(parsed.value.target, c.settings.apiHosts)) {
    const error = { field: "origin", message: "must not be a host of API_HOSTS, on any port (contract §3)" };
    return zoneFailure({ kind: "invalid-settings", errors: [error] }, zone.value);
  }
  const written = await withWriter(c.env, zone.value, (w) => w.putSettings(zone.value, parsed.value.settings));
  if (!written.ok) return zoneFailure(written.error, zone.value);
  const stored = parseDocument(zone.value, written.value);
  if (!stored.ok) return zoneFailure(stored.error, zone.value);
  remember(zone.value, stored.value); // visible on this isolate at once (contract §6)
  return apiSuccess(present(stored.value));
}

async function removeZone(c: ApiContext): Promise<Response> {
  const zone = zoneName(c);
  if (!zone.ok) return zoneFailure(zone.error, "");
  const deleted = await withWriter(c.env, zone.value, (w) => w.remove(zone.value));
  if (!deleted.ok) return zoneFailure(deleted.error, zone.value);
  remember(zone.value, null);
  return deleted.value ? apiSuccess({ id: zone.value }) : zoneFailure({ kind: "not-found" }, zone.value);
}

export const zoneRoutes: readonly ApiRoute[] = [
  { method: "GET", path: "/zones/:zone", permission: "zones:read", target: zoneTarget, handle: getZone },
  { method: "PUT", path: "/zones/:zone", permission: "zones:write", target: zoneTarget, handle: putZone },
  { method: "DELETE", path: "/zones/:zone", permission: "zones:write", target: zoneTarget, handle: removeZone },
];
