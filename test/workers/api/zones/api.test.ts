/**
 * `PUT/GET/DELETE /zones/{zone}` (docs/configuration.md) through the real Worker and real KV: envelope, validation,
 * the KV layout of docs/configuration.md, and a write visible to traffic on this isolate at once.
 */
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../../src/index";
import { ADMIN, JSON_ACCEPT, expectGeneratedError, loopback, ports, uniqueZone } from "../../support/origin";
import { apiFetch, type Envelope as V4Envelope } from "../../support/envelope";

type Envelope<T = Record<string, unknown>> = V4Envelope<T | null>;

const put = (zone: string, body: unknown, prefix = ""): Promise<Response> =>
  apiFetch("PUT", `${prefix}/zones/${zone}`, body);

describe("zone CRUD", () => {
  it("creates with defaults, reads back, replaces (version bumps), deletes", async () => {
    const zone = uniqueZone("crud");
    const created = await put(zone, { plan: "pro", origin: "https://origin.example.net" });
    expect(created.status).toBe(200);
    const body = await created.json<Envelope>();
    expect(body).toMatchObject({ success: true, errors: [] });
    expect(body.result).toMatchObject({
      zone,
      plan: "pro",
      origin: "https://origin.example.net",
      connect_timeout: 19,
      read_timeout: 100,
      max_request_header_bytes: 32768,
      retry_hints: "published",
      version: 1,
    });

    const read = await (await apiFetch("GET", `/zones/${zone}`)).json<Envelope>();
    expect(read.result).toEqual(body.result);

    const replaced = await put(
      zone,
      { plan: "business", origin: "http://origin.example.net:8080/", connect_timeout: 5 },
      "/client/v4",
    );
    expect((await replaced.json<Envelope>()).result).toMatchObject({
      plan: "business",
      origin: "http://origin.example.net:8080",
      connect_timeout: 5,
      version: 2,
    });

    const deleted = await apiFetch("DELETE", `/client/v4/zones/${zone}`);
    expect(deleted.status).toBe(200);
    expect((await deleted.json<Envelope>()).result).toEqual({ id: zone });
    const gone = await apiFetch("GET", `/zones/${zone}`);
    expect(gone.status).toBe(404);
    expect((await gone.json<Envelope>()).errors[0]?.code).toBe(1001);
    expect((await apiFetch("DELETE", `/zones/${zone}`)).status).toBe(404);
  });

  it("zone names are case-insensitive (stored lower-case)", async () => {
    const zone = uniqueZone("case");
    await put(zone.toUpperCase(), { plan: "free", origin: "http://o.example" });
    const read = await apiFetch("GET", `/zones/${zone}`);
    expect(read.status).toBe(200);
    expect((await read.json<Envelope>()).result?.zone).toBe(zone);
  });

  it("stores one versioned document per zone under zone:{zone} and keeps sections it does not own", async () => {
    const zone = uniqueZone("layout");
    await put(zone, { plan: "pro", origin: "http://o.example" });
    const stored = JSON.parse((await env.CONFIG.get(`zone:${zone}`)) ?? "null") as Record<string, unknown>;
    expect(stored).toMatchObject({
      schema: 1,
      version: 1,
      zone,
      settings: { plan: "pro", origin: "http://o.example" },
    });
    // Another feature's section (e.g. IP access rules), written through the zone's writer, survives a settings
    // replace.
    const writer = env.ZONE_WRITER.get(env.ZONE_WRITER.idFromName(zone));
    expect((await writer.edit(zone, { kind: "access-rules", rules: { rules: [] } })).ok).toBe(true);
    await put(zone, { plan: "enterprise", origin: "http://o.example" });
    const after = JSON.parse((await env.CONFIG.get(`zone:${zone}`)) ?? "null") as Record<string, unknown>;
    expect(after).toMatchObject({ version: 3, access_rules: { rules: [] }, settings: { plan: "enterprise" } });
  });

  it("DELETE removes the document and every part under zone:{zone}: but not a longer zone's keys", async () => {
    const zone = uniqueZone("parts");
    await put(zone, { plan: "pro", origin: "http://o.example" });
    await env.CONFIG.put(`zone:${zone}:page:500_errors`, "<html><head></head></html>");
    await env.CONFIG.put(`zone:${zone}.other`, "unrelated");
    expect((await apiFetch("DELETE", `/zones/${zone}`)).status).toBe(200);
    expect(await env.CONFIG.get(`zone:${zone}`)).toBeNull();
    expect(await env.CONFIG.get(`zone:${zone}:page:500_errors`)).toBeNull();
    expect(await env.CONFIG.get(`zone:${zone}.other`)).toBe("unrelated");
  });

  it("answers other methods with 405 and Allow", async () => {
    const res = await apiFetch("POST", `/zones/${uniqueZone("m")}`, "{}");
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("GET, PUT, PATCH, DELETE");
  });
});

