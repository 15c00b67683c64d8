/**
 * `GET /accounts/{account_id}/analytics/errors` (docs/analytics.md "Errors by tag", docs/tags-api.md "Errors by
 * tag"): an account's errors filtered by zone tags and grouped by one tag key, across its zones.
 *
 * The zones are the account's tagged zones as its TagStore lists them (`type=zone`, the `tag=` filters of
 * `GET /accounts/{a}/tags/resources`, `effective=true` too), kept only when the token may read them and when the
 * zone object's `account.id` is still this account (a zone moved to another account may have left its tags here).
 * More than `ERRORS_BY_TAG.maxZones` zones in the token's view is refused (1040) before any zone is read; the
 * zones' counts are read with the zone API's own fan-out (src/state/analytics/fan-out.ts `zoneCounts`), a bounded
 * number of zones at a time, and summed per group exactly as the fan-out sums shards.
 */
import { accountInScope, zoneInScope, type AccessTarget } from "../kit/auth";
import { API_FAILURES, apiFailureResponse, apiSuccess, failureOf, type ApiFailure } from "../kit/envelope";
import type { ApiContext } from "../kit/types";
import { described, fields, later, parseWith, text, type Answer } from "../../shared/schema";
import * as z from "zod/mini";
import { queryObject } from "../kit/query";
import { ERRORS_BY_TAG, type ERRORS_BY_TAG_ANSWER } from "./schemas";
import { zoneApiFailure } from "../kit/zone-section";
import { toApiFailure } from "../tags/api-failure";
import { parseResourceQuery, validateKey } from "../tags/validate";
import { err, ok, type Result } from "../../shared/result";
import { zoneCounts, type ZoneCounts } from "../../state/analytics/fan-out";
import type { CountQuery } from "../../state/analytics/query";
import { STEP_MS } from "../../state/analytics/schema";
import { storedShardPlan } from "../../state/analytics/shards";
import { decodeCursor, type DecodedCursor } from "../../state/tags/cursor";
import { EFFECTIVE, TAG_FILTERS } from "../../state/tags/tag-schema";
import type { ResourceQuery, TaggedResource } from "../../state/tags/types";
import { lookupZone } from "../../state/zone/cache";
import { isAccountId, zoneAccountId } from "../../state/zone/schema";
import { COUNT_NUMERIC, countWindow, countWindowFields } from "./params";

const GROUP_PREFIX = "tag:";

interface ByTagQuery {
  readonly count: CountQuery;
  readonly resources: ResourceQuery;
  readonly tagFilters: readonly string[];
  /** The tag key of `group_by=tag:<key>`, or null (no grouping). */
  readonly groupKey: string | null;
}

/**
 * The route target: the account of the path (anything but 32 lower-case hex is 404), authorised like the zone list
 * (the permission only), because a token scoped to zones rather than to the account may ask too: it sees its own
 * zones of the account ("Which zones" in docs/analytics.md "Errors by tag").
 */
export function accountZonesTarget(params: Readonly<Record<string, string>>): Result<AccessTarget, ApiFailure> {
  return isAccountId(params.account ?? "") ? ok({ kind: "zone-list" }) : err(API_FAILURES.notFound());
}

/**
 * The query: the zone API's window and filters, `group_by=tag:<key>`, and the tag listings' `tag=` filters and
 * `effective`. The validator and, through `queryParameters`, the document's parameters.
 */
export const BY_TAG_QUERY = later(
  () =>
    fields(
      {
        tag: z.optional(TAG_FILTERS()),
        group_by: z.optional(
          described(
            text({ pattern: /^(?:tag:.+)?$/ }, "must be tag:<key> (a zone tag key, e.g. tag:team)"),
            "tag:<key>: one group per value of the key, and one (value null) for zones without it",
          ),
        ),
        effective: z.optional(EFFECTIVE()),
        ...countWindowFields(),
      },
      "is not a parameter of this query (tag, group_by, effective, since, until, step, code, source, answered_by, format)",
    ),
  { id: "ErrorsByTagQuery", example: { tag: ["env=prod"], group_by: "tag:team", step: "hour" } },
);

/**
 * Parses the query: the schema's refusals (10101: unknown or repeated parameters, the window, the filters, the
 * shape of `group_by`) → the window's limits (10102) → `group_by`'s key as a tag key (1014 / 1011) → the `tag=`
 * filters and `effective` as the tag listings take them (1010, 1007, 1014, 1011, 1013, 1012).
 */
