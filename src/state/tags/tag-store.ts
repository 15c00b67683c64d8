/**
 * One SQLite-backed Durable Object per account: the tagging store (docs/tags-api.md).
 *
 * - Typed RPC methods return data: `Result<…, StoreFailure>` for expected failures, domain values that name
 *   no HTTP status (the routes map them, api-failure.ts). Nothing custom is thrown across RPC (a thrown error
 *   would lose its type and become the Worker's 500).
 * - Every read-check-write (If-Match, the account limit, the replacement of a set) runs synchronously inside
 *   `transactionSync`: no await in between, so concurrent requests serialise and the limit is exact.
 * - Ordering and cursor comparisons happen in SQL, whose BINARY collation compares UTF-8 bytes, i.e. code
 *   points (docs/tags-api.md); JS string comparison (UTF-16 units) is never used for them.
 * - Every page is cut to PAGE_SIZE items and to the page byte budget (page-budget.ts): the page is this
 *   object's RPC return value, which the runtime caps at 32 MiB.
 */
import { DurableObject } from "cloudflare:workers";
import { randomBytes } from "../../shared/crypto";
import { err, ok, type Result } from "../../shared/result";
import { importCursorKey, signCursor, verifyCursor, type CursorScope, type DecodedCursor } from "./cursor";
import type { InvalidCursor, LimitReached, PreconditionFailed } from "./errors";
import { EMPTY_TAGS_ETAG } from "./etag";
import { compileResourceQuery } from "./filters";
import { distinctKeysQuery, distinctPairsQuery, distinctValuesQuery } from "./listings";
import { migrate } from "../migrations";
import { TAG_MIGRATIONS } from "./schema";
import { cutPage, utf8Length, type PageCut, type PageRow } from "./page-budget";
import { cutSummaryPage, type KeySummary } from "./summary";
import { compareCodePoints, fold } from "./text";
import type { IfMatch, Page, ResourceQuery, ResourceRef, TaggedResource, TagPairs } from "./types";

export type { KeySummary } from "./summary";

/**
 * Largest JSON parameter of one tag INSERT. SQLite in Durable Objects refuses any string or BLOB over 2 MB
 * (SQLITE_TOOBIG), and one legal body can need more: 500 values of 1,024 × `İ` are 1 MiB as sent, and with
 * their lower-cased copies (`İ` folds to 2 code points, 3 bytes) the rows are 2.6 MB of JSON. So a set is
 * inserted in chunks of at most this many bytes; the largest row (a 256-code-point key and a 1,024-code-point
 * value, each with its folded copy, escaped) is ~15 KB, so every chunk stays far below the limit.
 */
export const INSERT_CHUNK_BYTES = 512 * 1024;