describe("validation (400, nothing stored)", () => {
  const valid = { plan: "pro", origin: "http://o.example" };
  it.each<[string, Record<string, unknown>, string]>([
    ["missing plan", { origin: "http://o.example" }, "plan"],
    ["unknown plan", { ...valid, plan: "platinum" }, "plan"],
    ["missing origin", { plan: "pro" }, "origin"],
    ["origin not a string", { ...valid, origin: 42 }, "origin"],
    ["origin with a path", { ...valid, origin: "http://o.example/app" }, "origin"],
    ["origin with a query", { ...valid, origin: "http://o.example?x=1" }, "origin"],
    ["origin with a fragment", { ...valid, origin: "http://o.example#top" }, "origin"],
    ["origin with credentials", { ...valid, origin: "http://user:pw@o.example" }, "origin"],
    ["origin with another scheme", { ...valid, origin: "ftp://o.example" }, "origin"],
    ["origin not a URL", { ...valid, origin: "o.example" }, "origin"],
    ["origin with whitespace", { ...valid, origin: " http://o.example" }, "origin"],
    ["origin = an API host", { ...valid, origin: "http://localhost" }, "origin"],
    ["origin = an API host over https", { ...valid, origin: "https://localhost" }, "origin"],
    ["origin = an API host on the API's own port", { ...valid, origin: "http://localhost:80" }, "origin"],
    // The hardening work (2026-11-22), hostile input 1: any port, e.g. the port `wrangler dev` serves the API on.
    ["origin = an API host on another port", { ...valid, origin: "http://localhost:8787" }, "origin"],
    // A fully qualified name (trailing dot) is the same host (RFC 1034 §3.1).
    ["origin = an API host with a trailing dot", { ...valid, origin: "http://localhost." }, "origin"],
    ["origin = an API host with a trailing dot and a port", { ...valid, origin: "https://LOCALHOST.:443" }, "origin"],
    ["connect_timeout 0", { ...valid, connect_timeout: 0 }, "connect_timeout"],
    ["connect_timeout over 60 s", { ...valid, connect_timeout: 61 }, "connect_timeout"],
    ["connect_timeout as a string", { ...valid, connect_timeout: "5" }, "connect_timeout"],
    ["read_timeout negative", { ...valid, read_timeout: -1 }, "read_timeout"],
    ["read_timeout over 6000 s", { ...valid, read_timeout: 6001 }, "read_timeout"],
    ["header limit too small", { ...valid, max_request_header_bytes: 100 }, "max_request_header_bytes"],
    ["header limit not an integer", { ...valid, max_request_header_bytes: 4096.5 }, "max_request_header_bytes"],
    ["header limit over 128 KiB", { ...valid, max_request_header_bytes: 200_000 }, "max_request_header_bytes"],
    [
      "retry_hints not a profile",
      { ...valid, retry_hints: "fast" },
      "Invalid zone setting: retry_hints must be one of published, agent, auto",
    ],
    ["retry_hints null", { ...valid, retry_hints: null }, "retry_hints"],
    ["unknown field", { ...valid, origin_path: "/x" }, "origin_path"],
  ])("%s", async (_name, body, field) => {
    const zone = uniqueZone("invalid");
    const res = await put(zone, body);
    expect(res.status).toBe(400);
    const envelope = await res.json<Envelope>();
    expect(envelope.success).toBe(false);
    expect(envelope.result).toBeNull();
    expect(envelope.errors.some((e) => e.code === 1004 && e.message.includes(field))).toBe(true);
    expect(await env.CONFIG.get(`zone:${zone}`)).toBeNull();
  });

  it("reports every invalid field at once", async () => {
    const res = await put(uniqueZone("many"), { plan: "x", origin: "nope", read_timeout: 0 });
    const errors = (await res.json<Envelope>()).errors;
    expect(errors).toHaveLength(3);
    expect(errors.every((e) => e.code === 1004)).toBe(true);
  });

  it.each([
    ["[]", 1004],
    ["null", 1004],
    ['"text"', 1004],
    ["{not json", 10002],
    ["", 10002],
  ])("body %j → 400 (%i)", async (raw, code) => {
    const res = await put(uniqueZone("body"), raw);
    expect(res.status).toBe(400);
    const body = await res.json<Envelope>();
    expect(body.success).toBe(false);
    expect(body.errors.map((e) => e.code)).toEqual([code]);
  });

  it("a loopback address that is not an API host is an origin like any other (API_HOSTS is `localhost` here)", async () => {
    const res = await put(uniqueZone("loop-ok"), { plan: "pro", origin: "http://127.0.0.1:8788" });
    expect(res.status).toBe(200);
  });

  it("50,000 unknown keys list 20 errors and count the rest (hostile input 4)", async () => {
    const body: Record<string, unknown> = { plan: "pro", origin: "http://o.example" };
    for (let i = 0; i < 50_000; i++) body[`k${i}`] = 1;
    const res = await put(uniqueZone("keys"), body);
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text.length).toBeLessThan(4096);
    const errors = (JSON.parse(text) as Envelope).errors;
    expect(errors).toHaveLength(21);
    expect(errors.every((e) => e.code === 1004)).toBe(true);
    expect(errors[20]?.message).toContain("and 49980 more errors not listed");
  });

  it.each(["bad_name.example", "1.2.3.4", "-lead.example", "a..b", "x".repeat(64) + ".example"])(
    "invalid zone name %s → 400",
    async (name) => {
      const res = await put(name, valid);
      expect(res.status).toBe(400);
      expect((await res.json<Envelope>()).errors[0]?.code).toBe(7003);
    },
  );

  it.each(["%E0%A4%A", "a%", "%zz.example"])(
    "a malformed percent-escape in the zone (%s) → 400 (7003), never a 500",
    async (name) => {
      const res = await put(name, valid);
      expect(res.status).toBe(400);
      expect((await res.json<Envelope>()).errors[0]?.code).toBe(7003);
      for (const method of ["GET", "DELETE"]) {
        const other = await apiFetch(method, `/zones/${name}`);
        expect(other.status, method).toBe(400);
        expect((await other.json<Envelope>()).errors[0]?.code, method).toBe(7003);
      }
      // Still authentication first: without a token it is a 401, not a 500.
      const anonymous = await exports.default.fetch(`http://localhost/zones/${name}`);
      expect(anonymous.status).toBe(401);
    },
  );

  it("a streamed body without Content-Length is cut off at 1 MiB → 413 (docs/configuration.md)", async () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 4 * 1024 * 1024) return controller.close();
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
        sent += 64 * 1024;
      },
    });
    const zone = uniqueZone("streamed");
    const res = await exports.default.fetch(`http://localhost/zones/${zone}`, { method: "PUT", headers: ADMIN, body });
    expect(res.status).toBe(413);
    expect((await res.json<Envelope>()).errors[0]?.code).toBe(10413);
    // The reader stopped soon after the limit: it never pulled the whole 4 MiB.
    expect(sent).toBeLessThan(2 * 1024 * 1024);
  });

  it("bodies over 1 MiB → 413 in the envelope", async () => {
    const res = await put(uniqueZone("big"), JSON.stringify({ ...valid, pad: "x".repeat(1024 * 1024) }));
    expect(res.status).toBe(413);
    expect((await res.json<Envelope>()).errors[0]?.code).toBe(10413);
  });
});

