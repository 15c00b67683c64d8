/**
 * The client package reads the agents' answers the Worker sends (docs/client.md "MCP" and "Streams";
 * docs/agents.md): a JSON-RPC tool result with `isError` and a JSON-RPC error read by `parseMcpError`, a broken
 * event stream's `event: error` (read by a real SSE parser, eventsource-parser) and NDJSON's last line read by
 * `parseStreamError`, each then decided by `decideRetry` as an MCP client or stream reader would.
 */
import { exports } from "cloudflare:workers";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { afterEach, describe, expect, it, vi } from "vitest";
import { decideRetry, parseMcpError, parseStreamError } from "../../../packages/client/src/index.js";
import clientDoc from "../../../docs/client.md?raw";
import { TIMES_OUT, loopback, ports, putZone, zoneFor } from "../support/origin";

afterEach(() => vi.restoreAllMocks());

const MCP_ACCEPT = "application/json, text/event-stream";

function rpc(url: string, id: number, method: string, params: Record<string, unknown> = {}): Promise<Response> {
  return exports.default.fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: MCP_ACCEPT },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
  });
}

const lookupOrder = { name: "lookup_order", arguments: { id: "A-1042" } };

describe("parseMcpError on the Worker's MCP answers", () => {
  it("tools/call, origin refused: the tool result (isError) reads as 521, never reached, retried", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const zone = await zoneFor("client-mcp", loopback(ports.closed));
    const res = await rpc(`http://${zone}/mcp`, 3, "tools/call", lookupOrder);
    expect(res.status).toBe(200);
    const message = await res.json<{ result: { content: { text: string }[] } }>();
    const error = parseMcpError(message);
    expect(error).toMatchObject({
      kind: "edge-error",
      source: "mcp-tool-result",
      status: 521,
      code: 521,
      name: "origin_down",
      category: "origin",
      rayId: res.headers.get("Ray-ID"),
      retryable: true,
      retryAfter: 120,
      retryAfterMs: Number(res.headers.get("retry-after-ms")),
      ownerActionRequired: true,
      requestReachedOrigin: false,
    });
    // The text as parsed, the same as the text form (docs/client.md quotes both).
    expect(parseMcpError(JSON.stringify(message))).toEqual(error);
    const text = message.result.content[0]?.text ?? "";
    expect(text).toMatch(/^Error 521: Web server is down: the tool call failed before the MCP server answered\./);
    expect(text).toContain("Retry: yes, after at least 120 seconds.");
    expect(text).toContain("the tool did not run");
    // Every MCP call is a POST; this one never reached the server, so the policy retries it.
    const first = decideRetry(error, { attempt: 1, method: "POST", status: error?.status ?? 0 }, { random: () => 0 });
    expect(first).toEqual({ kind: "retry", delayMs: 120_000, reason: "521" });
    const last = decideRetry(error, { attempt: 3, method: "POST", status: 521 });
    expect(last).toEqual({ kind: "escalate", reason: "3 attempts used" });
  });

  it("tools/call, reset after the call was sent: 520 reached the server, not repeated unless keyed", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const zone = await zoneFor("client-mcp-reset", loopback(ports.raw));
    const res = await rpc(`http://${zone}/reset`, 4, "tools/call", lookupOrder);
    const error = parseMcpError(await res.json());
    expect(error).toMatchObject({ source: "mcp-tool-result", code: 520, requestReachedOrigin: true, retryable: true });
    expect(decideRetry(error, { attempt: 1, method: "POST", status: 520 })).toEqual({
      kind: "escalate",
      reason: "POST is not idempotent; the request reached the origin",
    });
    const keyed = decideRetry(error, { attempt: 1, method: "POST", status: 520, idempotencyKey: true });
    expect(keyed.kind).toBe("retry");
  });

  it("tools/list: the JSON-RPC error (-32050) reads as the same error", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const zone = await zoneFor("client-mcp-list", loopback(ports.closed));
    const res = await rpc(`http://${zone}/mcp`, 7, "tools/list");
    const message = await res.json<{ id: number; error: { code: number; data: unknown } }>();
    expect([message.id, message.error.code]).toEqual([7, -32050]);
    expect(parseMcpError(message)).toMatchObject({ source: "mcp-error", code: 521, requestReachedOrigin: false });
    // What an SDK throws (McpError: code, message, data) reads the same.
    expect(parseMcpError(message.error)).toMatchObject({ source: "mcp-error", code: 521 });
  });
});

