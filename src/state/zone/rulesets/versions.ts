/**
 * The versions of a zone's rulesets (docs/configuration.md "versions"; docs/rulesets-api.md "Versions"): every write of a
 * ruleset makes a version, listed, read and deleted as the published Rulesets API does.
 *
 * Where: the zone writer's own SQLite storage (one Durable Object per zone), never the zone document (one KV value
 * ≤ 1.99 MB that traffic reads). The writer records a version in the same serialised step that stores the document
 * (writer.ts `edit`), after KV accepted it: a version exists iff its write landed, and version numbers of one
 * ruleset strictly increase (the ruleset's own counter, `StoredRuleset.version`; a deleted number is never reused).
 *
 * Bound: the newest `MAX_VERSIONS_KEPT` versions of each ruleset are kept, older ones dropped when a new one is
 * written. A row is one ruleset as stored (≤ the document's own limit, under SQLite's 2 MB per value). Deleting a
 * ruleset deletes its versions; deleting the zone deletes all of them.
 */
import type { Migration } from "../../migrations";
import { later, text } from "../../../shared/schema";
import type { Phase } from "./phases";
import type { StoredRuleset } from "./validate";

/** Versions kept per ruleset (the newest ones; the current one is always among them). */
export const MAX_VERSIONS_KEPT = 50;

/**
 * A version number as a path gives it (`…/versions/{ruleset_version}`): a positive decimal integer of at most 15
 * digits (a safe integer), the component `RulesetVersion`. Anything else names no version (404, not 400: the path
 * is a lookup, as the published API answers it).
 */
export const RULESET_VERSION = later(() => text({ pattern: /^[1-9][0-9]{0,14}$/ }, "is no version number"), {
  id: "RulesetVersion",
  example: "1",
});

/** A version's number from the path, or `null` when the path names no version. */
export function versionNumber(version: string): number | null {
  const parsed = RULESET_VERSION().safeParse(version);
  return parsed.success ? Number(parsed.data) : null;
}

/** One version as listed: the ruleset's summary at that version (no rules). */
export interface VersionSummary {
  readonly id: string;
  readonly phase: Phase;
  readonly version: string;
  readonly last_updated: string;
  readonly name?: string;
  readonly description?: string;
}

/** One version in full. */
export interface StoredVersion {
  readonly phase: Phase;
  readonly ruleset: StoredRuleset;
}

interface Row extends Record<string, SqlStorageValue> {
  readonly ruleset_id: string;
  readonly version: number;
  readonly phase: string;
  readonly last_updated: string;
  readonly name: string | null;
  readonly description: string | null;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The zone writer's SQLite schema, applied by the one runner (src/state/migrations.ts) when the object starts. Its
 * first table was created on first use before the writer kept a log: such an object adopts version 1.
 */
export const ZONE_WRITER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "ruleset_versions",
    adopts: "ruleset_versions",
    // The primary key serves every query below (by ruleset, by ruleset and version).
    statements: [
      `CREATE TABLE ruleset_versions (
         ruleset_id TEXT NOT NULL, version INTEGER NOT NULL, phase TEXT NOT NULL, last_updated TEXT NOT NULL,
         name TEXT, description TEXT, body BLOB NOT NULL, PRIMARY KEY (ruleset_id, version)
       ) WITHOUT ROWID`,
    ],
  },
];

/**
 * The versions table of one zone writer (its schema is `ZONE_WRITER_MIGRATIONS`, applied by the writer's
 * constructor). Every method is synchronous SQL (it runs inside the writer's step).
 */
export class RulesetVersions {
  constructor(private readonly sql: SqlStorage) {}

  /** Records the ruleset as it now is and drops its versions past the bound. */
  record(phase: Phase, ruleset: StoredRuleset): void {
    const sql = this.sql;
    sql.exec(
      "INSERT OR REPLACE INTO ruleset_versions VALUES (?, ?, ?, ?, ?, ?, ?)",
      ruleset.id,
      Number(ruleset.version),
      phase,
      ruleset.last_updated,
      ruleset.name ?? null,
      ruleset.description ?? null,
      encoder.encode(JSON.stringify(ruleset)),
    );
    sql.exec(
      `DELETE FROM ruleset_versions WHERE ruleset_id = ?1 AND version NOT IN
         (SELECT version FROM ruleset_versions WHERE ruleset_id = ?1 ORDER BY version DESC LIMIT ?2)`,
      ruleset.id,
      MAX_VERSIONS_KEPT,
    );
  }

  /** A ruleset's versions, oldest first. */
  list(rulesetId: string): VersionSummary[] {
    return this.sql
      .exec<Row>(
        "SELECT ruleset_id, version, phase, last_updated, name, description FROM ruleset_versions " +
          "WHERE ruleset_id = ? ORDER BY version",
        rulesetId,
      )
      .toArray()
      .map((row) => ({
        id: row.ruleset_id,
        phase: row.phase as Phase,
        version: String(row.version),
        last_updated: row.last_updated,
        ...(row.name === null ? {} : { name: row.name }),
        ...(row.description === null ? {} : { description: row.description }),
      }));
  }

  /** One version, or `null`. */
  get(rulesetId: string, version: number): StoredVersion | null {
    const rows = this.sql
      .exec<{ phase: string; body: ArrayBuffer }>(
        "SELECT phase, body FROM ruleset_versions WHERE ruleset_id = ? AND version = ?",
        rulesetId,
        version,
      )
      .toArray();
    const row = rows[0];
    if (!row) return null;
    return { phase: row.phase as Phase, ruleset: JSON.parse(decoder.decode(row.body)) as StoredRuleset };
  }

  /** Deletes one version; `false` when there was none. */
  delete(rulesetId: string, version: number): boolean {
    const cursor = this.sql.exec(
      "DELETE FROM ruleset_versions WHERE ruleset_id = ? AND version = ?",
      rulesetId,
      version,
    );
    return cursor.rowsWritten > 0;
  }

  /** Deletes every version of a ruleset (the ruleset was deleted). */
  deleteRuleset(rulesetId: string): void {
    this.sql.exec("DELETE FROM ruleset_versions WHERE ruleset_id = ?", rulesetId);
  }

  /** Deletes every version of every ruleset (the zone was deleted). */
  deleteAll(): void {
    this.sql.exec("DELETE FROM ruleset_versions");
  }
}
