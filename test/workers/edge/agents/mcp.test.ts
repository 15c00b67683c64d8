/**
 * MCP answers through the real Worker (docs/agents.md "MCP answers"), for what the SDK session test
 * (test/node/mcp-session.test.ts) does not reach: the forwarded request is unchanged by the body copy, an error
 * before the origin is asked is answered from the body itself, and a body past the cap or never finished gets the
 * ordinary structured error without delay beyond the documented wait.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { copyBody, MCP_BODY_CAP, MCP_BODY_WAIT_MS } from "../../../../src/edge/agents/body-copy";
import { loopback, ports, zoneFor } from "../../support/origin";

const MCP_ACCEPT = "application/json, text/event-stream";

interface Echo {
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly bodyBytes: number;
}

const call = (id: number | string): string =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "add", arguments: { a: 1, b: 2 } } });

function post(url: string, body: BodyInit, headers: Record<string, string> = {}): Promise<Response> {
  return exports.default.fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: MCP_ACCEPT, ...headers },
    body,
  });
}

describe("the forwarded request is what the client sent", () => {
  it("an MCP POST reaches the origin with the same body bytes and framing as any other POST", async () => {
    const zone = await zoneFor("mcp-echo", loopback(ports.http));
    const body = call(1);
    const mcp = await (await post(`http://${zone}/echo`, body)).json<Echo>();
    const plain = await (await post(`http://${zone}/echo`, body, { Accept: "application/json" })).json<Echo>();
    expect(mcp.method).toBe("POST");
    expect(mcp.bodyBytes).toBe(new TextEncoder().encode(body).byteLength);
    expect(mcp.bodyBytes).toBe(plain.bodyBytes);
    expect(mcp.headers["content-length"]).toBe(plain.headers["content-length"]);
    expect(mcp.headers["transfer-encoding"]).toBe(plain.headers["transfer-encoding"]);
    expect(mcp.headers["accept"]).toBe(MCP_ACCEPT);
  });
});

describe("a slow origin", () => {
  const CHUNK = 16 * 1024;

  /** A client body of `chunks` chunks of 16 KiB, each made only when asked for; `pulled()` counts them. */
  function countedBody(chunks: number): { body: ReadableStream<Uint8Array>; pulled: () => number } {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (pulled === chunks) return controller.close();
          pulled += 1;
          controller.enqueue(new Uint8Array(CHUNK).fill(0x20));
        },
      },
      { highWaterMark: 0 },
    );
    return { body, pulled: () => pulled };
  }

  it("the client's body is read only as the origin's side takes it: nothing of it waits in the Worker", async () => {
    const { body, pulled } = countedBody(64);
    const { forward } = copyBody(body, 64 * CHUNK);
    // An origin that reads nothing yet: whatever the Worker took now, it would hold.
    await new Promise((r) => setTimeout(r, 200));
    expect(pulled()).toBeLessThanOrEqual(2);
    const reader = forward.getReader();
    let taken = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      taken += value.byteLength;
      // At most the chunk being handed over and the one after it, however the origin paces its reads.
      expect(pulled() * CHUNK - taken).toBeLessThanOrEqual(2 * CHUNK);
      await new Promise((r) => setTimeout(r, 1));
    }
    expect([taken, pulled()]).toEqual([64 * CHUNK, 64]);
  });

  it("40 concurrent 1 MiB MCP POSTs to an origin that reads bodies late all reach it whole", async () => {
    const zone = await zoneFor("mcp-slow-read", loopback(ports.http), { read_timeout: 30 });
    const answers = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const res = await post(`http://${zone}/slow-read?ms=1500`, countedBody(64).body, {
          "Mcp-Method": "tools/call",
          "Content-Length": String(64 * CHUNK),
        });
        return `${res.status} ${await res.text()}`;
      }),
    );
    expect(new Set(answers)).toEqual(new Set([`200 ${64 * CHUNK}`]));
  });
});

describe("errors of MCP requests", () => {
  it("an error before the origin is asked (1038) is a JSON-RPC answer read from the body itself", async () => {
    const zone = await zoneFor("mcp-1038", loopback(ports.http), { max_request_header_bytes: 1024 });
    const res = await post(`http://${zone}/mcp`, call("before"), { "X-Big": "x".repeat(2000) });
    expect(res.status).toBe(200);
    const answer = await res.json<{
      id: string;
      result: { isError: boolean; structuredContent: { error_code: number } };
    }>();
    expect(answer.id).toBe("before");
    expect(answer.result.isError).toBe(true);
    expect(answer.result.structuredContent.error_code).toBe(1038);
    expect(res.headers.get("Proxy-Status")).toBeTruthy();
  });

  it("a body over the cap gets the ordinary structured error (its id is not read)", async () => {
    const zone = await zoneFor("mcp-cap", loopback(ports.closed));
    const padding = "x".repeat(MCP_BODY_CAP);
    const body = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { padding } });
    const res = await post(`http://${zone}/mcp`, body);
    expect(res.status).toBe(521);
    expect((await res.json<{ error_code: number }>()).error_code).toBe(521);
  });

  it("a body the client never finishes: the ordinary error once the wait is over, never a hang", async () => {
    const zone = await zoneFor("mcp-endless", loopback(ports.closed));
    const endless = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0","id":4,'));
      },
    });
    const started = Date.now();
    const res = await post(`http://${zone}/mcp`, endless);
    expect(res.status).toBe(521);
    await res.body?.cancel();
    // A margin over the wait: what this guards against is a hang until vitest's 30 s timeout.
    expect(Date.now() - started).toBeLessThan(MCP_BODY_WAIT_MS + 10_000);
  });
});
