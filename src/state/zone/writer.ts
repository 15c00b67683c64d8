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
 * The RPC surface is generic on purpose: settings, named sections (`rulesets`, `custom_pages`, `access_rules`,
 * written by their own features) and parts (large values under `zone:{zone}:{part}`, e.g. page HTML, written to KV
 * before the document that references them). Failures are domain values, never HTTP.
 */
import { DurableObject } from "cloudflare:workers";
import { randomId } from "../../shared/crypto";
import { causeOf, err, ok, type Result } from "../../shared/result";
import {
  applyRulesetEdit,
  findRuleset,
  type RulesetEdit,
  type RulesetEditFailure,
  type RulesetEdited,
} from "./rulesets/edits";
import { rulesetSection } from "./rulesets/stored";
import { RulesetVersions, type StoredVersion, type VersionSummary } from "./rulesets/versions";
import type { RulesetFailure, StoredRuleset } from "./rulesets/validate";
import { headerLimitFits } from "./rulesets/worst-case";
import type { Phase } from "./rulesets/phases";
import { ZONE_DOC_SCHEMA, type ZoneDocument, type ZoneSettings } from "./schema";
import { parseDocument, zoneKey, zonePartsPrefix, type StoreFailure } from "./store";

export type ZoneWriteFailure =
  | { readonly kind: "not-found" }
  /** The document changed since the caller read `expected` (optimistic concurrency; the caller reads again). */
  | { readonly kind: "conflict"; readonly current: number }
  /** KV (or this object's storage) failed: the service's own failure, 500 at the edge (docs/origin.md). */
  | { readonly kind: "unavailable"; readonly cause: string }
  /** The changed document would pass `MAX_DOCUMENT_BYTES`: nothing was written (docs/configuration.md). */
  | { readonly kind: "too-large"; readonly bytes: number; readonly limit: number };

/** Why a version cannot be read or deleted (docs/rulesets-api.md "Versions"). */
export type VersionFailure =
  | { readonly kind: "unknown-ruleset"; readonly id: string }
  /** No such version of this ruleset: never written, deleted, dropped past the bound, or another ruleset's. */
  | { readonly kind: "unknown-version"; readonly rulesetId: string; readonly version: string }
  /** The current version is the ruleset itself: delete the ruleset instead. */
  | { readonly kind: "current-version"; readonly rulesetId: string; readonly version: string };

/** A rulesets API write as the writer answers it: the stored document and the phase's ruleset after the edit. */
export interface RulesetWritten {
  readonly document: ZoneDocument;
  readonly edited: RulesetEdited;
}

/** A ruleset's versions as listed, with the ruleset they belong to. */
export interface VersionList {
  readonly phase: Phase;
  readonly current: StoredRuleset;
  readonly versions: readonly VersionSummary[];
}

/**
 * The zone document is one value in this object's SQLite storage, where a value is at most 2 MB (Cloudflare Durable
 * Object limits; workerd refuses more with SQLITE_TOOBIG), and one KV value (≤ 25 MiB). It is stored here as the
 * UTF-8 bytes of the JSON that KV holds, so the size checked is the size stored: as a JS object the runtime keeps a
 * string with one character outside Latin-1 in two bytes per character, nearly doubling notes written in ASCII with
 * one `€` (measured: a 1.6 MB access-rule list failed as an object). 10,000 bytes are left for the key and the
 * serialisation header. The check runs before anything is written (docs/configuration.md: limits before work), so a refused
 * change leaves KV and this object as they were.
 */
export const MAX_DOCUMENT_BYTES = 2_000_000 - 10_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The settings section is the zone's own; these names are reserved for it and the document's envelope. */
const RESERVED = new Set(["schema", "version", "zone", "modified_on", "settings", "incarnation"]);

export class ZoneWriter extends DurableObject<Env> {
  /** The zone document, or `null` when the zone is not configured. */
  async read(zone: string): Promise<Result<ZoneDocument | null, ZoneWriteFailure>> {
    return this.current(zone);
  }

  /**
   * Creates the zone or replaces its settings, keeping every other section. A larger header limit makes a larger
   * request, so the stored request-phase rules must still fit the evaluation budget (rulesets/worst-case.ts).
   */
  putSettings(zone: string, settings: ZoneSettings): Promise<Result<ZoneDocument, ZoneWriteFailure | RulesetFailure>> {
    return this.mutate<RulesetFailure>(zone, (previous) => {
      const over = headerLimitFits(previous, settings.max_request_header_bytes);
      if (over !== null) return err({ kind: "over-budget", issues: over });
      return ok({ ...(previous ?? {}), settings });
    });
  }

  /**
   * Replaces one section of an existing zone (`null` removes it). With `expected`, only if the document is still at
   * that version: a section computed from what the caller read (a ruleset keeps its rules' history) is never
   * written over a change it did not see.
   */
  putSection(
    zone: string,
    name: string,
    value: unknown,
    expected?: number,
  ): Promise<Result<ZoneDocument, ZoneWriteFailure>> {
    if (RESERVED.has(name)) throw new TypeError(`section name ${name} is reserved`);
    return this.mutate(zone, (previous) => {
      if (!previous) return err({ kind: "not-found" });
      if (expected !== undefined && previous.version !== expected) {
        return err({ kind: "conflict", current: previous.version });
      }
      return ok(withSection(previous, name, value));
    });
  }

