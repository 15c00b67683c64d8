/**
 * The evaluation-budget work (2026-11-23): a list `GET /zones/{zone}/access_rules` returns can always be PUT back. Through the real Worker
 * and the zone's real writer: the largest legal lists (the longest values; notes that cost the most bytes on the
 * wire and in storage) go in, come out, and go back in unchanged; one byte over the endpoint's limit is a 413
 * envelope; a body under the limit that would render over it once ids and notes are filled in is a 400.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { formatAddress, parseCidr } from "../../../../src/state/zone/access-rules/address";
import { ACCESS_RULES_MAX_BYTES, LONGEST_RULE, presentedBytes } from "../../../../src/state/zone/access-rules/size";
import type { PresentedAccessRule } from "../../../../src/state/zone/access-rules/types";
import { ACCESS_RULE_LIMITS, parseAccessRules } from "../../../../src/state/zone/access-rules/validate";
import { MAX_API_BODY_BYTES } from "../../../../src/api/kit/body";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { api } from "../../support/envelope";

// Lists of 1.6 MB go through the API several times per test.
vi.setConfig({ testTimeout: 60_000 });

const bytes = (text: string): number => new TextEncoder().encode(text).byteLength;

const accessRules = (zone: string): string => `/zones/${zone}/access_rules`;

/** Rule `i` at the longest legal size: a full eight-group IPv6 /128 (every group four digits), a 32-hex id. */
function longest(i: number, notes = ""): PresentedAccessRule {
  const group = (0x1000 + i).toString(16); // 0x1000..0x370f: always four digits
  return {
    id: (i + 1).toString(16).padStart(32, "0"),
    mode: "block",
    configuration: { target: "ip_range", value: `ffff:ffff:ffff:ffff:ffff:ffff:${group}:ffff/128` },
    notes,
  };
}

/** PUT `text`, GET, PUT GET's `result` back, GET again: every step 200 and the list unchanged. */
async function roundTrip(text: string): Promise<string> {
  const zone = uniqueZone("acl-size");
  await putZone(zone, { origin: loopback(ports.http) });
  const put = await api("PUT", accessRules(zone), text);
  expect(put.status, put.text.slice(0, 400)).toBe(200);
  const got = await api("GET", accessRules(zone));
  expect(got.status).toBe(200);
  const result = JSON.stringify(got.body.result);
  expect(result).toBe(text); // the body was already canonical: GET renders exactly it
  expect(bytes(result)).toBeLessThanOrEqual(ACCESS_RULES_MAX_BYTES);
  const again = await api("PUT", accessRules(zone), result);
  expect(again.status, again.text.slice(0, 400)).toBe(200);
  const after = await api("GET", accessRules(zone));
  expect(JSON.stringify(after.body.result)).toBe(result);
  return zone;
}

