/**
 * The TagStore's SQLite schema as an append-only list of versioned migrations. A deployed object
 * applies, in one transaction each, every migration newer than the highest version it has recorded; never edit
 * or reorder an entry, only append. The log is also in docs/tags-api.md ("Schema and migrations").
 */

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly statements: readonly string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "resources, tags, meta",
    statements: [
      // One row per tagged resource. parent = worker_id of a worker_version, else '' (notes §7).
      // TEXT uses the BINARY collation: memcmp of UTF-8, i.e. code point order (docs/tags-api.md).
      `CREATE TABLE resources (
         type TEXT NOT NULL, parent TEXT NOT NULL, id TEXT NOT NULL,
         name TEXT NOT NULL, name_fold TEXT NOT NULL,
         etag TEXT NOT NULL, tags_updated_at TEXT NOT NULL, tag_count INTEGER NOT NULL,
         PRIMARY KEY (type, parent, id)
       ) WITHOUT ROWID`,
      // One row per (resource, key): a JSON blob per resource could pass the 2 MB row limit (notes §5).
      `CREATE TABLE tags (
         type TEXT NOT NULL, parent TEXT NOT NULL, id TEXT NOT NULL,
         key TEXT NOT NULL, value TEXT NOT NULL, key_fold TEXT NOT NULL, value_fold TEXT NOT NULL,
         PRIMARY KEY (type, parent, id, key)
       ) WITHOUT ROWID`,
      // Keys and values listings, and filter seeks by key (exact and case-folded).
      "CREATE INDEX tags_by_key_value ON tags (key, value)",
      "CREATE INDEX tags_by_fold ON tags (key_fold, value_fold)",
      // tag_total: (resource, key) pairs in the account (docs/tags-api.md limit); cursor_key: the HMAC key of cursors.
      "CREATE TABLE meta (name TEXT PRIMARY KEY, value) WITHOUT ROWID",
      "INSERT INTO meta (name, value) VALUES ('tag_total', 0)",
    ],
  },
];

export const SCHEMA_LOG_TABLE = "schema_migrations";

/**
 * Applies the migrations this storage has not seen. Synchronous and inside `transactionSync`, so a failing
 * migration leaves the previous version intact and a concurrent request never sees half a schema.
 */
export function migrate(storage: DurableObjectStorage, migrations: readonly Migration[] = MIGRATIONS): number {
  const sql = storage.sql;
  sql.exec(
    `CREATE TABLE IF NOT EXISTS ${SCHEMA_LOG_TABLE} (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
  );
  const current = sql.exec<{ v: number | null }>(`SELECT max(version) AS v FROM ${SCHEMA_LOG_TABLE}`).one().v ?? 0;
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    storage.transactionSync(() => {
      for (const statement of migration.statements) sql.exec(statement);
      sql.exec(
        `INSERT INTO ${SCHEMA_LOG_TABLE} (version, name, applied_at) VALUES (?, ?, ?)`,
        migration.version,
        migration.name,
        new Date().toISOString(),
      );
    });
  }
  return migrations.reduce((v, m) => Math.max(v, m.version), current);
}
