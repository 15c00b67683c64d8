/**
 * A zone's analytics over all its shards (docs/analytics.md "Shards"): the one place that asks every ZoneAnalytics
 * object of a zone and merges their answers. Used by the API (src/api/analytics/routes.ts) and meant for anything
 * else that reads a zone's counts (an object's alarm included: it takes the namespace and the plan, no request).
 *
 * - `zoneCounts`: the count query on every object that may hold rows within retention (shards.ts `shardNames`),
 *   merged exactly: series summed per (bucket, group), every code and path summed before the top ones are taken,
 *   requests and drops summed per bucket, avoided errors per (kind, code). The series limit is checked on the merged answer.
 * - `zoneLookup`: a Ray ID at its shard under each shard count in force (one object per count).
 * - `wipeZone`: every object of the zone emptied (zone deletion).
 */
import { err, ok, type Result } from "../../shared/result";
import type { CountQuery, Dimension } from "./query";
import type { ErrorRecord } from "./record";
import { MAX_SERIES, TOP_N } from "./schema";
import { lookupNames, shardNames, type ShardPlan } from "./shards";
import type { CountFailure, CountResult, SeriesRow, TrafficRow, ZoneAnalytics } from "./zone-analytics";
import type { AvoidedRow } from "./avoided";

export type AnalyticsNamespace = DurableObjectNamespace<ZoneAnalytics>;

/** The merged answer of every shard: the series, the top codes and paths, requests and drops per bucket. */
export interface ZoneCounts extends CountResult {
  /** How many objects answered (the zone's shards within retention). */
  readonly shards: number;
}

const stub = (ns: AnalyticsNamespace, name: string): DurableObjectStub<ZoneAnalytics> => ns.get(ns.idFromName(name));

/** The count query over every shard of `zone`, merged exactly (module comment). A shard that fails rejects. */
export async function zoneCounts(
  ns: AnalyticsNamespace,
  zone: string,
  plan: ShardPlan,
  query: CountQuery,
): Promise<Result<ZoneCounts, CountFailure>> {
  const names = shardNames(zone, plan, Date.now());
  const answers = await Promise.all(names.map((name) => stub(ns, name).counts(query)));
  const rows = new Map<string, { bucket: number; group: SeriesRow["group"]; n: number }>();
  const groups = new Set<string>();
  const codes = new Map<number, number>();
  const paths = new Map<string, number>();
  const traffic = new Map<number, { requests: number; dropped: number }>();
  const avoided = new Map<string, { kind: AvoidedRow["kind"]; code: number; count: number }>();
  let pathHoursRequests = 0;
  for (const answer of answers) {
    if (!answer.ok) return err(answer.error);
    const part = answer.value;
    for (const row of part.rows) {
      const group = groupKey(row.group, query.groupBy);
      groups.add(group);
      const key = `${row.bucket} ${group}`;
      const known = rows.get(key);
      if (known !== undefined) known.n += row.n;
      else rows.set(key, { bucket: row.bucket, group: row.group, n: row.n });
    }
    for (const c of part.topCodes) codes.set(c.code, (codes.get(c.code) ?? 0) + c.count);
    for (const p of part.topPaths) paths.set(p.path, (paths.get(p.path) ?? 0) + p.count);
    for (const t of part.traffic) {
      const known = traffic.get(t.bucket) ?? { requests: 0, dropped: 0 };
      known.requests += t.requests;
      known.dropped += t.dropped;
      traffic.set(t.bucket, known);
    }
    pathHoursRequests += part.pathHoursRequests;
    for (const a of part.avoided) {
      const key = `${a.kind} ${a.code}`;
      const known = avoided.get(key);
      if (known !== undefined) known.count += a.count;
      else avoided.set(key, { ...a });
    }
  }
  if (groups.size > MAX_SERIES) return err({ kind: "too-many-series", series: groups.size, limit: MAX_SERIES });
  return ok({
    shards: names.length,
    rows: [...rows.values()],
    topCodes: [...codes]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, TOP_N)
      .map(([code, count]) => ({ code, count })),
    topPaths: [...paths]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .slice(0, TOP_N)
      .map(([path, count]) => ({ path, count })),
    traffic: [...traffic]
      .sort((a, b) => a[0] - b[0])
      .map(([bucket, t]): TrafficRow => ({ bucket, requests: t.requests, dropped: t.dropped })),
    pathHoursRequests,
    // Most first, then by kind and code: the same order on every call.
    avoided: [...avoided.values()].sort(
      (a, b) => b.count - a.count || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : a.code - b.code),
    ),
  });
}

/** The record of `ray` in `zone`: its shard under each count in force, asked in turn (null when none holds it). */
export async function zoneLookup(
  ns: AnalyticsNamespace,
  zone: string,
  plan: ShardPlan,
  ray: string,
  now: number = Date.now(),
): Promise<ErrorRecord | null> {
  for (const name of lookupNames(zone, ray, plan, now)) {
    const record = await stub(ns, name).lookup(ray, now);
    if (record !== null) return record;
  }
  return null;
}

/** Empties every object of the zone within retention (`ZoneAnalytics.wipe`), in parallel. */
export async function wipeZone(ns: AnalyticsNamespace, zone: string, plan: ShardPlan, now = Date.now()): Promise<void> {
  await Promise.all(shardNames(zone, plan, now).map((name) => stub(ns, name).wipe(now)));
}

/** A series' identity: its group's values in the query's dimension order. */
function groupKey(group: SeriesRow["group"], dims: readonly Dimension[]): string {
  return JSON.stringify(dims.map((d) => group[d] ?? null));
}
