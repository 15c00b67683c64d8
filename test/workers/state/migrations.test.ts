/**
 * The one migration runner (src/state/migrations.ts) and the four SQLite Durable Objects that use it: storage left by
 * the code before it (tables created on first use with `CREATE TABLE IF NOT EXISTS`, no log; or the log of the
 * earlier runner) is made by hand, then the object is opened again (aborted, so the next call constructs it on that
 * storage) and must serve its data, with its migrations recorded. Real objects, real SQLite.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { migrate, type Migration } from "../../../src/state/migrations";
import { ANALYTICS_MIGRATIONS } from "../../../src/state/analytics/schema";
import type { ZoneAnalytics } from "../../../src/state/analytics/zone-analytics";
import { RATE_LIMITER_MIGRATIONS, type RateLimiter } from "../../../src/state/rate-limiter/rate-limiter";
import { TAG_MIGRATIONS } from "../../../src/state/tags/schema";
import type { TagStore } from "../../../src/state/tags/tag-store";
import { ZONE_WRITER_MIGRATIONS } from "../../../src/state/zone/rulesets/versions";
import type { ZoneWriter } from "../../../src/state/zone/writer";
import { putZone, uniqueZone } from "../support/origin";
import { apiFetch, type Envelope } from "../support/envelope";
import { errorRecord } from "../support/analytics";

type Namespace<T extends Rpc.DurableObjectBranded> = DurableObjectNamespace<T>;

/** The versions an object's log holds. */
const logged = (sql: SqlStorage): number[] =>
  sql
    .exec<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version")
    .toArray()
    .map((r) => r.version);

const tables = (sql: SqlStorage): string[] =>
  sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' ORDER BY name",
    )
    .toArray()
    .map((r) => r.name);

/** Opens the object again on its storage: aborted, the next call constructs it (and so migrates) anew. */
async function reopen<T extends Rpc.DurableObjectBranded>(
  ns: Namespace<T>,
  name: string,
): Promise<DurableObjectStub<T>> {
  await runInDurableObject(ns.get(ns.idFromName(name)), (_: unknown, state) => state.abort()).catch(() => undefined);
  return ns.get(ns.idFromName(name));
}

const versions = (v: readonly Migration[]): number[] => v.map((m) => m.version);

// A RateLimiter touches no storage until it counts: a blank SQLite database for the runner's own tests.
describe("the runner", () => {
  it("adopts storage from before its log: the last migration whose table is there, and those before it", async () => {
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`runner-${Math.random()}`));
    await runInDurableObject(stub, (_: RateLimiter, state) => {
      const sql = state.storage.sql;
      const list: Migration[] = [
        { version: 1, name: "a", adopts: "a", statements: ["CREATE TABLE a (x)"] },
        { version: 2, name: "b", adopts: "b", statements: ["CREATE TABLE b (x)"] },
        { version: 3, name: "c", statements: ["CREATE TABLE c (x)", "INSERT INTO c SELECT x FROM b"] },
      ];
      // Earlier code made `b` (and never `a`, say: dropped since); the log does not exist yet.
      sql.exec("CREATE TABLE b (x)");
      sql.exec("INSERT INTO b VALUES (42)");
      expect(migrate(state.storage, list)).toBe(3);
      expect(logged(sql)).toEqual([1, 2, 3]);
      expect(tables(sql)).toEqual(["b", "c", "schema_migrations"]);
      expect(sql.exec<{ x: number }>("SELECT x FROM c").one().x).toBe(42);
      // Current: nothing runs again.
      expect(migrate(state.storage, list)).toBe(3);
      expect(logged(sql)).toEqual([1, 2, 3]);
    });
  });

  it("runs every migration on new storage, and a failing one leaves the version before it", async () => {
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`runner-${Math.random()}`));
    await runInDurableObject(stub, (_: RateLimiter, state) => {
      const sql = state.storage.sql;
      const list: Migration[] = [{ version: 1, name: "a", adopts: "a", statements: ["CREATE TABLE a (x)"] }];
      expect(migrate(state.storage, list)).toBe(1);
      const broken = [...list, { version: 2, name: "broken", statements: ["CREATE TABLE probe (x)", "NOT SQL"] }];
      expect(() => migrate(state.storage, broken)).toThrow();
      expect(logged(sql)).toEqual([1]);
      expect(tables(sql)).toEqual(["a", "schema_migrations"]);
    });
  });
});

