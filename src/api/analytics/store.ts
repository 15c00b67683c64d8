/**
 * The zone's analytics object, after checking the zone is configured (reading never creates storage for any name).
 * The zone is read through the isolate's cache (the KV read path), not the writer: the analytics of a zone just
 * created are empty anyway.
 */
import type { ApiContext } from "../kit/types";
import type { ZoneApiFailure } from "../kit/zone-section";
import { err, ok, type Result } from "../../shared/result";
import { lookupZone } from "../../state/zone/cache";
import type { ZoneAnalytics } from "../../state/analytics/zone-analytics";

export async function analyticsStore(
  c: ApiContext,
  zone: string,
): Promise<Result<DurableObjectStub<ZoneAnalytics>, ZoneApiFailure>> {
  const config = await lookupZone(c.env.CONFIG, zone);
  if (!config.ok) return config;
  if (config.value === null) return err({ kind: "not-found" });
  const ns = c.env.ZONE_ANALYTICS;
  return ok(ns.get(ns.idFromName(zone)));
}
