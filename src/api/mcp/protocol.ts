/**
 * The wire of the MCP endpoint (docs/mcp.md): JSON-RPC 2.0 messages (https://www.jsonrpc.org/specification) as the
 * Model Context Protocol carries them over Streamable HTTP
 * (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http). Pure.
 */

/** The protocol revisions this server speaks, newest first; the first is answered to a client asking for another. */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;

/** JSON-RPC error codes (JSON-RPC 2.0 §5.1; -32002 is MCP's "resource not found"). */
export const RPC_ERRORS = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  resourceNotFound: -32002,
} as const;

export type RequestId = string | number;

/** One message a client sent, classified. */
export type Incoming =
  | { readonly kind: "request"; readonly id: RequestId; readonly method: string; readonly params: unknown }
  /** A notification or a response to a server request: nothing to answer (HTTP 202). */
  | { readonly kind: "no-answer" }
  | { readonly kind: "invalid"; readonly why: string };

export function classify(message: unknown): Incoming {
  if (Array.isArray(message))
    return {
      kind: "invalid",
      why: "JSON-RPC batches are not accepted (MCP 2025-06-18 removed them): send one message",
    };
  if (typeof message !== "object" || message === null) return { kind: "invalid", why: "a message is a JSON object" };
  const m = message as Record<string, unknown>;
  if (m.jsonrpc !== "2.0") return { kind: "invalid", why: 'jsonrpc must be "2.0"' };
  const hasId = typeof m.id === "string" || (typeof m.id === "number" && Number.isFinite(m.id));
  if (typeof m.method !== "string") {
    // A response (result or error) to a request this server never sends: accepted and ignored.
    return "result" in m || "error" in m ? { kind: "no-answer" } : { kind: "invalid", why: "method must be a string" };
  }
  if (!("id" in m)) return { kind: "no-answer" };
  if (!hasId) return { kind: "invalid", why: "id must be a string or a number" };
  return { kind: "request", id: m.id as RequestId, method: m.method, params: m.params };
}

export interface RpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export type RpcOutcome =
  { readonly kind: "result"; readonly value: unknown } | { readonly kind: "error"; readonly error: RpcError };

export const result = (value: unknown): RpcOutcome => ({ kind: "result", value });
export const rpcError = (code: number, message: string, data?: unknown): RpcOutcome => ({
  kind: "error",
  error: data === undefined ? { code, message } : { code, message, data },
});

/** The JSON-RPC response object of an outcome. */
export function responseBody(id: RequestId | null, outcome: RpcOutcome): unknown {
  return outcome.kind === "result"
    ? { jsonrpc: "2.0", id, result: outcome.value }
    : { jsonrpc: "2.0", id, error: outcome.error };
}

/** The revision answered to `initialize`: the client's when this server speaks it, else this server's newest. */
export function negotiatedVersion(asked: unknown): string {
  return typeof asked === "string" && (PROTOCOL_VERSIONS as readonly string[]).includes(asked)
    ? asked
    : PROTOCOL_VERSIONS[0];
}

/** Whether an `MCP-Protocol-Version` header (absent: the client predates it) names a revision this server speaks. */
export function headerVersionAccepted(header: string | null): boolean {
  return header === null || (PROTOCOL_VERSIONS as readonly string[]).includes(header);
}