export function parseByTagQuery(params: URLSearchParams, account: string, now: number): Result<ByTagQuery, ApiFailure> {
  const given = queryObject(params, COUNT_NUMERIC, ["tag"]);
  // The tag filters and `effective` are read below, as the tag listings read them, with their codes.
  const { tag: _filters, effective: _effective, ...rest } = given.ok ? given.value : {};
  const parsed = given.ok ? parseWith(BY_TAG_QUERY, rest) : given;
  if (!parsed.ok) return err(zoneApiFailure({ kind: "invalid-analytics-query", issues: parsed.error }, ""));
  const q = parsed.value;
  const count = countWindow(q, now);
  if (!count.ok) return err(zoneApiFailure(count.error, ""));
  let groupKey: string | null = null;
  if (q.group_by !== undefined && q.group_by !== "") {
    const key = validateKey(q.group_by.slice(GROUP_PREFIX.length));
    if (!key.ok) return err(toApiFailure(key.error));
    groupKey = key.value;
  }
  const tagParams = new URLSearchParams();
  for (const name of ["tag", "effective"]) for (const value of params.getAll(name)) tagParams.append(name, value);
  const resources = parseResourceQuery(tagParams, account);
  if (!resources.ok) return err(toApiFailure(resources.error));
  return ok({
    count: { ...count.value, groupBy: [] },
    resources: { ...resources.value, types: ["zone"] },
    tagFilters: params.getAll("tag"),
    groupKey,
  });
}

/** One zone to read, with its group's value (null: it lacks the key, the "untagged" group). */
interface Candidate {
  readonly zone: string;
  readonly value: string | null;
}

/** The group value of a listed zone: its own tag, else (with `effective=true`) the one it inherits. */
function valueOf(item: TaggedResource, key: string | null): string | null {
  if (key === null) return null;
  if (Object.hasOwn(item.tags, key)) return item.tags[key] ?? null;
  const inherited = item.inherited_tags;
  return inherited !== undefined && Object.hasOwn(inherited, key) ? (inherited[key]?.value ?? null) : null;
}

/**
 * The account's tagged zones matching the filters that the token may read, page by page; more than the bound
 * stops the listing at once with 1040 (so no more pages are read and no zone is read at all).
 */
async function candidates(
  c: ApiContext,
  account: string,
  q: ByTagQuery,
  visible: (zone: string) => boolean,
): Promise<Result<Candidate[], ApiFailure>> {
  const store = c.env.TAG_STORE.get(c.env.TAG_STORE.idFromName(account));
  const scope = { account, query: JSON.stringify(["errors-by-tag", q.resources]) };
  const found: Candidate[] = [];
  let cursor: DecodedCursor | null = null;
  for (;;) {
    const page = await store.listResources({ scope, cursor, query: q.resources });
    if (!page.ok) return err(toApiFailure(page.error));
    for (const item of page.value.items) {
      if (item.type !== "zone" || !visible(item.id)) continue;
      found.push({ zone: item.id, value: valueOf(item, q.groupKey) });
      if (found.length > ERRORS_BY_TAG.maxZones) return err(tooManyZones(q));
    }
    if (page.value.next === null) return ok(found);
    const next = decodeCursor(page.value.next, 3);
    if (!next.ok) return err(toApiFailure({ kind: "invalid-cursor" }));
    cursor = next.value;
  }
}

function tooManyZones(q: ByTagQuery): ApiFailure {
  const filters = q.tagFilters.length === 0 ? "no tag filter" : `tag filters ${q.tagFilters.join(" AND ")}`;
  return failureOf(
    "errors-by-tag-too-many-zones",
    `more than ${ERRORS_BY_TAG.maxZones} zones match (${filters}): a query reads at most ${ERRORS_BY_TAG.maxZones} zones; ` +
      "narrow it with another tag filter (e.g. tag=team=payments or tag=env=prod), or ask one group's value at a time",
  );
}

/** Runs `work` over `items`, at most `limit` at a time, answers in the items' order. */
async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const answers = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      answers[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return answers;
}

type ZoneAnswer =
  | { readonly kind: "counted"; readonly zone: string; readonly value: string | null; readonly counts: ZoneCounts }
  | { readonly kind: "skipped" }
  | { readonly kind: "failed"; readonly failure: ApiFailure };

/** One zone's counts, when the zone is configured and its object's account is this account. */
async function countZone(c: ApiContext, account: string, q: ByTagQuery, cand: Candidate): Promise<ZoneAnswer> {
  const config = await lookupZone(c.env.CONFIG, cand.zone);
  if (!config.ok) return { kind: "failed", failure: zoneApiFailure(config.error, cand.zone) };
  if (config.value === null || zoneAccountId(config.value.settings) !== account) return { kind: "skipped" };
  const plan = storedShardPlan(config.value.document);
  if (!plan.ok) return { kind: "failed", failure: zoneApiFailure({ kind: "corrupt", cause: plan.error }, cand.zone) };
  const counts = await zoneCounts(c.env.ZONE_ANALYTICS, cand.zone, plan.value, q.count);
  if (!counts.ok)
    return { kind: "failed", failure: zoneApiFailure({ ...counts.error, kind: "too-many-series" }, cand.zone) };
  return { kind: "counted", zone: cand.zone, value: cand.value, counts: counts.value };
}

