/**
 * The one migration runner of the four SQLite Durable Objects (TagStore, ZoneWriter, RateLimiter, ZoneAnalytics;
 * docs/architecture.md "State"). Each object's schema is an append-only list of versioned migrations; the runner
 * applies, in one transaction each, every migration newer than the highest version the object has recorded in its
 * `schema_migrations` table. Never edit or reorder an entry, only append.
 *
 * Storage written before its object kept a log (the ZoneWriter's and the RateLimiter's tables were created with
 * `CREATE TABLE IF NOT EXISTS` on first use) is adopted: a migration names the table only it creates (`adopts`);
 * an object without a log that already holds that table had the migration, and every one before it, applied by that
 * earlier code, so they are recorded without being run and only the newer ones run. An object created by earlier
 * code therefore opens with its data, converted where a newer migration says so.
 */

export interface Migration {
  readonly version: number;
  readonly name: string;
  /** Run in order, in one transaction with the log entry: a failing statement leaves the previous version. */
  readonly statements: readonly string[];
  /** The table this migration creates, by which storage from before the log shows that it was applied. */
  readonly adopts?: string;
}

export const SCHEMA_LOG_TABLE = "schema_migrations";

/**
 * Brings the object's SQLite schema to the last of `migrations` and answers that version. Synchronous, each
 * migration inside `transactionSync`, so a failing migration leaves the previous version intact and nothing reads
 * half a schema. Cheap when current: one read of `sqlite_master` and one of the log.
 */
export function migrate(storage: DurableObjectStorage, migrations: readonly Migration[]): number {
  const sql = storage.sql;
  const tables = new Set(
    sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .toArray()
      .map((row) => row.name),
  );
  const log = (migration: Migration): void => {
    sql.exec(
      `INSERT INTO ${SCHEMA_LOG_TABLE} (version, name, applied_at) VALUES (?, ?, ?)`,
      migration.version,
      migration.name,
      new Date().toISOString(),
    );
  };
  let current: number;
  if (tables.has(SCHEMA_LOG_TABLE)) {
    current = sql.exec<{ v: number | null }>(`SELECT max(version) AS v FROM ${SCHEMA_LOG_TABLE}`).one().v ?? 0;
  } else {
    // A new object, or one written before it kept a log: the last migration whose table is there was applied.
    let adopted = -1;
    for (const [i, m] of migrations.entries()) if (m.adopts !== undefined && tables.has(m.adopts)) adopted = i;
    storage.transactionSync(() => {
      sql.exec(
        `CREATE TABLE ${SCHEMA_LOG_TABLE} (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
      );
      for (const migration of migrations.slice(0, adopted + 1)) log(migration);
    });
    current = adopted < 0 ? 0 : migrations[adopted]!.version;
  }
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    storage.transactionSync(() => {
      for (const statement of migration.statements) sql.exec(statement);
      log(migration);
    });
  }
  return migrations.reduce((v, m) => Math.max(v, m.version), current);
}
