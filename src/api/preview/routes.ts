/**
 * `GET|HEAD /zones/{zone}/preview/{code}` (contract §6): exactly the response the zone would serve for error `{code}`
 * to this request (its `Accept` and other headers), the zone's custom error rules and pages applied, through the
 * same pipeline as real errors. Authenticated like every management request (`zones:read` on the zone).
 */
import { apiFailureResponse } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import { catalogEntry } from "../../errors/catalog";
import { errorResponse } from "../../errors/pipeline";
import { zoneConfig } from "../../state/zone/cache";
import { zoneFailure, zoneName, zoneTarget } from "../zones/routes";
import { customizationFor } from "../../edge/custom-errors/apply";
import { compiledCustomErrors } from "../../edge/custom-errors/compiled";

async function preview(c: ApiContext): Promise<Response> {
  const zone = zoneName(c);
  if (!zone.ok) return zoneFailure(zone.error, "");
  const raw = c.params.code ?? "";
  const entry = /^[1-9][0-9]{2,3}$/.test(raw) ? catalogEntry(Number(raw)) : undefined;
  if (!entry) {
    return apiFailureResponse({
      status: 404,
      errors: [{ code: 20025, message: `No error code ${JSON.stringify(raw)} in the catalog` }],
    });
  }
  const config = await zoneConfig(c.env, zone.value);
  if (!config.ok) return zoneFailure(config.error, zone.value);
  if (config.value === null) return zoneFailure({ kind: "not-found" }, zone.value);
  const customization = customizationFor(compiledCustomErrors(config.value), c.env.CONFIG);
  return errorResponse(
    { code: entry.code, request: c.request, cause: "preview through the zone API" },
    { settings: c.settings, zone: zone.value, customization, invocation: c.ctx },
  );
}

export const previewRoutes: readonly ApiRoute[] = [
  { method: "GET", path: "/zones/:zone/preview/:code", permission: "zones:read", target: zoneTarget, handle: preview },
  { method: "HEAD", path: "/zones/:zone/preview/:code", permission: "zones:read", target: zoneTarget, handle: preview },
];
