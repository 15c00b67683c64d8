/**
 * A Host that cannot be a DNS hostname (the evaluation-budget work (2026-11-23)): over 253 characters, a label over 63, an empty label,
 * a character outside letters, digits and hyphens, a hyphen at a label's edge. Such a name can never be a zone
 * (the zones API refuses it), so zone traffic answers 1001 without reading KV `CONFIG` (whose keys stop at 512
 * bytes: a longer key used to throw, answered as a CONFIG outage), the service endpoints serve the defaults, and
 * no outage line is ever logged. The exact 253 / 63 boundaries are ordinary hosts.
 *
 * "No KV read" is shown three ways on the real binding: a spy that calls through to the real `CONFIG.get` counts
 * zero calls; a valid zone document stored by hand in real KV under the long name's key is never served; the
 * per-isolate zone cache gains no entry.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../../src/index";
import { cachedHostCount } from "../../../src/state/zone/cache";
import { zoneKey } from "../../../src/state/zone/store";
import { expectGeneratedError, loopback, ports, putZone } from "../support/origin";
import { api, apiOk } from "../support/envelope";

afterEach(() => vi.restoreAllMocks());

/** `count` labels of `size` characters joined by dots, unique per call (so the zone cache never answers). */
let serial = 0;
function host(length: number, label = 63): string {
  serial += 1;
  const tag = `h${serial}${Math.random().toString(36).slice(2, 6)}`;
  const labels: string[] = [];
  let total = 0;
  while (total < length) {
    const room = length - total - (labels.length > 0 ? 1 : 0);
    const size = Math.min(label, room);
    const first = labels.length === 0 ? tag.slice(0, size) : "";
    labels.push((first + "a".repeat(size)).slice(0, size));
    total += size + (labels.length > 1 ? 1 : 0);
  }
  const name = labels.join(".");
  expect(name.length).toBe(length);
  return name;
}

/** One request through the Worker's handler with the real bindings, its `edge_error` lines, and the KV reads. */
async function send(
  url: string,
  accept = "application/json",
  bindings: Env = env,
): Promise<{ res: Response; errors: string[]; logs: string[]; kvReads: number }> {
  const kvGet = vi.spyOn(env.CONFIG, "get"); // calls through to the real binding; counts
  const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(url, { headers: { Accept: accept } }), bindings, ctx);
  await waitOnExecutionContext(ctx);
  const lines = (spy: typeof error) => spy.mock.calls.flatMap((call) => String(call[0]).split("\n"));
  const result = { res, errors: lines(error), logs: lines(log), kvReads: kvGet.mock.calls.length };
  vi.restoreAllMocks();
  return result;
}

/** A valid zone document, stored by hand in real KV under `zone:{name}` (the writer would refuse the name). */
async function storeRawZone(name: string): Promise<void> {
  const document = {
    schema: 1,
    version: 1,
    zone: name,
    modified_on: new Date().toISOString(),
    settings: {
      plan: "pro",
      origin: loopback(ports.http),
      connect_timeout: 1,
      read_timeout: 1,
      max_request_header_bytes: 32768,
    },
  };
  await env.CONFIG.put(zoneKey(name), JSON.stringify(document));
}

const INVALID: readonly (readonly [string, () => string])[] = [
  ["254 characters", () => host(254)],
  ["a label of 64 characters", () => `${"b".repeat(60)}${1000 + (serial++ % 9000)}.example`],
  ["600 characters", () => host(600)],
  ["10 KB", () => host(10_240)],
  ["an empty label", () => `a..b${serial++}.example`],
  ["a leading dot", () => `.c${serial++}.example`],
  ["an underscore", () => `my_host${serial++}.example`],
  ["a label starting with a hyphen", () => `-d${serial++}.example`],
  ["a label ending with a hyphen", () => `e${serial++}-.example`],
  ["a character the URL parser keeps", () => `f${serial++}!.example`],
];

