/** Pure pieces of the proxy, one table each: header rewriting, loop marks, header size, classification, hello. */
import { describe, expect, it } from "vitest";
import {
  classifyReachedOrigin,
  classifyTls,
  fetchErrorKind,
  unreachedOrigin,
} from "../../../../src/edge/origin/classify";
import { hasOwnLoopMark, scanRequestHeaders, upstreamHeaders } from "../../../../src/edge/origin/headers";
import { clientHello, connectFailure } from "../../../../src/edge/origin/probe";
import { isIpLiteral } from "../../../../src/shared/ip";

describe("upstreamHeaders", () => {
  const forwarded = { proto: "https", host: "shop.example:8443" };

  it("never mutates the incoming headers", () => {
    const incoming = new Headers({ Connection: "close", "X-A": "1" });
    upstreamHeaders(incoming, scanRequestHeaders(incoming), forwarded);
    expect(incoming.get("connection")).toBe("close");
  });

  it.each<[Record<string, string>, Record<string, string | null>]>([
    [{ "X-Forwarded-For": "1.1.1.1" }, { "x-forwarded-for": "1.1.1.1" }],
    [{ "CF-Connecting-IP": "2.2.2.2" }, { "x-forwarded-for": "2.2.2.2", "cf-connecting-ip": "2.2.2.2" }],
    [
      { "CF-Connecting-IP": "2001:db8::1", "X-Forwarded-For": "1.1.1.1, 3.3.3.3" },
      { "x-forwarded-for": "1.1.1.1, 3.3.3.3, 2001:db8::1" },
    ],
    // Only a valid CF-Connecting-IP is the client's address (docs/rules-language.md): a list, a port or garbage is not appended.
    [{ "CF-Connecting-IP": "2.2.2.2, 4.4.4.4", "X-Forwarded-For": "1.1.1.1" }, { "x-forwarded-for": "1.1.1.1" }],
    [{ "CF-Connecting-IP": "2.2.2.2:443" }, { "x-forwarded-for": null }],
    [{ "CF-Connecting-IP": "unknown" }, { "x-forwarded-for": null }],
    [
      { "X-Forwarded-Proto": "http", "X-Forwarded-Host": "spoofed" },
      { "x-forwarded-proto": "https", "x-forwarded-host": "shop.example:8443" },
    ],
    [
      { Connection: "X-A, , bad header, X-B", "X-A": "1", "X-B": "2", "X-C": "3" },
      { "x-a": null, "x-b": null, "x-c": "3", connection: null },
    ],
    [
      { "Transfer-Encoding": "chunked", Trailer: "X-T", "Proxy-Connection": "keep-alive" },
      { "transfer-encoding": null, trailer: null, "proxy-connection": null },
    ],
    [{ "CDN-Loop": "a, b;x=1" }, { "cdn-loop": "a, b;x=1, edge-errors" }],
  ])("%j → %j", (incoming, expected) => {
    const headers = new Headers(incoming);
    const out = new Headers(upstreamHeaders(headers, scanRequestHeaders(headers), forwarded));
    for (const [name, value] of Object.entries(expected)) expect(out.get(name), name).toBe(value);
  });

  // The fields go to fetch as a record of what iterating the incoming Headers gives (one value per
  // name, repeated fields joined with ", "), except the two names a record cannot carry, which take a copy.
  it("forwards every field once with the values a copy would have, Set-Cookie and __proto__ included", () => {
    const incoming = new Headers([
      ["X-Dup", "a"],
      ["X-Dup", "b"],
      ["Accept", "text/html, */*;q=0.8"],
    ]);
    const plain = new Headers(upstreamHeaders(incoming, scanRequestHeaders(incoming), forwarded));
    expect(plain.get("x-dup")).toBe("a, b");
    expect(plain.get("accept")).toBe("text/html, */*;q=0.8");
    const scan = scanRequestHeaders(incoming);
    expect(scan.fields).not.toBeNull();

    const cookies = new Headers([["X-A", "1"]]);
    cookies.append("Set-Cookie", "s=1");
    cookies.append("Set-Cookie", "t=2");
    expect(scanRequestHeaders(cookies).fields).toBeNull();
    const copied = new Headers(upstreamHeaders(cookies, scanRequestHeaders(cookies), forwarded));
    expect(copied.getSetCookie()).toEqual(["s=1", "t=2"]);
    expect(copied.get("x-a")).toBe("1");
    expect(copied.get("cdn-loop")).toBe("edge-errors");

    const proto = new Headers([["__proto__", "p"]]);
    const kept = new Headers(upstreamHeaders(proto, scanRequestHeaders(proto), forwarded));
    expect(kept.get("__proto__")).toBe("p");
  });
});

