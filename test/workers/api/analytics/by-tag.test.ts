/**
 * Errors by tag (docs/analytics.md "Errors by tag"): an account's zones, tagged through the zone tags API, serve a
 * known mix of healthy requests, origin errors and generated errors through the real Worker; the account endpoint
 * groups what was recorded by a tag key, filters by tags, refuses more zones than its bound (1040), shows a token
 * scoped to one zone only that zone, and never counts a zone of another account (one moved away, its tag left here).
 */
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { tokenDigestHex } from "../../../../src/api/kit/auth";
import worker from "../../../../src/index";
import type { TagStore } from "../../../../src/state/tags/tag-store";
import { etagOf } from "../../../../src/state/tags/etag";
import { TALLY_WAIT_MS } from "../../../../src/edge/analytics/recorder";
import { failOnPurpose, restore } from "../../../../src/state/analytics/faults";
import { shardName } from "../../../../src/state/analytics/shards";
import { runInDurableObject } from "cloudflare:test";
import { apiFetch, apiOk } from "../../support/envelope";
import { loopback, ports, putZone, sendTraffic, uniqueZone } from "../../support/origin";
import { newAccount, storeOf } from "../../support/tags";

interface Group {
  value: string | null;
  zones: string[];
  total: number;
  requests: number;
  error_rate: number | null;
  dropped: number;
}
interface ZoneRow {
  zone: string;
  value: string | null;
  total: number;
  requests: number;
  error_rate: number | null;
  dropped: number;
}
interface ByTag {
  scope: string;
  group_by: string | null;
  total: number;
  requests: number;
  error_rate: number | null;
  dropped: number;
  groups: Group[];
  zones: ZoneRow[];
}

const PAD = { "X-Pad": "p".repeat(1500) };

async function byTag(account: string, query: string): Promise<ByTag> {
  const res = await apiFetch("GET", `/accounts/${account}/analytics/errors?${query}`);
  const body = await res.json<{ result: ByTag }>();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.result;
}

/** A zone of `account` on the test origin (431 past 1 KiB of headers), tagged through the zone tags API. */
async function taggedZone(label: string, account: string, tags: Record<string, string>): Promise<string> {
  const zone = uniqueZone(label);
  await putZone(zone, { origin: loopback(ports.http), account: { id: account }, max_request_header_bytes: 1024 });
  await apiOk("PUT", `/zones/${zone}/tags`, { resource_type: "zone", resource_id: zone, tags });
  return zone;
}

/** Sends `ok` healthy requests, `passed` origin 503s (passed through) and `generated` 431s to the zone. */
async function traffic(zone: string, mix: { ok: number; passed: number; generated: number }): Promise<void> {
  const sent: Promise<Response>[] = [];
  for (let i = 0; i < mix.ok; i++) sent.push(sendTraffic(`http://${zone}/`));
  for (let i = 0; i < mix.passed; i++) sent.push(sendTraffic(`http://${zone}/status/503-json`));
  for (let i = 0; i < mix.generated; i++) sent.push(sendTraffic(`http://${zone}/big`, PAD));
  for (const res of await Promise.all(sent)) await res.body?.cancel();
}

/** Waits until the answer counts `requests` requests and `errors` errors or drops (writes are batched). */
async function settled(account: string, query: string, requests: number, errors: number): Promise<ByTag> {
  let last = await byTag(account, query);
  for (let i = 0; i < 80 && (last.requests < requests || last.total + last.dropped < errors); i++) {
    await new Promise((r) => setTimeout(r, 100));
    last = await byTag(account, query);
  }
  await new Promise((r) => setTimeout(r, 300)); // nothing more arrives later: exact, not at-least
  return byTag(account, query);
}

const groupsOf = (r: ByTag) =>
  Object.fromEntries(r.groups.map((g) => [String(g.value), [g.zones, g.total, g.requests, g.error_rate]]));

/**
 * One account: payments (errors 2 of 5 requests), search (3 of 4), one zone without `team` (1 of 3); and a zone
 * tagged payments here, then moved to another account, which serves errors of its own.
 */
