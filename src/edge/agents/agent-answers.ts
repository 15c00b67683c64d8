/**
 * The two answers for clients that cannot read a problem document (docs/agents.md): MCP requests get a JSON-RPC
 * answer carrying the problem, and broken event streams end with an error frame holding it. Both carry the
 * structured default of the one error pipeline (src/errors/pipeline.ts), as JSON, so the problem object, its log
 * line and its headers are exactly those of any other generated error.
 */
import { errorResponse, type Answered, type ErrorEvent, type ErrorScope } from "../../errors/pipeline";
import { profileFor } from "../../errors/retry-hints";
import type { RequestHeaderScan } from "../origin/headers";
import { bodyScanned, copyBody, type BodyCopy } from "./body-copy";
import { rpcAnswer, rpcAnswerBody, rpcBodyOf, type ProblemObject, type RpcBody } from "./mcp-answer";
import { mayBeMcp, recogniseMcp, type McpSignal } from "./mcp-recognise";
import { streamKindOf, watchStream, type FinalFrame, type StreamFailure, type StreamKind } from "./stream-watch";

/**
 * The structured default of an error as JSON, whatever the request's `Accept`, without the zone's custom error
 * rules and page: what a JSON-RPC message or a stream frame can carry is the problem object itself
 * (docs/agents.md "Custom error rules and pages").
 */
export async function problemAnswer(event: ErrorEvent, scope: ErrorScope): Promise<Answered> {
  const asJson = new Request(event.request.url, { method: "GET", headers: { Accept: "application/json" } });
  // `auto` is decided by the request that was made (an MCP request gets the agent profile), not by the stand-in.
  const retryHints = profileFor(scope.retryHints, event.request);
  return errorResponse({ ...event, request: asJson }, { ...scope, customization: undefined, retryHints });
}

/** An MCP request on its way: recognised from its headers, its body copied when it is forwarded. */
export class McpExchange {
  private copy: BodyCopy | null = null;
  constructor(
    private readonly signal: McpSignal,
    private readonly request: Request,
  ) {}

  /** The body to forward, read at the origin's pace and scanned on its way for the ids of an error answer. */
  forwardBody(): ReadableStream<Uint8Array> | null {
    const body = this.request.body as ReadableStream<Uint8Array> | null;
    if (body === null) return null;
    const declared = this.request.headers.get("Content-Length");
    const length = declared !== null && /^\d{1,15}$/.test(declared) ? Number(declared) : null;
    const { forward, copy } = copyBody(body, length);
    this.copy = copy;
    return forward;
  }

  /**
   * The error as a JSON-RPC answer (docs/agents.md "MCP answers"): HTTP 200 with the pipeline's headers (Ray-ID,
   * Proxy-Status, the retry verdicts, Retry-After), `application/json`. `null` when the body holds no request to
   * answer (a notification, a response, not JSON-RPC, over the cap): the ordinary structured error answers then.
   */
  async answer(event: ErrorEvent, scope: ErrorScope): Promise<Answered | null> {
    const scanned =
      this.copy !== null
        ? await this.copy.scanned()
        : await bodyScanned(this.request.body as ReadableStream<Uint8Array> | null);
    if (scanned === null) return null;
    const rpc = rpcBodyOf(scanned.value, this.signal.methodHeader);
    if (rpc.kind === "none") return null;
    const { response, answeredBy } = await problemAnswer(event, scope);
    const problem = JSON.parse(await response.text()) as ProblemObject;
    const headers = new Headers(response.headers);
    headers.set("Content-Type", "application/json");
    headers.delete("Content-Length");
    return { response: new Response(rpcAnswerBody(rpc, problem), { status: 200, headers }), answeredBy };
  }

