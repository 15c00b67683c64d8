/**
 * The shards of a zone's analytics (docs/analytics.md "Shards"): a zone's records are spread over N ZoneAnalytics
 * objects, the shard of a record is its Ray ID's lane (src/shared/ray.ts) modulo N, and the zone's `analytics`
 * section of its document keeps N and the shard counts in force earlier, so that queries fan out over every object
 * that may still hold a record within retention and a Ray lookup asks one object per shard count in force.
 *
 * Pure: no bindings (the fan-out over the objects is fan-out.ts).
 */
import { err, ok, type Result } from "../../shared/result";
import { RETENTION } from "./schema";

/**
 * Shards of a zone that never set its count. 4: at the planning numbers of docs/scale.md (an object taking 500
 * batches/s and 14,000 records/s, half what was measured), four take a zone's records to ~50,000 errors/s and its
 * batches from 250 busy isolates, while a query costs four parallel RPCs (docs/scale.md "On the platform").
 */
export const DEFAULT_SHARDS = 4;
/** The most shards one zone may use (a query asks each of them). */
export const MAX_SHARDS = 64;

/** The zone document's section (docs/configuration.md "Zone document"). */
export const ANALYTICS_SECTION = "analytics";

/** A shard count that was in force until `until` (ms since the epoch). */
export interface PastShards {
  readonly shards: number;
  readonly until: number;
}

/** The stored section: the count in force and the earlier ones still within retention, newest last. */
export interface ShardPlan {
  readonly shards: number;
  readonly history: readonly PastShards[];
}

export const DEFAULT_PLAN: ShardPlan = { shards: DEFAULT_SHARDS, history: [] };

/** The longest any row is kept (hour counts, 35 days): an earlier shard count older than this holds nothing. */
const KEPT_MS = Math.max(RETENTION.eventsMs, RETENTION.minutesMs, RETENTION.hoursMs);

/** The object name of shard `index`: shard 0 is the zone's name itself (the one object of a zone before shards). */
export function shardName(zone: string, index: number): string {
  return index === 0 ? zone : `${zone}/${index}`;
}

/** The lane of a Ray ID (its first four hex characters, src/shared/ray.ts) as a number. */
export function laneOf(ray: string): number {
  const lane = Number.parseInt(ray.slice(0, 4), 16);
  return Number.isFinite(lane) ? lane : 0;
}

/** The shard of a record under `shards`. */
export function shardOfRay(ray: string, shards: number): number {
  return laneOf(ray) % shards;
}

/** The shard counts a record made since `now − retention` may have been written under, the current one first. */
export function countsInForce(plan: ShardPlan, now: number): readonly number[] {
  const counts = [plan.shards];
  for (const past of plan.history) {
    if (past.until >= now - KEPT_MS && !counts.includes(past.shards)) counts.push(past.shards);
  }
  return counts;
}

/** Every object of the zone that may hold a row within retention: shards 0 … (the largest count in force − 1). */
export function shardNames(zone: string, plan: ShardPlan, now: number): readonly string[] {
  const widest = Math.max(...countsInForce(plan, now));
  return Array.from({ length: widest }, (_, i) => shardName(zone, i));
}

/** The objects that may hold the record of `ray`: its shard under each count in force (one name each, deduplicated). */
export function lookupNames(zone: string, ray: string, plan: ShardPlan, now: number): readonly string[] {
  const names: string[] = [];
  for (const n of countsInForce(plan, now)) {
    const name = shardName(zone, shardOfRay(ray, n));
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** The plan after setting the count to `shards` at `now` (the count before kept in the history; expired ones go). */
export function withShards(plan: ShardPlan, shards: number, now: number): ShardPlan {
  const kept = plan.history.filter((p) => p.until >= now - KEPT_MS);
  if (shards === plan.shards) return { shards, history: kept };
  return { shards, history: [...kept, { shards: plan.shards, until: now }] };
}

/** The zone document's section, or the default plan when absent; a malformed section is the store's failure. */
export function storedShardPlan(document: Readonly<Record<string, unknown>>): Result<ShardPlan, string> {
  const section = document[ANALYTICS_SECTION];
  if (section === undefined) return ok(DEFAULT_PLAN);
  if (typeof section !== "object" || section === null) return err("analytics section is not an object");
  const { shards, history } = section as { shards?: unknown; history?: unknown };
  if (!isShardCount(shards)) return err("analytics.shards is not a shard count");
  if (!Array.isArray(history)) return err("analytics.history is not a list");
  const past: PastShards[] = [];
  for (const entry of history as unknown[]) {
    const e = entry as { shards?: unknown; until?: unknown } | null;
    if (e === null || typeof e !== "object" || !isShardCount(e.shards) || typeof e.until !== "number") {
      return err("analytics.history holds a malformed entry");
    }
    past.push({ shards: e.shards, until: e.until });
  }
  return ok({ shards, history: past });
}

/** Whether `value` is a shard count this service accepts: an integer from 1 to MAX_SHARDS. */
function isShardCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= MAX_SHARDS;
}
