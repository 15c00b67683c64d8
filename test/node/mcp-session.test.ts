/**
 * MCP through the edge (docs/agents.md "MCP answers"), with the real clients: the official MCP TypeScript SDK's
 * client and Streamable HTTP transport, through the real Worker (src/index.ts served by Miniflare), to an MCP server
 * origin built with the same SDK on 127.0.0.1 (test/servers/mcp-origin.ts). The origin is stopped and started again
 * under one client session: the failed `tools/call` is a tool result with `isError`, other requests a JSON-RPC error
 * carrying the problem, and the same session works once the origin is back.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveWorker, type Served } from "../../bench/lib/serve.ts";
import { startMcpOrigin, type McpOrigin } from "../servers/mcp-origin.ts";

const root = resolve(import.meta.dirname, "../..");
/** A host without zone config: the Worker sends it to DEFAULT_ORIGIN, the MCP origin. */
const ENDPOINT = "http://mcp.test/mcp";

interface Problem {
  readonly error_code: number;
  readonly title: string;
  readonly retryable: boolean;
  readonly retry_after?: number;
  readonly ray_id: string;
  readonly what_you_should_do: string;
  readonly request_reached_origin?: boolean | null;
}

let origin: McpOrigin;
let worker: Served;
/** The responses the client received, newest last (to check the HTTP status and headers the SDK saw). */
const seen: Response[] = [];

/**
 * `fetch` for the SDK transport: the request reaches the Worker with its own host through Miniflare's
 * `dispatchFetch` (no resolver here maps `mcp.test`), and the response streams back unbuffered.
 */
async function workerFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text();
  const answer = await worker.miniflare.dispatchFetch(request.url, {
    method: request.method,
    headers: [...request.headers],
    body,
    redirect: "manual",
  });
  const response = new Response(answer.body as ReadableStream<Uint8Array> | null, {
    status: answer.status,
    statusText: answer.statusText,
    headers: [...answer.headers],
  });
  // Status and headers only: a clone would tee the body, and a tee branch's cancel (the SDK cancels a 202's body)
  // settles only once the other branch is cancelled too (WHATWG Streams, ReadableStreamDefaultTee).
  seen.push(new Response(null, { status: response.status, headers: response.headers }));
  return response;
}

