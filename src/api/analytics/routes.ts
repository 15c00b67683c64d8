/**
 * `GET /zones/{zone}/analytics/errors` and `GET /zones/{zone}/errors/{ray}` (docs/configuration.md,
 * docs/analytics.md). Permission `zones:read` (docs/configuration.md names it): a token scoped to another zone is refused
 * (403) by the kit before the handler runs, so it never learns whether a record exists.
 */
import { apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import { zoneHandler, zoneTarget, type ZoneAnswer, type ZoneApiFailure } from "../kit/zone-section";
import { isRayId } from "../../shared/ray";
import { err, ok, type Result } from "../../shared/result";
import { lookupZone } from "../../state/zone/cache";
import { STEP_MS, RETENTION } from "../../state/analytics/schema";
import type { CountQuery } from "../../state/analytics/query";
import type { CountResult, SeriesRow, ZoneAnalytics } from "../../state/analytics/zone-analytics";
import { parseCountQuery } from "./params";

/**
 * The zone's analytics object, after checking the zone is configured (reading never creates storage for any name).
 * The zone is read through the isolate's cache (the KV read path), not the writer: the analytics of a zone just
 * created are empty anyway.
 */
async function store(c: ApiContext, zone: string): Promise<Result<DurableObjectStub<ZoneAnalytics>, ZoneApiFailure>> {
  const config = await lookupZone(c.env.CONFIG, zone);
  if (!config.ok) return config;
  if (config.value === null) return err({ kind: "not-found" });
  const ns = c.env.ZONE_ANALYTICS;
  return ok(ns.get(ns.idFromName(zone)));
}

async function counts(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const query = parseCountQuery(c.url.searchParams, Date.now());
  if (!query.ok) return query;
  const found = await store(c, zone);
  if (!found.ok) return found;
  const result = await found.value.counts(query.value);
  if (!result.ok) {
    const { series, limit } = result.error;
    return err({ kind: "too-many-series", series, limit });
  }
  return ok(apiSuccess(shape(zone, query.value, result.value)));
}

/** Dense series: one count per step for every group, aligned with `timestamps`. */
function shape(zone: string, q: CountQuery, r: CountResult): unknown {
  const size = STEP_MS[q.step];
  const points = Math.round((q.until - q.since) / size);
  const timestamps = Array.from({ length: points }, (_, i) => new Date(q.since + i * size).toISOString());
  const series = new Map<string, { group: SeriesRow["group"]; counts: number[]; total: number }>();
  let total = 0;
  for (const row of r.rows) {
    const key = JSON.stringify(row.group);
    let s = series.get(key);
    if (!s) {
      s = { group: row.group, counts: new Array<number>(points).fill(0), total: 0 };
      series.set(key, s);
    }
    const at = Math.round((row.bucket - q.since) / size);
    if (at >= 0 && at < points) s.counts[at] = (s.counts[at] ?? 0) + row.n;
    s.total += row.n;
    total += row.n;
  }
  return {
    zone,
    since: new Date(q.since).toISOString(),
    until: new Date(q.until).toISOString(),
    step: q.step,
    group_by: q.groupBy,
    filters: q.filters,
    total,
    timestamps,
    series: [...series.values()].sort((a, b) => b.total - a.total),
    top_codes: r.topCodes,
    top_paths: r.topPaths,
  };
}

async function byRay(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const ray = c.params.ray ?? "";
  if (!isRayId(ray)) {
    return err({ kind: "invalid-ray", ray: decodeSafe(ray).slice(0, 64) });
  }
  const found = await store(c, zone);
  if (!found.ok) return found;
  const record = await found.value.lookup(ray, Date.now());
  if (record === null) {
    return err({ kind: "unknown-ray", ray, days: RETENTION.eventsMs / 86_400_000 });
  }
  return ok(apiSuccess({ ...record, zone, time: new Date(record.at).toISOString() }));
}

/** JSON-quoted with `<`, `>` and `&` escaped too, so a quoted value is inert wherever the message is shown. */
function decodeSafe(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export const analyticsRoutes: readonly ApiRoute[] = [
  {
    method: "GET",
    path: "/zones/:zone/analytics/errors",
    permission: "zones:read",
    target: zoneTarget,
    handle: zoneHandler(counts),
  },
  {
    method: "GET",
    path: "/zones/:zone/errors/:ray",
    permission: "zones:read",
    target: zoneTarget,
    handle: zoneHandler(byRay),
  },
];