/** `GET /accounts/{account_id}/analytics/errors`. */
export async function errorsByTag(c: ApiContext): Promise<Response> {
  const account = c.params.account ?? "";
  const { principal } = c;
  // Tag values are tag data: reading them needs tags:read beside the route's zones:read.
  if (!principal.permissions.has("tags:read")) return apiFailureResponse(API_FAILURES.forbidden());
  const wholeAccount = accountInScope(principal, account);
  if (!wholeAccount && principal.zones !== "*" && principal.zones.size === 0)
    return apiFailureResponse(API_FAILURES.forbidden());
  const query = parseByTagQuery(c.url.searchParams, account, Date.now());
  if (!query.ok) return apiFailureResponse(query.error);
  const visible = (zone: string): boolean => wholeAccount || zoneInScope(principal, zone, null);
  const listed = await candidates(c, account, query.value, visible);
  if (!listed.ok) return apiFailureResponse(listed.error);
  const answers = await mapBounded(listed.value, ERRORS_BY_TAG.concurrency, (cand) =>
    countZone(c, account, query.value, cand),
  );
  const counted: Extract<ZoneAnswer, { kind: "counted" }>[] = [];
  for (const a of answers) {
    if (a.kind === "failed") return apiFailureResponse(a.failure);
    if (a.kind === "counted") counted.push(a);
  }
  return apiSuccess(shape(account, query.value, wholeAccount, counted));
}

/** An error rate: errors ÷ requests, rounded to 6 places; null when no request was counted. */
const rate = (errors: number, requests: number): number | null =>
  requests === 0 ? null : Math.round((errors / requests) * 1e6) / 1e6;

interface Sums {
  total: number;
  requests: number;
  dropped: number;
  counts: number[];
  requestsSeries: number[];
  droppedSeries: number[];
}

function shape(
  account: string,
  q: ByTagQuery,
  wholeAccount: boolean,
  counted: readonly Extract<ZoneAnswer, { kind: "counted" }>[],
): Answer<typeof ERRORS_BY_TAG_ANSWER> {
  const { since, until, step } = q.count;
  const size = STEP_MS[step];
  const points = Math.round((until - since) / size);
  const at = (bucket: number): number => Math.round((bucket - since) / size);
  const empty = (): Sums => ({
    total: 0,
    requests: 0,
    dropped: 0,
    counts: new Array<number>(points).fill(0),
    requestsSeries: new Array<number>(points).fill(0),
    droppedSeries: new Array<number>(points).fill(0),
  });
  const add = (into: Sums, from: ZoneCounts): void => {
    for (const row of from.rows) {
      const i = at(row.bucket);
      if (i >= 0 && i < points) into.counts[i] = (into.counts[i] ?? 0) + row.n;
      into.total += row.n;
    }
    for (const t of from.traffic) {
      const i = at(t.bucket);
      if (i < 0 || i >= points) continue;
      into.requestsSeries[i] = (into.requestsSeries[i] ?? 0) + t.requests;
      into.droppedSeries[i] = (into.droppedSeries[i] ?? 0) + t.dropped;
      into.requests += t.requests;
      into.dropped += t.dropped;
    }
  };
  const all = empty();
  const groups = new Map<string | null, { zones: string[]; sums: Sums }>();
  const zones = counted.map((z) => {
    const own = empty();
    add(own, z.counts);
    add(all, z.counts);
    if (q.groupKey !== null) {
      let g = groups.get(z.value);
      if (!g) {
        g = { zones: [], sums: empty() };
        groups.set(z.value, g);
      }
      g.zones.push(z.zone);
      add(g.sums, z.counts);
    }
    return {
      zone: z.zone,
      value: z.value,
      total: own.total,
      requests: own.requests,
      error_rate: rate(own.total, own.requests),
      dropped: own.dropped,
      shards: z.counts.shards,
      top_codes: z.counts.topCodes.slice(0, ERRORS_BY_TAG.topCodes),
    };
  });
  return {
    account,
    since: new Date(since).toISOString(),
    until: new Date(until).toISOString(),
    step,
    filters: q.count.filters,
    tag_filters: q.tagFilters,
    effective: q.resources.effective !== undefined,
    group_by: q.groupKey === null ? null : `${GROUP_PREFIX}${q.groupKey}`,
    scope: wholeAccount ? "account" : "token-zones",
    max_zones: ERRORS_BY_TAG.maxZones,
    total: all.total,
    requests: all.requests,
    error_rate: rate(all.total, all.requests),
    dropped: all.dropped,
    timestamps: Array.from({ length: points }, (_, i) => new Date(since + i * size).toISOString()),
    requests_series: all.requestsSeries,
    dropped_series: all.droppedSeries,
    groups: [...groups]
      .map(([value, g]) => ({
        value,
        zones: g.zones.sort(),
        total: g.sums.total,
        requests: g.sums.requests,
        error_rate: rate(g.sums.total, g.sums.requests),
        dropped: g.sums.dropped,
        counts: g.sums.counts,
      }))
      // Most errors first; the untagged group after the values with as many; values in code point order.
      .sort(
        (a, b) =>
          b.total - a.total ||
          Number(a.value === null) - Number(b.value === null) ||
          ((a.value ?? "") < (b.value ?? "") ? -1 : (a.value ?? "") > (b.value ?? "") ? 1 : 0),
      ),
    zones: zones.sort((a, b) => b.total - a.total || (a.zone < b.zone ? -1 : a.zone > b.zone ? 1 : 0)),
  };
}