/** A raw POST to the MCP endpoint, as an MCP client would send it. */
function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return workerFetch(ENDPOINT, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

beforeAll(async () => {
  origin = await startMcpOrigin();
  worker = await serveWorker({
    root,
    entry: "src/index.ts",
    bindings: {
      ADMIN_TOKEN: "mcp-test-token",
      API_HOSTS: "api.test",
      DEFAULT_ORIGIN: `http://127.0.0.1:${origin.port}`,
    },
  });
}, 60_000);

afterAll(async () => {
  await worker?.dispose();
  await origin?.stop();
});

describe("an MCP session through the edge survives its origin going down", () => {
  it("lists and calls tools; with the origin down, tools/call is an isError result; back up, the same session works", async () => {
    const client = new Client({ name: "edge-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(ENDPOINT), { fetch: workerFetch });
    const errors: unknown[] = [];
    await client.connect(transport);
    transport.onerror = (error) => void errors.push(error);
    const sessionId = transport.sessionId;
    expect(sessionId).toBeTruthy();

    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(["add", "sum", "crash"]);
    expect(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } })).toMatchObject({
      content: [{ type: "text", text: "5" }],
    });
    const callsBefore = origin.calls();

    await origin.stop();
    const failed = await client.callTool({ name: "add", arguments: { a: 1, b: 1 } });
    expect(failed.isError).toBe(true);
    const problem = failed.structuredContent as Problem | undefined;
    if (problem === undefined) throw new Error("no structured content");
    expect(problem.error_code).toBe(521);
    expect(problem.retryable).toBe(true);
    const content = failed.content as { type: string; text: string }[];
    expect(content).toHaveLength(1);
    expect(content[0]?.type).toBe("text");
    const text = content[0]?.text ?? "";
    expect(text).toContain(problem.title);
    expect(text).toContain(problem.what_you_should_do);
    expect(text).toContain(`Retry: yes, after at least ${problem.retry_after} seconds.`);
    expect(text).toContain(problem.ray_id);
    // What the SDK received: HTTP 200 (anything else is a transport failure to it), the error's own headers.
    const answer = seen.at(-1);
    expect(answer?.status).toBe(200);
    expect(answer?.headers.get("Content-Type")).toBe("application/json");
    expect(answer?.headers.get("Ray-ID")).toBe(problem.ray_id);
    expect(answer?.headers.get("Proxy-Status")).toMatch(/connection_refused/);
    expect(answer?.headers.get("Retry-After")).toBe(String(problem.retry_after));
    expect(answer?.headers.get("x-should-retry")).toBe("true");
    expect(answer?.headers.get("retry-after-ms")).toBe(String((problem.retry_after ?? 0) * 1000));
    expect(answer?.headers.get("Server-Timing")).toBeTruthy();
    expect(problem.request_reached_origin).toBe(false);
    expect(text).toContain("the tool did not run");
    expect(answer?.headers.get("Cache-Control")).toBe("private, no-store");

    // Any other request: a JSON-RPC error in the server range with the problem as data.
    const listed = await client.listTools().then(
      () => null,
      (error: unknown) => error,
    );
    expect(listed).toBeInstanceOf(McpError);
    expect((listed as McpError).code).toBe(-32050);
    expect(((listed as McpError).data as Problem).error_code).toBe(521);

    // A tool with an output schema: SDK 1.32.2's `callTool` validates `structuredContent` against it even on an
    // `isError` result (client/index.js), so the call rejects with its validation error; the session goes on.
    const schemed = await client.callTool({ name: "sum", arguments: { a: 1, b: 1 } }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(schemed).toBeInstanceOf(McpError);
    expect((schemed as McpError).code).toBe(-32602);

    await origin.start();
    expect(await client.callTool({ name: "sum", arguments: { a: 1, b: 2 } })).toMatchObject({
      structuredContent: { sum: 3 },
    });
    expect(await client.callTool({ name: "add", arguments: { a: 20, b: 22 } })).toMatchObject({
      content: [{ type: "text", text: "42" }],
    });
    expect(transport.sessionId).toBe(sessionId);
    expect(origin.calls()).toBe(callsBefore + 2);
    expect(errors).toEqual([]);
    await client.close();
  }, 60_000);
});

describe("an origin that dies mid-call", () => {
  it("its event stream ends with the call's own isError result; the session goes on", async () => {
    const client = new Client({ name: "edge-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(ENDPOINT), { fetch: workerFetch });
    await client.connect(transport);
    const crashed = await client.callTool({ name: "crash", arguments: {} }, undefined, { timeout: 10_000 });
    // The answer began as the origin's own event stream: the error came after its headers.
    expect(seen.at(-1)?.headers.get("Content-Type")).toBe("text/event-stream");
    expect(crashed.isError).toBe(true);
    expect((crashed.structuredContent as Problem | undefined)?.error_code).toBe(520);
    expect((crashed.structuredContent as Problem | undefined)?.request_reached_origin).toBe(true);
    await origin.start();
    expect(await client.callTool({ name: "add", arguments: { a: 1, b: 2 } })).toMatchObject({
      content: [{ type: "text", text: "3" }],
    });
    await client.close();
  }, 30_000);
});

describe("what is answered how while the origin is down", () => {
  beforeAll(() => origin.stop());
  afterAll(() => origin.start());

  it("recognised by `Mcp-Method` alone (Accept asks for JSON only): the request's id and the header's method", async () => {
    const res = await post(
      { jsonrpc: "2.0", id: "call-7", method: "tools/call", params: { name: "add", arguments: {} } },
      { Accept: "application/json", "Mcp-Method": "tools/call", "Mcp-Name": "add" },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: string; result: { isError: boolean; structuredContent: Problem } };
    expect(body.id).toBe("call-7");
    expect(body.result.isError).toBe(true);
    expect(body.result.structuredContent.error_code).toBe(521);
  });

  it("a batch: every request answered in one array, in order; its notification gets nothing", async () => {
    const res = await post([
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { jsonrpc: "2.0", method: "notifications/progress", params: {} },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "add" } },
    ]);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: number; error?: { code: number }; result?: { isError: boolean } }[];
    expect(body.map((m) => m.id)).toEqual([1, 2]);
    expect(body[0]?.error?.code).toBe(-32050);
    expect(body[1]?.result?.isError).toBe(true);
  });

  it("a notification (no id) gets the ordinary structured error at its own status", async () => {
    const res = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(res.status).toBe(521);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(((await res.json()) as Problem).error_code).toBe(521);
  });

  it("a POST that is not MCP (Accept: application/json only, no Mcp-Method) gets the ordinary structured error", async () => {
    const res = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { Accept: "application/json" });
    expect(res.status).toBe(521);
    expect(((await res.json()) as Problem).error_code).toBe(521);
  });
});
