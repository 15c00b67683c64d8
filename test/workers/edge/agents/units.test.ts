/** The pure parts of src/edge/agents (docs/agents.md): recognition, JSON-RPC reading and answers, stream frames. */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { describe, expect, it } from "vitest";
import {
  EDGE_ERROR_RPC_CODE,
  readJsonRpc,
  rpcAnswer,
  rpcAnswerBody,
  toolErrorText,
} from "../../../../src/edge/agents/mcp-answer";
import { acceptsBoth, mayBeMcp, recogniseMcp } from "../../../../src/edge/agents/mcp-recognise";
import { errorFrame, streamKindOf } from "../../../../src/edge/agents/stream-watch";

const PROBLEM = {
  title: "Error 521: Web server is down",
  detail: "The origin refused the connection.",
  retryable: true,
  retry_after: 30,
  ray_id: "0123456789abcdef",
  what_you_should_do: "Wait at least 30 seconds.",
  error_code: 521,
};

describe("recognition", () => {
  it.each([
    ["application/json, text/event-stream", true],
    ["text/event-stream, application/json", true],
    ["Application/JSON;q=0.9 , Text/Event-Stream", true],
    ["application/json, text/event-stream;q=0", false],
    ["application/json", false],
    ["text/event-stream", false],
    ["*/*", false],
  ])("Accept %j accepts both: %s", (accept, both) => {
    expect(acceptsBoth(accept)).toBe(both);
  });

  it("POST only; Mcp-Method alone suffices; Accept needs both types", () => {
    const both = "application/json, text/event-stream";
    expect(recogniseMcp("POST", { mcpMethod: "tools/call", accept: undefined })).toEqual({
      kind: "mcp",
      methodHeader: "tools/call",
    });
    expect(recogniseMcp("POST", { mcpMethod: undefined, accept: both })).toEqual({ kind: "mcp", methodHeader: null });
    expect(recogniseMcp("GET", { mcpMethod: "tools/call", accept: both })).toBeNull();
    expect(recogniseMcp("POST", { mcpMethod: undefined, accept: "application/json" })).toBeNull();
  });

  it("the pre-check passes only requests that name Mcp-Method or text/event-stream", () => {
    expect(mayBeMcp({ accept: "text/html" })).toBe(false);
    expect(mayBeMcp({})).toBe(false);
    expect(mayBeMcp({ "mcp-method": "ping" })).toBe(true);
    expect(mayBeMcp({ accept: "application/json, TEXT/EVENT-STREAM" })).toBe(true);
  });
});

describe("reading JSON-RPC", () => {
  it("a request: its id (string or number) and method; the body's method wins over Mcp-Method", () => {
    expect(readJsonRpc('{"jsonrpc":"2.0","id":7,"method":"tools/list"}', "tools/call")).toEqual({
      kind: "single",
      request: { id: 7, method: "tools/list" },
    });
    expect(readJsonRpc('{"jsonrpc":"2.0","id":"a","params":{}}', "tools/call")).toEqual({
      kind: "single",
      request: { id: "a", method: "tools/call" },
    });
  });

  it.each([
    ["not JSON", "{"],
    ["a notification", '{"jsonrpc":"2.0","method":"notifications/initialized"}'],
    ["a null id", '{"jsonrpc":"2.0","id":null,"method":"ping"}'],
    ["a response", '{"jsonrpc":"2.0","id":1,"result":{}}'],
    ["not 2.0", '{"id":1,"method":"ping"}'],
    ["a batch of notifications", '[{"jsonrpc":"2.0","method":"a"}]'],
    ["an empty batch", "[]"],
  ])("%s: nothing to answer", (_label, text) => {
    expect(readJsonRpc(text, null)).toEqual({ kind: "none" });
  });

  it("a batch keeps its requests in order, without notifications", () => {
    const text =
      '[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":2,"method":"b"}]';
    expect(readJsonRpc(text, null)).toEqual({
      kind: "batch",
      requests: [
        { id: 1, method: "a" },
        { id: 2, method: "b" },
      ],
    });
  });
});

