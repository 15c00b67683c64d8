/**
 * The proxy is faithful (docs/origin.md): method, path, query, headers minus hop-by-hop, X-Forwarded-*, CDN-Loop,
 * redirects not followed, origin responses of any status streamed back unchanged. And the cheap refusals of
 * zone traffic (docs/producers.md): 1000 loop, 1001 unknown host, 1003 IP literal, 1038 oversized headers.
 */
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../../src/index";
import { ORIGIN_503_BODY } from "../../../servers/context";
import { JSON_ACCEPT, expectGeneratedError, loopback, ports, zoneFor } from "../../support/origin";

interface Echo {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly bodyBytes: number;
}

describe("forwarding", () => {
  it("forwards method, path, query and body, and adds X-Forwarded-* and CDN-Loop", async () => {
    const zone = await zoneFor("echo", loopback(ports.http));
    const res = await exports.default.fetch(`http://${zone}/echo/a%20b/c?x=1&y=%C3%A9&x=2`, {
      method: "POST",
      headers: {
        "Content-Type": "text/plain",
        "X-Custom": "kept",
        "CF-Connecting-IP": "203.0.113.7",
        "X-Forwarded-For": "198.51.100.1",
        "CDN-Loop": "other-cdn; v=1",
      },
      body: "hello origin",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Origin")).toBe("yes");
    const echo = await res.json<Echo>();
    expect(echo.method).toBe("POST");
    expect(echo.url).toBe("/echo/a%20b/c?x=1&y=%C3%A9&x=2");
    expect(echo.bodyBytes).toBe("hello origin".length);
    expect(echo.headers["x-custom"]).toBe("kept");
    expect(echo.headers["content-type"]).toBe("text/plain");
    expect(echo.headers["x-forwarded-for"]).toBe("198.51.100.1, 203.0.113.7");
    expect(echo.headers["x-forwarded-proto"]).toBe("http");
    expect(echo.headers["x-forwarded-host"]).toBe(zone);
    expect(echo.headers["cdn-loop"]).toBe("other-cdn; v=1, edge-errors");
    expect(echo.headers.host).toBe(`127.0.0.1:${ports.http}`);
  });

  it.each(["GET", "PUT", "PATCH", "DELETE", "OPTIONS"])("forwards %s", async (method) => {
    const zone = await zoneFor("method", loopback(ports.http));
    const res = await exports.default.fetch(`http://${zone}/echo`, { method });
    expect((await res.json<Echo>()).method).toBe(method);
  });

  it("forwards HEAD and returns the origin's headers without a body", async () => {
    const zone = await zoneFor("head", loopback(ports.http));
    const res = await exports.default.fetch(`http://${zone}/echo`, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Origin")).toBe("yes");
    expect(await res.text()).toBe("");
  });

  it("drops hop-by-hop headers, including those named in Connection (RFC 9110 §7.6.1)", async () => {
    const zone = await zoneFor("hop", loopback(ports.http));
    const res = await exports.default.fetch(`http://${zone}/echo`, {
      headers: {
        Connection: "keep-alive, X-Private-Hop",
        "Keep-Alive": "timeout=5",
        "X-Private-Hop": "secret",
        "Proxy-Authorization": "Basic Zm9vOmJhcg==",
        TE: "trailers",
        Upgrade: "h2c",
        "X-End-To-End": "kept",
      },
    });
    const echo = await res.json<Echo>();
    expect(echo.headers["x-end-to-end"]).toBe("kept");
    for (const dropped of ["x-private-hop", "keep-alive", "proxy-authorization", "te", "upgrade"]) {
      expect(echo.headers[dropped], dropped).toBeUndefined();
    }
    // No client address known (no CF-Connecting-IP): X-Forwarded-For is not invented.
    expect(echo.headers["x-forwarded-for"]).toBeUndefined();
    expect(echo.headers["cdn-loop"]).toBe("edge-errors");
  });

  // The upstream fields are handed to fetch as a record; repeated fields and Set-Cookie reach the origin
  // as with a copy of the incoming headers. (A `__proto__` field is in units.test.ts: Node's parser in the test
  // origin drops it from `req.headers`, whatever the proxy sends.)
  it("forwards repeated fields and every Set-Cookie", async () => {
    const zone = await zoneFor("repeated", loopback(ports.http));
    const headers = new Headers([
      ["X-Dup", "a"],
      ["X-Dup", "b"],
      ["__proto__", "p"],
    ]);
    const plain = await (await exports.default.fetch(`http://${zone}/echo`, { headers })).json<Echo>();
    expect(plain.headers["x-dup"]).toBe("a, b");
    expect(plain.headers["cdn-loop"]).toBe("edge-errors");
    headers.append("Set-Cookie", "s=1");
    headers.append("Set-Cookie", "t=2");
    const cookies = await (await exports.default.fetch(`http://${zone}/echo`, { headers })).json<Echo>();
    expect(cookies.headers["set-cookie"]).toEqual(["s=1", "t=2"]);
    expect(cookies.headers["x-dup"]).toBe("a, b");
    expect(cookies.headers["x-forwarded-host"]).toBe(zone);
  });

  it("does not follow redirects", async () => {
    const zone = await zoneFor("redirect", loopback(ports.http));
    const res = await exports.default.fetch(`http://${zone}/redirect`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/elsewhere");
  });

  it("passes an origin 503 with its own JSON body through byte for byte", async () => {
    const zone = await zoneFor("origin-503", loopback(ports.http));
    const res = await exports.default.fetch(`http://${zone}/status/503-json`, { headers: JSON_ACCEPT });
    expect(res.status).toBe(503);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    expect(res.headers.get("Retry-After")).toBe("7");
    expect(res.headers.get("X-Origin")).toBe("yes");
    expect(res.headers.get("Ray-ID")).toBeNull();
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(new TextEncoder().encode(ORIGIN_503_BODY));
  });

  it("passes an origin 404 through", async () => {
    const zone = await zoneFor("origin-404", loopback(ports.http));
    const res = await exports.default.fetch(`http://${zone}/status/404`, { headers: JSON_ACCEPT });
    expect(res.status).toBe(404);
    expect(await res.text()).toBe("origin says no");
  });

  it("streams a slow body: the first chunk arrives before the origin has finished", async () => {
    const zone = await zoneFor("slow-body", loopback(ports.http));
    const res = await exports.default.fetch(`http://${zone}/slow-body`);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toMatch(/^chunk 0/);
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest).toContain("chunk 4");
    // The origin writes its five chunks 100 ms apart: the first read holds the first chunk without the last, a
    // 400 ms margin (streaming.test.ts proves streaming with an origin that holds its body back until released).
    expect(new TextDecoder().decode(first.value)).not.toContain("chunk 4");
  });
});

describe("refusals before the origin (docs/origin.md, docs/producers.md)", () => {
  it.each(["edge-errors", "other, edge-errors", "cdn-a; x=1, EDGE-ERRORS ; v=2"])(
    "a request already carrying our CDN-Loop mark (%s) is a loop → 1000",
    async (mark) => {
      const zone = await zoneFor("loop", loopback(ports.http));
      const res = await exports.default.fetch(`http://${zone}/echo`, { headers: { ...JSON_ACCEPT, "CDN-Loop": mark } });
      await expectGeneratedError(res, 1000);
    },
  );

  it("another CDN's mark alone is not a loop", async () => {
    const zone = await zoneFor("not-loop", loopback(ports.http));
    const res = await exports.default.fetch(`http://${zone}/echo`, { headers: { "CDN-Loop": "edge-errors-2, other" } });
    expect(res.status).toBe(200);
  });

  it("unknown host without DEFAULT_ORIGIN → 1001", async () => {
    const res = await exports.default.fetch("http://nobody-configured-this.example/", { headers: JSON_ACCEPT });
    const body = await expectGeneratedError(res, 1001);
    expect(body.zone).toBe("nobody-configured-this.example");
  });

  it("unknown host with DEFAULT_ORIGIN → proxied there", async () => {
    const local = { ...env, DEFAULT_ORIGIN: loopback(ports.http) };
    const res = await worker.fetch(
      new Request("http://default-origin.example/echo?q=1"),
      local,
      createExecutionContext(),
    );
    expect(res.status).toBe(200);
    const echo = await res.json<Echo>();
    expect(echo.url).toBe("/echo?q=1");
    expect(echo.headers["x-forwarded-host"]).toBe("default-origin.example");
  });

  it.each(["http://localhost", "https://localhost.", "http://localhost:8787"])(
    "DEFAULT_ORIGIN %s is a host of API_HOSTS: never proxied there (docs/origin.md), a structured 500",
    async (origin) => {
      const local = { ...env, DEFAULT_ORIGIN: origin };
      const res = await worker.fetch(
        new Request("http://default-origin-api.example/zones/x", { headers: JSON_ACCEPT }),
        local,
        createExecutionContext(),
      );
      await expectGeneratedError(res, 500);
    },
  );

  it.each(["http://10.1.2.3/", "http://203.0.113.9:8080/x", "http://[2001:db8::1]/"])(
    "IP literal %s → 1003",
    async (url) => {
      const res = await exports.default.fetch(url, { headers: JSON_ACCEPT });
      await expectGeneratedError(res, 1003);
    },
  );

  it("request headers over the zone's limit → 1038; under it → forwarded", async () => {
    const zone = await zoneFor("headers", loopback(ports.http), { max_request_header_bytes: 2048 });
    const over = await exports.default.fetch(`http://${zone}/echo`, {
      headers: { ...JSON_ACCEPT, "X-Big": "a".repeat(2100) },
    });
    await expectGeneratedError(over, 1038);
    const under = await exports.default.fetch(`http://${zone}/echo`, { headers: { "X-Big": "a".repeat(1500) } });
    expect(under.status).toBe(200);
  });

  it("the default header limit is 32 KiB", async () => {
    const zone = await zoneFor("headers-default", loopback(ports.http));
    const over = await exports.default.fetch(`http://${zone}/echo`, {
      headers: { ...JSON_ACCEPT, "X-Big": "a".repeat(33 * 1024) },
    });
    await expectGeneratedError(over, 1038);
    const under = await exports.default.fetch(`http://${zone}/echo`, { headers: { "X-Big": "a".repeat(30 * 1024) } });
    expect(under.status).toBe(200);
  });
});

describe("CONFIG failing is the service's own failure (docs/origin.md): 500 structured, never 1101", () => {
  it("KV throwing → 500", async () => {
    const failingKv = {
      get: () => Promise.reject(new Error("KV is on fire")),
    } as unknown as KVNamespace;
    const res = await worker.fetch(
      new Request("http://kv-down.example/", { headers: JSON_ACCEPT }),
      { ...env, CONFIG: failingKv },
      createExecutionContext(),
    );
    await expectGeneratedError(res, 500);
  });

  it("a corrupt zone document → 500", async () => {
    await env.CONFIG.put("zone:corrupt.example", "{not json");
    const res = await exports.default.fetch("http://corrupt.example/", { headers: JSON_ACCEPT });
    await expectGeneratedError(res, 500);
  });
});
