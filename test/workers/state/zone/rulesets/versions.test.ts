/**
 * The ruleset versions table in the zone writer's own SQLite storage (src/state/zone/rulesets/versions.ts;
 * docs/rulesets-api.md "Versions"), on a real ZoneWriter object: the bound per ruleset, the rulesets kept apart, the
 * query plan on the primary key, and a deleted zone taking its versions with it.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_VERSIONS_KEPT, RulesetVersions } from "../../../../../src/state/zone/rulesets/versions";
import type { StoredRuleset } from "../../../../../src/state/zone/rulesets/validate";
import type { ZoneWriter } from "../../../../../src/state/zone/writer";
import { putZone, uniqueZone } from "../../../support/origin";
import { apiOk } from "../../../support/envelope";

const ruleset = (id: string, version: number): StoredRuleset => ({
  id,
  version: String(version),
  last_updated: new Date(0).toISOString(),
  rules: [],
});

describe("ruleset versions in the zone writer", () => {
  it(`keeps the newest ${MAX_VERSIONS_KEPT} of each ruleset, rulesets apart, reads on the primary key`, async () => {
    const stub = env.ZONE_WRITER.get(env.ZONE_WRITER.idFromName(uniqueZone("versions")));
    await runInDurableObject(stub, (_: ZoneWriter, state) => {
      const versions = new RulesetVersions(state.storage.sql);
      const a = "a".repeat(32);
      const b = "b".repeat(32);
      for (let v = 1; v <= MAX_VERSIONS_KEPT + 5; v++) versions.record("http_custom_errors", ruleset(a, v));
      versions.record("http_ratelimit", ruleset(b, 1));
      const listed = versions.list(a).map((v) => Number(v.version));
      expect(listed).toEqual(Array.from({ length: MAX_VERSIONS_KEPT }, (_, i) => i + 6));
      expect(versions.get(a, 5)).toBeNull();
      expect(versions.get(a, 6)?.ruleset.version).toBe("6");
      expect(versions.get(b, 6)).toBeNull();
      expect(versions.list(b).map((v) => v.phase)).toEqual(["http_ratelimit"]);
      const plan = state.storage.sql
        .exec<{ detail: string }>(
          "EXPLAIN QUERY PLAN SELECT phase, body FROM ruleset_versions WHERE ruleset_id = ? AND version = ?",
          a,
          6,
        )
        .toArray()
        .map((row) => row.detail);
      expect(plan.join(" ")).toMatch(/USING PRIMARY KEY/);
      versions.deleteRuleset(a);
      expect(versions.list(a)).toEqual([]);
      expect(versions.list(b)).toHaveLength(1);
    });
  });

  it("deleting the zone deletes its versions; the zone created again starts without them", async () => {
    const zone = uniqueZone("versions");
    await putZone(zone, { origin: "http://o.example" });
    const put = () =>
      apiOk("PUT", `/zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`, {
        rules: [{ expression: "true", action: "block" }],
      });
    await put();
    await put();
    const stub = env.ZONE_WRITER.get(env.ZONE_WRITER.idFromName(zone));
    const count = () =>
      runInDurableObject(stub, (_: ZoneWriter, state) =>
        Number(state.storage.sql.exec("SELECT count(*) AS n FROM ruleset_versions").one().n),
      );
    expect(await count()).toBe(2);
    await apiOk("DELETE", `/zones/${zone}`);
    expect(await count()).toBe(0);
  });
});
