/**
 * A generated error as an MCP answer (docs/agents.md "MCP answers"). Pure: JSON-RPC in, JSON-RPC out.
 *
 * - `tools/call` gets a successful JSON-RPC response whose result is a tool result with `isError: true`
 *   (https://modelcontextprotocol.io/specification/2025-06-18/server/tools#error-handling: errors the model should
 *   see and act on are tool results, not protocol errors): one text item telling the model what happened, what to
 *   do and whether to retry, and the problem object as `structuredContent`.
 * - Every other request gets a JSON-RPC error (JSON-RPC 2.0 §5.1) with code `EDGE_ERROR_RPC_CODE`, in the range
 *   reserved for implementation-defined server errors, the problem's title as `message` and the problem object
 *   as `data`.
 * Both carry the request's own `id`, so the client's pending request settles and its session goes on.
 */

/** JSON-RPC 2.0 §4: a request id (a `null` id identifies nothing the client waits for). */
export type JsonRpcId = string | number;

/** One JSON-RPC request of the body: an id the client waits on, and its method. */
export interface RpcRequest {
  readonly id: JsonRpcId;
  readonly method: string;
}

/** What the body holds, as far as an answer is concerned. */
export type RpcBody =
  | { readonly kind: "single"; readonly request: RpcRequest }
  | { readonly kind: "batch"; readonly requests: readonly RpcRequest[] }
  /** Not JSON-RPC, only notifications or responses, or no id to answer: the ordinary structured error answers. */
  | { readonly kind: "none" };

/**
 * -32050: in JSON-RPC 2.0's "Server error" range (-32000 to -32099, §5.1), clear of the codes the MCP SDKs use
 * (-32000 connection closed, -32001 request timeout, -32042 URL elicitation required).
 */
export const EDGE_ERROR_RPC_CODE = -32050;

const NONE: RpcBody = { kind: "none" };

/**
 * The requests of a JSON-RPC body. `methodHeader` (`Mcp-Method`) names the method when the message does not; the
 * message's own `method` wins, since that is what the server would have run.
 */
export function readJsonRpc(text: string, methodHeader: string | null): RpcBody {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return NONE;
  }
  return rpcBodyOf(data, methodHeader);
}

/** The requests of a parsed JSON-RPC body (`undefined`: not JSON). */
export function rpcBodyOf(data: unknown, methodHeader: string | null): RpcBody {
  if (Array.isArray(data)) {
    const requests = data.flatMap((item) => {
      const request = requestOf(item, null);
      return request === null ? [] : [request];
    });
    return requests.length === 0 ? NONE : { kind: "batch", requests };
  }
  const request = requestOf(data, methodHeader);
  return request === null ? NONE : { kind: "single", request };
}

function requestOf(item: unknown, methodHeader: string | null): RpcRequest | null {
  if (typeof item !== "object" || item === null) return null;
  const message = item as { jsonrpc?: unknown; id?: unknown; method?: unknown };
  if (message.jsonrpc !== "2.0") return null;
  const { id } = message;
  if (typeof id !== "string" && !(typeof id === "number" && Number.isFinite(id))) return null;
  const method = typeof message.method === "string" ? message.method : methodHeader;
  return method === null ? null : { id, method };
}

/** The problem object as the error pipeline rendered it (docs/errors.md), read back from its JSON. */
export type ProblemObject = Readonly<Record<string, unknown>>;

/** A JSON-RPC response (JSON-RPC 2.0 §5) answering `request` with the problem. */
export function rpcAnswer(request: RpcRequest, problem: ProblemObject): Record<string, unknown> {
  if (request.method === "tools/call") {
    return {
      jsonrpc: "2.0",
      id: request.id,
      result: { content: [{ type: "text", text: toolErrorText(problem) }], structuredContent: problem, isError: true },
    };
  }
  return {
    jsonrpc: "2.0",
    id: request.id,
    error: { code: EDGE_ERROR_RPC_CODE, message: stringOf(problem, "title") ?? "Edge error", data: problem },
  };
}

/** The whole body: one response, or an array answering every request of a batch (JSON-RPC 2.0 §6). */
export function rpcAnswerBody(body: Exclude<RpcBody, { kind: "none" }>, problem: ProblemObject): string {
  if (body.kind === "single") return JSON.stringify(rpcAnswer(body.request, problem));
  return JSON.stringify(body.requests.map((request) => rpcAnswer(request, problem)));
}

/**
 * What the model reads: the title, what happened, what to do, whether retrying helps (and when), whether the
 * server saw the call (a tool with side effects must not be repeated blindly), and the Ray ID to quote.
 */
export function toolErrorText(problem: ProblemObject): string {
  const parts = [`${stringOf(problem, "title") ?? "Edge error"}: the tool call failed before the MCP server answered.`];
  const detail = stringOf(problem, "detail");
  if (detail !== null) parts.push(detail);
  const todo = stringOf(problem, "what_you_should_do");
  if (todo !== null) parts.push(`What to do: ${todo}`);
  parts.push(retryHint(problem));
  const reached = problem["request_reached_origin"];
  if (reached === false) parts.push("The request never reached the MCP server: the tool did not run.");
  if (reached === true) {
    parts.push(
      "The request reached the MCP server, so the tool may have run: check its effects before repeating an action that changes anything.",
    );
  }
  const ray = stringOf(problem, "ray_id");
  if (ray !== null) parts.push(`Ray ID: ${ray}.`);
  return parts.join("\n\n");
}

function retryHint(problem: ProblemObject): string {
  if (problem["retryable"] !== true) {
    return "Retry: no. Calling this tool again will fail the same way until the site's owner fixes the cause.";
  }
  const wait = problem["retry_after"];
  return typeof wait === "number" ? `Retry: yes, after at least ${wait} seconds.` : "Retry: yes, after a short wait.";
}

function stringOf(problem: ProblemObject, key: string): string | null {
  const value = problem[key];
  return typeof value === "string" ? value : null;
}
