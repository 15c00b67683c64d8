/**
 * One SQLite-backed Durable Object per account: the tagging store (contract §5; notes/tagging.md §5–§8).
 *
 * - Typed RPC methods return data: `Result<…, TagStoreFailure>` for expected failures, domain values that speak no
 *   HTTP (the routes map them to status and v4 code in one switch). Nothing custom is thrown across RPC (a thrown
 *   error would lose its type and become the Worker's 500).
 * - Bounded in bytes as well as in rows (issue 8): no bound parameter grows past SQLite's string limit (inserts
 *   are chunked), and a page ends early when the next item would pass `PAGE_BYTE_BUDGET`, so every legal account is
 *   listable under the runtime's 32 MiB RPC limit.
 * - Every read-check-write (If-Match, the account limit, the replacement of a set) runs synchronously inside
 *   `transactionSync`: no await in between, so concurrent requests serialise and the limit is exact.
 * - Ordering and cursor comparisons happen in SQL, whose BINARY collation compares UTF-8 bytes, i.e. code
 *   points (contract §5); JS string comparison (UTF-16 units) is never used for them.
 */
import { DurableObject } from "cloudflare:workers";
import { err, ok, type Result } from "../result";
import { importCursorKey, signCursor, verifyCursor, type CursorScope, type DecodedCursor } from "./cursor";
import { EMPTY_TAGS_ETAG } from "./etag";
import { compileResourceQuery, PAGE_SIZE } from "./filters";
import { distinctKeysQuery, distinctValuesQuery } from "./listings";
import { migrate } from "./migrations";
import { compareCodePoints, fold } from "./text";
import type { IfMatch, Page, ResourceQuery, ResourceRef, TaggedResource, TagPairs } from "./types";

export interface PutTagsInput {
  readonly ref: ResourceRef;
  readonly tags: TagPairs;
  /** ETag of `tags`, computed by the caller (hashing is async; the transaction must not await). */
  readonly etag: string;
  readonly ifMatch: IfMatch | null;
  /** Account limit in (resource, key) pairs (contract §5, `TAG_LIMIT`). */
  readonly limit: number;
}

export interface DeleteTagsInput {
  readonly ref: ResourceRef;
  readonly ifMatch: IfMatch | null;
}

/** Which page of a listing: the scope its cursor must be bound to, and the decoded cursor if any. */
export interface PageRequest {
  readonly scope: CursorScope;
  readonly cursor: DecodedCursor | null;
}

export interface KeySummary {
  readonly key: string;
  readonly values: readonly string[];
}

/** What the store can refuse, as values (contract §5 codes 1016–1018 at the edge). */
export type TagStoreFailure =
  | { readonly kind: "precondition-failed" }
  | { readonly kind: "limit-reached"; readonly limit: number }
  | { readonly kind: "invalid-cursor" };

/**
 * The most a page may weigh, counted as 2 bytes per UTF-16 code unit of its items' JSON (the structured clone of a
 * two-byte string): 8 MiB, a quarter of the runtime's 32 MiB RPC limit. A page ends early, with a cursor, when the
 * next item would pass it; the first item always fits (one resource's tags come from one ≤ 1 MiB body).
 */
export const PAGE_BYTE_BUDGET = 8 * 1024 * 1024;

/**
 * The most one bound JSON parameter of an insert may weigh (UTF-8 bytes): well under SQLite's 2 MB string limit in
 * Durable Objects, so the widest legal tag set (500 values of 1,024 `İ`, ~1 MB, plus their case-folded forms)
 * goes in several statements instead of failing with SQLITE_TOOBIG.
 */
const INSERT_CHUNK_BYTES = 512 * 1024;

type ResourceRow = {
  type: string;
  parent: string;
  id: string;
  name: string;
  etag: string;
  tags_updated_at: string;
  tags: string;
};

function matches(ifMatch: IfMatch | null, current: string): boolean {
  if (ifMatch === null || ifMatch.kind === "any") return true;
  return ifMatch.etags.includes(current);
}