describe("docs/client.md's worked MCP example", () => {
  it("is exactly what the Worker sends for that tools/call, but for its Ray ID and timestamp", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    await putZone("tools.shop.example", { origin: loopback(ports.closed), connect_timeout: 0.3 });
    const res = await rpc("https://tools.shop.example/mcp", 3, "tools/call", lookupOrder);
    const sent = await res.text();
    const section = clientDoc.slice(clientDoc.indexOf("What the Worker sends for that `tools/call`"));
    const block = /```json\n([\s\S]*?)\n```/.exec(section)?.[1] ?? "";
    const documented = JSON.parse(block) as { result: { structuredContent: { ray_id: string; timestamp: string } } };
    const { ray_id: ray, timestamp } = documented.result.structuredContent;
    const actual = JSON.parse(sent) as typeof documented;
    const expected = JSON.stringify(documented)
      .replaceAll(ray, actual.result.structuredContent.ray_id)
      .replaceAll(timestamp, actual.result.structuredContent.timestamp);
    expect(sent).toBe(expected);
    // The status and headers the doc names.
    expect(res.status).toBe(200);
    expect(
      Object.fromEntries(
        ["Content-Type", "Proxy-Status", "x-should-retry", "Retry-After", "retry-after-ms"].map((h) => [
          h,
          res.headers.get(h),
        ]),
      ),
    ).toEqual({
      "Content-Type": "application/json",
      "Proxy-Status": 'edge-errors; error=connection_refused; details="521 origin_down"',
      "x-should-retry": "true",
      "Retry-After": "120",
      "retry-after-ms": "120000",
    });
  });
});

function events(text: string): EventSourceMessage[] {
  const found: EventSourceMessage[] = [];
  createParser({ onEvent: (event) => found.push(event) }).feed(text);
  return found;
}

describe("parseStreamError on a broken stream's final frame", () => {
  it("event stream reset after its headers: the `error` event's data reads as 520, reached the origin", async () => {
    const zone = await zoneFor("client-sse", loopback(ports.stream));
    const res = await exports.default.fetch(`http://${zone}/sse/reset`, { headers: { Accept: "text/event-stream" } });
    expect(res.status).toBe(200);
    const all = events(await res.text());
    const last = all.at(-1);
    expect(last?.event).toBe("error");
    const error = parseStreamError(last?.data ?? "");
    expect(error).toMatchObject({
      kind: "edge-error",
      source: "stream-error",
      status: 520,
      code: 520,
      name: "origin_unknown_error",
      retryable: true,
      ownerActionRequired: true,
      requestReachedOrigin: true,
    });
    expect(error?.rayId).toMatch(/^[0-9a-f]{16}$/);
    // The stream's own events are not edge errors.
    expect(all.slice(0, -1).map((e) => parseStreamError(e.data))).toEqual([null, null]);
    // A GET stream may be asked again: the policy waits the hint.
    expect(decideRetry(error, { attempt: 1, method: "GET", status: 200 }, { random: () => 0 })).toMatchObject({
      kind: "retry",
      delayMs: (error?.retryAfter ?? 0) * 1000,
    });
  });

  it("NDJSON idle past the read timeout: the last line reads as 524", async () => {
    const zone = await zoneFor("client-ndjson", loopback(ports.stream), TIMES_OUT);
    const res = await exports.default.fetch(`http://${zone}/ndjson/idle`);
    const lines = new TextDecoder()
      .decode(await res.arrayBuffer())
      .split("\n")
      .filter(Boolean);
    expect(parseStreamError(lines.at(-1) ?? "")).toMatchObject({
      source: "stream-error",
      code: 524,
      requestReachedOrigin: true,
    });
    expect(lines.slice(0, -1).map(parseStreamError)).toEqual(lines.slice(0, -1).map(() => null));
  });

  it("anything else is null: not JSON, another problem, a stream's own error record", () => {
    for (const data of ["", "not json", "42", '{"error":"quota"}', '{"type":"about:blank","status":500}']) {
      expect(parseStreamError(data)).toBeNull();
    }
  });
});
