/**
 * Streams that fail loudly (docs/agents.md "Streams"), through the real Worker to the raw stream origin of
 * test/servers/stream-origin.ts: an event stream that is reset or goes idle after its headers ends with an `error`
 * event read by a real SSE parser (eventsource-parser); NDJSON ends with an error line; clean streams and other
 * media types are untouched.
 */
import { exports } from "cloudflare:workers";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { EventSource } from "eventsource";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TIMES_OUT, loopback, ports, zoneFor } from "../../support/origin";

interface Problem {
  readonly error_code: number;
  readonly status: number;
  readonly retryable: boolean;
  readonly retry_after?: number;
  readonly ray_id: string;
  readonly what_you_should_do: string;
  readonly request_reached_origin?: boolean | null;
}

/** The zone of the stream origin; read timeout (the idle limit) 0.8 s. */
const streamZone = (label: string): Promise<string> => zoneFor(label, loopback(ports.stream), TIMES_OUT);

async function fetchText(url: string): Promise<{ res: Response; text: string; ms: number }> {
  const started = Date.now();
  const res = await exports.default.fetch(url, { headers: { Accept: "text/event-stream" } });
  // Bytes decoded here: the runtime warns when `.text()` reads a body whose type is not text (NDJSON).
  const text = new TextDecoder().decode(await res.arrayBuffer());
  return { res, text, ms: Date.now() - started };
}

function parseSse(text: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(text);
  return events;
}

describe("event streams end with an error event", () => {
  it("reset mid-stream: the half-sent event is closed, then `event: error` with the 520 problem", async () => {
    const zone = await streamZone("sse-reset");
    const { res, text } = await fetchText(`http://${zone}/sse/reset`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/event-stream");
    const events = parseSse(text);
    expect(events.map((e) => e.event ?? "message")).toEqual(["message", "message", "error"]);
    expect(events[0]?.data).toBe("one");
    const last = events.at(-1);
    const problem = JSON.parse(last?.data ?? "") as Problem;
    expect(problem.error_code).toBe(520);
    expect(problem.status).toBe(520);
    expect(problem.retryable).toBe(true);
    expect(typeof problem.retry_after).toBe("number");
    expect(problem.ray_id).toMatch(/^[0-9a-f]{16}$/);
    expect(problem.request_reached_origin).toBe(true);
    expect(text.endsWith("\n\n")).toBe(true);
    // The error event sets the reconnection time to the error's own wait (its retry-after-ms).
    expect(last?.id).toBeUndefined();
    expect(text).toMatch(new RegExp(`event: error\nretry: ${(problem.retry_after ?? 0) * 1000}\ndata: `));
  });

  it("idle past the zone's read timeout: `event: error` with the 524 problem, then the stream closes", async () => {
    const zone = await streamZone("sse-idle");
    const { text, ms } = await fetchText(`http://${zone}/sse/idle`);
    const events = parseSse(text);
    expect(events.map((e) => e.event ?? "message")).toEqual(["message", "error"]);
    const problem = JSON.parse(events[1]?.data ?? "") as Problem;
    expect(problem.error_code).toBe(524);
    expect(problem.retryable).toBe(true);
    expect(problem.request_reached_origin).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(800);
    // A margin: what this guards against is a stream left open until vitest's 30 s timeout.
    expect(ms).toBeLessThan(15_000);
  });

  it("a stream that ends cleanly passes through byte for byte", async () => {
    const zone = await streamZone("sse-clean");
    const { text } = await fetchText(`http://${zone}/sse/clean`);
    expect(text).toBe("event: message\ndata: one\n\nevent: message\ndata: two\n\n");
  });
});

describe("an MCP request's event stream ends with JSON-RPC messages only", () => {
  /** A Streamable HTTP POST (docs/agents.md "Which requests") whose server answers with a stream that breaks. */
  async function mcpStream(zone: string, body: unknown): Promise<EventSourceMessage[]> {
    const res = await exports.default.fetch(`http://${zone}/sse/reset`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify(body),
    });
    expect(res.headers.get("Content-Type")).toBe("text/event-stream");
    return parseSse(await res.text());
  }

  it("a tools/call: no `error` event (MCP clients log it as unknown), the call's isError result with the hint", async () => {
    const zone = await streamZone("mcp-sse-call");
    const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "add", arguments: {} } };
    const events = await mcpStream(zone, call);
    expect(events.map((e) => e.event ?? "message")).toEqual(["message", "message", "message"]);
    const answer = JSON.parse(events.at(-1)?.data ?? "") as {
      jsonrpc: string;
      id: number;
      result: { isError: boolean; structuredContent: Problem };
    };
    expect(answer).toMatchObject({ jsonrpc: "2.0", id: 7, result: { isError: true } });
    expect(answer.result.structuredContent.error_code).toBe(520);
    expect(answer.result.structuredContent.request_reached_origin).toBe(true);
  });

  it("a body with no request: one log notification carrying the problem", async () => {
    const zone = await streamZone("mcp-sse-note");
    const events = await mcpStream(zone, { jsonrpc: "2.0", method: "notifications/initialized" });
    expect(events.map((e) => e.event ?? "message")).toEqual(["message", "message", "message"]);
    const note = JSON.parse(events.at(-1)?.data ?? "") as { method: string; params: { level: string; data: Problem } };
    expect(note.method).toBe("notifications/message");
    expect(note.params.level).toBe("error");
    expect(note.params.data.error_code).toBe(520);
  });
});

