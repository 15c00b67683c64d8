/**
 * `GET /zones/{zone}/analytics/errors`, and the Ray lookup (ray.ts) at `GET /zones/{zone}/errors/{ray}` and the
 * published `GET /zones/{zone}/logs/rayids/{ray}` (docs/configuration.md,
 * docs/analytics.md). Permission `zones:read` (docs/configuration.md names it): a token scoped to another zone is refused
 * (403) by the kit before the handler runs, so it never learns whether a record exists.
 */
import { readJsonBody } from "../kit/body";
import { apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute, PageRoute } from "../kit/types";
import { editZone, readZone, zoneHandler, zoneTarget, type ZoneAnswer } from "../kit/zone-section";
import { parseWith, type Answer } from "../../shared/schema";
import { err, ok } from "../../shared/result";
import { STEP_MS } from "../../state/analytics/schema";
import type { CountQuery } from "../../state/analytics/query";
import type { SeriesRow } from "../../state/analytics/zone-analytics";
import { AVOIDED_KINDS, type AvoidedKind, type AvoidedRow } from "../../state/analytics/avoided";
import { zoneCounts, type ZoneCounts } from "../../state/analytics/fan-out";
import { countsInForce, DEFAULT_PLAN, MAX_SHARDS, storedShardPlan, type ShardPlan } from "../../state/analytics/shards";
import { parseCountQuery } from "./params";
import { planOf } from "./store";
import { byRay, publishedByRay } from "./ray";
import { alertRoutes } from "./alerts";
import { accountZonesTarget, errorsByTag } from "./by-tag";
import { zoneAnalyticsPage } from "./page";
import { accountAnalyticsPage } from "./account-page";
import { ANALYTICS_SETTINGS_BODY, type ANALYTICS_SETTINGS, type ERROR_COUNTS } from "./schemas";

async function counts(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const query = parseCountQuery(c.url.searchParams, Date.now());
  if (!query.ok) return query;
  const plan = await planOf(c, zone);
  if (!plan.ok) return plan;
  const result = await zoneCounts(c.env.ZONE_ANALYTICS, zone, plan.value, query.value);
  if (!result.ok) {
    const { series, limit } = result.error;
    return err({ kind: "too-many-series", series, limit });
  }
  return ok(apiSuccess(shape(zone, query.value, result.value)));
}

/** An error rate: errors ÷ requests, rounded to 6 places; null when no request was counted. */
const rate = (errors: number, requests: number): number | null =>
  requests === 0 ? null : Math.round((errors / requests) * 1e6) / 1e6;

/**
 * Dense series: one count per step for every group, aligned with `timestamps`; requests and dropped records per
 * step beside them, and each series' share of the requests (docs/analytics.md "Requests and drops").
 */
function shape(zone: string, q: CountQuery, r: ZoneCounts): Answer<typeof ERROR_COUNTS> {
  const size = STEP_MS[q.step];
  const points = Math.round((q.until - q.since) / size);
  const timestamps = Array.from({ length: points }, (_, i) => new Date(q.since + i * size).toISOString());
  const at = (bucket: number): number => Math.round((bucket - q.since) / size);
  const series = new Map<string, { group: SeriesRow["group"]; counts: number[]; total: number }>();
  let total = 0;
  for (const row of r.rows) {
    const key = JSON.stringify(row.group);
    let s = series.get(key);
    if (!s) {
      s = { group: row.group, counts: new Array<number>(points).fill(0), total: 0 };
      series.set(key, s);
    }
    const i = at(row.bucket);
    if (i >= 0 && i < points) s.counts[i] = (s.counts[i] ?? 0) + row.n;
    s.total += row.n;
    total += row.n;
  }
  const requestCounts = new Array<number>(points).fill(0);
  const droppedCounts = new Array<number>(points).fill(0);
  for (const t of r.traffic) {
    const i = at(t.bucket);
    if (i < 0 || i >= points) continue;
    requestCounts[i] = (requestCounts[i] ?? 0) + t.requests;
    droppedCounts[i] = (droppedCounts[i] ?? 0) + t.dropped;
  }
  const requests = requestCounts.reduce((a, b) => a + b, 0);
  const dropped = droppedCounts.reduce((a, b) => a + b, 0);
  return {
    zone,
    since: new Date(q.since).toISOString(),
    until: new Date(q.until).toISOString(),
    step: q.step,
    group_by: q.groupBy,
    filters: q.filters,
    total,
    requests,
    error_rate: rate(total, requests),
    dropped,
    shards: r.shards,
    timestamps,
    requests_series: requestCounts,
    dropped_series: droppedCounts,
    series: [...series.values()]
      .sort((a, b) => b.total - a.total)
      .map((s) => ({ ...s, rate: rate(s.total, requests) })),
    top_codes: r.topCodes.map((t) => ({ ...t, rate: rate(t.count, requests) })),
    top_paths: r.topPaths.map((t) => ({ ...t, rate: rate(t.count, r.pathHoursRequests) })),
    avoided: avoidedSection(r.avoided),
  };
}