describe("answers", () => {
  it("tools/call: a tool result with isError, one text item and the problem as structured content", () => {
    expect(rpcAnswer({ id: 1, method: "tools/call" }, PROBLEM)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: toolErrorText(PROBLEM) }], structuredContent: PROBLEM, isError: true },
    });
  });

  it("any other method: a JSON-RPC error in the server range, title as message, problem as data", () => {
    expect(rpcAnswer({ id: "x", method: "resources/read" }, PROBLEM)).toEqual({
      jsonrpc: "2.0",
      id: "x",
      error: { code: EDGE_ERROR_RPC_CODE, message: PROBLEM.title, data: PROBLEM },
    });
    expect(EDGE_ERROR_RPC_CODE).toBeGreaterThanOrEqual(-32099);
    expect(EDGE_ERROR_RPC_CODE).toBeLessThanOrEqual(-32000);
  });

  it("a batch's answer is an array", () => {
    const body = rpcAnswerBody({ kind: "batch", requests: [{ id: 1, method: "a" }] }, PROBLEM);
    expect(JSON.parse(body)).toHaveLength(1);
  });

  it("the text names the error, what to do, the retry hint, whether the server saw the call, the ray", () => {
    const text = toolErrorText({ ...PROBLEM, request_reached_origin: false });
    expect(text).toContain(PROBLEM.title);
    expect(text).toContain(PROBLEM.detail);
    expect(text).toContain(`What to do: ${PROBLEM.what_you_should_do}`);
    expect(text).toContain("Retry: yes, after at least 30 seconds.");
    expect(text).toContain("the tool did not run");
    expect(text).toContain(PROBLEM.ray_id);
    const final = toolErrorText({ ...PROBLEM, retryable: false, retry_after: undefined, request_reached_origin: true });
    expect(final).toContain("Retry: no.");
    expect(final).toContain("the tool may have run");
  });
});

describe("stream frames", () => {
  it.each([
    ["text/event-stream", "sse"],
    ["Text/Event-Stream; charset=utf-8", "sse"],
    ["application/x-ndjson", "ndjson"],
    ["application/jsonl", "ndjson"],
    ["application/json", null],
    ["text/plain", null],
    [null, null],
  ])("%j is %j", (type, kind) => {
    expect(streamKindOf(type)).toBe(kind);
  });

  const events = (text: string): EventSourceMessage[] => {
    const found: EventSourceMessage[] = [];
    createParser({ onEvent: (e) => found.push(e) }).feed(text);
    return found;
  };

  it.each(["", "data: a\n\n", "data: a\r\n\r\n", "data: a\n", "data: a", ": comment\n", "data: a\r", "data: a\n\r"])(
    "SSE after %j: the error event parses alone, with the problem JSON as data",
    (before) => {
      const text = before + errorFrame("sse", before.slice(-4), '{"error_code":520}');
      const last = events(text).at(-1);
      expect(last?.event).toBe("error");
      expect(last?.data).toBe('{"error_code":520}');
      expect(text.endsWith("\n\n")).toBe(true);
    },
  );

  it("an MCP stream's frame: each JSON-RPC message as a message event, no error event, the hint on the first", () => {
    const text = "data: a" + errorFrame("sse", "ta: a", '{"error_code":520}', ['{"id":1}', '{"id":2}'], 60_000);
    expect(events(text).map((e) => [e.event ?? "message", e.data])).toEqual([
      ["message", "a"],
      ["message", '{"id":1}'],
      ["message", '{"id":2}'],
    ]);
    expect(text.endsWith('\r\n\r\nretry: 60000\ndata: {"id":1}\n\ndata: {"id":2}\n\n')).toBe(true);
    expect(errorFrame("ndjson", "", "{}", ['{"id":1}'])).toBe('{"error":{}}\n');
  });

  it.each(["", '{"n":1}\n', '{"n":1}\r\n', '{"n":1'])("NDJSON after %j: the error is a line of its own", (before) => {
    const text = before + errorFrame("ndjson", before.slice(-4), '{"error_code":524}');
    expect(text.endsWith('\n{"error":{"error_code":524}}\n') || text === '{"error":{"error_code":524}}\n').toBe(true);
  });
});
