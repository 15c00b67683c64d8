/**
 * The ZoneAnalytics object on its own: records, Ray lookup within retention, retention by the alarm
 * with an injected clock (minute rows go, their hours stay), the path cap, and every query a primary-key range scan.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { recordedPath, sanitiseCause } from "../../../../src/state/analytics/record";
import {
  EVENT_BY_ID_SQL,
  groupCountSql,
  INDEX_RAYS_SQL,
  INDEXED_RAYS_SQL,
  LOOKUP_SQL,
  PRUNE_BATCHES_SQL,
  PRUNE_RAYS_SQL,
  RECENT_BATCHES_SQL,
  seriesSql,
  codesSql,
  topPathsSql,
  type CountQuery,
} from "../../../../src/state/analytics/query";
import { migrate } from "../../../../src/state/migrations";
import {
  ANALYTICS_MIGRATIONS,
  MAX_PATHS_PER_HOUR,
  OTHER_PATH,
  RAY_INDEX_EVERY,
  STEP_MS,
} from "../../../../src/state/analytics/schema";
import type { ZoneAnalytics } from "../../../../src/state/analytics/zone-analytics";
import { errorRecord, rayOf } from "../../support/analytics";

const HOUR = STEP_MS.hour;
let n = 0;
const stubFor = () => env.ZONE_ANALYTICS.get(env.ZONE_ANALYTICS.idFromName(`store-${++n}-${Math.random()}.example`));

describe("ZoneAnalytics", () => {
  it("stores a batch once: a retried batch counts nothing twice", async () => {
    const stub = stubFor();
    const now = Date.now();
    const batch = [errorRecord(1, now), errorRecord(2, now, { code: 521, status: 521 })];
    expect(await stub.record(batch)).toBe(2);
    expect(await stub.record(batch)).toBe(0);
    const q: CountQuery = { since: now - HOUR, until: now + HOUR, step: "minute", groupBy: ["code"], filters: {} };
    const r = await stub.counts(q);
    expect(r.ok && r.value.rows.reduce((s, x) => s + x.n, 0)).toBe(2);
    expect((await stub.lookup(rayOf(2), now))?.code).toBe(521);
  });

  it("a batch over several insert statements, half already stored and a ray twice, counts each new ray once", async () => {
    const stub = stubFor();
    const now = Date.now();
    expect(await stub.record(Array.from({ length: 10 }, (_, i) => errorRecord(100 + i, now)))).toBe(10);
    // 25 records: 10 stored before, 15 new, one new ray sent twice (statements of 8 rows: 4 statements).
    const mixed = [
      ...Array.from({ length: 24 }, (_, i) => errorRecord(100 + i, now, { path: `/m${i % 3}` })),
      errorRecord(123, now),
    ];
    expect(await stub.record(mixed)).toBe(14);
    const q: CountQuery = { since: now - HOUR, until: now + HOUR, step: "minute", groupBy: [], filters: {} };
    const r = await stub.counts(q);
    expect(r.ok && r.value.rows.reduce((s, x) => s + x.n, 0)).toBe(24);
    expect(r.ok && r.value.topPaths.reduce((s, x) => s + x.count, 0)).toBe(24);
    expect(r.ok && r.value.topCodes).toEqual([{ code: 502, count: 24 }]);
  });

  it("retention: old records and minute rows are pruned, hours stay; the Ray lookup says 404 after retention", async () => {
    const stub = stubFor();
    const now = Date.UTC(2026, 10, 20, 12, 0, 0);
    const old = now - 4 * 86_400_000; // past minutes (3 d), within events (7 d) and hours (35 d)
    const older = now - 8 * 86_400_000; // past events too
    await stub.record([errorRecord(10, old), errorRecord(11, old + 1000)]);
    await stub.record([errorRecord(12, older)]);
    expect(await stub.lookup(rayOf(12), now)).toBeNull(); // past retention: not answered even before pruning
    expect((await stub.lookup(rayOf(10), now))?.ray).toBe(rayOf(10));
    const pruned = await stub.prune(now);
    expect(pruned).toEqual({ events: 1, minutes: 2, hours: 0, paths: 0, traffic: 0, avoided: 0 });
    const hours: CountQuery = { since: older - HOUR, until: now, step: "hour", groupBy: [], filters: {} };
    const r = await stub.counts(hours);
    expect(r.ok && r.value.rows.reduce((s, x) => s + x.n, 0)).toBe(3); // rolled into hours
    const minutes: CountQuery = { ...hours, step: "minute", since: old - HOUR, until: old + HOUR };
    const m = await stub.counts(minutes);
    expect(m.ok && m.value.rows.length).toBe(0);
    expect(await stub.prune(now + 40 * 86_400_000)).toEqual({
      events: 2,
      minutes: 0,
      hours: 2,
      paths: 2,
      traffic: 0,
      avoided: 0,
    });
  });

  it("a batch stays until its newest record expires; each record's own time decides its lookup", async () => {
    const stub = stubFor();
    const now = Date.UTC(2026, 10, 20, 12, 0, 0);
    const expired = now - 7 * 86_400_000 - 1;
    await stub.record([errorRecord(40, expired), errorRecord(41, now)]);
    expect(await stub.lookup(rayOf(40), now)).toBeNull();
    expect((await stub.lookup(rayOf(41), now))?.ray).toBe(rayOf(41));
    expect((await stub.prune(now)).events).toBe(0);
    expect((await stub.lookup(rayOf(41), now))?.ray).toBe(rayOf(41));
    expect((await stub.prune(now + 7 * 86_400_000 + 1)).events).toBe(2);
    expect(await stub.lookup(rayOf(41), now)).toBeNull();
  });

  it("the alarm prunes (armed by the first write)", async () => {
    const stub = stubFor();
    await stub.record([errorRecord(20, Date.now() - 40 * 86_400_000)]);
    expect(await runInDurableObject(stub, (_: ZoneAnalytics, state) => state.storage.getAlarm())).not.toBeNull();
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const left = await runInDurableObject(
      stub,
      (_: ZoneAnalytics, state) =>
        state.storage.sql
          .exec<{ n: number }>("SELECT (SELECT count(*) FROM batches) + (SELECT count(*) FROM hours) AS n")
          .one().n,
    );
    expect(left).toBe(0);
  });

  it("paths per hour are capped: a path scan cannot grow the table", async () => {
    const stub = stubFor();
    const at = Date.now();
    const batch = Array.from({ length: MAX_PATHS_PER_HOUR + 5 }, (_, i) =>
      errorRecord(1000 + i, at, { path: `/scan/${i}` }),
    );
    await stub.record(batch);
    const rows = await runInDurableObject(stub, (_: ZoneAnalytics, state) =>
      state.storage.sql.exec<{ path: string; count: number }>("SELECT path, count FROM path_hours").toArray(),
    );
    expect(rows.length).toBe(MAX_PATHS_PER_HOUR + 1); // the distinct paths and OTHER_PATH
    expect(rows.find((r) => r.path === OTHER_PATH)?.count).toBe(5);
  });

  it("every query is a primary-key (or index) search, never a full scan", async () => {
    const stub = stubFor();
    await stub.record([errorRecord(30, Date.now())]);
    const q: CountQuery = {
      since: Date.now() - HOUR,
      until: Date.now(),
      step: "minute",
      groupBy: ["code", "source"],
      filters: { format: "json" },
    };
    const plans = await runInDurableObject(stub, (_: ZoneAnalytics, state) => {
      const plan = (text: string, params: (string | number)[]) =>
        state.storage.sql
          .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, ...params)
          .toArray()
          .map((r) => r.detail)
          .join(" | ");
      return [
        plan(seriesSql(q).text, seriesSql(q).params),
        plan(groupCountSql(q).text, groupCountSql(q).params),
        plan(codesSql({ ...q, step: "hour" }).text, codesSql({ ...q, step: "hour" }).params),
        plan(topPathsSql(0, 1, 10).text, [0, 1]),
        plan(LOOKUP_SQL, [rayOf(30)]),
        plan(EVENT_BY_ID_SQL, [1024]),
        plan(PRUNE_BATCHES_SQL, [0]),
        // The write path: the rays of a batch against the index, the recent batches when the object starts and
        // when their rays go to the index, retention of the index.
        plan(INDEXED_RAYS_SQL, [JSON.stringify([rayOf(30)])]),
        plan(RECENT_BATCHES_SQL, [0]),
        plan(INDEX_RAYS_SQL, [0]),
        plan(PRUNE_RAYS_SQL, [0]),
      ];
    });
    for (const p of plans) {
      expect(p).toMatch(/SEARCH \w+ USING (INTEGER PRIMARY KEY|PRIMARY KEY|INDEX|COVERING INDEX)/);
      expect(p).not.toMatch(/SCAN (minutes|hours|batches|b|r|path_hours|rays)\b/);
    }
  });

  it("the Ray index across its bulk writes: found before and after, a re-sent ray counted once, after a restart too", async () => {
    const name = `store-restart-${Math.random()}.example`;
    const stub = env.ZONE_ANALYTICS.get(env.ZONE_ANALYTICS.idFromName(name));
    const now = Date.now();
    const size = 500;
    const total = (Math.ceil(RAY_INDEX_EVERY / size) + 2) * size; // crosses one bulk write of the recent rays
    for (let start = 0; start < total; start += size) {
      const batch = Array.from({ length: size }, (_, i) =>
        errorRecord(50_000 + start + i, now, { code: 520 + (i % 3) }),
      );
      expect(await stub.record(batch)).toBe(size);
    }
    const where = await runInDurableObject(stub, (_: ZoneAnalytics, state) => ({
      indexed: state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM rays").one().n,
      upto: state.storage.sql.exec<{ v: number }>("SELECT value AS v FROM analytics_meta").one().v,
    }));
    expect(where.indexed).toBeGreaterThanOrEqual(RAY_INDEX_EVERY);
    expect(where.indexed).toBeLessThan(total);
    const first = rayOf(50_000); // in `rays`
    const last = rayOf(50_000 + total - 1); // in the object's memory
    expect((await stub.lookup(first, now))?.ray).toBe(first);
    expect((await stub.lookup(last, now))?.code).toBe(520 + (((total - 1) % size) % 3));
    // Re-sent: one ray of each part and one new ray.
    expect(
      await stub.record([errorRecord(50_000, now), errorRecord(50_000 + total - 1, now), errorRecord(99_999, now)]),
    ).toBe(1);
    // A new object life (the memory index is gone): rebuilt from storage, so nothing is counted twice.
    await runInDurableObject(stub, (_: ZoneAnalytics, state) => state.abort()).catch(() => undefined);
    const again = env.ZONE_ANALYTICS.get(env.ZONE_ANALYTICS.idFromName(name));
    expect((await again.lookup(last, now))?.ray).toBe(last);
    expect(
      await again.record([errorRecord(50_000 + total - 1, now), errorRecord(99_999, now), errorRecord(50_000, now)]),
    ).toBe(0);
    const q: CountQuery = { since: now - HOUR, until: now + HOUR, step: "minute", groupBy: [], filters: {} };
    const r = await again.counts(q);
    expect(r.ok && r.value.rows.reduce((s, x) => s + x.n, 0)).toBe(total + 1);
  });

  it("after retention emptied an indexed store, new events are still found and counted once after a restart", async () => {
    const name = `store-expired-${Math.random()}.example`;
    const stubOf = () => env.ZONE_ANALYTICS.get(env.ZONE_ANALYTICS.idFromName(name));
    const stub = stubOf();
    const then = Date.now() - 8 * 86_400_000; // past the events' retention
    const size = 1000;
    for (let start = 0; start < RAY_INDEX_EVERY + size; start += size) {
      await stub.record(Array.from({ length: size }, (_, i) => errorRecord(200_000 + start + i, then)));
    }
    await stub.prune(Date.now()); // every event and its ray gone; rays_upto stays where the bulk write left it
    const now = Date.now();
    expect(await stub.record([errorRecord(300_000, now), errorRecord(300_001, now)])).toBe(2);
    await runInDurableObject(stub, (_: ZoneAnalytics, state) => state.abort()).catch(() => undefined);
    const again = stubOf();
    expect((await again.lookup(rayOf(300_001), now))?.ray).toBe(rayOf(300_001));
    expect(await again.record([errorRecord(300_000, now), errorRecord(300_001, now)])).toBe(0);
  });

  it("migrations 2 and 3 keep the version 1 events: found by Ray ID, counted once", async () => {
    const stub = stubFor();
    const now = Date.now();
    const found = await runInDurableObject(stub, (instance: ZoneAnalytics, state) => {
      const sql = state.storage.sql;
      // Back to a version 1 store holding two events.
      for (const table of [
        "events",
        "batches",
        "rays",
        "analytics_meta",
        "minutes",
        "hours",
        "path_hours",
        "traffic_minutes",
        "traffic_hours",
        "tallies",
        "alert_policies",
        "alert_events",
        "alert_attempts",
        "avoided_minutes",
        "avoided_hours",
      ]) {
        sql.exec(`DROP TABLE IF EXISTS ${table}`);
      }
      sql.exec("DELETE FROM schema_migrations");
      migrate(state.storage, ANALYTICS_MIGRATIONS.slice(0, 1));
      for (const [r, at] of [
        [rayOf(7), now - 1000],
        [rayOf(8), now],
      ] as const) {
        sql.exec(
          `INSERT INTO events (ray, at, code, status, source, answered_by, answer_id, format, method, path, country,
             cause) VALUES (?, ?, 522, 522, 'edge', 'default', NULL, 'json', 'GET', '/v1', NULL, NULL)`,
          r,
          at,
        );
      }
      migrate(state.storage, ANALYTICS_MIGRATIONS);
      return {
        batches: sql.exec<{ id: number; newest: number }>("SELECT id, newest FROM batches ORDER BY id").toArray(),
        rays: sql.exec<{ ray: string; id: number }>("SELECT ray, id FROM rays ORDER BY ray").toArray(),
        upto: sql.exec<{ v: number }>("SELECT value AS v FROM analytics_meta").one().v,
        lookup: instance.lookup(rayOf(7), now)?.path,
      };
    });
    expect(found).toEqual({
      batches: [
        { id: 1, newest: now - 1000 },
        { id: 2, newest: now },
      ],
      rays: [
        { ray: rayOf(7), id: 1024 },
        { ray: rayOf(8), id: 2048 },
      ],
      upto: 2,
      lookup: "/v1",
    });
    // Counted once after the migration, and the next batch goes above the migrated ones.
    expect(await stub.record([errorRecord(7, now), errorRecord(8, now), errorRecord(9, now)])).toBe(1);
    expect((await stub.lookup(rayOf(9), now))?.ray).toBe(rayOf(9));
  });

  it("write rate of one object (measured; docs/analytics.md 'Sharding')", async () => {
    const stub = stubFor();
    const at = Date.now();
    const batches = 20;
    const size = 100;
    const started = performance.now();
    for (let b = 0; b < batches; b++) {
      await stub.record(
        Array.from({ length: size }, (_, i) => errorRecord(1_000_000 + b * size + i, at, { path: `/w/${i % 50}` })),
      );
    }
    const ms = performance.now() - started;
    console.log(
      JSON.stringify({
        event: "analytics_write_rate",
        records: batches * size,
        ms,
        per_second: Math.round((batches * size * 1000) / Math.max(ms, 1)),
      }),
    );
    const q: CountQuery = { since: at - HOUR, until: at + HOUR, step: "minute", groupBy: [], filters: {} };
    const r = await stub.counts(q);
    expect(r.ok && r.value.rows.reduce((s, x) => s + x.n, 0)).toBe(batches * size);
  });
});

describe("what a record keeps", () => {
  it("the path: no control characters, bounded", () => {
    expect(recordedPath("/a\u0000b\nc")).toBe("/a%00b%0Ac");
    const long = recordedPath("/" + "x".repeat(10_000));
    expect(long.length).toBe(256);
    expect(long.endsWith("…")).toBe(true);
  });

  it("the cause: no internal addresses", () => {
    const cause = sanitiseCause(
      "GET http://10.0.0.7:8080/x?y=1; TCP connection refused (connect 10.0.0.7:8080, [fd00::1]:443, db.internal:5432)",
    );
    expect(cause).not.toMatch(/10\.0\.0\.7|fd00|db\.internal|8080/);
    expect(cause).toContain("TCP connection refused");
  });
});

describe('ZoneAnalytics.wipe (the zone was deleted: docs/analytics.md "When a zone is deleted")', () => {
  it("empties the object (records, counters, paths, the Ray index, the alarm); refuses records made before it", async () => {
    const stub = stubFor();
    const now = Date.now();
    // More rays than the in-memory index holds, so some are in `rays` and some in memory.
    const many = Array.from({ length: RAY_INDEX_EVERY + 5 }, (_, i) =>
      errorRecord(5000 + i, now - 1000, { path: `/p${i % 7}` }),
    );
    expect(await stub.record(many)).toBe(many.length);
    expect((await stub.lookup(rayOf(5000), now))?.path).toBe("/p0");
    expect((await stub.lookup(rayOf(5000 + RAY_INDEX_EVERY + 4), now))?.code).toBe(502);
    await runInDurableObject(stub, async (_object: ZoneAnalytics, state) => {
      expect(await state.storage.getAlarm()).not.toBeNull();
    });

    await stub.wipe(now);

    const q: CountQuery = { since: now - HOUR, until: now + HOUR, step: "minute", groupBy: [], filters: {} };
    const hours: CountQuery = { ...q, since: now - 24 * HOUR, step: "hour" };
    for (const query of [q, hours]) {
      const r = await stub.counts(query);
      expect(r.ok && r.value).toEqual({
        rows: [],
        topCodes: [],
        topPaths: [],
        traffic: [],
        pathHoursRequests: 0,
        avoided: [],
      });
    }
    expect(await stub.lookup(rayOf(5000), now)).toBeNull();
    expect(await stub.lookup(rayOf(5000 + RAY_INDEX_EVERY + 4), now)).toBeNull();
    await runInDurableObject(stub, async (_object: ZoneAnalytics, state) => {
      expect(await state.storage.getAlarm()).toBeNull();
      const tables = ["batches", "rays", "minutes", "hours", "path_hours"].map(
        (t) => state.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${t}`).one().n,
      );
      expect(tables).toEqual([0, 0, 0, 0, 0]);
    });

    // A batch an isolate still held (records made before the wipe) is refused; one made after it is the zone's
    // that exists now, counted as usual, and survives the object's restart.
    expect(await stub.record([errorRecord(9001, now - 1), errorRecord(9002, now - 60_000)])).toBe(0);
    expect(await stub.record([errorRecord(9003, now - 1), errorRecord(9004, now + 1)])).toBe(1);
    expect(await stub.lookup(rayOf(9001), now + 2)).toBeNull();
    expect((await stub.lookup(rayOf(9004), now + 2))?.ray).toBe(rayOf(9004));
    const after = await stub.counts({ ...q, until: now + 2 * HOUR });
    expect(after.ok && after.value.rows.reduce((s, x) => s + x.n, 0)).toBe(1);
  });

  it("the refusal of earlier records survives the object's restart", async () => {
    const name = `wiped-${Math.random()}.example`;
    const now = Date.now();
    const stub = env.ZONE_ANALYTICS.get(env.ZONE_ANALYTICS.idFromName(name));
    await stub.wipe(now);
    // A new object life: `wiped_at` is read back from storage by the constructor.
    await runInDurableObject(stub, (_: ZoneAnalytics, state) => state.abort()).catch(() => undefined);
    const again = env.ZONE_ANALYTICS.get(env.ZONE_ANALYTICS.idFromName(name));
    expect(await again.record([errorRecord(9100, now - 5), errorRecord(9101, now + 5)])).toBe(1);
    expect(await again.lookup(rayOf(9100), now + 10)).toBeNull();
  });
});
