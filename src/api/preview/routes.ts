/**
 * `GET|HEAD /zones/{zone}/preview/{code}` (contract §6): exactly the response the zone would serve for error `{code}`
 * to this request (its `Accept` and other headers), the zone's custom error rules and pages applied, through the
 * same pipeline as real errors. Authenticated like every management request (`zones:read` on the zone).
 */
import type { ApiContext, ApiRoute } from "../kit/types";
import { zoneHandler, zoneTarget, type ZoneAnswer } from "../kit/zone-section";
import { err, ok } from "../../shared/result";
import { catalogEntry } from "../../errors/catalog";
import { errorResponse } from "../../errors/pipeline";
import { customizationFor } from "../../edge/custom-errors/apply";
import { compiledZone } from "../../edge/compiled-zone";

async function preview(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const raw = c.params.code ?? "";
  const entry = /^[1-9][0-9]{2,3}$/.test(raw) ? catalogEntry(Number(raw)) : undefined;
  if (!entry) return err({ kind: "unknown-error-code", code: raw });
  // The zone as traffic sees it (the compiled zone, KV behind it), not the writer's copy: the preview is exactly
  // what the edge would serve now.
  const config = await compiledZone(c.env, zone);
  if (!config.ok) return config;
  if (config.value === null) return err({ kind: "not-found" });
  const customization = customizationFor(config.value.customErrors, c.env.CONFIG);
  return ok(
    await errorResponse(
      { code: entry.code, request: c.request, cause: "preview through the zone API" },
      { settings: c.settings, zone, customization, invocation: c.ctx },
    ),
  );
}

export const previewRoutes: readonly ApiRoute[] = [
  {
    method: "GET",
    path: "/zones/:zone/preview/:code",
    permission: "zones:read",
    target: zoneTarget,
    handle: zoneHandler(preview),
  },
  {
    method: "HEAD",
    path: "/zones/:zone/preview/:code",
    permission: "zones:read",
    target: zoneTarget,
    handle: zoneHandler(preview),
  },
];