describe("the limit is the size of the largest list GET can render", () => {
  it("is exactly maxRules of the longest rule; no legal rule without notes renders longer", () => {
    const list = { rules: Array.from({ length: ACCESS_RULE_LIMITS.maxRules }, () => LONGEST_RULE) };
    expect(bytes(JSON.stringify(list))).toBe(ACCESS_RULES_MAX_BYTES);
    expect(ACCESS_RULES_MAX_BYTES).toBe(1_600_011);
    expect(ACCESS_RULES_MAX_BYTES).toBeGreaterThan(MAX_API_BODY_BYTES); // the reported 1,213,135 bytes fit
    // The candidates for the longest canonical value of each target, as the validator stores them.
    const candidates = [
      ["ip", "255.255.255.255"],
      ["ip", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
      ["ip", "::ffff:255.255.255.255"],
      ["ip_range", "255.255.255.255/32"],
      ["ip_range", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128"],
      ["ip_range", "::ffff:255.255.255.255/128"],
      ["country", "ZZ"],
    ];
    for (const [target, value] of candidates) {
      const parsed = parseAccessRules(
        { rules: [{ id: "f".repeat(32), mode: "block", configuration: { target, value } }] },
        {},
      );
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
      expect(presentedBytes(parsed.value)).toBeLessThanOrEqual(bytes(JSON.stringify({ rules: [LONGEST_RULE] })));
    }
    // An IPv6 range's canonical text never passes 43 characters (RFC 5952: nothing to compress at most).
    const widest = parseCidr("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128");
    if ("kind" in widest) throw new Error("unexpected");
    expect(`${formatAddress(widest.network)}/128`).toBe(LONGEST_RULE.configuration.value);
  });
});

describe("GET → PUT round trip through the Worker", () => {
  it("10,000 of the longest rules (exactly the limit): PUT, GET, PUT GET's result back → identical", async () => {
    const list = { rules: Array.from({ length: ACCESS_RULE_LIMITS.maxRules }, (_, i) => longest(i)) };
    const text = JSON.stringify(list);
    expect(bytes(text)).toBe(ACCESS_RULES_MAX_BYTES);
    await roundTrip(text);
  });

  it("the storage worst case at exactly the limit: 1,024-character notes that are ASCII but for one '€'", async () => {
    // One character outside Latin-1 makes the runtime hold the whole string in two bytes per character, so these
    // notes cost about twice their wire size in the zone's stored document: the writer stores UTF-8 (writer.ts).
    const heavy = "a".repeat(ACCESS_RULE_LIMITS.maxNotes - 1) + "€";
    const rules: PresentedAccessRule[] = [];
    let size = bytes('{"rules":[]}');
    const cost = (rule: PresentedAccessRule) => bytes(JSON.stringify(rule)) + (rules.length > 0 ? 1 : 0);
    while (size + cost(longest(rules.length, heavy)) <= ACCESS_RULES_MAX_BYTES) {
      size += cost(longest(rules.length, heavy));
      rules.push(longest(rules.length, heavy));
    }
    // Fill what is left (less than one heavy rule) exactly with one more rule of plain notes, shaving the last
    // heavy rule's ASCII part when even an empty note does not fit.
    let extra = ACCESS_RULES_MAX_BYTES - size - cost(longest(rules.length)); // this many bytes of notes
    const last = rules.pop();
    if (!last) throw new Error("unexpected");
    if (extra < 0) rules.push({ ...last, notes: last.notes.slice(-extra) });
    else rules.push(last);
    extra = Math.max(extra, 0);
    // 1,025 bytes in 1,024 characters when needed: one two-byte character.
    const plain = extra <= ACCESS_RULE_LIMITS.maxNotes ? "n".repeat(extra) : "é" + "n".repeat(extra - 2);
    expect(plain.length).toBeLessThanOrEqual(ACCESS_RULE_LIMITS.maxNotes);
    rules.push(longest(rules.length, plain));
    const text = JSON.stringify({ rules });
    expect(bytes(text)).toBe(ACCESS_RULES_MAX_BYTES);
    expect(rules.length).toBeGreaterThan(1000);
    await roundTrip(text);
  });

  it("notes at their most expensive escape (control characters, 6 bytes each) round-trip", async () => {
    const notes = '\u0001\u001f"\\\u2028\ud800'.repeat(170) + "\u0000\u0000\u0000\u0000"; // 1,024 units
    expect(notes.length).toBe(ACCESS_RULE_LIMITS.maxNotes);
    const text = JSON.stringify({ rules: Array.from({ length: 200 }, (_, i) => longest(i, notes)) });
    await roundTrip(text);
  });
});

describe("over the limit", () => {
  const maximal = JSON.stringify({
    rules: Array.from({ length: ACCESS_RULE_LIMITS.maxRules }, (_, i) => longest(i)),
  });

  it("one byte over (declared length) → 413 envelope naming the limit; nothing stored", async () => {
    const zone = uniqueZone("acl-over");
    await putZone(zone, { origin: loopback(ports.http) });
    const over = maximal + " ";
    expect(bytes(over)).toBe(ACCESS_RULES_MAX_BYTES + 1);
    const res = await api("PUT", accessRules(zone), over);
    expect(res.status).toBe(413);
    expect(res.body.success).toBe(false);
    expect(res.body.errors[0]?.code).toBe(10413);
    expect(res.body.errors[0]?.message).toContain(String(ACCESS_RULES_MAX_BYTES));
    expect((await api("GET", accessRules(zone))).body.result).toEqual({ rules: [] });
  });

  it("one byte over, streamed without Content-Length → 413, cut off while reading", async () => {
    const zone = uniqueZone("acl-over-stream");
    await putZone(zone, { origin: loopback(ports.http) });
    const data = new TextEncoder().encode(maximal + " ");
    let offset = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= data.byteLength) return controller.close();
        controller.enqueue(data.slice(offset, offset + 64 * 1024));
        offset += 64 * 1024;
      },
    });
    const res = await api("PUT", accessRules(zone), stream);
    expect(res.status).toBe(413);
    expect(res.body.errors[0]?.code).toBe(10413);
  });

  it("a body under the limit that GET would render over it (ids and notes filled in) → 400; nothing stored", async () => {
    const zone = uniqueZone("acl-render-over");
    await putZone(zone, { origin: loopback(ports.http) });
    // Without ids the body is 400,000 bytes shorter than what GET would answer; 2,000 bytes of notes push the
    // rendering over the limit while the body stays far under it.
    const rules = Array.from({ length: ACCESS_RULE_LIMITS.maxRules }, (_, i) => {
      const { id: _id, ...rest } = longest(i, i < 2 ? "x".repeat(1000) : "");
      return rest;
    });
    const text = JSON.stringify({ rules });
    expect(bytes(text)).toBeLessThan(ACCESS_RULES_MAX_BYTES);
    const res = await api("PUT", accessRules(zone), text);
    expect(res.status, res.text.slice(0, 300)).toBe(400);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]?.code).toBe(20026);
    expect(res.body.errors[0]?.message).toMatch(/as GET returns them .* would be 1602011 bytes, at most 1600011/);
    expect((await api("GET", accessRules(zone))).body.result).toEqual({ rules: [] });
  });

  it("other management bodies keep the 1 MiB limit", async () => {
    const zone = uniqueZone("acl-other");
    const res = await api("PUT", `/zones/${zone}`, {
      plan: "pro",
      origin: loopback(ports.http),
      pad: "x".repeat(MAX_API_BODY_BYTES),
    });
    expect(res.status).toBe(413);
  });
});