/**
 * The window's avoided errors (docs/analytics.md "Avoided errors"): the sum, each kind's count (every kind present,
 * 0 when none), and each (kind, code), most first. The error counts' filters do not apply: they select records.
 */
function avoidedSection(rows: readonly AvoidedRow[]): Answer<typeof ERROR_COUNTS>["avoided"] {
  const byKind = Object.fromEntries(AVOIDED_KINDS.map((k) => [k, 0])) as Record<AvoidedKind, number>;
  let total = 0;
  for (const row of rows) {
    byKind[row.kind] += row.count;
    total += row.count;
  }
  return { total, by_kind: byKind, by_code: rows.map((r) => ({ kind: r.kind, code: r.code, count: r.count })) };
}

/** The settings as answered: the shard count, the counts still in force (queries ask each) and the limit. */
function presentSettings(plan: ShardPlan): Answer<typeof ANALYTICS_SETTINGS> {
  return { shards: plan.shards, shards_in_force: countsInForce(plan, Date.now()), max_shards: MAX_SHARDS };
}

async function getSettings(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  const plan = storedShardPlan(current.value.document);
  return ok(apiSuccess(presentSettings(plan.ok ? plan.value : DEFAULT_PLAN)));
}

async function putSettings(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const body = await readJsonBody(c.request);
  if (!body.ok) return err({ kind: "body", failure: body.error });
  const parsed = parseWith(ANALYTICS_SETTINGS_BODY, body.value);
  if (!parsed.ok) return err({ kind: "invalid-analytics-settings", issues: parsed.error });
  const written = await editZone(c, zone, { kind: "analytics-shards", shards: parsed.value.shards });
  if (!written.ok) return written;
  const plan = storedShardPlan(written.value.document);
  return ok(apiSuccess(presentSettings(plan.ok ? plan.value : DEFAULT_PLAN)));
}

const SETTINGS_PATH = "/zones/:zone/analytics/settings";

export const analyticsRoutes: readonly ApiRoute[] = [
  {
    method: "GET",
    path: SETTINGS_PATH,
    permission: "zones:read",
    target: zoneTarget,
    handle: zoneHandler(getSettings),
  },
  {
    method: "PUT",
    path: SETTINGS_PATH,
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(putSettings),
    dryRun: true,
  },
  {
    method: "GET",
    path: "/zones/:zone/analytics/errors",
    permission: "zones:read",
    target: zoneTarget,
    handle: zoneHandler(counts),
  },
  {
    method: "GET",
    path: "/accounts/:account/analytics/errors",
    permission: "zones:read",
    target: accountZonesTarget,
    handle: errorsByTag,
  },
  {
    method: "GET",
    path: "/zones/:zone/errors/:ray",
    permission: "zones:read",
    target: zoneTarget,
    handle: zoneHandler(byRay),
  },
  {
    method: "GET",
    path: "/zones/:zone/logs/rayids/:ray",
    permission: "zones:read",
    target: zoneTarget,
    handle: zoneHandler(publishedByRay),
  },
  ...alertRoutes,
];

/**
 * The analytics pages (docs/analytics.md "Page", "The account page"): public shells holding no data, served to GET
 * and HEAD before authentication (kit/types.ts `PageRoute`).
 */
export const analyticsPages: readonly PageRoute[] = [
  { kind: "page", path: "/zones/:zone/analytics", page: zoneAnalyticsPage },
  { kind: "page", path: "/accounts/:account/analytics", page: accountAnalyticsPage },
];