describe("loop mark (RFC 8586)", () => {
  it.each<[string | null, boolean]>([
    [null, false],
    ["", false],
    ["edge-errors", true],
    ["  EDGE-ERRORS  ", true],
    ["a, edge-errors;ttl=3", true],
    ["edge-errors-2", false],
    ["my-edge-errors", false],
    ["a;x=edge-errors", false],
  ])("%j → %s", (value, expected) => {
    const headers = new Headers();
    if (value !== null) headers.set("CDN-Loop", value);
    expect(scanRequestHeaders(headers).loop).toBe(expected);
    if (value !== null) expect(hasOwnLoopMark(value)).toBe(expected);
  });
});

describe("header size", () => {
  it("counts name: value CRLF per field, hop-by-hop and rewritten fields included", () => {
    expect(scanRequestHeaders(new Headers()).bytes).toBe(0);
    expect(scanRequestHeaders(new Headers({ a: "bc" })).bytes).toBe(1 + 2 + 4);
    expect(scanRequestHeaders(new Headers({ a: "1", bb: "22" })).bytes).toBe(6 + 8);
    expect(scanRequestHeaders(new Headers({ connection: "x", "cdn-loop": "y" })).bytes).toBe(15 + 13);
  });
});

describe("isIpLiteral", () => {
  it.each<[string, boolean]>([
    ["1.2.3.4", true],
    ["[::1]", true],
    ["[2001:db8::1]", true],
    ["shop.example", false],
    ["1.2.3.example", false],
    ["localhost", false],
  ])("%s → %s", (host, expected) => expect(isIpLiteral(host)).toBe(expected));

  it("sees every IPv4 spelling, because the URL parser normalises them", () => {
    for (const url of ["http://0x7f.1/", "http://2130706433/", "http://127.1/"]) {
      expect(isIpLiteral(new URL(url).hostname)).toBe(true);
    }
  });
});

describe("classification (docs/origin.md)", () => {
  it.each<[string, ReturnType<typeof fetchErrorKind>]>([
    ["Network connection lost.", "connection-lost"],
    ["internal error; reference = 12ssue0un8oe920896bsivtp", "internal"],
    ["something new", "other"],
  ])("fetch error %j → %s", (message, kind) => expect(fetchErrorKind(message)).toBe(kind));

  it.each<[Parameters<typeof unreachedOrigin>[0], number]>([
    [{ kind: "refused", detail: "x" }, 521],
    [{ kind: "timeout" }, 522],
    [{ kind: "unreachable", detail: "x" }, 523],
    [{ kind: "unresolvable", detail: "x" }, 1016],
  ])("TCP probe %j → %s", (probe, code) => expect(unreachedOrigin(probe, "ctx").code).toBe(code));

  it.each<[ReturnType<typeof fetchErrorKind>, "http" | "https", number | "probe-tls"]>([
    ["connection-lost", "http", 520],
    ["connection-lost", "https", 520],
    ["internal", "http", 502],
    ["internal", "https", "probe-tls"],
    ["other", "http", 520],
    ["other", "https", 520],
  ])("reached origin, %s over %s → %s", (kind, scheme, expected) => {
    const verdict = classifyReachedOrigin(kind, scheme, "m");
    expect(verdict.kind === "final" ? verdict.failure.code : verdict.kind).toBe(expected);
  });

  it.each<[Parameters<typeof classifyTls>[0], number]>([
    [{ kind: "server-hello" }, 526],
    [{ kind: "alert" }, 525],
    [{ kind: "not-tls" }, 525],
    [{ kind: "no-answer" }, 525],
  ])("TLS probe %j → %s", (probe, code) => expect(classifyTls(probe, "m").code).toBe(code));

  it.each<[string, string]>([
    ["proxy request failed, cannot connect to the specified address", "refused"],
    ["DNS lookup failed.", "unresolvable"],
    ["Name or service not known", "unresolvable"],
    ["Network is unreachable", "unreachable"],
    ["No route to host", "unreachable"],
  ])("connect() error %j → %s", (message, kind) => expect(connectFailure(message).kind).toBe(kind));
});

describe("clientHello", () => {
  it("is one well-formed TLS handshake record", () => {
    for (const host of ["127.0.0.1", "origin.example.net", "[::1]"]) {
      const hello = clientHello(host);
      expect(hello[0]).toBe(0x16); // handshake
      expect((hello[3]! << 8) | hello[4]!).toBe(hello.length - 5); // record length
      expect(hello[5]).toBe(0x01); // ClientHello
      expect((hello[6]! << 16) | (hello[7]! << 8) | hello[8]!).toBe(hello.length - 9);
      const text = new TextDecoder("latin1").decode(hello);
      expect(text.includes("origin.example.net")).toBe(host === "origin.example.net"); // SNI only for names
    }
  });
});
