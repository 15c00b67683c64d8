/**
 * `GET/PUT/DELETE /zones/{zone}/url_normalization` (docs/rules-language.md, docs/configuration.md; the published API
 * of the same path): the zone's URL normalisation `{scope, type}`. Validate (pure, validate.ts) → the edit
 * `url-normalization`, applied by the zone's writer of record (section `url_normalization`) → envelope. GET answers
 * the setting in force (the defaults when none was written); DELETE
 * removes the stored setting, which restores the defaults, and answers 204 as published. Every plan (as published).
 */
import { readJsonBody } from "../kit/body";
import { apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import { API_CODES } from "../kit/codes";
import { editZone, readZone, zoneHandler, zoneTarget, type ZoneAnswer } from "../kit/zone-section";
import { err, ok } from "../../shared/result";
import { DEFAULT_URL_NORMALIZATION, type UrlNormalization } from "../../shared/url-normalise";
import { storedUrlNormalization } from "../../state/zone/url-normalization/stored";
import { parseUrlNormalization } from "../../state/zone/url-normalization/validate";

/** The envelope code of an invalid setting (this service's 200xx block of zone configuration errors). */
export const INVALID_URL_NORMALIZATION = API_CODES["invalid-url-normalization"].code;

/** The published result shape: exactly `{scope, type}`. */
const present = (s: UrlNormalization): UrlNormalization => ({ scope: s.scope, type: s.type });

async function getSetting(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  return ok(apiSuccess(present(storedUrlNormalization(current.value.document) ?? DEFAULT_URL_NORMALIZATION)));
}

async function putSetting(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const body = await readJsonBody(c.request);
  if (!body.ok) return err({ kind: "body", failure: body.error });
  const parsed = parseUrlNormalization(body.value);
  if (!parsed.ok) return err({ kind: "invalid-url-normalization", issues: parsed.error });
  const written = await editZone(c, zone, { kind: "url-normalization", setting: present(parsed.value) });
  return written.ok ? ok(apiSuccess(present(parsed.value))) : written;
}

async function deleteSetting(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const written = await editZone(c, zone, { kind: "url-normalization", setting: null });
  if (!written.ok) return written;
  // The published API answers 204 (no body, RFC 9110 §15.3.5, hence no envelope), as the tags DELETE does.
  return ok(new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } }));
}

const PATH = "/zones/:zone/url_normalization";

export const urlNormalizationRoutes: readonly ApiRoute[] = [
  { method: "GET", path: PATH, permission: "zones:read", target: zoneTarget, handle: zoneHandler(getSetting) },
  {
    method: "PUT",
    path: PATH,
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(putSetting),
    dryRun: true,
  },
  {
    method: "DELETE",
    path: PATH,
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(deleteSetting),
    dryRun: true,
  },
];
