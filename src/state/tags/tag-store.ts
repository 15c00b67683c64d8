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
import type { InvalidCursor, PolicyViolation, PreconditionFailed, WriteFailure } from "./errors";
import { applyEdit, diffTags, type TagEdit } from "./edits";
import { EMPTY_TAGS_ETAG, etagOf } from "./etag";
import {
  historyEntry,
  historyQuery,
  HISTORY_MAX_BYTES,
  HISTORY_MAX_ROWS,
  HISTORY_RETENTION_DAYS,
  HISTORY_ROW_BYTES,
  type HistoryEntry,
  type HistoryRow,
  type HistoryVia,
  type PendingChange,
} from "./history";
import { isZoneTaggableType, type ZoneTaggableType } from "./resource-types";
import { compilePolicy, NO_POLICY, type CompiledPolicy, type TagPolicy } from "./policy";
import { compileResourceQuery, PAGE_SIZE } from "./filters";
import { distinctKeysQuery, distinctPairsQuery, distinctValuesQuery } from "./listings";
import { migrate } from "../migrations";
import { TAG_MIGRATIONS } from "./schema";
import { cutPage, utf8Length, type PageCut, type PageRow } from "./page-budget";
import { cutSummaryPage, type KeySummary } from "./summary";
import { fold } from "./text";
import {
  parentField,
  type InheritedTag,
  type IfMatch,
  type Page,
  type ResourceQuery,
  type ResourceRef,
  type TaggedResource,
  type TagPairs,
} from "./types";

export type { KeySummary } from "./summary";

/**
 * Largest JSON parameter of one tag INSERT. SQLite in Durable Objects refuses any string or BLOB over 2 MB
 * (SQLITE_TOOBIG), and one legal body can need more: 500 values of 1,024 × `İ` are 1 MiB as sent, and with
 * their lower-cased copies (`İ` folds to 2 code points, 3 bytes) the rows are 2.6 MB of JSON. So a set is
 * inserted in chunks of at most this many bytes; the largest row (a 256-code-point key and a 1,024-code-point
 * value, each with its folded copy, escaped) is ~15 KB, so every chunk stays far below the limit.
 */
export const INSERT_CHUNK_BYTES = 512 * 1024;

/** Oldest history entries read per step of the byte pruning: one write adds at most a few MB of entries. */
const PRUNE_BATCH = 4096;

export interface PutTagsInput {
  readonly ref: ResourceRef;
  readonly tags: TagPairs;
  /** ETag of `tags`, computed by the caller (hashing is async; the transaction must not await). */
  readonly etag: string;
  readonly ifMatch: IfMatch | null;
  /** Account limit in (resource, key) pairs (docs/tags-api.md, `TAG_LIMIT`). */
  readonly limit: number;
  /** The token's name, kept in the history (docs/tags-api.md "History"). */
  readonly actor?: string;
  /**
   * Every check of the write (If-Match, limit, policy) against the account as it is, and nothing written: a
   * bundle checks its tags so before it writes any section (docs/config-as-code.md "What atomic means").
   */
  readonly dryRun?: boolean;
}

export interface DeleteTagsInput {
  readonly ref: ResourceRef;
  readonly ifMatch: IfMatch | null;
  /** The token's name, kept in the history (docs/tags-api.md "History"). */
  readonly actor?: string;
}

export interface EditTagsInput {
  readonly edits: readonly TagEdit[];
  readonly actor: string;
  readonly via: "patch" | "bulk";
  readonly limit: number;
}

/** A policy violation of one edit of a call, reported (advisory mode) in `messages`. */
export interface IndexedViolation {
  readonly index: number;
  readonly violation: PolicyViolation;
}

/** The edit of a call that refused the whole call, and why. */
export interface IndexedWriteFailure {
  readonly index: number;
  readonly failure: WriteFailure;
}

