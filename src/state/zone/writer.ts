/**
 * The zone's writer of record (docs/configuration.md: "writes of one zone are serialised"): one SQLite-backed Durable Object
 * per zone (`ZONE_WRITER.idFromName(zone)`). It holds the authoritative zone document and a version counter in its
 * own storage and publishes every accepted change to KV `CONFIG`, the read path of traffic (`store.ts`).
 *
 * Why an object: KV has no compare-and-swap, so two API isolates writing one zone read the same version and one
 * change is lost (measured before: 10 parallel PUTs gave v1, v2 ×4, v3 ×5). Here every mutation runs inside
 * `blockConcurrencyWhile`, so the next one starts only after the previous one has reached KV; versions come from a
 * counter that survives deletion, so a version number is never reused for a zone (compiled-rule caches are keyed
 * by it).
 *
 * Every write is an edit (edits.ts: a closed union of data values, one pure function applying it), applied by `edit`
 * inside the serialised step to the document as it is then: whatever the edit checks against the stored document
 * (the plan, an asset's existence or use, a ruleset's rules) cannot be stale, so no write is prepared from an old
 * read, none has to be retried and none is lost. Parts (large values under `zone:{zone}:{part}`, e.g. page HTML) are
 * written to KV before the document that references them. Failures are domain values, never HTTP.
 */
import { DurableObject } from "cloudflare:workers";
import { migrate } from "../migrations";
import { randomId } from "../../shared/crypto";
import { causeOf, err, ok, type Result } from "../../shared/result";
import { applyZoneEdit, type ZoneEdit, type ZoneEditFailure, type ZoneEdited, type ZoneWriteFailure } from "./edits";
import { findRuleset } from "./rulesets/edits";
import {
  RulesetVersions,
  versionNumber,
  ZONE_WRITER_MIGRATIONS,
  type StoredVersion,
  type VersionSummary,
} from "./rulesets/versions";
import type { StoredRuleset } from "./rulesets/validate";
import type { Phase } from "./rulesets/phases";
import type { ZoneDocument } from "./schema";
import { zoneKey, zoneKeyMetadata, zonePartsPrefix } from "./store";

/** Why a version cannot be read or deleted (docs/rulesets-api.md "Versions"). */
export type VersionFailure =
  | { readonly kind: "unknown-ruleset"; readonly id: string }
  /** No such version of this ruleset: never written, deleted, dropped past the bound, or another ruleset's. */
  | { readonly kind: "unknown-version"; readonly rulesetId: string; readonly version: string }
  /** The current version is the ruleset itself: delete the ruleset instead. */
  | { readonly kind: "current-version"; readonly rulesetId: string; readonly version: string };

/** A ruleset's versions as listed, with the ruleset they belong to. */
export interface VersionList {
  readonly phase: Phase;
  readonly current: StoredRuleset;
  readonly versions: readonly VersionSummary[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class ZoneWriter extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    migrate(ctx.storage, ZONE_WRITER_MIGRATIONS);
    this.versions = new RulesetVersions(ctx.storage.sql);
  }

  /** The zone document, or `null` when the zone is not configured. */
  async read(zone: string): Promise<Result<ZoneDocument | null, ZoneWriteFailure>> {
    return this.current(zone);
  }

  /**
   * One write of the zone (edits.ts), applied here, inside the serialised step, to the document as it is now:
   * concurrent writes of one zone each see the previous one's result, so none is lost and none has to be retried
   * (test/workers/api/kit/parallel-writes.test.ts). In order: the next version, the edit, the part, the document to
   * KV, then this object's own storage and the version a rulesets API write makes (rulesets/versions.ts). Nothing is
   * recorded here unless KV accepted the document.
   */
  edit(zone: string, edit: ZoneEdit): Promise<Result<ZoneEdited, ZoneEditFailure>> {
    return this.ctx.blockConcurrencyWhile(async () => {
      const previous = await this.current(zone);
      if (!previous.ok) return previous;
      const version = (this.ctx.storage.kv.get<number>("version") ?? previous.value?.version ?? 0) + 1;
      const target = { zone, previous: previous.value, version, now: new Date(), newId: randomId };
      const applied = applyZoneEdit(target, edit);
      if (!applied.ok) return applied;
      const { document, text, bytes, parts, ruleset, rulesets } = applied.value;
      try {
        for (const part of parts) {
          const key = `${zonePartsPrefix(zone)}${part.name}`;
          if (part.content === null) await this.env.CONFIG.delete(key);
          else await this.env.CONFIG.put(key, part.content);
        }
        // The account rides along as the key's metadata, for `GET /zones` to filter by account (store.ts).
        const metadata = zoneKeyMetadata(document);
        await this.env.CONFIG.put(zoneKey(zone), text, metadata === undefined ? {} : { metadata });
      } catch (e) {
        return err(unavailable("put", e));
      }
      this.ctx.storage.kv.put("version", version);
      this.ctx.storage.kv.put("document", bytes);
      for (const written of rulesets) {
        if (written.ruleset) this.versions.record(written.phase, written.ruleset);
        else this.versions.deleteRuleset(written.id);
      }
      return ok({ document, ruleset });
    });
  }