async function scene() {
  const account = newAccount();
  const pay = await taggedZone("bt-pay", account, { team: "payments", env: "prod" });
  const search = await taggedZone("bt-search", account, { team: "search", env: "prod" });
  const plain = await taggedZone("bt-plain", account, { env: "staging" });
  const moved = await taggedZone("bt-moved", account, { team: "payments", env: "prod" });
  await putZone(moved, { origin: loopback(ports.http), account: { id: newAccount() } });
  await traffic(pay, { ok: 3, passed: 1, generated: 1 });
  await traffic(search, { ok: 1, passed: 2, generated: 1 });
  await traffic(plain, { ok: 2, passed: 1, generated: 0 });
  await traffic(moved, { ok: 0, passed: 4, generated: 4 });
  // The isolate's held request counts leave with the first count after a one-second window, whatever its zone
  // (src/edge/analytics/recorder.ts TALLY_WAIT_MS): one request to a zone of no account, a second later, sends them.
  const flush = uniqueZone("bt-flush");
  await putZone(flush, { origin: loopback(ports.http) });
  await new Promise((r) => setTimeout(r, TALLY_WAIT_MS + 100));
  await (await sendTraffic(`http://${flush}/`)).body?.cancel();
  return { account, pay, search, plain, moved };
}

describe("GET /accounts/{account}/analytics/errors", () => {
  it("groups errors by a tag against the counts sent; filters and groups; another account's zone never counts", async () => {
    const { account, pay, search, plain, moved } = await scene();
    const all = await settled(account, "group_by=tag:team", 12, 6);
    expect(all).toMatchObject({ scope: "account", group_by: "tag:team", total: 6, requests: 12, dropped: 0 });
    expect(all.error_rate).toBe(0.5);
    expect(groupsOf(all)).toEqual({
      payments: [[pay], 2, 5, 0.4],
      search: [[search], 3, 4, 0.75],
      null: [[plain], 1, 3, 0.333333],
    });
    // Most errors first, untagged last among equals.
    expect(all.groups.map((g) => g.value)).toEqual(["search", "payments", null]);
    expect(all.zones.map((z) => [z.zone, z.value, z.total, z.requests])).toEqual([
      [search, "search", 3, 4],
      [pay, "payments", 2, 5],
      [plain, null, 1, 3],
    ]);
    expect(JSON.stringify(all)).not.toContain(moved);

    // Each zone's row is what the zone's own analytics API answers.
    for (const row of all.zones) {
      const zoneAnswer = (
        await apiOk<{ total: number; requests: number }>("GET", `/zones/${row.zone}/analytics/errors`)
      ).result;
      expect([zoneAnswer.total, zoneAnswer.requests]).toEqual([row.total, row.requests]);
    }

    // Filter + group: env=prod keeps payments and search; the zone API's filters apply within.
    const prod = await byTag(account, "tag=env=prod&group_by=tag:team");
    expect(groupsOf(prod)).toEqual({ payments: [[pay], 2, 5, 0.4], search: [[search], 3, 4, 0.75] });
    const generated = await byTag(account, "tag=env=prod&tag=team&group_by=tag:team&source=edge");
    expect(generated.groups.map((g) => [g.value, g.total])).toEqual([
      ["payments", 1],
      ["search", 1],
    ]);
    const noneMatch = await byTag(account, "tag=team=nobody&group_by=tag:team");
    expect([noneMatch.total, noneMatch.groups, noneMatch.zones]).toEqual([0, [], []]);
    // Without group_by: totals and zones, no groups.
    const ungrouped = await byTag(account, "tag=team!=search");
    expect([ungrouped.total, ungrouped.requests, ungrouped.groups.length]).toEqual([3, 8, 0]);
  });

  it("a token scoped to one zone sees only that zone; tags:read and some scope are needed", async () => {
    const { account, pay, search } = await scene();
    await settled(account, "group_by=tag:team", 12, 6);
    const tokens = JSON.stringify([
      { name: "one", sha256: await tokenDigestHex("tok-one"), zones: [pay], permissions: ["zones:read", "tags:read"] },
      {
        name: "acct",
        sha256: await tokenDigestHex("tok-acct"),
        accounts: [account],
        permissions: ["zones:read", "tags:read"],
      },
      { name: "no-tags", sha256: await tokenDigestHex("tok-notags"), accounts: [account], permissions: ["zones:read"] },
      {
        name: "other-acct",
        sha256: await tokenDigestHex("tok-other"),
        accounts: [newAccount()],
        permissions: ["zones:read", "tags:read"],
      },
    ]);
    const as = async (token: string, query: string) => {
      const res = await worker.fetch(
        new Request(`http://localhost/accounts/${account}/analytics/errors?${query}`, {
          headers: { Authorization: `Bearer ${token}` },
        }),
        { ...env, API_TOKENS: tokens },
        createExecutionContext(),
      );
      return { status: res.status, body: await res.json<{ result: ByTag; errors: { code: number }[] }>() };
    };
    const one = await as("tok-one", "group_by=tag:team");
    expect(one.status).toBe(200);
    expect(one.body.result.scope).toBe("token-zones");
    expect(groupsOf(one.body.result)).toEqual({ payments: [[pay], 2, 5, 0.4] });
    expect(JSON.stringify(one.body)).not.toContain(search);
    const acct = await as("tok-acct", "group_by=tag:team");
    expect(acct.status).toBe(200);
    expect(acct.body.result.zones).toHaveLength(3);
    for (const token of ["tok-notags", "tok-other"]) {
      const refused = await as(token, "group_by=tag:team");
      expect(refused.status, token).toBe(403);
      expect(refused.body.errors[0]?.code).toBe(10001);
    }
  });

  it("more zones than the bound is refused with 1040 before any zone is read; a narrower filter passes", async () => {
    const account = newAccount();
    // 51 zones tagged big and one tagged small, straight into the account's store (no zone is configured: the bound
    // is checked on the listing, before any zone is read).
    const names = Array.from({ length: 52 }, (_, i) => `bound-${i}.example`);
    const etags = await Promise.all(names.map((_, i) => etagOf([["team", i < 51 ? "big" : "small"]])));
    await runInDurableObject(storeOf(account), (store: TagStore) => {
      names.forEach((zone, i) => {
        const put = store.putTags({
          ref: { type: "zone", parent: zone, id: zone },
          tags: [["team", i < 51 ? "big" : "small"]],
          etag: etags[i]!,
          ifMatch: null,
          limit: 1e9,
        });
        if (!put.ok) throw new Error(JSON.stringify(put.error));
      });
    });
    for (const query of ["group_by=tag:team", "tag=team=big&group_by=tag:team", "tag=team"]) {
      const res = await apiFetch("GET", `/accounts/${account}/analytics/errors?${query}`);
      const body = await res.json<{ errors: { code: number; message: string }[] }>();
      expect(res.status, query).toBe(400);
      expect(body.errors[0]?.code).toBe(1040);
      expect(body.errors[0]?.message).toMatch(/more than 50 zones match/);
      expect(body.errors[0]?.message).toMatch(/narrow it with another tag filter/);
    }
    // 50 match: read (none is configured, so none counts).
    const fifty = await byTag(account, "tag=team=small&group_by=tag:team");
    expect([fifty.total, fifty.zones]).toEqual([0, []]);
  });

  it("effective=true groups by inherited tags; dropped records are merged per zone, group and account", async () => {
    const account = newAccount();
    // The account's default set gives every zone team=platform unless the zone sets its own (docs/tags-api.md).
    await apiOk("PUT", `/accounts/${account}/tags`, {
      resource_type: "account",
      resource_id: account,
      tags: { team: "platform" },
    });
    const own = await taggedZone("bt-own", account, { team: "payments" });
    const inheriting = await taggedZone("bt-inherit", account, { env: "prod" });
    await apiOk("PUT", `/zones/${inheriting}/analytics/settings`, { shards: 1 });
    // Its one shard refuses: 3 errors are dropped and their count waits in the isolate; restored, one more error
    // is stored and carries the drops (docs/analytics.md "Loss is counted").
    failOnPurpose(shardName(inheriting, 0));
    try {
      await traffic(inheriting, { ok: 0, passed: 3, generated: 0 });
    } finally {
      restore(shardName(inheriting, 0));
    }
    await traffic(inheriting, { ok: 1, passed: 1, generated: 0 });
    await traffic(own, { ok: 1, passed: 1, generated: 0 });
    const flush = uniqueZone("bt-flush");
    await putZone(flush, { origin: loopback(ports.http) });
    await new Promise((r) => setTimeout(r, TALLY_WAIT_MS + 100));
    await (await sendTraffic(`http://${flush}/`)).body?.cancel();

    const plain = await settled(account, "group_by=tag:team", 7, 5);
    expect(plain.dropped).toBe(3);
    expect(plain.groups.map((g) => [g.value, g.zones, g.total, g.dropped])).toEqual([
      ["payments", [own], 1, 0],
      [null, [inheriting], 1, 3],
    ]);
    const effective = await byTag(account, "group_by=tag:team&effective=true");
    expect(effective.groups.map((g) => [g.value, g.zones, g.total, g.requests, g.dropped])).toEqual([
      ["payments", [own], 1, 2, 0],
      ["platform", [inheriting], 1, 5, 3],
    ]);
    // The filter matches the inherited value too.
    const platform = await byTag(account, "tag=team=platform&effective=true&group_by=tag:team");
    expect(platform.zones.map((z) => [z.zone, z.value, z.dropped])).toEqual([[inheriting, "platform", 3]]);
    const zoneAnswer = (await apiOk<{ dropped: number }>("GET", `/zones/${inheriting}/analytics/errors`)).result;
    expect(zoneAnswer.dropped).toBe(3);
  }, 15_000);

  it.each([
    ["group_by=team", 10101, /group_by must be tag:<key>/],
    ["group_by=tag:bad%20key", 1014, /Invalid tag key/],
    ["tag=!", 1007, /tag parameter must be in format/],
    [Array.from({ length: 21 }, () => "tag=a").join("&"), 1010, /too many tag filters/],
    ["step=second", 10101, /^step must be one of minute, hour$/],
    ["step=minute&since=0", 10102, /over the limit/],
    ["x=1", 10101, /^x is not a parameter of this query \(tag, group_by, effective, since/],
    ["group_by=code", 10101, /^group_by must be tag:<key>/],
    ["effective=maybe", 1007, /effective must be true or false/],
  ])("%s → 400 %i", async (query, code, message) => {
    const res = await apiFetch("GET", `/accounts/${newAccount()}/analytics/errors?${query}`);
    const body = await res.json<{ errors: { code: number; message: string }[] }>();
    expect(res.status).toBe(400);
    expect(body.errors[0]?.code).toBe(code);
    expect(body.errors[0]?.message).toMatch(message);
  });

  it("an account id that is not 32 lower-case hex is 404", async () => {
    const res = await apiFetch("GET", "/accounts/ABC/analytics/errors");
    expect(res.status).toBe(404);
    await res.body?.cancel();
  });
});

describe("the account page", () => {
  it("is public, holds no data, runs under the zone page's headers and CSP; a malformed account is not the page", async () => {
    const account = newAccount();
    const res = await exports.default.fetch(`http://localhost/accounts/${account}/analytics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    const csp = res.headers.get("Content-Security-Policy")!;
    expect(csp).toMatch(/default-src 'none'; script-src 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get("Cross-Origin-Opener-Policy")).toBe("same-origin");
    expect(res.headers.get("Cross-Origin-Resource-Policy")).toBe("same-origin");
    expect(res.headers.get("X-Frame-Options")).toBe("DENY");
    const html = await res.text();
    expect(html).toContain(`data-account="${account}"`);
    expect(html).toContain("sessionStorage");
    expect(html).not.toMatch(/\ssrc=|<link\b/);
    const bad = await exports.default.fetch(`http://localhost/accounts/%3Cscript%3E/analytics`);
    expect(bad.status).toBe(401); // not an account id: not the page, so the API's auth answers
    await bad.body?.cancel();
  });
});
