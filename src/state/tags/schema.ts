/**
 * The TagStore's SQLite schema as versioned migrations, applied by the one runner (src/state/migrations.ts). The log
 * is also in docs/tags-api.md ("Schema and migrations"); never edit or reorder an entry, only append.
 */
import type { Migration } from "../migrations";

export const TAG_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "resources, tags, meta",
    statements: [
      // One row per tagged resource. parent = worker_id of a worker_version, else ''.
      // TEXT uses the BINARY collation: memcmp of UTF-8, i.e. code point order (docs/tags-api.md).
      `CREATE TABLE resources (
         type TEXT NOT NULL, parent TEXT NOT NULL, id TEXT NOT NULL,
         name TEXT NOT NULL, name_fold TEXT NOT NULL,
         etag TEXT NOT NULL, tags_updated_at TEXT NOT NULL, tag_count INTEGER NOT NULL,
         PRIMARY KEY (type, parent, id)
       ) WITHOUT ROWID`,
      // One row per (resource, key): a JSON blob per resource could pass the 2 MB row limit.
      `CREATE TABLE tags (
         type TEXT NOT NULL, parent TEXT NOT NULL, id TEXT NOT NULL,
         key TEXT NOT NULL, value TEXT NOT NULL, key_fold TEXT NOT NULL, value_fold TEXT NOT NULL,
         PRIMARY KEY (type, parent, id, key)
       ) WITHOUT ROWID`,
      // Keys and values listings, and filter seeks by key (exact and case-folded).
      "CREATE INDEX tags_by_key_value ON tags (key, value)",
      "CREATE INDEX tags_by_fold ON tags (key_fold, value_fold)",
      // tag_total: (resource, key) pairs in the account (its limit, docs/tags-api.md); cursor_key: the HMAC key of cursors.
      "CREATE TABLE meta (name TEXT PRIMARY KEY, value) WITHOUT ROWID",
      "INSERT INTO meta (name, value) VALUES ('tag_total', 0)",
    ],
  },
  {
    version: 2,
    name: "history",
    statements: [
      // One row per changed key of one write (docs/tags-api.md "History"); `change` groups the rows of one write.
      `CREATE TABLE history (
         seq INTEGER PRIMARY KEY AUTOINCREMENT, change INTEGER NOT NULL, at TEXT NOT NULL,
         actor TEXT NOT NULL, via TEXT NOT NULL,
         type TEXT NOT NULL, parent TEXT NOT NULL, id TEXT NOT NULL,
         key TEXT NOT NULL, before TEXT, after TEXT
       )`,
      // The per-resource listing seeks here; retention deletes by time through the second.
      "CREATE INDEX history_by_resource ON history (type, parent, id, seq)",
      "CREATE INDEX history_by_at ON history (at)",
      "INSERT INTO meta (name, value) VALUES ('history_change', 0)",
    ],
  },
  {
    version: 3,
    name: "history bytes",
    statements: [
      // What each entry counts against the history's byte cap (docs/tags-api.md "History"), and their running total,
      // so a write prunes the oldest without summing the table. A frozen copy of HISTORY_ROW_BYTES (history.ts).
      "ALTER TABLE history ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0",
      `UPDATE history SET bytes = 64 + length(CAST(at AS BLOB)) + length(CAST(actor AS BLOB))
         + length(CAST(via AS BLOB)) + length(CAST(type AS BLOB)) + length(CAST(parent AS BLOB))
         + length(CAST(id AS BLOB)) + length(CAST(key AS BLOB))
         + coalesce(length(CAST(before AS BLOB)), 0) + coalesce(length(CAST(after AS BLOB)), 0)`,
      "INSERT INTO meta (name, value) SELECT 'history_bytes', coalesce(sum(bytes), 0) FROM history",
    ],
  },
];