describe("a Host that is not a DNS hostname → 1001 before any KV read, no outage logged", () => {
  it.each(INVALID)("%s → 1001 (structured, negotiated), CONFIG never read, nothing logged as 5xx", async (_, make) => {
    const name = make();
    const before = cachedHostCount();
    for (const [accept, type] of [
      ["application/json", "application/json"],
      ["text/markdown", "text/markdown"],
      ["text/html", "text/html"],
    ] as const) {
      const sent = await send(`http://${name}/some/path`, accept);
      expect(sent.res.status, (await sent.res.clone().text()).slice(0, 300)).toBe(409); // 1001's status (catalog)
      expect(sent.res.headers.get("Content-Type")).toMatch(new RegExp(`^${type}`));
      expect(sent.res.headers.get("Vary")).toMatch(/Accept/);
      if (type === "application/json") expect(await sent.res.json()).toMatchObject({ error_code: 1001 });
      else expect(await sent.res.text()).toContain("1001");
      expect(sent.kvReads).toBe(0);
      expect(sent.errors).toEqual([]); // console.error carries 5xx lines: no outage, no CONFIG failure
      const lines = sent.logs.map((l) => JSON.parse(l) as { event: string; code: number; status: number });
      expect(lines.map((l) => [l.event, l.code, l.status])).toEqual([["edge_error", 1001, 409]]);
    }
    expect(cachedHostCount()).toBe(before); // never entered the zone cache (it would evict real zones)
  });

  it("a zone document stored under the 254-character name's key is never read", async () => {
    const name = host(254);
    await storeRawZone(name); // a 258-byte key: KV accepts it
    const sent = await send(`http://${name}/echo`);
    await expectGeneratedError(sent.res, 1001);
    expect(sent.kvReads).toBe(0);
  });

  it("the trailing dot of an absolute name is not a character: 254 characters + '.' is still too long", async () => {
    const sent = await send(`http://${host(254)}./`);
    await expectGeneratedError(sent.res, 1001);
    expect(sent.kvReads).toBe(0);
  });

  it("also with DEFAULT_ORIGIN set: a name that is not a hostname is no host to serve (a valid unknown one is)", async () => {
    const withDefault: Env = { ...env, DEFAULT_ORIGIN: loopback(ports.http) };
    const invalid = await send(`http://${host(600)}/echo`, "application/json", withDefault);
    await expectGeneratedError(invalid.res, 1001);
    expect(invalid.kvReads).toBe(0);
    const valid = await send(`http://${host(253)}/echo`, "application/json", withDefault);
    expect(valid.res.status).toBe(200);
    expect(valid.res.headers.get("X-Origin")).toBe("yes");
    await valid.res.body?.cancel();
  });

  it.each(INVALID)("/cdn-cgi/error/{code} on %s: the defaults, no KV read, no outage", async (_, make) => {
    const sent = await send(`http://${make()}/cdn-cgi/error/1020`);
    expect((await sent.res.json<{ error_code: number }>()).error_code).toBe(1020);
    expect(sent.res.status).toBe(403);
    expect(sent.kvReads).toBe(0);
    expect(sent.errors).toEqual([]);
  });
});

describe("the exact boundaries are ordinary hosts", () => {
  it.each([
    ["253 characters of 63-character labels", () => host(253)],
    ["253 characters with the trailing dot of an absolute name", () => host(253)],
    ["a 63-character label", () => `${"g".repeat(62)}${serial++ % 10}.example`],
    ["single-character labels", () => `a.b.c${serial++}.example`],
    ["a punycode (IDN) label", () => `xn--bcher-kva.i${serial++}.example`],
    ["hyphens inside a label", () => `a-b--c${serial++}.example`],
  ])("%s: unknown → 1001 after a KV read; configured through the API → served", async (what, make) => {
    const name = make();
    const suffix = what.includes("trailing dot") ? "." : "";
    const unknown = await send(`http://${name}${suffix}/`);
    await expectGeneratedError(unknown.res, 1001);
    expect(unknown.kvReads).toBe(1);
    await putZone(name, { origin: loopback(ports.http) });
    const served = await exports.default.fetch(`http://${name}${suffix}/echo`);
    expect(served.status, await served.clone().text()).toBe(200);
    expect(served.headers.get("X-Origin")).toBe("yes");
    await served.body?.cancel();
  });

  it("a Unicode host reaches the zone of its punycode name", async () => {
    const zone = `xn--bcher-kva.u${serial++}.example`;
    await putZone(zone, { origin: loopback(ports.http) });
    const res = await exports.default.fetch(`http://bücher.${zone.split(".").slice(1).join(".")}/echo`);
    expect(res.status, await res.clone().text()).toBe(200);
    await res.body?.cancel();
  });
});

describe("the zones API refuses the same names with a precise 400 (never a 500)", () => {
  it.each([
    ["254 characters", () => host(254), /253 characters/],
    ["600 characters", () => host(600), /253 characters/],
    ["10 KB", () => host(10_240), /253 characters/],
    ["a label of 64 characters", () => `${"b".repeat(64)}.example`, /label .*63 characters/],
    ["an empty label", () => "a..b.example", /empty label/],
    ["an underscore", () => "my_host.example", /letters, digits and hyphens/],
    ["a label ending with a hyphen", () => "e-.example", /hyphen/],
  ])("%s", async (_, make, message) => {
    const name = make();
    for (const [method, path] of [
      ["PUT", `/zones/${name}`],
      ["GET", `/zones/${name}`],
      ["DELETE", `/zones/${name}`],
      ["GET", `/zones/${name}/access_rules`],
      ["GET", `/zones/${name}/custom_pages`],
    ] as const) {
      const res = await api(method, path, method === "PUT" ? { plan: "pro", origin: loopback(ports.http) } : undefined);
      expect(res.status, `${method} ${path.slice(0, 80)}`).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.errors[0]?.code).toBe(7003);
      expect(res.body.errors[0]?.message).toMatch(message);
    }
  });

  it("253 characters and a 63-character label are accepted", async () => {
    for (const name of [host(253), `${"k".repeat(63)}.example`]) {
      await apiOk("PUT", `/zones/${name}`, { plan: "pro", origin: loopback(ports.http) });
    }
  });
});
