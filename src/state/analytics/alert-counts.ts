/**
 * Errors and requests over alert windows (docs/analytics.md "Alerts"): what one shard counts over each window (the
 * SQL below, run by the object's `alertWindows`) and their sum over every shard of a zone within retention (the
 * fan-out of an evaluation, one call per shard for all the windows). Kept apart from fan-out.ts, which names the
 * object class, because the object itself (shard 0's alarm, alerting.ts) calls this.
 */
import { ORIGIN_FAILURE_CODES, type WindowCount, type WindowQuery } from "./alerts";
import { shardNames, type ShardPlan } from "./shards";

/** `ask` answers one object by name: an RPC to the shard, or the evaluating object answering for itself. */
export async function zoneAlertCounts(
  zone: string,
  plan: ShardPlan,
  windows: readonly WindowQuery[],
  ask: (name: string) => Promise<readonly WindowCount[]> | readonly WindowCount[],
): Promise<readonly WindowCount[]> {
  const answers = await Promise.all(shardNames(zone, plan, Date.now()).map(async (name) => ask(name)));
  return windows.map((_, i) =>
    answers.reduce(
      (sum, answer) => ({
        errors: sum.errors + (answer[i]?.errors ?? 0),
        requests: sum.requests + (answer[i]?.requests ?? 0),
      }),
      { errors: 0, requests: 0 },
    ),
  );
}

/** Requests counted in one shard over a window [?1, ?2): a primary-key range scan of `traffic_minutes`. */
export const WINDOW_REQUESTS_SQL =
  "SELECT coalesce(sum(requests), 0) AS n FROM traffic_minutes WHERE bucket >= ? AND bucket < ?";

/**
 * The SQL condition "an error `side` caused", over a record's (or a minute count's) source and code columns: the
 * origin caused its own responses >= 500 passed through and the edge's codes for an origin that failed
 * (ORIGIN_FAILURE_CODES: refused, timed out, unreachable, TLS, DNS); the edge caused every other error it generated.
 * Origin 4xx passed through are the client's: neither side's. Only constants reach the SQL text.
 */
function causedBy(side: "edge" | "origin", sourceColumn: string, codeColumn: string): string {
  const failed = `${sourceColumn} = 'edge' AND ${codeColumn} IN (${ORIGIN_FAILURE_CODES.join(", ")})`;
  return side === "origin"
    ? `((${sourceColumn} = 'origin' AND ${codeColumn} >= 500) OR (${failed}))`
    : `(${sourceColumn} = 'edge' AND NOT (${failed}))`;
}

/**
 * The errors one shard counts over a window, as one statement (`n`): the minute counts (a primary-key range scan);
 * a path filter reads the records of the batches in the window (the `batches_by_newest` index; its window is at
 * most an hour, alerts.ts THRESHOLD_WINDOW).
 */
export function windowErrorsSql(w: WindowQuery): { readonly text: string; readonly params: SqlStorageValue[] } {
  const params: SqlStorageValue[] = [w.since, w.until];
  if (w.match.kind === "origin-errors") {
    return {
      text: `SELECT coalesce(sum(count), 0) AS n FROM minutes WHERE bucket >= ? AND bucket < ? AND ${causedBy("origin", "source", "code")}`,
      params,
    };
  }
  const { code, source, path } = w.match.filter;
  // Each condition binds its value by number: the path scan names ?1 (since) twice.
  const and = (column: string, value: string | number | undefined): string => {
    if (value === undefined) return "";
    params.push(value);
    return ` AND ${column} = ?${params.length}`;
  };
  // A filter's source is who caused the error, the burn rate's one meaning of "origin errors" (docs/analytics.md
  // "Alerts"): not the record's own `source` column, which says who answered.
  const cause = (sourceColumn: string, codeColumn: string): string =>
    source === undefined ? "" : ` AND ${causedBy(source, sourceColumn, codeColumn)}`;
  if (path === undefined) {
    const text =
      "SELECT coalesce(sum(count), 0) AS n FROM minutes WHERE bucket >= ?1 AND bucket < ?2" +
      and("code", code) +
      cause("source", "code");
    return { text, params };
  }
  const text =
    `SELECT count(*) AS n FROM batches b, json_each(b.records) j WHERE b.newest >= ?1
      AND (j.value ->> 1) >= ?1 AND (j.value ->> 1) < ?2` +
    and("(j.value ->> 9)", path) +
    and("(j.value ->> 2)", code) +
    cause("(j.value ->> 4)", "(j.value ->> 2)");
  return { text, params };
}
