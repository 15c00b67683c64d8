/**
 * The request detail a record keeps (src/state/analytics/request-detail.ts): every value round-trips, anything else
 * reads as unknown, the largest record is no larger than before the detail, and schema migration 4 gives every
 * stored record the new value (null) without moving any record.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  encodeBatch,
  MAX_RECORDED_CAUSE,
  MAX_RECORDED_PATH,
  type ErrorRecord,
} from "../../../../src/state/analytics/record";
import {
  ACCEPT_FAMILIES,
  ADDRESS_CLASSES,
  decodeDetail,
  encodeDetail,
  type RequestDetail,
} from "../../../../src/state/analytics/request-detail";
import { migrate } from "../../../../src/state/migrations";
import { ANALYTICS_MIGRATIONS } from "../../../../src/state/analytics/schema";
import { BATCHES_BETWEEN_SQL } from "../../../../src/state/analytics/query";
import type { ZoneAnalytics } from "../../../../src/state/analytics/zone-analytics";
import { errorRecord, rayOf } from "../../support/analytics";

const RULE = "0123456789abcdef0123456789abcdef";
let n = 0;
const stubFor = () => env.ZONE_ANALYTICS.get(env.ZONE_ANALYTICS.idFromName(`detail-${++n}-${Math.random()}.example`));

describe("the packed detail", () => {
  it("round-trips every value", () => {
    const details: RequestDetail[] = [];
    for (const accept of ACCEPT_FAMILIES)
      for (const client of ADDRESS_CLASSES)
        details.push({
          accept,
          client,
          ipAccess: "passed",
          firewall: "blocked",
          rateLimit: "not-reached",
          origin: { kind: "not-reached" },
          rules: "no-match",
          blockedBy: RULE,
        });
    for (const origin of [
      { kind: "failed" },
      { kind: "responded", format: "problem+json" },
      { kind: "responded", format: "other" },
    ] as const)
      for (const rules of ["not-run", "no-match", "matched"] as const)
        details.push({
          accept: "json",
          client: "none",
          ipAccess: "none",
          firewall: "none",
          rateLimit: "passed",
          origin,
          rules,
          blockedBy: null,
        });
    for (const d of details) expect(decodeDetail(encodeDetail(d))).toEqual(d);
    expect(encodeDetail(details[0]!)).toBe(`h4pbnnx:${RULE}`);
  });

  it("anything else reads as unknown (null), never as a wrong detail", () => {
    for (const text of [
      null,
      undefined,
      7,
      "",
      "h4pbn",
      "z4pbnnx",
      "h4pbnnq",
      `h4pbnnx:${RULE.slice(1)}`,
      "h4pbnnx:<b>",
    ])
      expect(decodeDetail(text)).toBeNull();
  });

  it("the largest record is no larger than the largest before the detail (docs/analytics.md 'Record size')", () => {
    const path = `/${"a".repeat(MAX_RECORDED_PATH - 2)}…`;
    const largest = (cause: string, detail: string | null): number =>
      new TextEncoder().encode(
        encodeBatch([
          errorRecord(0, 1_800_000_000_000, {
            ray: "ffffffffffffffff",
            code: 1016,
            status: 530,
            source: "origin",
            answered_by: "default",
            answer_id: RULE,
            format: "problem+json",
            method: "X".repeat(16),
            path,
            country: "FR",
            cause,
            detail,
          }),
        ]),
      ).byteLength - 2;
    const longestDetail = `cpbbbxm:${RULE}`;
    const before = largest(`${"c".repeat(299)}…`, null) - ",null".length; // twelve values, a 300-character cause
    const after = largest(`${"c".repeat(MAX_RECORDED_CAUSE - 1)}…`, longestDetail);
    expect(after).toBeLessThanOrEqual(before);
    console.log(JSON.stringify({ event: "record_size", largest_before: before, largest_after: after }));
  });
});

describe("schema migration 4", () => {
  it("gives every stored record a null detail, in place and in order; lookups and new records work", async () => {
    const stub = stubFor();
    const now = Date.now();
    const found = await runInDurableObject(stub, (instance: ZoneAnalytics, state) => {
      const sql = state.storage.sql;
      // Back to a version 3 store holding a batch of three twelve-value records.
      for (const table of ["events", "batches", "rays", "analytics_meta", "minutes", "hours", "path_hours"])
        sql.exec(`DROP TABLE IF EXISTS ${table}`);
      for (const table of [
        "traffic_minutes",
        "traffic_hours",
        "tallies",
        "alert_policies",
        "alert_events",
        "alert_attempts",
        "avoided_minutes",
        "avoided_hours",
      ])
        sql.exec(`DROP TABLE IF EXISTS ${table}`);
      sql.exec("DELETE FROM schema_migrations");
      migrate(state.storage, ANALYTICS_MIGRATIONS.slice(0, 3));
      const old = [1, 2, 3].map((i) => [
        rayOf(i),
        now,
        522,
        522,
        "edge",
        "default",
        null,
        "json",
        "GET",
        `/v3/${i}`,
        null,
        null,
      ]);
      sql.exec("INSERT INTO batches (id, newest, records) VALUES (1, ?, ?)", now, JSON.stringify(old));
      migrate(state.storage, ANALYTICS_MIGRATIONS);
      return {
        records: JSON.parse(
          sql.exec<{ records: string }>("SELECT records FROM batches WHERE id = 1").one().records,
        ) as unknown[][],
        lookup: instance.lookup(rayOf(2), now),
      };
    });
    expect(found.records.map((r) => [r.length, r[9], r[12]])).toEqual([
      [13, "/v3/1", null],
      [13, "/v3/2", null],
      [13, "/v3/3", null],
    ]);
    expect(found.lookup).toMatchObject({ ray: rayOf(2), path: "/v3/2", detail: null });
    const fresh: ErrorRecord = errorRecord(9, now, { detail: `jp-b--m:${RULE}` });
    expect(await stub.record([fresh])).toBe(1);
    expect((await stub.lookup(rayOf(9), now))?.detail).toBe(`jp-b--m:${RULE}`);
  });
});

describe("a replay's window (ZoneAnalytics.recordsBetween)", () => {
  it("the newest records of [since, until), at most limit, newest first; an index search", async () => {
    const stub = stubFor();
    const now = Date.now();
    // Three batches, a minute apart; each record a second apart.
    for (let b = 0; b < 3; b++)
      await stub.record(
        Array.from({ length: 4 }, (_, i) => errorRecord(100 + b * 4 + i, now - (3 - b) * 60_000 + i * 1000)),
      );
    const all = await stub.recordsBetween(0, now + 1, 1000, now);
    expect(all.map((r) => r.ray)).toEqual(Array.from({ length: 12 }, (_, i) => rayOf(111 - i)));
    expect((await stub.recordsBetween(0, now + 1, 5, now)).map((r) => r.ray)).toEqual(
      [111, 110, 109, 108, 107].map(rayOf),
    );
    // The middle batch only: its records are at now − 120 s … now − 117 s.
    const middle = await stub.recordsBetween(now - 121_000, now - 100_000, 1000, now);
    expect(middle.map((r) => r.ray)).toEqual([107, 106, 105, 104].map(rayOf));
    // Past retention nothing is read.
    expect(await stub.recordsBetween(0, now + 1, 1000, now + 8 * 86_400_000)).toEqual([]);
    const plan = await runInDurableObject(stub, (_: ZoneAnalytics, state) =>
      state.storage.sql
        .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${BATCHES_BETWEEN_SQL}`, 0, 1)
        .toArray()
        .map((r) => r.detail)
        .join(" | "),
    );
    expect(plan).toMatch(/SEARCH batches USING (COVERING )?INDEX batches_by_newest/);
  });
});
