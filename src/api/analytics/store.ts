/**
 * The zone's shard plan (docs/analytics.md "Shards"), after checking the zone is configured (reading never creates
 * storage for any name): what every analytics read of the API (routes.ts, ray.ts) asks first.
 */
import type { ApiContext } from "../kit/types";
import type { ZoneApiFailure } from "../kit/zone-section";
import { err, type Result } from "../../shared/result";
import { lookupZone } from "../../state/zone/cache";
import { storedShardPlan, type ShardPlan } from "../../state/analytics/shards";

/**
 * The zone's shard plan (docs/analytics.md "Shards"), after checking the zone is configured (reading never creates
 * storage for any name). The zone is read through the isolate's cache (the KV read path), not the writer: a shard
 * count changed within the cache's TTL is read as it was, and the history keeps every earlier count in the fan-out.
 */
export async function planOf(c: ApiContext, zone: string): Promise<Result<ShardPlan, ZoneApiFailure>> {
  const config = await lookupZone(c.env.CONFIG, zone);
  if (!config.ok) return config;
  if (config.value === null) return err({ kind: "not-found" });
  const plan = storedShardPlan(config.value.document);
  return plan.ok ? plan : err({ kind: "corrupt", cause: plan.error });
}