describe("writes reach traffic on this isolate at once (docs/configuration.md)", () => {
  it("unknown → 1001 (cached negatively) → PUT → served → PUT new origin → served by it → DELETE → 1001", async () => {
    const zone = uniqueZone("visible");
    await expectGeneratedError(await exports.default.fetch(`http://${zone}/`, { headers: JSON_ACCEPT }), 1001);

    await put(zone, { plan: "pro", origin: loopback(ports.http) });
    const echo = await exports.default.fetch(`http://${zone}/echo`);
    expect(echo.headers.get("X-Origin")).toBe("yes");
    await echo.body?.cancel();

    await put(zone, { plan: "pro", origin: loopback(ports.raw) });
    expect(await (await exports.default.fetch(`http://${zone}/anything`)).text()).toBe("raw");

    await apiFetch("DELETE", `/zones/${zone}`);
    await expectGeneratedError(await exports.default.fetch(`http://${zone}/`, { headers: JSON_ACCEPT }), 1001);
  });
});

describe("the zone's writer failing in the API → 500 envelope with a ray, never a bare 500 (docs/origin.md)", () => {
  it.each(["GET", "PUT", "DELETE"])("%s", async (method) => {
    // A namespace whose objects cannot be reached: every RPC rejects, as an unreachable object's would.
    const unreachable = {
      idFromName: (name: string) => env.ZONE_WRITER.idFromName(name),
      get: () => new Proxy({}, { get: () => () => Promise.reject(new Error("Durable Object unreachable")) }),
    } as unknown as typeof env.ZONE_WRITER;
    const request = new Request(`http://localhost/zones/writer-down.example`, {
      method,
      headers: { ...ADMIN, "Content-Type": "application/json" },
      body: method === "PUT" ? JSON.stringify({ plan: "pro", origin: "http://o.example" }) : null,
    });
    const res = await worker.fetch(request, { ...env, ZONE_WRITER: unreachable }, createExecutionContext());
    expect(res.status).toBe(500);
    const body = await res.json<Envelope>();
    expect(body.success).toBe(false);
    expect(body.errors[0]?.code).toBe(10500);
    expect(body.errors[0]?.message).toMatch(/[0-9a-f]{16}/);
  });
});