  /**
   * Stores a part (`null` deletes it) and then the section that references it, in one serialised step: the part
   * reaches KV first, so a reader that sees the new document finds its part (docs/configuration.md: "pages under keys of
   * their own, written first").
   */
  putPart(
    zone: string,
    part: string,
    content: string | null,
    section: { readonly name: string; readonly value: unknown },
    expected?: number,
  ): Promise<Result<ZoneDocument, ZoneWriteFailure>> {
    return this.mutate(
      zone,
      (previous) => {
        if (!previous) return err({ kind: "not-found" });
        if (expected !== undefined && previous.version !== expected)
          return err({ kind: "conflict", current: previous.version });
        return ok(withSection(previous, section.name, section.value));
      },
      async () => {
        const key = `${zonePartsPrefix(zone)}${part}`;
        if (content === null) await this.env.CONFIG.delete(key);
        else await this.env.CONFIG.put(key, content);
      },
    );
  }

  /**
   * One write of the rulesets API (rulesets/edits.ts), applied here, inside the serialised step, to the document as
   * it is now: concurrent rule-level edits of one zone each see the previous one's result, so none is lost and none
   * has to be retried (20 parallel adds land 20 rules, test/workers/api/rulesets/rule-edits.test.ts). The version
   * the write makes is recorded in the same step, after KV accepted the document (rulesets/versions.ts).
   */
  async editRuleset(
    zone: string,
    edit: RulesetEdit,
  ): Promise<Result<RulesetWritten, ZoneWriteFailure | RulesetEditFailure | StoreFailure>> {
    let edited: RulesetEdited | undefined;
    const written = this.mutate<RulesetEditFailure | StoreFailure>(
      zone,
      (previous) => {
        if (!previous) return err({ kind: "not-found" });
        const parsed = parseDocument(zone, previous);
        if (!parsed.ok) return parsed;
        const applied = applyRulesetEdit(previous, parsed.value.settings.plan, edit, new Date(), randomId);
        if (!applied.ok) return applied;
        edited = applied.value;
        return ok(withSection(previous, rulesetSection(applied.value.phase), applied.value.ruleset));
      },
      undefined,
      () => {
        if (!edited) return;
        if (edited.ruleset) this.versions.record(edited.phase, edited.ruleset);
        else this.versions.deleteRuleset(edited.id);
      },
    );
    const result = await written;
    if (!result.ok) return result;
    // `edited` is set whenever the change was applied (the document was written only then).
    return edited ? ok({ document: result.value, edited }) : err({ kind: "not-found" });
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

  private get versions(): RulesetVersions {
    this.versionTable ??= new RulesetVersions(this.ctx.storage.sql);
    return this.versionTable;
  }

  private versionTable: RulesetVersions | undefined;

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
   * One serialised read-modify-write: the next version, the change, KV (part first, then document), then this
   * object's own storage. Nothing is recorded here unless KV accepted the document.
   */
  private mutate<E = never>(
    zone: string,
    change: (previous: ZoneDocument | null) => Result<Readonly<Record<string, unknown>>, ZoneWriteFailure | E>,
    before?: () => Promise<void>,
    /** This object's own records of the change (ruleset versions), stored with the document. */
    after?: () => void,
  ): Promise<Result<ZoneDocument, ZoneWriteFailure | E>> {
    return this.ctx.blockConcurrencyWhile(async () => {
      const previous = await this.current(zone);
      if (!previous.ok) return previous;
      const changed = change(previous.value);
      if (!changed.ok) return changed;
      const version = (this.ctx.storage.kv.get<number>("version") ?? previous.value?.version ?? 0) + 1;
      const document: ZoneDocument = {
        ...changed.value,
        schema: ZONE_DOC_SCHEMA,
        version,
        zone,
        modified_on: new Date().toISOString(),
        // A zone created now gets the version it is created at as its incarnation, kept by every later write
        // (`changed` spreads the previous document): versions never repeat for a name, so neither do
        // incarnations, and state keyed by one (rate-limit counters, schema.ts `Zone.incarnation`) is never
        // found again by a zone re-created under the same name. A zone created before incarnations has none.
        ...(previous.value === null ? { incarnation: version } : {}),
      };
      const text = JSON.stringify(document);
      const bytes = encoder.encode(text);
      if (bytes.byteLength > MAX_DOCUMENT_BYTES) {
        return err({ kind: "too-large", bytes: bytes.byteLength, limit: MAX_DOCUMENT_BYTES });
      }
      try {
        await before?.();
        await this.env.CONFIG.put(zoneKey(zone), text);
      } catch (e) {
        return err(unavailable("put", e));
      }
      this.ctx.storage.kv.put("version", version);
      this.ctx.storage.kv.put("document", bytes);
      after?.();
      return ok(document);
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

/** A version's number from the path: a positive decimal integer, else no version. */
function versionNumber(version: string): number | null {
  return /^[1-9][0-9]{0,14}$/.test(version) ? Number(version) : null;
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

function withSection(document: ZoneDocument, name: string, value: unknown): Record<string, unknown> {
  const next: Record<string, unknown> = { ...document };
  if (value === null) delete next[name];
  else next[name] = value;
  return next;
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
