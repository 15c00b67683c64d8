/**
 * gRPC and gRPC-Web answers (docs/grpc.md) through the real Worker: the mapping table, the Trailers-Only header block
 * byte for byte, `grpc-status-details-bin` decoded by @bufbuild/protobuf's reflection API (test/servers/google-rpc.ts),
 * a real 521 for a gRPC POST, and requests that are not gRPC left to the ordinary negotiation.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CATALOG, catalogEntry } from "../../../src/errors/catalog";
import { wireTitle } from "../../../src/errors/fields";
import { GRPC_ERROR_DOMAIN } from "../../../src/errors/grpc-details";
import { grpcStatusOf } from "../../../src/errors/grpc-status";
import { percentEncoded } from "../../../src/errors/render-grpc";
import { decodeStatusDetails } from "../../servers/google-rpc";
import { apiOk } from "../support/envelope";
import { loopback, ports, putZone, uniqueZone } from "../support/origin";

/** The published mapping (docs/grpc.md "The mapping"), written out code by code. */
const EXPECTED: Readonly<Record<number, number>> = {
  521: 14,
  522: 14,
  523: 14,
  525: 14,
  526: 14,
  1016: 14,
  1033: 14, // HTTP 530
  1015: 8,
  1025: 8, // HTTP 429
  1027: 8, // HTTP 429
  1006: 7,
  1009: 7,
  1020: 7,
};

describe("the mapping (docs/grpc.md)", () => {
  it("every catalog code: by code, then 530/429/403/401 by status, else UNKNOWN", () => {
    for (const entry of CATALOG) {
      const expected =
        entry.code === 524 ? 14 : (EXPECTED[entry.code] ?? (entry.status === 403 ? 7 : entry.status === 429 ? 8 : 2));
      expect(grpcStatusOf(entry.code, entry.status, false), String(entry.code)).toBe(expected);
    }
  });

  it("524 is DEADLINE_EXCEEDED only when the client sent grpc-timeout", () => {
    expect(grpcStatusOf(524, 524, true)).toBe(4);
    expect(grpcStatusOf(524, 524, false)).toBe(14);
    expect(grpcStatusOf(521, 521, true)).toBe(14);
  });

  it("401 is UNAUTHENTICATED, an unlisted status UNKNOWN", () => {
    expect(grpcStatusOf(9999, 401, false)).toBe(16);
    expect(grpcStatusOf(9999, 500, false)).toBe(2);
    expect(grpcStatusOf(1200, 503, false)).toBe(2);
  });
});

describe("grpc-message percent-encoding (PROTOCOL-HTTP2.md)", () => {
  it("printable ASCII stays, % and everything else is %XX of the UTF-8 bytes", () => {
    expect(percentEncoded("Error 521: Web server is down")).toBe("Error 521: Web server is down");
    expect(percentEncoded("100% down")).toBe("100%25 down");
    expect(percentEncoded("Zeitüberschreitung\n")).toBe("Zeit%C3%BCberschreitung%0A");
    expect(percentEncoded("接続")).toBe("%E6%8E%A5%E7%B6%9A");
  });
});

/** The body's length in bytes (a gRPC body is not text: workerd warns on `text()`). */
async function bodyLength(res: Response): Promise<number> {
  return (await res.arrayBuffer()).byteLength;
}

/** A gRPC-Web call's headers as connect-web sends them. */
const GRPC_WEB = { "Content-Type": "application/grpc-web+proto", "X-Grpc-Web": "1" };