export interface PutTagsInput {
  readonly ref: ResourceRef;
  readonly tags: TagPairs;
  /** ETag of `tags`, computed by the caller (hashing is async; the transaction must not await). */
  readonly etag: string;
  readonly ifMatch: IfMatch | null;
  /** Account limit in (resource, key) pairs (docs/tags-api.md, `TAG_LIMIT`). */
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
    migrate(ctx.storage, TAG_MIGRATIONS);
  }

  /** The tags of one resource; an unknown or untagged resource has the empty set (docs/tags-api.md). */
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

  /** Replaces the resource's whole set (docs/tags-api.md), atomically with the If-Match and limit checks. */
  putTags(input: PutTagsInput): Result<TaggedResource, PreconditionFailed | LimitReached> {
    const { ref, tags, etag, ifMatch, limit } = input;
    return this.ctx.storage.transactionSync(() => {
      const row = this.currentRow(ref);
      if (!matches(ifMatch, row?.etag ?? EMPTY_TAGS_ETAG)) return err({ kind: "precondition-failed" } as const);
      const old = row?.tag_count ?? 0;
      const total = this.tagTotal();
      // Only growth is refused: replacing a set at (or, after TAG_LIMIT was lowered, above) the limit is allowed.
      if (tags.length > old && total - old + tags.length > limit) return err({ kind: "limit-reached", limit } as const);
      this.sql.exec("DELETE FROM tags WHERE type = ? AND parent = ? AND id = ?", ref.type, ref.parent, ref.id);
      this.setTagTotal(total - old + tags.length);
      if (tags.length === 0) {
        this.deleteRow(ref);
        return ok(resourceObject(ref, ref.id, [], EMPTY_TAGS_ETAG, null));
      }
      this.insertTags(ref, tags);
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

  /** Removes every tag of the resource (docs/tags-api.md); idempotent, so untagged resources succeed too. */
  deleteTags(input: DeleteTagsInput): Result<null, PreconditionFailed> {
    const { ref, ifMatch } = input;
    return this.ctx.storage.transactionSync(() => {
      const row = this.currentRow(ref);
      if (!matches(ifMatch, row?.etag ?? EMPTY_TAGS_ETAG)) return err({ kind: "precondition-failed" } as const);
      if (row) {
        this.sql.exec("DELETE FROM tags WHERE type = ? AND parent = ? AND id = ?", ref.type, ref.parent, ref.id);
        this.deleteRow(ref);
        this.setTagTotal(this.tagTotal() - row.tag_count);
      }
      return ok(null);
    });
  }

  /** Distinct keys, ascending (code point order). */
  async listKeys(request: PageRequest): Promise<Result<Page<string>, InvalidCursor>> {
    return this.page(request, (after) => {
      const { sql, params } = distinctKeysQuery(after?.[0] ?? null);
      return cutPage(stringRows(this.sql.exec<{ v: string }>(sql, ...params)));
    });
  }

  /** Distinct values of one key, optionally for one resource type, ascending. */
  async listValues(
    request: PageRequest & { key: string; type: string | null },
  ): Promise<Result<Page<string>, InvalidCursor>> {
    return this.page(request, (after) => {
      const { sql, params } = distinctValuesQuery(request.key, request.type, after?.[0] ?? null);
      return cutPage(stringRows(this.sql.exec<{ v: string }>(sql, ...params)));
    });
  }

  /** Tagged resources matching every filter, in (type, parent, id) order. */
  async listResources(
    request: PageRequest & { query: ResourceQuery },
  ): Promise<Result<Page<TaggedResource>, InvalidCursor>> {
    return this.page(request, (after) => {
      const { sql, params } = compileResourceQuery(request.query, after);
      return cutPage(resourceRows(this.sql.exec<ResourceRow>(sql, ...params)));
    });
  }

  /** Keys with their distinct values: 100 keys per page, a key split across pages when its values pass the budget. */
  async summary(request: PageRequest): Promise<Result<Page<KeySummary>, InvalidCursor>> {
    return this.page(request, (after) => {
      const { sql, params } = distinctPairsQuery(after);
      return cutSummaryPage(this.sql.exec<{ key: string; value: string }>(sql, ...params));
    });
  }

  /**
   * Shared keyset paging: verify the cursor (1017), let `cut` read rows lazily up to the page's end (PAGE_SIZE
   * items or the byte budget), and sign the sort key it stopped after, so the last page has `cursor: null` and
   * no empty page follows.
   */
  private async page<T>(
    request: PageRequest,
    cut: (after: readonly string[] | null) => PageCut<T>,
  ): Promise<Result<Page<T>, InvalidCursor>> {
    const key = await this.key();
    if (request.cursor && !(await verifyCursor(key, request.scope, request.cursor)))
      return err({ kind: "invalid-cursor" } as const);
    const { items, next } = cut(request.cursor?.sortKey ?? null);
    return ok({ items, next: next === null ? null : await signCursor(key, request.scope, next) });
  }

  /**
   * Inserts a set's rows with their folded copies, as JSON parameters of at most INSERT_CHUNK_BYTES each
   * (`json_each(?)`: 4 bindings per statement whatever the number of tags, limit 100).
   */
  private insertTags(ref: ResourceRef, tags: TagPairs): void {
    let chunk: string[] = [];
    let bytes = 0;
    const flush = () => {
      this.sql.exec(
        `INSERT INTO tags (type, parent, id, key, value, key_fold, value_fold)
         SELECT ?, ?, ?, j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3 FROM json_each(?) j`,
        ref.type,
        ref.parent,
        ref.id,
        `[${chunk.join(",")}]`,
      );
      chunk = [];
      bytes = 0;
    };
    for (const [k, v] of tags) {
      const row = JSON.stringify([k, v, fold(k), fold(v)]);
      const size = utf8Length(row) + 1;
      if (chunk.length > 0 && bytes + size > INSERT_CHUNK_BYTES) flush();
      chunk.push(row);
      bytes += size;
    }
    if (chunk.length > 0) flush();
  }

  /** The account's cursor HMAC key: 256 random bits created on first use, never leaving the object. */
  private key(): Promise<CryptoKey> {
    if (!this.cursorKey) {
      const row = this.sql
        .exec<{ value: ArrayBuffer }>("SELECT value FROM meta WHERE name = 'cursor_key'")
        .toArray()[0];
      let raw = row?.value;
      if (!raw) {
        raw = randomBytes(32).buffer;
        this.sql.exec("INSERT INTO meta (name, value) VALUES ('cursor_key', ?)", raw);
      }
      this.cursorKey = importCursorKey(raw);
    }
    return this.cursorKey;
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

/** Rows of a one-column string listing (keys, values), mapped lazily: the cut stops reading at the page's end. */
function* stringRows(cursor: Iterable<{ v: string }>): Generator<PageRow<string>> {
  for (const row of cursor) yield { item: row.v, sortKey: [row.v] };
}

/** Resource rows, mapped lazily (each carries its whole tag set as one JSON array). */
function* resourceRows(cursor: Iterable<ResourceRow>): Generator<PageRow<TaggedResource>> {
  for (const r of cursor)
    yield {
      item: resourceObject(r, r.name, JSON.parse(r.tags) as [string, string][], r.etag, r.tags_updated_at),
      sortKey: [r.type, r.parent, r.id],
    };
}