function resourceObject(
  ref: { type: string; parent: string; id: string },
  name: string,
  tags: TagPairs,
  etag: string,
  updatedAt: string | null,
): TaggedResource {
  return {
    id: ref.id,
    type: ref.type,
    name,
    // fromEntries defines own properties, so a key such as "__proto__" stays an ordinary tag.
    tags: Object.fromEntries(tags),
    etag,
    ...(updatedAt === null ? {} : { tags_updated_at: updatedAt }),
    ...(ref.parent === "" ? {} : { worker_id: ref.parent }),
  };
}

export class TagStore extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private cursorKey: Promise<CryptoKey> | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    migrate(ctx.storage);
  }

  /** The tags of one resource; an unknown or untagged resource has the empty set (notes §6). */
  getTags(ref: ResourceRef): TaggedResource {
    const row = this.sql
      .exec<{ name: string; etag: string; tags_updated_at: string }>(
        "SELECT name, etag, tags_updated_at FROM resources WHERE type = ? AND parent = ? AND id = ?",
        ref.type,
        ref.parent,
        ref.id,
      )
      .toArray()[0];
    if (!row) return resourceObject(ref, ref.id, [], EMPTY_TAGS_ETAG, null);
    const tags = this.sql
      .exec<{ key: string; value: string }>(
        "SELECT key, value FROM tags WHERE type = ? AND parent = ? AND id = ? ORDER BY key",
        ref.type,
        ref.parent,
        ref.id,
      )
      .toArray()
      .map((t): [string, string] => [t.key, t.value]);
    return resourceObject(ref, row.name, tags, row.etag, row.tags_updated_at);
  }

  /** Replaces the resource's whole set (contract §5), atomically with the If-Match and limit checks. */
  putTags(input: PutTagsInput): Result<TaggedResource, TagStoreFailure> {
    const { ref, tags, etag, ifMatch, limit } = input;
    return this.ctx.storage.transactionSync(() => {
      const row = this.currentRow(ref);
      if (!matches(ifMatch, row?.etag ?? EMPTY_TAGS_ETAG)) return err({ kind: "precondition-failed" });
      const old = row?.tag_count ?? 0;
      const total = this.tagTotal();
      // Only growth is refused: replacing a set at (or, after TAG_LIMIT was lowered, above) the limit is allowed.
      if (tags.length > old && total - old + tags.length > limit) return err({ kind: "limit-reached", limit });
      this.sql.exec("DELETE FROM tags WHERE type = ? AND parent = ? AND id = ?", ref.type, ref.parent, ref.id);
      this.setTagTotal(total - old + tags.length);
      if (tags.length === 0) {
        this.deleteRow(ref);
        return ok(resourceObject(ref, ref.id, [], EMPTY_TAGS_ETAG, null));
      }
      // The rows travel as JSON parameters (≤ 100 bindings per statement), each under INSERT_CHUNK_BYTES.
      for (const chunk of jsonChunks(
        tags.map(([k, v]) => [k, v, fold(k), fold(v)]),
        INSERT_CHUNK_BYTES,
      )) {
        this.sql.exec(
          `INSERT INTO tags (type, parent, id, key, value, key_fold, value_fold)
           SELECT ?, ?, ?, j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3 FROM json_each(?) j`,
          ref.type,
          ref.parent,
          ref.id,
          chunk,
        );
      }
      const updatedAt = new Date().toISOString();
      this.sql.exec(
        `INSERT INTO resources (type, parent, id, name, name_fold, etag, tags_updated_at, tag_count)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (type, parent, id) DO UPDATE SET
           etag = excluded.etag, tags_updated_at = excluded.tags_updated_at, tag_count = excluded.tag_count`,
        ref.type,
        ref.parent,
        ref.id,
        ref.id,
        fold(ref.id),
        etag,
        updatedAt,
        tags.length,
      );
      // The same order as every read (SQL BINARY on UTF-8 = code points), without reading the rows back.
      const sorted = [...tags].sort(([a], [b]) => compareCodePoints(a, b));
      return ok(resourceObject(ref, ref.id, sorted, etag, updatedAt));
    });
  }

  /** Removes every tag of the resource (contract §5); idempotent, so untagged resources succeed too. */
  deleteTags(input: DeleteTagsInput): Result<null, TagStoreFailure> {
    const { ref, ifMatch } = input;
    return this.ctx.storage.transactionSync(() => {
      const row = this.currentRow(ref);
      if (!matches(ifMatch, row?.etag ?? EMPTY_TAGS_ETAG)) return err({ kind: "precondition-failed" });
      if (row) {
        this.sql.exec("DELETE FROM tags WHERE type = ? AND parent = ? AND id = ?", ref.type, ref.parent, ref.id);
        this.deleteRow(ref);
        this.setTagTotal(this.tagTotal() - row.tag_count);
      }
      return ok(null);
    });
  }

  /** Distinct keys, ascending (code point order). */
  async listKeys(request: PageRequest): Promise<Result<Page<string>, TagStoreFailure>> {
    return this.page(request, (after) => this.distinctKeys(after).map((key) => ({ item: key, sortKey: [key] })));
  }

  /** Distinct values of one key, optionally for one resource type, ascending. */
  async listValues(
    request: PageRequest & { key: string; type: string | null },
  ): Promise<Result<Page<string>, TagStoreFailure>> {
    return this.page(request, (after) => {
      const { sql, params } = distinctValuesQuery(request.key, request.type, after?.[0] ?? null);
      return mapRows(this.sql.exec<{ v: string }>(sql, ...params), (r) => ({ item: r.v, sortKey: [r.v] }));
    });
  }

  /** Tagged resources matching every filter, in (type, parent, id) order. */
  async listResources(
    request: PageRequest & { query: ResourceQuery },
  ): Promise<Result<Page<TaggedResource>, TagStoreFailure>> {
    return this.page(request, (after) => {
      const { sql, params } = compileResourceQuery(request.query, after);
      // Rows are read one at a time: a page stops at its byte budget without holding the rows it will not send.
      return mapRows(this.sql.exec<ResourceRow>(sql, ...params), (r) => ({
        item: resourceObject(r, r.name, JSON.parse(r.tags) as [string, string][], r.etag, r.tags_updated_at),
        sortKey: [r.type, r.parent, r.id],
        weight: r.tags.length + r.name.length + r.id.length,
      }));
    });
  }

  /** Keys with all their distinct values, 100 keys per page. */
  async summary(request: PageRequest): Promise<Result<Page<KeySummary>, TagStoreFailure>> {
    return this.page(request, (after) => {
      const keys = this.distinctKeys(after);
      const first = keys[0];
      const last = keys[Math.min(keys.length, PAGE_SIZE) - 1];
      if (first === undefined || last === undefined) return [];
      const values = new Map<string, string[]>(keys.map((k) => [k, []]));
      for (const row of this.sql.exec<{ key: string; value: string }>(
        "SELECT DISTINCT key, value FROM tags WHERE key >= ? AND key <= ? ORDER BY key, value",
        first,
        last,
      ))
        values.get(row.key)?.push(row.value);
      return keys.map((key) => {
        const list = values.get(key) ?? [];
        const weight = list.reduce((n, v) => n + v.length + 3, key.length);
        return { item: { key, values: list }, sortKey: [key], weight };
      });
    });
  }

  /**
   * Shared keyset paging: verify the cursor (1017), read rows until PAGE_SIZE are taken or the next one would pass
   * PAGE_BYTE_BUDGET, and sign the sort key of the last item taken only when another row exists, so the last page
   * has `cursor: null` and no empty page follows. The first row is always taken.
   */
  private async page<T>(
    request: PageRequest,
    query: (after: readonly string[] | null) => Iterable<PageRow<T>>,
  ): Promise<Result<Page<T>, TagStoreFailure>> {
    const key = await this.key();
    if (request.cursor && !(await verifyCursor(key, request.scope, request.cursor)))
      return err({ kind: "invalid-cursor" });
    const items: T[] = [];
    let lastKey: readonly string[] | null = null;
    let weight = 0;
    let more = false;
    for (const row of query(request.cursor?.sortKey ?? null)) {
      const rowWeight = 2 * (row.weight ?? row.sortKey.reduce((n, k) => n + k.length, 0));
      if (items.length === PAGE_SIZE || (items.length > 0 && weight + rowWeight > PAGE_BYTE_BUDGET)) {
        more = true;
        break;
      }
      items.push(row.item);
      lastKey = row.sortKey;
      weight += rowWeight;
    }
    const next = more && lastKey ? await signCursor(key, request.scope, lastKey) : null;
    return ok({ items, next });
  }

  /** The account's cursor HMAC key: 256 random bits created on first use, never leaving the object. */
  private key(): Promise<CryptoKey> {
    if (!this.cursorKey) {
      const row = this.sql
        .exec<{ value: ArrayBuffer }>("SELECT value FROM meta WHERE name = 'cursor_key'")
        .toArray()[0];
      let raw = row?.value;
      if (!raw) {
        raw = crypto.getRandomValues(new Uint8Array(32)).buffer;
        this.sql.exec("INSERT INTO meta (name, value) VALUES ('cursor_key', ?)", raw);
      }
      this.cursorKey = importCursorKey(raw);
    }
    return this.cursorKey;
  }

  private distinctKeys(after: readonly string[] | null): string[] {
    // Keys are ≤ 256 code points: 101 of them are small, so the list is read whole.
    const { sql, params } = distinctKeysQuery(after?.[0] ?? null);
    return this.sql
      .exec<{ v: string }>(sql, ...params)
      .toArray()
      .map((r) => r.v);
  }

  private currentRow(ref: ResourceRef): { etag: string; tag_count: number } | undefined {
    return this.sql
      .exec<{ etag: string; tag_count: number }>(
        "SELECT etag, tag_count FROM resources WHERE type = ? AND parent = ? AND id = ?",
        ref.type,
        ref.parent,
        ref.id,
      )
      .toArray()[0];
  }

  private deleteRow(ref: ResourceRef): void {
    this.sql.exec("DELETE FROM resources WHERE type = ? AND parent = ? AND id = ?", ref.type, ref.parent, ref.id);
  }

  private tagTotal(): number {
    return this.sql.exec<{ value: number }>("SELECT value FROM meta WHERE name = 'tag_total'").one().value;
  }

  private setTagTotal(total: number): void {
    this.sql.exec("UPDATE meta SET value = ? WHERE name = 'tag_total'", total);
  }
}

/** One row of a listing: the item, its keyset sort key, and its weight in UTF-16 code units when not the key's. */
interface PageRow<T> {
  readonly item: T;
  readonly sortKey: readonly string[];
  readonly weight?: number;
}

/** Maps a SQL cursor lazily (rows are read as the page consumes them). */
function* mapRows<R extends Record<string, SqlStorageValue>, T>(
  rows: SqlStorageCursor<R>,
  f: (row: R) => T,
): Generator<T> {
  for (const row of rows) yield f(row);
}

/** JSON arrays of `rows`, each at most `maxBytes` of UTF-8 (a single larger row still gets an array of its own). */
export function jsonChunks(rows: readonly unknown[], maxBytes: number): string[] {
  const encoder = new TextEncoder();
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 2;
  for (const row of rows) {
    const text = JSON.stringify(row);
    const bytes = encoder.encode(text).byteLength + 1;
    if (current.length > 0 && size + bytes > maxBytes) {
      chunks.push(`[${current.join(",")}]`);
      current = [];
      size = 2;
    }
    current.push(text);
    size += bytes;
  }
  if (current.length > 0) chunks.push(`[${current.join(",")}]`);
  return chunks;
}