describe("writes of one zone are serialised (docs/configuration.md, hostile input 5)", () => {
  it("20 parallel PUTs get the versions 1..20, each once, and the document ends at the last", async () => {
    const zone = uniqueZone("race");
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => put(zone, { plan: "pro", origin: `http://o${i}.example` })),
    );
    const versions: number[] = [];
    for (const res of results) {
      expect(res.status).toBe(200);
      versions.push(((await res.json<Envelope>()).result?.version as number) ?? -1);
    }
    expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const stored = JSON.parse((await env.CONFIG.get(`zone:${zone}`)) ?? "null") as Record<string, unknown>;
    expect(stored.version).toBe(20);
  });

  it("parallel writes of different sections of one zone all survive", async () => {
    const zone = uniqueZone("sections");
    await put(zone, { plan: "pro", origin: "http://o.example" });
    const writer = env.ZONE_WRITER.get(env.ZONE_WRITER.idFromName(zone));
    const page = (id: "500_errors" | "1000_errors", token: string) =>
      ({
        kind: "page",
        id,
        body: { state: "customized", content: `<html><head></head><body>${token}</body></html>` },
      }) as const;
    const assets = Array.from({ length: 6 }, (_, i) => `asset_${i}`);
    const written = await Promise.all([
      writer.edit(zone, { kind: "access-rules", rules: { rules: [] } }),
      writer.edit(zone, { kind: "url-normalization", setting: { scope: "both", type: "rfc3986" } }),
      writer.edit(zone, page("500_errors", "::EDGE_ERROR_500S_BOX::")),
      writer.edit(zone, page("1000_errors", "::EDGE_ERROR_1000S_BOX::")),
      ...assets.map((name) =>
        writer.edit(zone, {
          kind: "create-asset",
          asset: { name, description: "", url: `https://${zone}/${name}`, size_bytes: 3 },
          html: "<p>",
        }),
      ),
      put(zone, { plan: "business", origin: "http://o.example" }),
    ]);
    expect(written.length).toBe(11);
    for (const w of written.slice(0, 10)) expect(w).toMatchObject({ ok: true });
    const stored = JSON.parse((await env.CONFIG.get(`zone:${zone}`)) ?? "null") as Record<string, unknown>;
    expect(stored).toMatchObject({
      version: 12,
      settings: { plan: "business" },
      access_rules: { rules: [] },
      url_normalization: { scope: "both", type: "rfc3986" },
      "custom_page:500_errors": { state: "customized" },
      "custom_page:1000_errors": { state: "customized" },
    });
    expect(Object.keys(stored.custom_assets as object).sort()).toEqual(assets);
  });

  it("a version is never reused, even after the zone is deleted and created again", async () => {
    const zone = uniqueZone("reuse");
    await put(zone, { plan: "pro", origin: "http://o.example" });
    await apiFetch("DELETE", `/zones/${zone}`);
    const again = await put(zone, { plan: "pro", origin: "http://o.example" });
    expect((await again.json<Envelope>()).result?.version).toBe(2);
  });
});

describe("concurrent requests on a cold cache", () => {
  it("each request does its own I/O: 20 simultaneous first requests for a zone all reach the origin", async () => {
    // Written to KV directly, so this isolate's cache has never seen the zone. (Sharing one pending KV read
    // between requests failed on Miniflare under load — see src/state/zone/cache.ts — but the test pool does not
    // enforce per-request I/O contexts, so this only checks that concurrent cold misses all succeed.)
    const zone = uniqueZone("cold");
    const settings = {
      plan: "pro",
      origin: loopback(ports.http),
      connect_timeout: 1,
      read_timeout: 5,
      max_request_header_bytes: 32768,
    };
    await env.CONFIG.put(`zone:${zone}`, JSON.stringify({ schema: 1, version: 1, zone, modified_on: "", settings }));
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => exports.default.fetch(`http://${zone}/echo`, { headers: JSON_ACCEPT })),
    );
    const statuses = await Promise.all(
      responses.map(async (res) => `${res.status} ${res.status === 200 ? "" : await res.text()}`),
    );
    expect(
      statuses.every((s) => s.startsWith("200")),
      statuses.join("\n"),
    ).toBe(true);
  });
});