describe("NDJSON ends with an error line", () => {
  it("reset mid-line: the broken line is ended, then one JSON object holding the problem", async () => {
    const zone = await streamZone("nd-reset");
    const { res, text } = await fetchText(`http://${zone}/ndjson/reset`);
    expect(res.headers.get("Content-Type")).toBe("application/x-ndjson");
    const lines = text.split("\n");
    expect(lines.at(-1)).toBe(""); // ends with a newline
    expect(lines.slice(0, 2)).toEqual(['{"n":1}', '{"n":2']);
    const final = JSON.parse(lines.at(-2) ?? "") as { error: Problem };
    expect(final.error.error_code).toBe(520);
    expect(final.error.retryable).toBe(true);
    expect(final.error.request_reached_origin).toBe(true);
  });

  it("idle: the final line holds the 524 problem", async () => {
    const zone = await streamZone("nd-idle");
    const { text } = await fetchText(`http://${zone}/ndjson/idle`);
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toBe('{"n":1}');
    expect((JSON.parse(lines.at(-1) ?? "") as { error: Problem }).error.error_code).toBe(524);
  });

  it("a clean NDJSON stream is untouched", async () => {
    const zone = await streamZone("nd-clean");
    const { text } = await fetchText(`http://${zone}/ndjson/clean`);
    expect(text).toBe('{"n":1}\n{"n":2}\n');
  });
});

describe("other responses are not watched", () => {
  it("a text/plain body that breaks gets no frame appended", async () => {
    const zone = await streamZone("text-reset");
    const res = await exports.default.fetch(`http://${zone}/text/reset`);
    const received = await res.arrayBuffer().then(
      (bytes) => new TextDecoder().decode(bytes),
      () => "(the read failed)",
    );
    expect(received).not.toContain("error");
  });
});

describe("EventSource (the eventsource package) and the error event", () => {
  afterEach(() => vi.restoreAllMocks());

  it("reconnects after the problem's hint (the `retry:` field), not its own 3 s", async () => {
    const zone = await streamZone("sse-eventsource");
    // EventSource schedules its reconnection with setTimeout(reconnect, interval): the interval is recorded and the
    // reconnection is not waited for (the source is closed at once).
    const intervals: number[] = [];
    const real = globalThis.setTimeout;
    vi.spyOn(globalThis, "setTimeout").mockImplementation((handler: () => void, ms?: number) => {
      if (ms !== undefined && ms >= 1_000) {
        intervals.push(ms);
        return real(() => undefined, 0);
      }
      return real(handler, ms);
    });
    const source = new EventSource(`http://${zone}/sse/reset`, {
      fetch: (input, init) => exports.default.fetch(new Request(input, init)),
    });
    const problems: Problem[] = [];
    const plain: Event[] = [];
    await new Promise<void>((done) => {
      source.addEventListener("error", (event) => {
        if ("data" in event && typeof event.data === "string") problems.push(JSON.parse(event.data) as Problem);
        else {
          plain.push(event);
          source.close();
          done();
        }
      });
    });
    expect(problems.map((p) => p.error_code)).toEqual([520]);
    expect(plain).toHaveLength(1);
    expect(intervals).toEqual([(problems[0]?.retry_after ?? 0) * 1000]);
  });
});