  /**
   * A ruleset's versions, oldest first; the current one is always among them (read from the document for a ruleset
   * written before versions were kept).
   */
  async rulesetVersions(
    zone: string,
    rulesetId: string,
  ): Promise<Result<VersionList, ZoneWriteFailure | VersionFailure>> {
    const found = await this.ruleset(zone, rulesetId);
    if (!found.ok) return found;
    const { phase, ruleset } = found.value;
    const versions = this.versions.list(rulesetId);
    if (!versions.some((v) => v.version === ruleset.version)) versions.push(summary(phase, ruleset));
    return ok({ phase, current: ruleset, versions });
  }

  /** One version of a ruleset of this zone. */
  async rulesetVersion(
    zone: string,
    rulesetId: string,
    version: string,
  ): Promise<Result<StoredVersion, ZoneWriteFailure | VersionFailure>> {
    const found = await this.ruleset(zone, rulesetId);
    if (!found.ok) return found;
    const { phase, ruleset } = found.value;
    if (version === ruleset.version) return ok({ phase, ruleset });
    const number = versionNumber(version);
    const stored = number === null ? null : this.versions.get(rulesetId, number);
    return stored ? ok(stored) : err({ kind: "unknown-version", rulesetId, version });
  }

  /** Deletes a version that is not the current one (`dryRun`: checks exactly the same, deletes nothing). */
  deleteRulesetVersion(
    zone: string,
    rulesetId: string,
    version: string,
    dryRun: boolean,
  ): Promise<Result<true, ZoneWriteFailure | VersionFailure>> {
    return this.ctx.blockConcurrencyWhile(async () => {
      const found = await this.ruleset(zone, rulesetId);
      if (!found.ok) return found;
      if (version === found.value.ruleset.version) return err({ kind: "current-version", rulesetId, version });
      const number = versionNumber(version);
      if (number === null || this.versions.get(rulesetId, number) === null)
        return err({ kind: "unknown-version", rulesetId, version });
      if (!dryRun) this.versions.delete(rulesetId, number);
      return ok(true as const);
    });
  }

  private readonly versions: RulesetVersions;

  /** A ruleset of this zone by id (another zone's id is unknown here: its versions live in its own writer). */
  private async ruleset(
    zone: string,
    rulesetId: string,
  ): Promise<Result<{ phase: Phase; ruleset: StoredRuleset }, ZoneWriteFailure | VersionFailure>> {
    const current = await this.current(zone);
    if (!current.ok) return current;
    if (current.value === null) return err({ kind: "not-found" });
    const found = findRuleset(current.value, rulesetId);
    return found ? ok(found) : err({ kind: "unknown-ruleset", id: rulesetId });
  }

  /** Deletes the zone with every section and part. `false` when there was none. */
  async remove(zone: string): Promise<Result<boolean, ZoneWriteFailure>> {
    return this.ctx.blockConcurrencyWhile(async () => {
      const previous = await this.current(zone);
      if (!previous.ok) return previous;
      try {
        // Document first: once it is gone the zone stops being served, whatever happens to its parts.
        await this.env.CONFIG.delete(zoneKey(zone));
        let cursor: string | undefined;
        do {
          const page = await this.env.CONFIG.list({ prefix: zonePartsPrefix(zone), cursor });
          await Promise.all(page.keys.map((key) => this.env.CONFIG.delete(key.name)));
          cursor = page.list_complete ? undefined : page.cursor;
        } while (cursor !== undefined);
      } catch (e) {
        return err(unavailable("delete", e));
      }
      this.ctx.storage.kv.put("document", null);
      // The zone's ruleset versions go with it (docs/rulesets-api.md "Versions").
      this.versions.deleteAll();
      return ok(previous.value !== null);
    });
  }

  /**
   * The authoritative document. A zone written before this object existed (or by hand) lives only in KV: it is
   * adopted on first use, so upgrading keeps every zone and its version sequence.
   */
  private async current(zone: string): Promise<Result<ZoneDocument | null, ZoneWriteFailure>> {
    // UTF-8 JSON since the evaluation-budget work (2026-11-23) (`MAX_DOCUMENT_BYTES`); an object or `null` as written before it.
    const stored = this.ctx.storage.kv.get<Uint8Array | ZoneDocument | null>("document");
    if (stored instanceof Uint8Array) return ok(JSON.parse(decoder.decode(stored)) as ZoneDocument);
    if (stored !== undefined) return ok(stored);
    let text: string | null;
    try {
      text = await this.env.CONFIG.get(zoneKey(zone));
    } catch (e) {
      return err(unavailable("get", e));
    }
    const adopted = text === null ? null : parseObject(text);
    this.ctx.storage.kv.put("document", adopted === null ? null : encoder.encode(JSON.stringify(adopted)));
    if (adopted && Number.isSafeInteger(adopted.version)) this.ctx.storage.kv.put("version", adopted.version);
    return ok(adopted);
  }
}

function summary(phase: Phase, ruleset: StoredRuleset): VersionSummary {
  return {
    id: ruleset.id,
    phase,
    version: ruleset.version,
    last_updated: ruleset.last_updated,
    ...(ruleset.name === undefined ? {} : { name: ruleset.name }),
    ...(ruleset.description === undefined ? {} : { description: ruleset.description }),
  };
}

/** A KV value that is not a JSON object is treated as no document (a write then replaces it). */
function parseObject(text: string): ZoneDocument | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as ZoneDocument) : null;
  } catch {
    return null;
  }
}

function unavailable(op: string, e: unknown): ZoneWriteFailure {
  return { kind: "unavailable", cause: `CONFIG.${op} failed: ${causeOf(e)}` };
}