describe("the Trailers-Only answer", () => {
  it("521 for gRPC-Web: HTTP 200, exactly these headers, an empty body, the details decoded", async () => {
    const res = await exports.default.fetch("http://localhost/cdn-cgi/error/521", { headers: GRPC_WEB });
    const body = new Uint8Array(await res.arrayBuffer());
    expect(res.status).toBe(200);
    expect(body.byteLength).toBe(0);
    const ray = res.headers.get("Ray-ID") ?? "";
    expect(ray).toMatch(/^[0-9a-f]{16}$/);
    const headers = Object.fromEntries(res.headers);
    const details = headers["grpc-status-details-bin"] ?? "";
    // Un-padded standard base64 (PROTOCOL-HTTP2.md: emit un-padded values).
    expect(details).toMatch(/^[A-Za-z0-9+/]+$/);
    expect(headers).toEqual({
      "cache-control": "private, no-store",
      "content-language": "en",
      "content-type": "application/grpc-web+proto",
      "grpc-message": "Error 521: Web server is down",
      "grpc-status": "14",
      "grpc-status-details-bin": details,
      "proxy-status": 'edge-errors; error=connection_refused; details="521 origin_down"',
      "ray-id": ray,
      "retry-after": "120",
      "retry-after-ms": "120000",
      "server-timing": headers["server-timing"],
      vary: "Accept, Accept-Language",
      "x-content-type-options": "nosniff",
      "x-should-retry": "true",
    });
    expect(decodeStatusDetails(details)).toEqual({
      code: 14,
      message: "Error 521: Web server is down",
      details: [
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "origin_down",
          domain: GRPC_ERROR_DOMAIN,
          metadata: { code: "521", ray_id: ray },
        },
        { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "120s" },
      ],
    });
  });

  it("every catalog code, for application/grpc: its status, its title, its ErrorInfo, RetryInfo only when retryable", async () => {
    for (const entry of CATALOG) {
      const res = await exports.default.fetch(`http://localhost/cdn-cgi/error/${entry.code}`, {
        headers: { "Content-Type": "application/grpc" },
      });
      expect(await bodyLength(res)).toBe(0);
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toBe("application/grpc");
      const code = grpcStatusOf(entry.code, entry.status, false);
      expect(res.headers.get("grpc-status"), String(entry.code)).toBe(String(code));
      expect(decodeURIComponent(res.headers.get("grpc-message") ?? "")).toBe(wireTitle(entry));
      expect(res.headers.get("x-should-retry")).toBe(entry.retryAfter === null ? "false" : "true");
      const ray = res.headers.get("Ray-ID");
      const errorInfo = {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: entry.errorName,
        domain: GRPC_ERROR_DOMAIN,
        metadata: { code: String(entry.code), ray_id: ray },
      };
      const retryInfo = { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${entry.retryAfter}s` };
      expect(decodeStatusDetails(res.headers.get("grpc-status-details-bin") ?? "")).toEqual({
        code,
        message: wireTitle(entry),
        details: entry.retryAfter === null ? [errorInfo] : [errorInfo, retryInfo],
      });
    }
  });

  it("524 with grpc-timeout is DEADLINE_EXCEEDED (4), without it UNAVAILABLE (14)", async () => {
    const ask = (headers: Record<string, string>) =>
      exports.default.fetch("http://localhost/cdn-cgi/error/524", {
        headers: { "Content-Type": "application/grpc+proto", ...headers },
      });
    expect((await ask({ "grpc-timeout": "5S" })).headers.get("grpc-status")).toBe("4");
    expect((await ask({})).headers.get("grpc-status")).toBe("14");
  });

  it("the request's gRPC content type is repeated, lower case, without parameters", async () => {
    for (const [sent, answered] of [
      ["application/grpc-web-text", "application/grpc-web-text"],
      ["Application/GRPC+json; charset=utf-8", "application/grpc+json"],
      ["application/grpc-web-text+proto", "application/grpc-web-text+proto"],
    ] as const) {
      const res = await exports.default.fetch("http://localhost/cdn-cgi/error/1020", {
        headers: { "Content-Type": sent },
      });
      await res.body?.cancel();
      expect(res.headers.get("Content-Type")).toBe(answered);
      expect(res.headers.get("grpc-status")).toBe("7");
    }
  });

  it("a content type that only looks like gRPC gets the ordinary negotiated error", async () => {
    for (const sent of ["application/grpcx", "application/grpc-webby", "text/grpc", "application/json"]) {
      const res = await exports.default.fetch("http://localhost/cdn-cgi/error/521", {
        headers: { "Content-Type": sent, Accept: "application/json" },
      });
      expect(res.status, sent).toBe(521);
      expect(res.headers.get("grpc-status")).toBeNull();
      expect((JSON.parse(await res.text()) as { error_code: number }).error_code).toBe(521);
    }
  });
});

describe("zone traffic", () => {
  it("a gRPC POST to a zone whose origin refuses connections gets UNAVAILABLE with its ErrorInfo", async () => {
    const zone = uniqueZone("grpc-521");
    await putZone(zone, { origin: loopback(ports.closed), connect_timeout: 0.5 });
    const res = await exports.default.fetch(`http://${zone}/pkg.Service/Method`, {
      method: "POST",
      headers: { "Content-Type": "application/grpc", TE: "trailers", "grpc-timeout": "10S" },
      body: new Uint8Array([0, 0, 0, 0, 0]),
    });
    expect(await bodyLength(res)).toBe(0);
    expect(res.status).toBe(200);
    expect(res.headers.get("grpc-status")).toBe("14");
    expect(res.headers.get("Proxy-Status")).toContain("error=connection_refused");
    expect(res.headers.get("x-should-retry")).toBe("true");
    const decoded = decodeStatusDetails(res.headers.get("grpc-status-details-bin") ?? "") as {
      details: { reason?: string; metadata?: { code: string } }[];
    };
    expect(decoded.details[0]).toMatchObject({ reason: "origin_down", metadata: { code: "521" } });
  });

  it("the gRPC answer comes before the zone's custom error rules (a gRPC client reads no body)", async () => {
    const zone = uniqueZone("grpc-custom");
    await putZone(zone, { origin: loopback(ports.closed), connect_timeout: 0.5 });
    await apiOk("PUT", `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`, {
      rules: [
        {
          expression: "true",
          action: "serve_error",
          action_parameters: { content: "<p>down</p>", content_type: "text/html" },
        },
      ],
    });
    const res = await exports.default.fetch(`http://${zone}/pkg.Service/Method`, {
      method: "POST",
      headers: { "Content-Type": "application/grpc-web+proto" },
      body: new Uint8Array([0, 0, 0, 0, 0]),
    });
    expect(await bodyLength(res)).toBe(0);
    expect(res.headers.get("grpc-status")).toBe("14");
    const html = await exports.default.fetch(`http://${zone}/page`);
    expect(await html.text()).toBe("<p>down</p>");
    expect(catalogEntry(521)?.status).toBe(html.status);
  });
});
