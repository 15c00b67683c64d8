/**
 * `GET/PUT/DELETE /zones/{zone}/url_normalization` (contract §2.2, §6; the published API of the same path): the
 * zone's URL normalisation `{scope, type}`. Validate (pure, validate.ts) → the zone's writer of record (section
 * `url_normalization`) → envelope. GET answers the setting in force (the defaults when none was written); DELETE
 * removes the stored setting, which restores the defaults, and answers 204 as published. Every plan (as published).
 */
import { readJsonBody } from "../kit/body";
import { apiFailureResponse, apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import { DEFAULT_URL_NORMALIZATION, type UrlNormalization } from "../../shared/url-normalise";
import { rememberWritten, withWriter, zoneFailure, zoneName, zoneTarget, type ZoneFailure } from "../zones/routes";
import { storedUrlNormalization, URL_NORMALIZATION_SECTION } from "../../state/zone/url-normalization/stored";
import { parseUrlNormalization, type UrlNormalizationProblem } from "../../state/zone/url-normalization/validate";

/** The envelope code of an invalid setting (this service's 200xx block of zone configuration errors). */
export const INVALID_URL_NORMALIZATION = 20027;

type Failure =
  ZoneFailure | { readonly kind: "invalid-url-normalization"; readonly problems: readonly UrlNormalizationProblem[] };

function failure(f: Failure, zone: string): Response {
  if (f.kind === "invalid-url-normalization") {
    return apiFailureResponse({
      status: 400,
      errors: f.problems.map((p) => ({
        code: INVALID_URL_NORMALIZATION,
        message: `Invalid url_normalization: ${p.field} ${p.message}`,
      })),
    });
  }
  return zoneFailure(f, zone);
}

/** The published result shape: exactly `{scope, type}`. */
const present = (s: UrlNormalization): UrlNormalization => ({ scope: s.scope, type: s.type });

async function getSetting(c: ApiContext): Promise<Response> {
  const zone = zoneName(c);
  if (!zone.ok) return failure(zone.error, "");
  const found = await withWriter(c.env, zone.value, (w) => w.read(zone.value));
  if (!found.ok) return failure(found.error, zone.value);
  if (found.value === null) return failure({ kind: "not-found" }, zone.value);
  return apiSuccess(present(storedUrlNormalization(found.value) ?? DEFAULT_URL_NORMALIZATION));
}

async function putSetting(c: ApiContext): Promise<Response> {
  const zone = zoneName(c);
  if (!zone.ok) return failure(zone.error, "");
  const body = await readJsonBody(c.request);
  if (!body.ok) return failure({ kind: "api", failure: body.error }, zone.value);
  const parsed = parseUrlNormalization(body.value);
  if (!parsed.ok) return failure({ kind: "invalid-url-normalization", problems: parsed.error }, zone.value);
  const written = await withWriter(c.env, zone.value, (w) =>
    w.putSection(zone.value, URL_NORMALIZATION_SECTION, present(parsed.value)),
  );
  if (!written.ok) return failure(written.error, zone.value);
  rememberWritten(zone.value, written.value);
  return apiSuccess(present(parsed.value));
}

async function deleteSetting(c: ApiContext): Promise<Response> {
  const zone = zoneName(c);
  if (!zone.ok) return failure(zone.error, "");
  const written = await withWriter(c.env, zone.value, (w) => w.putSection(zone.value, URL_NORMALIZATION_SECTION, null));
  if (!written.ok) return failure(written.error, zone.value);
  rememberWritten(zone.value, written.value);
  // The published API answers 204 (no body, RFC 9110 §15.3.5, hence no envelope), as the tags DELETE does.
  return new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } });
}

const PATH = "/zones/:zone/url_normalization";

export const urlNormalizationRoutes: readonly ApiRoute[] = [
  { method: "GET", path: PATH, permission: "zones:read", target: zoneTarget, handle: getSetting },
  { method: "PUT", path: PATH, permission: "zones:write", target: zoneTarget, handle: putSetting },
  { method: "DELETE", path: PATH, permission: "zones:write", target: zoneTarget, handle: deleteSetting },
];