describe("an object created by the code before the runner opens with its data", () => {
  it("ZoneWriter: ruleset_versions made on first use, no log, the document an object → adopted, versions kept", async () => {
    const zone = uniqueZone("migrate-writer");
    await putZone(zone, { plan: "pro", origin: "http://o.example" });
    const api = (method: string, path: string, body?: unknown) => apiFetch(method, `/zones/${zone}${path}`, body);
    const entry = "/rulesets/phases/http_request_firewall_custom/entrypoint";
    const rules = { rules: [{ expression: 'http.request.uri.path eq "/a"', action: "block" }] };
    expect((await api("PUT", entry, rules)).status).toBe(200);
    const made = await (await api("PUT", entry, rules)).json<Envelope<{ id: string }>>();
    const id = made.result.id;
    // Back to what the writer left before the runner: the table it created with IF NOT EXISTS, no log, and the
    // document kept as a JS object (before it was kept as UTF-8 bytes).
    await runInDurableObject(env.ZONE_WRITER.get(env.ZONE_WRITER.idFromName(zone)), (_: ZoneWriter, state) => {
      const sql = state.storage.sql;
      sql.exec("DROP TABLE schema_migrations");
      const bytes = state.storage.kv.get<Uint8Array>("document")!;
      state.storage.kv.put("document", JSON.parse(new TextDecoder().decode(bytes)) as unknown);
      expect(tables(sql)).toEqual(["ruleset_versions"]);
    });
    const writer = await reopen(env.ZONE_WRITER, zone);
    const listed = await writer.rulesetVersions(zone, id);
    expect(listed.ok && listed.value.versions.map((v) => v.version)).toEqual(["1", "2"]);
    // A write lands on the adopted document and makes the next version of the ruleset.
    expect((await api("PUT", entry, rules)).status).toBe(200);
    const after = await (await api("GET", `/rulesets/${id}/versions`)).json<Envelope<{ version: string }[]>>();
    expect(after.result.map((v) => v.version)).toEqual(["1", "2", "3"]);
    await runInDurableObject(writer, (_: ZoneWriter, state) => {
      expect(logged(state.storage.sql)).toEqual(versions(ZONE_WRITER_MIGRATIONS));
    });
  });

  it("RateLimiter: sliding_counters made on first use, no log → adopted, a block kept", async () => {
    const name = `migrate-limiter-${Math.random()}`;
    const now = Date.now();
    const hit = (stub: DurableObjectStub<RateLimiter>) =>
      stub.hit({ key: "k", period: 60, requestsPerPeriod: 1, mitigationTimeout: 600, now });
    const first = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(name));
    expect(await hit(first)).toEqual({ kind: "allow" });
    expect(await hit(first)).toEqual({ kind: "block", blockedUntil: now + 600_000 }); // written through
    await runInDurableObject(first, (_: RateLimiter, state) => {
      state.storage.sql.exec("DROP TABLE schema_migrations");
      expect(tables(state.storage.sql)).toEqual(["sliding_counters"]);
    });
    const again = await reopen(env.RATE_LIMITER, name);
    expect(await hit(again)).toEqual({ kind: "block", blockedUntil: now + 600_000 });
    await runInDurableObject(again, (_: RateLimiter, state) => {
      expect(logged(state.storage.sql)).toEqual(versions(RATE_LIMITER_MIGRATIONS));
      expect(tables(state.storage.sql)).toEqual(["schema_migrations", "sliding_counters"]);
    });
  });

  it("RateLimiter: counts again after its alarm deleted its whole storage (schema and log) in the same life", async () => {
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`migrate-deleted-${Math.random()}`));
    const input = { key: "k", period: 10, requestsPerPeriod: 1, mitigationTimeout: 10 };
    // Counted on a clock an hour behind: expired at once, so the flush alarm deletes everything.
    expect(await stub.hit({ ...input, now: Date.now() - 3_600_000 })).toEqual({ kind: "allow" });
    await vi.waitFor(
      async () =>
        expect(await runInDurableObject(stub, (_: RateLimiter, state) => tables(state.storage.sql))).toEqual([]),
      { timeout: 5000, interval: 50 },
    );
    const now = Date.now();
    expect(await stub.hit({ ...input, now })).toEqual({ kind: "allow" });
    expect(await stub.hit({ ...input, now })).toEqual({ kind: "block", blockedUntil: now + 10_000 });
  });

  it("TagStore: the earlier runner's log → read as it is, the tags served", async () => {
    const account = `${Date.now().toString(16)}${crypto.randomUUID().replace(/-/g, "")}`.slice(0, 32);
    const ref = { type: "worker" as const, parent: "", id: "w" };
    const store = env.TAG_STORE.get(env.TAG_STORE.idFromName(account));
    const put = await store.putTags({ ref, tags: [["env", "prod"]], etag: "v1:x", ifMatch: null, limit: 10 });
    expect(put.ok).toBe(true);
    // The earlier runner created its log with IF NOT EXISTS, the same columns: made by hand here.
    await runInDurableObject(store, (_: TagStore, state) => {
      const sql = state.storage.sql;
      const rows = sql.exec("SELECT version, name, applied_at FROM schema_migrations").toArray();
      sql.exec("DROP TABLE schema_migrations");
      sql.exec(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
      );
      for (const r of rows) sql.exec("INSERT INTO schema_migrations VALUES (?, ?, ?)", r.version, r.name, r.applied_at);
    });
    const again = await reopen(env.TAG_STORE, account);
    expect((await again.getTags(ref)).tags).toEqual({ env: "prod" });
    await runInDurableObject(again, (_: TagStore, state) => {
      expect(logged(state.storage.sql)).toEqual(versions(TAG_MIGRATIONS));
    });
  });

  it("ZoneAnalytics: the earlier runner's log → read as it is, a recorded error found by its Ray ID", async () => {
    const name = `migrate-analytics-${Math.random()}.example`;
    const stub = env.ZONE_ANALYTICS.get(env.ZONE_ANALYTICS.idFromName(name));
    const now = Date.now();
    const ray = "00000000000a11ce";
    const record = errorRecord(0, now, { ray, cause: null });
    expect(await stub.record([record])).toBe(1);
    const again = await reopen(env.ZONE_ANALYTICS, name);
    expect((await again.lookup(ray, now))?.path).toBe("/p");
    await runInDurableObject(again, (_: ZoneAnalytics, state) => {
      expect(logged(state.storage.sql)).toEqual(versions(ANALYTICS_MIGRATIONS));
    });
  });
});