/** The resources as each edit left them, in the order of the edits, and the advisory violations. */
export interface EditOutcome {
  readonly resources: readonly TaggedResource[];
  readonly advisories: readonly IndexedViolation[];
}

/** A resource of the compliance listing, with every rule it breaks. */
export type ComplianceItem = TaggedResource & { readonly violations: readonly PolicyViolation[] };

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
    ...parentField(ref.type, ref.parent),
  };
}

export class TagStore extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private cursorKey: Promise<CryptoKey> | null = null;
  private compiledPolicy: CompiledPolicy | null = null;

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

  /** Replaces the resource's whole set (docs/tags-api.md), atomically with the If-Match, limit and policy checks. */
  putTags(input: PutTagsInput): Result<TaggedResource, WriteFailure> {
    const { ref, tags, etag, ifMatch, limit } = input;
    const done = this.transact([{ kind: "replace", ref, tags, ifMatch }], [etag], {
      actor: input.actor ?? "",
      via: "put",
      limit,
      dryRun: input.dryRun === true,
    });
    if (!done.ok) return err(done.error.failure);
    return ok(done.value.resources[0] ?? resourceObject(ref, ref.id, [], EMPTY_TAGS_ETAG, null));
  }

  /** PUT, with the policy's advisory violations (the route reports them in `messages`). */
  putTagsReporting(input: PutTagsInput): Result<EditOutcome, WriteFailure> {
    const { ref, tags, etag, ifMatch, limit } = input;
    const done = this.transact([{ kind: "replace", ref, tags, ifMatch }], [etag], {
      actor: input.actor ?? "",
      via: "put",
      limit,
    });
    return done.ok ? done : err(done.error.failure);
  }

  /** Removes every tag of the resource (docs/tags-api.md); idempotent, so untagged resources succeed too. */
  deleteTags(input: DeleteTagsInput): Result<null, PreconditionFailed> {
    const { ref, ifMatch } = input;
    const done = this.transact([{ kind: "delete", ref, ifMatch }], [EMPTY_TAGS_ETAG], {
      actor: input.actor ?? "",
      via: "delete",
      limit: Number.POSITIVE_INFINITY,
    });
    // A removal only shrinks a set and an empty set breaks no policy, so If-Match is its only refusal.
    if (!done.ok) return err({ kind: "precondition-failed" } as const);
    return ok(null);
  }

  /**
   * Merge patches and bulk edits (docs/tags-api.md "PATCH", "Bulk edit"): every edit in order, all or nothing.
   * The new sets' ETags are hashed asynchronously, so the whole edit runs under `blockConcurrencyWhile`: no other
   * request of the account runs between reading the sets and writing them, and the transaction then re-reads
   * the same state (the hashes are computed for exactly the sets it will write).
   */
  async editTags(input: EditTagsInput): Promise<Result<EditOutcome, IndexedWriteFailure>> {
    return this.ctx.blockConcurrencyWhile(async () => {
      const overlay = new Map<string, TagPairs>();
      const etags: string[] = [];
      for (const edit of input.edits) {
        const k = refKey(edit.ref);
        const next = applyEdit(edit, overlay.get(k) ?? this.readPairs(edit.ref));
        overlay.set(k, next);
        etags.push(await etagOf(next));
      }
      return this.transact(input.edits, etags, { actor: input.actor, via: input.via, limit: input.limit });
    });
  }

  /**
   * A deleted zone's tags go with it (docs/tags-api.md "Zone tags"): every zone-level resource of the zone loses its
   * tags, each with a `zone-deleted` history entry. Idempotent.
   */
  forgetZone(input: { zone: string; actor: string }): number {
    const refs = this.sql
      .exec<{ type: string; id: string }>(
        "SELECT type, id FROM resources WHERE type IN ('zone', 'zone_ruleset') AND parent = ? ORDER BY type, id",
        input.zone,
      )
      .toArray()
      .filter((r): r is { type: ZoneTaggableType; id: string } => isZoneTaggableType(r.type));
    const edits = refs.map((r): TagEdit => ({
      kind: "delete",
      ref: { type: r.type, parent: input.zone, id: r.id },
      ifMatch: null,
    }));
    if (edits.length === 0) return 0;
    const done = this.transact(
      edits,
      edits.map(() => EMPTY_TAGS_ETAG),
      {
        actor: input.actor,
        via: "zone-deleted",
        limit: Number.POSITIVE_INFINITY,
      },
    );
    return done.ok ? edits.length : 0;
  }

  /** The account's tag policy (docs/tags-api.md "Policies"); an account without one has NO_POLICY. */
  getPolicy(): TagPolicy {
    return this.policy().policy;
  }

  /** Sets the policy; existing tags are never rewritten (docs/tags-api.md "Policies"). */
  setPolicy(policy: TagPolicy | null): TagPolicy {
    const stored = policy === null ? null : { ...policy, updated_at: new Date().toISOString() };
    if (stored === null) this.sql.exec("DELETE FROM meta WHERE name = 'policy'");
    else
      this.sql.exec(
        "INSERT INTO meta (name, value) VALUES ('policy', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        JSON.stringify(stored),
      );
    this.compiledPolicy = null;
    return stored ?? NO_POLICY;
  }

  /**
   * The tagged resources that break the policy, in (type, parent, id) order, with every violation
   * (docs/tags-api.md "Compliance"). Reads resources in order until a page of breaking ones is found: at most
   * every tagged resource of the account, which its tag limit bounds.
   */
  async compliance(
    request: PageRequest & { type: string | null },
  ): Promise<Result<Page<ComplianceItem>, InvalidCursor>> {
    const policy = this.policy();
    return this.page(request, (after) => {
      if (policy.empty) return { items: [], next: null };
      const where: string[] = [];
      const params: string[] = [];
      if (after) {
        where.push("(r.type, r.parent, r.id) > (?, ?, ?)");
        params.push(...after);
      }
      if (request.type !== null) {
        where.push("r.type = ?");
        params.push(request.type);
      }
      const rows = this.sql.exec<ResourceRow>(
        "SELECT r.type, r.parent, r.id, r.name, r.etag, r.tags_updated_at," +
          " (SELECT json_group_array(json_array(t.key, t.value) ORDER BY t.key) FROM tags t" +
          " WHERE t.type = r.type AND t.parent = r.parent AND t.id = r.id) AS tags FROM resources r" +
          (where.length ? ` WHERE ${where.join(" AND ")}` : "") +
          " ORDER BY r.type, r.parent, r.id",
        ...params,
      );
      function* breaking(): Generator<PageRow<ComplianceItem>> {
        for (const r of rows) {
          const tags = JSON.parse(r.tags) as [string, string][];
          const violations = policy.check(r.type, tags, null);
          if (violations.length === 0) continue;
          yield {
            item: { ...resourceObject(r, r.name, tags, r.etag, r.tags_updated_at), violations },
            sortKey: [r.type, r.parent, r.id],
          };
        }
      }
      return cutPage(breaking());
    });
  }

  /** History entries, newest first, of one resource or of the whole account (docs/tags-api.md "History"). */
  async history(
    request: PageRequest & { ref: ResourceRef | null },
  ): Promise<Result<Page<HistoryEntry>, InvalidCursor>> {
    return this.page(request, (after) => {
      const before = after?.[0] === undefined ? null : Number(after[0]);
      const { sql, params } = historyQuery(request.ref, before, PAGE_SIZE + 1);
      return cutPage(historyRows(this.sql.exec<HistoryRow>(sql, ...params)));
    });
  }

  /**
   * The one write path of every edit: plans all edits against the stored sets (each edit sees the ones before
   * it), checking If-Match, the account limit and the policy in that order per edit; the first failure refuses
   * the whole call and nothing is written. Then writes only the keys that changed, the resource rows, the total,
   * and one history change per edit that changed something. Synchronous: one transaction, no await.
   */
  private transact(
    edits: readonly TagEdit[],
    etags: readonly string[],
    how: { actor: string; via: HistoryVia; limit: number; dryRun?: boolean },
  ): Result<EditOutcome, IndexedWriteFailure> {
    return this.ctx.storage.transactionSync(() => {
      const policy = this.policy();
      const original = new Map<string, { ref: ResourceRef; tags: TagPairs }>();
      const state = new Map<string, { tags: TagPairs; etag: string }>();
      let total = this.tagTotal();
      const resources: TaggedResource[] = [];
      const advisories: IndexedViolation[] = [];
      const changes: PendingChange[] = [];
      const now = new Date().toISOString();
      for (const [index, edit] of edits.entries()) {
        const k = refKey(edit.ref);
        let current = state.get(k);
        if (!current) {
          const row = this.currentRow(edit.ref);
          const tags = row ? this.readPairs(edit.ref) : [];
          original.set(k, { ref: edit.ref, tags });
          current = { tags, etag: row?.etag ?? EMPTY_TAGS_ETAG };
        }
        if (!matches(edit.ifMatch, current.etag)) return err({ index, failure: { kind: "precondition-failed" } });
        const next = applyEdit(edit, current.tags);
        const old = current.tags.length;
        // Only growth is refused: replacing a set at (or, after TAG_LIMIT was lowered, above) the limit is allowed.
        if (next.length > old && total - old + next.length > how.limit)
          return err({ index, failure: { kind: "limit-reached", limit: how.limit } });
        const diff = diffTags(current.tags, next);
        const violations = policy.check(
          edit.ref.type,
          next,
          new Set(diff.filter((c) => c.after !== null).map((c) => c.key)),
        );
        const [first] = violations;
        if (first && policy.policy.mode === "enforced") return err({ index, failure: first });
        for (const violation of violations) advisories.push({ index, violation });
        total += next.length - old;
        const etag = next.length === 0 ? EMPTY_TAGS_ETAG : (etags[index] ?? EMPTY_TAGS_ETAG);
        state.set(k, { tags: next, etag });
        if (diff.length > 0) changes.push({ ref: edit.ref, changes: diff });
        resources.push(resourceObject(edit.ref, edit.ref.id, next, etag, next.length === 0 ? null : now));
      }
      if (how.dryRun === true) return ok({ resources, advisories });
      for (const [k, { ref, tags }] of original) {
        const final = state.get(k);
        if (final) this.writeSet(ref, tags, final.tags, final.etag, now);
      }
      this.setTagTotal(total);
      this.recordHistory(changes, { actor: how.actor, via: how.via, at: now });
      return ok({ resources, advisories });
    });
  }

  /** Writes one resource's new set as the difference from its stored one (a one-key PATCH writes one row). */
  private writeSet(ref: ResourceRef, before: TagPairs, after: TagPairs, etag: string, now: string): void {
    const diff = diffTags(before, after);
    const removed = diff.filter((c) => c.after === null).map((c) => c.key);
    for (const chunk of jsonChunks(removed.map((key) => JSON.stringify(key))))
      this.sql.exec(
        "DELETE FROM tags WHERE type = ? AND parent = ? AND id = ? AND key IN (SELECT value FROM json_each(?))",
        ref.type,
        ref.parent,
        ref.id,
        chunk,
      );
    const set = diff.filter((c) => c.after !== null).map((c): [string, string] => [c.key, c.after ?? ""]);
    this.insertTags(ref, set);
    if (after.length === 0) {
      this.deleteRow(ref);
      return;
    }
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
      now,
      after.length,
    );
  }

  /** One history change per edit that changed keys, then the retention (docs/tags-api.md "History"). */
  private recordHistory(changes: readonly PendingChange[], how: { actor: string; via: HistoryVia; at: string }): void {
    if (changes.length === 0) return;
    let change = this.sql.exec<{ value: number }>("SELECT value FROM meta WHERE name = 'history_change'").one().value;
    let added = 0;
    for (const { ref, changes: keys } of changes) {
      change++;
      const rows = keys.map((c) => JSON.stringify([c.key, c.before, c.after]));
      for (const chunk of jsonChunks(rows))
        for (const row of this.sql.exec<{ bytes: number }>(
          `INSERT INTO history (change, at, actor, via, type, parent, id, key, before, after, bytes)
           SELECT change, at, actor, via, type, parent, id, key, before, after, ${HISTORY_ROW_BYTES} FROM (
             SELECT ? AS change, ? AS at, ? AS actor, ? AS via, ? AS type, ? AS parent, ? AS id,
                    j.value ->> 0 AS key, j.value ->> 1 AS before, j.value ->> 2 AS after FROM json_each(?) j)
           RETURNING bytes`,
          change,
          how.at,
          how.actor,
          how.via,
          ref.type,
          ref.parent,
          ref.id,
          chunk,
        ))
          added += row.bytes;
    }
    this.sql.exec("UPDATE meta SET value = ? WHERE name = 'history_change'", change);
    this.pruneHistory(how.at, this.historyBytes() + added);
  }

  /**
   * Deletes, oldest first, the entries past the retention, past HISTORY_MAX_ROWS, then until the bytes are at most
   * HISTORY_MAX_BYTES; every delete is a range of an index (at, or seq), and the bytes it frees are subtracted from
   * the running total, so the cost follows what is deleted, not the size of the history.
   */
  private pruneHistory(at: string, bytes: number): void {
    let total = bytes;
    const cutoff = new Date(Date.parse(at) - HISTORY_RETENTION_DAYS * 86_400_000).toISOString();
    total -= this.deleteHistory("at < ?", cutoff);
    const last = this.sql.exec<{ seq: number | null }>("SELECT max(seq) AS seq FROM history").one().seq ?? 0;
    total -= this.deleteHistory("seq <= ?", last - HISTORY_MAX_ROWS);
    while (total > HISTORY_MAX_BYTES) {
      const oldest = this.sql
        .exec<{ seq: number; bytes: number }>("SELECT seq, bytes FROM history ORDER BY seq LIMIT ?", PRUNE_BATCH)
        .toArray();
      if (oldest.length === 0) break;
      let through = 0;
      let freed = 0;
      for (const row of oldest) {
        through = row.seq;
        freed += row.bytes;
        if (total - freed <= HISTORY_MAX_BYTES) break;
      }
      this.sql.exec("DELETE FROM history WHERE seq <= ?", through);
      total -= freed;
    }
    this.sql.exec("UPDATE meta SET value = ? WHERE name = 'history_bytes'", Math.max(0, total));
  }

  /** Deletes the history entries matching `where` and answers the bytes they counted. */
  private deleteHistory(where: string, bound: string | number): number {
    const freed = this.sql
      .exec<{ bytes: number | null }>(`SELECT sum(bytes) AS bytes FROM history WHERE ${where}`, bound)
      .one().bytes;
    if (freed === null) return 0;
    this.sql.exec(`DELETE FROM history WHERE ${where}`, bound);
    return freed;
  }

  /** The running total of the history's bytes (docs/tags-api.md "History"). */
  private historyBytes(): number {
    return this.sql.exec<{ value: number }>("SELECT value FROM meta WHERE name = 'history_bytes'").one().value;
  }

  private readPairs(ref: ResourceRef): TagPairs {
    return this.sql
      .exec<{ key: string; value: string }>(
        "SELECT key, value FROM tags WHERE type = ? AND parent = ? AND id = ? ORDER BY key",
        ref.type,
        ref.parent,
        ref.id,
      )
      .toArray()
      .map((t): [string, string] => [t.key, t.value]);
  }

  private policy(): CompiledPolicy {
    if (!this.compiledPolicy) {
      const row = this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE name = 'policy'").toArray()[0];
      this.compiledPolicy = compilePolicy(row ? (JSON.parse(row.value) as TagPolicy) : NO_POLICY);
    }
    return this.compiledPolicy;
  }

  /**
   * One resource with `inherited_tags` (docs/tags-api.md "Inherited tags"): for a zone ruleset its zone's tags,
   * then for any zone-level resource the account's default set (the tags of its `account` resource), each only
   * where the resource (or a nearer source) does not set the key.
   */
  getEffectiveTags(input: { ref: ResourceRef; account: string }): TaggedResource {
    return this.withInherited(this.getTags(input.ref), input.account, new Map());
  }

  private withInherited(resource: TaggedResource, account: string, cache: Map<string, TagPairs>): TaggedResource {
    const inherited: Record<string, InheritedTag> = {};
    const sources: { ref: ResourceRef; from: InheritedTag["from"] }[] = [];
    const zone = resource.zone_id;
    if (resource.type === "zone_ruleset" && zone !== undefined)
      sources.push({
        ref: { type: "zone", parent: zone, id: zone },
        from: { resource_type: "zone", resource_id: zone },
      });
    if (isZoneTaggableType(resource.type))
      sources.push({
        ref: { type: "account", parent: "", id: account },
        from: { resource_type: "account", resource_id: account },
      });
    const own = new Set(Object.keys(resource.tags));
    for (const { ref, from } of sources) {
      const k = refKey(ref);
      let tags = cache.get(k);
      if (!tags) {
        tags = this.readPairs(ref);
        cache.set(k, tags);
      }
      for (const [key, value] of tags)
        if (!own.has(key) && !Object.hasOwn(inherited, key))
          Object.defineProperty(inherited, key, {
            value: { value, from },
            enumerable: true,
            writable: true,
            configurable: true,
          });
    }
    return { ...resource, inherited_tags: inherited };
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
      const rows = resourceRows(this.sql.exec<ResourceRow>(sql, ...params));
      const account = request.query.effective;
      if (account === undefined) return cutPage(rows);
      const cache = new Map<string, TagPairs>();
      const withInherited = function* (this: TagStore): Generator<PageRow<TaggedResource>> {
        for (const row of rows) yield { ...row, item: this.withInherited(row.item, account, cache) };
      };
      return cutPage(withInherited.call(this));
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
    const rows = tags.map(([k, v]) => JSON.stringify([k, v, fold(k), fold(v)]));
    for (const chunk of jsonChunks(rows))
      this.sql.exec(
        `INSERT OR REPLACE INTO tags (type, parent, id, key, value, key_fold, value_fold)
         SELECT ?, ?, ?, j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3 FROM json_each(?) j`,
        ref.type,
        ref.parent,
        ref.id,
        chunk,
      );
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

/** History rows, mapped lazily; the sort key is the row's sequence number. */
function* historyRows(cursor: Iterable<HistoryRow>): Generator<PageRow<HistoryEntry>> {
  for (const row of cursor) yield { item: historyEntry(row), sortKey: [String(row.seq)] };
}

/** A resource's identity as one map key (its three columns cannot contain NUL). */
function refKey(ref: ResourceRef): string {
  return `${ref.type}\u0000${ref.parent}\u0000${ref.id}`;
}

/**
 * JSON arrays of the given JSON-encoded rows, each at most INSERT_CHUNK_BYTES: one JSON parameter per statement
 * (`json_each(?)`), kept far below SQLite's 2 MB string limit (INSERT_CHUNK_BYTES above).
 */
function* jsonChunks(rows: readonly string[]): Generator<string> {
  let chunk: string[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = utf8Length(row) + 1;
    if (chunk.length > 0 && bytes + size > INSERT_CHUNK_BYTES) {
      yield `[${chunk.join(",")}]`;
      chunk = [];
      bytes = 0;
    }
    chunk.push(row);
    bytes += size;
  }
  if (chunk.length > 0) yield `[${chunk.join(",")}]`;
}
