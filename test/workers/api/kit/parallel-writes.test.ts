/**
 * The write model (docs/architecture.md "The API kit"; docs/configuration.md "The writer of record"): every zone
 * write is an edit applied by the zone's writer inside its serialised step, so parallel writes of every section of
 * one zone all land, none lost and none refused, through the real Worker, the real ZoneWriter and real KV (asset
 * pages fetched from the loopback origin, test/servers/http-origin.ts `/asset/*`).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { api as apiCall } from "../../support/envelope";

const N = 20;

/** The shared `api`, its result an object unless told otherwise (`null` on a failure). */
const api = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
  apiCall<T | null>(method, path, body);

const settings = (i: number) => ({ plan: "enterprise", origin: loopback(ports.http), read_timeout: 10 + i });
const page = (i: number) => `<html><head></head><body>page ${i} ::EDGE_ERROR_500S_BOX::</body></html>`;
const accessRules = (i: number) => ({
  rules: [{ mode: "block", configuration: { target: "ip", value: `192.0.2.${i}` }, notes: `write ${i}` }],
});
const normalization = (i: number) => ({ scope: i % 2 === 0 ? "incoming" : "both", type: "rfc3986" });
const rule = (i: number) => ({
  expression: `http.request.uri.path eq "/r${i}"`,
  action: "serve_error",
  action_parameters: { content: `{"rule":${i}}`, content_type: "application/json" },
});

describe("parallel writes of every section of one zone all land (no 409, none lost)", () => {
  it(`${N} writes each of settings, pages, assets, access rules, URL normalisation and rules`, async () => {
    const zone = uniqueZone("parallel");
    await putZone(zone, settings(0));
    const entry = await api<{ id: string; version: string }>(
      "PUT",
      `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`,
      { rules: [] },
    );
    expect(entry.status).toBe(200);
    const rulesetId = entry.body.result!.id;
    const before = (await api<{ version: number }>("GET", `/zones/${zone}`)).body.result!.version;

    const writes = Array.from({ length: N }, (_, i) => [
      api("PUT", `/zones/${zone}`, settings(i)),
      api("PUT", `/zones/${zone}/custom_pages/500_errors`, { state: "customized", content: page(i) }),
      api("POST", `/zones/${zone}/custom_pages/assets`, { name: `asset_${i}`, url: `https://${zone}/asset/404.html` }),
      api("PUT", `/zones/${zone}/access_rules`, accessRules(i)),
      api("PUT", `/zones/${zone}/url_normalization`, normalization(i)),
      api("POST", `/zones/${zone}/rulesets/${rulesetId}/rules`, rule(i)),
    ]).flat();
    const started = performance.now();
    const answers = await Promise.all(writes);
    console.log(`${writes.length} parallel zone writes: ${(performance.now() - started).toFixed(0)} ms`);

    expect(answers.map((a) => `${a.status} ${a.body.errors[0]?.message ?? ""}`.trim())).toEqual(
      Array(writes.length).fill("200"),
    );
    // Every write is a version of its own: none was merged into another or lost.
    const after = (await api<{ version: number; read_timeout: number }>("GET", `/zones/${zone}`)).body.result!;
    expect(after.version).toBe(before + writes.length);
    expect(Array.from({ length: N }, (_, i) => 10 + i)).toContain(after.read_timeout);

    const assets = (await api<{ name: string }[]>("GET", `/zones/${zone}/custom_pages/assets?per_page=100`)).body;
    expect(assets.result!.map((a) => a.name).sort()).toEqual(Array.from({ length: N }, (_, i) => `asset_${i}`).sort());
    for (let i = 0; i < N; i++) expect(await env.CONFIG.get(`zone:${zone}:asset:asset_${i}`)).not.toBeNull();

    const rules = (await api<{ rules: { expression: string }[] }>("GET", `/zones/${zone}/rulesets/${rulesetId}`)).body;
    expect(rules.result!.rules.map((r) => r.expression).sort()).toEqual(
      Array.from({ length: N }, (_, i) => rule(i).expression).sort(),
    );

    // Whole-value writes: the last one serialised wins, and it is one of those sent, whole.
    const shown = (await api<{ content: string }>("GET", `/zones/${zone}/custom_pages/500_errors`)).body.result!;
    expect(Array.from({ length: N }, (_, i) => page(i))).toContain(shown.content);
    const listed = (await api<{ rules: { notes: string }[] }>("GET", `/zones/${zone}/access_rules`)).body.result!;
    expect(listed.rules).toHaveLength(1);
    expect(listed.rules[0]!.notes).toMatch(/^write \d+$/);
    const normalised = (await api("GET", `/zones/${zone}/url_normalization`)).body.result;
    expect([normalization(0), normalization(1)]).toContainEqual(normalised);
  });

  it(`${N} parallel asset deletes and ${N} page writes all land`, async () => {
    const zone = uniqueZone("parallel-delete");
    await putZone(zone, settings(0));
    for (let i = 0; i < N; i++) {
      const made = await api("POST", `/zones/${zone}/custom_pages/assets`, {
        name: `gone_${i}`,
        url: `https://${zone}/asset/404.html`,
      });
      expect(made.status).toBe(200);
    }
    const answers = await Promise.all([
      ...Array.from({ length: N }, (_, i) => api("DELETE", `/zones/${zone}/custom_pages/assets/gone_${i}`)),
      ...Array.from({ length: N }, (_, i) =>
        api("PUT", `/zones/${zone}/custom_pages/1000_errors`, {
          state: "customized",
          content: `<html><head></head><body>${i} ::EDGE_ERROR_1000S_BOX::</body></html>`,
        }),
      ),
    ]);
    expect(answers.map((a) => a.status)).toEqual([...Array<number>(N).fill(204), ...Array<number>(N).fill(200)]);
    expect((await api<unknown[]>("GET", `/zones/${zone}/custom_pages/assets`)).body.result).toEqual([]);
    for (let i = 0; i < N; i++) expect(await env.CONFIG.get(`zone:${zone}:asset:gone_${i}`)).toBeNull();
  });
});
