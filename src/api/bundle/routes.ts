/**
 * `GET /zones/{zone}/bundle` (docs/config-as-code.md): the zone's whole configuration as one deterministic document
 * with a strong `ETag`, the SHA-256 of its canonical bytes (canonical.ts), so a client can tell at once whether the
 * zone changed since it last read it.
 */
import { apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import { zoneHandler, zoneTarget, type ZoneAnswer } from "../kit/zone-section";
import { ok } from "../../shared/result";
import { readBundle } from "./read";

async function getBundle(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const read = await readBundle(c, zone);
  if (!read.ok) return read;
  return ok(apiSuccess(read.value.bundle, { headers: { ETag: read.value.etag } }));
}

const PATH = "/zones/:zone/bundle";

export const bundleRoutes: readonly ApiRoute[] = [
  { method: "GET", path: PATH, permission: "zones:read", target: zoneTarget, handle: zoneHandler(getBundle) },
];