describe("the zone's whole document has a limit too (one Durable Object value, ≤ 2 MB)", () => {
  it("a change that would outgrow it → 413 naming both sizes; nothing stored, traffic unchanged", async () => {
    const zone = uniqueZone("acl-doc");
    await putZone(zone, { plan: "enterprise", origin: loopback(ports.http) });
    const list = JSON.stringify({ rules: Array.from({ length: ACCESS_RULE_LIMITS.maxRules }, (_, i) => longest(i)) });
    expect((await api("PUT", accessRules(zone), list)).status).toBe(200);
    // 60 custom error rules of 10,000 bytes each: a legal ruleset body (under 1 MiB) that the document cannot add.
    const rules = Array.from({ length: 60 }, (_, i) => ({
      expression: `http.request.uri.path eq "/p${i}"`,
      action: "serve_error",
      action_parameters: { content: "x".repeat(10_000), content_type: "text/plain" },
    }));
    const path = `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`;
    // A dry run applies the edit to the document as read, with the same check: the same 413, nothing stored.
    const rehearsed = await api("PUT", `${path}?dry_run=true`, { rules });
    expect(rehearsed.status).toBe(413);
    expect(rehearsed.body.errors[0]?.code).toBe(10413);
    const put = await api("PUT", path, { rules });
    expect(put.status, put.text.slice(0, 300)).toBe(413);
    expect(put.body.errors[0]?.code).toBe(10413);
    expect(put.body.errors[0]?.message).toMatch(/configuration would be \d+ bytes, over its limit of 1990000 bytes/);
    // Nothing stored: the access rules are intact and the ruleset was never written; traffic is served.
    expect(JSON.stringify((await api("GET", accessRules(zone))).body.result)).toBe(list);
    const stored = await api<{ rules?: unknown[] } | null>("GET", path);
    expect(stored.body.result?.rules ?? []).toEqual([]);
    const served = await exports.default.fetch(`http://${zone}/p1`, { headers: { "CF-Connecting-IP": "192.0.2.1" } });
    expect(served.status).toBe(200);
    await served.body?.cancel();
  });
});