  /**
   * The JSON-RPC messages, one each, that end the server's event stream when it breaks (docs/agents.md "Streams"):
   * the answer of every request of the body (the SDK clients settle a request only on a message with its id), or,
   * when the body holds none, one log notification carrying the problem, so the stream still says why it ended.
   */
  async streamMessages(problem: ProblemObject): Promise<string[]> {
    const scanned = this.copy !== null ? await this.copy.scanned() : null;
    const rpc = scanned === null ? NO_RPC : rpcBodyOf(scanned.value, this.signal.methodHeader);
    const requests = rpc.kind === "none" ? [] : rpc.kind === "single" ? [rpc.request] : rpc.requests;
    if (requests.length === 0) return [JSON.stringify(logNotification(problem))];
    return requests.map((request) => JSON.stringify(rpcAnswer(request, problem)));
  }
}

const NO_RPC: RpcBody = { kind: "none" };

/**
 * MCP's log message notification (https://modelcontextprotocol.io/specification/2025-06-18/server/utilities/logging):
 * a message every MCP client accepts without a request of its own waiting for it.
 */
function logNotification(problem: ProblemObject): Record<string, unknown> {
  return { jsonrpc: "2.0", method: "notifications/message", params: { level: "error", logger: "edge", data: problem } };
}

/** The request's MCP exchange, or `null` for every request that is not MCP (docs/agents.md "Which requests"). */
export function mcpExchangeOf(request: Request, scan: RequestHeaderScan): McpExchange | null {
  const fields = scan.fields;
  if (fields !== null && !mayBeMcp(fields)) return null; // ordinary traffic stops here
  const headers =
    fields !== null
      ? { mcpMethod: fields["mcp-method"], accept: fields["accept"] }
      : {
          mcpMethod: request.headers.get("Mcp-Method") ?? undefined,
          accept: request.headers.get("Accept") ?? undefined,
        };
  const signal = recogniseMcp(request.method, headers);
  return signal === null ? null : new McpExchange(signal, request);
}

/** What a stream's error frame needs: the request, and how long the origin may stay silent. */
export interface StreamWatch {
  readonly event: Omit<ErrorEvent, "code" | "cause">;
  readonly scope: ErrorScope;
  readonly idleMs: number;
  /** The request's MCP exchange: its event stream's final frame also answers the requests still waiting. */
  readonly mcp: McpExchange | null;
}

/**
 * Whether the origin's answer is a stream to watch (docs/agents.md "Streams"): an event stream or NDJSON without a
 * declared length; `null` for every other answer, which costs one read of its `Content-Type`. `headers` are the
 * answer's own, read once by the caller (each read of `response.headers` is a call into the runtime), so an ordinary
 * answer makes no watch at all.
 */
export function watchedKind(headers: Headers): StreamKind | null {
  const kind = streamKindOf(headers.get("Content-Type"));
  return kind === null || headers.has("Content-Length") ? null : kind;
}

/** The origin's stream of kind `kind` (`watchedKind`), watched: it ends with an error frame if it breaks. */
export function watchedResponse(response: Response, kind: StreamKind, watch: StreamWatch): Response {
  const body = response.body as ReadableStream<Uint8Array> | null;
  if (body === null) return response;
  const problemFor = async (failure: StreamFailure): Promise<FinalFrame> => {
    const event: ErrorEvent = { ...watch.event, ...streamError(failure) };
    const { response: answer } = await problemAnswer(event, watch.scope);
    const problem = (await answer.text()).trim(); // one line: a frame must not be split
    const messages =
      kind === "sse" && watch.mcp !== null ? await watch.mcp.streamMessages(JSON.parse(problem) as ProblemObject) : [];
    const ms = answer.headers.get("retry-after-ms");
    return { problem, messages, retryMs: ms === null ? null : Number(ms) };
  };
  return new Response(watchStream(body, kind, watch.idleMs, problemFor), response);
}

/**
 * The code of a broken stream: 520 when the connection broke, 524 when the origin went quiet (docs/agents.md). The
 * origin had the request: it answered with headers.
 */
function streamError(failure: StreamFailure): { code: number; cause: string; reachedOrigin: true } {
  return failure.kind === "idle"
    ? { code: 524, cause: `stream sent no byte for ${failure.idleMs} ms after its headers`, reachedOrigin: true }
    : { code: 520, cause: `stream broke after its headers: ${failure.message}`, reachedOrigin: true };
}
