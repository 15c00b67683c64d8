/**
 * The history of tag changes (docs/tags-api.md "History"): one row per changed key of one write, with the write's
 * time, the token's name, the path it came through, and the value before and after. Rows are kept for
 * HISTORY_RETENTION_DAYS, at most HISTORY_MAX_ROWS and at most HISTORY_MAX_BYTES per account (the oldest go first),
 * pruned by the writes themselves; they count against no tag limit.
 */
import type { KeyChange } from "./edits";
import { parentField, type ResourceRef } from "./types";

export const HISTORY_RETENTION_DAYS = 90;
export const HISTORY_MAX_ROWS = 1_000_000;
/**
 * Rows alone do not bound the object's storage: one entry holds up to 1 KiB of key and 4 KiB each of value before
 * and after, so 1,000,000 entries could be ~9 GB. The bytes of every entry (HISTORY_ROW_BYTES) are kept in a running
 * total and the oldest entries go once it passes this.
 */
export const HISTORY_MAX_BYTES = 64 * 1024 * 1024;

/**
 * What one entry counts against HISTORY_MAX_BYTES, in SQL over its columns: the UTF-8 bytes of its text (CAST AS
 * BLOB keeps the stored encoding; length() of TEXT counts characters) plus HISTORY_ROW_OVERHEAD. The history
 * migration of version 3 holds a frozen copy of this expression for the rows written before it.
 */
export const HISTORY_ROW_OVERHEAD = 64;
export const HISTORY_ROW_BYTES =
  `${HISTORY_ROW_OVERHEAD} + length(CAST(at AS BLOB)) + length(CAST(actor AS BLOB)) + length(CAST(via AS BLOB))` +
  " + length(CAST(type AS BLOB)) + length(CAST(parent AS BLOB)) + length(CAST(id AS BLOB))" +
  " + length(CAST(key AS BLOB)) + coalesce(length(CAST(before AS BLOB)), 0) + coalesce(length(CAST(after AS BLOB)), 0)";

/** How a change was made. */
export const HISTORY_VIA = ["put", "patch", "bulk", "delete", "zone-deleted"] as const;
export type HistoryVia = (typeof HISTORY_VIA)[number];

/** One listed history entry: one key of one change. */
export interface HistoryEntry {
  readonly id: string;
  readonly change_id: number;
  readonly at: string;
  readonly token_name: string;
  readonly via: HistoryVia;
  readonly resource_type: string;
  readonly resource_id: string;
  readonly worker_id?: string;
  readonly zone_id?: string;
  readonly key: string;
  readonly before: string | null;
  readonly after: string | null;
}

export type HistoryRow = {
  seq: number;
  change: number;
  at: string;
  actor: string;
  via: string;
  type: string;
  parent: string;
  id: string;
  key: string;
  before: string | null;
  after: string | null;
};

/** A change about to be written: its resource, what changed, and who did it how. */
export interface PendingChange {
  readonly ref: ResourceRef;
  readonly changes: readonly KeyChange[];
}

export function historyEntry(row: HistoryRow): HistoryEntry {
  return {
    id: String(row.seq),
    change_id: row.change,
    at: row.at,
    token_name: row.actor,
    via: row.via as HistoryVia,
    resource_type: row.type,
    resource_id: row.id,
    ...parentField(row.type, row.parent),
    key: row.key,
    before: row.before,
    after: row.after,
  };
}

const COLUMNS = "seq, change, at, actor, via, type, parent, id, key, before, after";

/** Newest first; `before` is the seq of the last entry already returned. */
export function historyQuery(
  ref: ResourceRef | null,
  before: number | null,
  limit: number,
): { sql: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (ref) {
    where.push("type = ? AND parent = ? AND id = ?");
    params.push(ref.type, ref.parent, ref.id);
  }
  if (before !== null) {
    where.push("seq < ?");
    params.push(before);
  }
  return {
    sql: `SELECT ${COLUMNS} FROM history${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY seq DESC LIMIT ${limit}`,
    params,
  };
}
