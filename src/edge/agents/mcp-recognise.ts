/**
 * Which requests are MCP (docs/agents.md "MCP answers"): a `POST` that carries the `Mcp-Method` request header (MCP
 * protocol revision 2026-07-28), or a `POST` whose `Accept` names both `application/json` and `text/event-stream`,
 * as every Streamable HTTP client must send
 * (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#sending-messages-to-the-server).
 * Only a `POST` can carry a JSON-RPC request, so only a `POST` can be answered with one.
 *
 * Decided from the header scan the proxy makes anyway (src/edge/origin/headers.ts), so ordinary traffic pays two
 * property reads on a plain object and no call into the runtime. A recognised request is only a candidate: its body,
 * scanned on its way to the origin (rpc-scan.ts), decides when an error must be answered (mcp-answer.ts `rpcBodyOf`).
 */
import { acceptsJsonAndEventStream } from "../../errors/client-kind";

/** What the recognition found: the method named by `Mcp-Method`, when the request sent one. */
export interface McpSignal {
  readonly kind: "mcp";
  readonly methodHeader: string | null;
}

/** The request's header values that recognition reads (lower-case names, as the header scan keeps them). */
export interface McpHeaders {
  readonly mcpMethod: string | undefined;
  readonly accept: string | undefined;
}

/** `null` for a request that is not MCP; decided from headers and the method only. */
export function recogniseMcp(method: string, headers: McpHeaders): McpSignal | null {
  if (method !== "POST") return null;
  const { mcpMethod, accept } = headers;
  if (mcpMethod !== undefined) return { kind: "mcp", methodHeader: mcpMethod.trim() || null };
  if (accept !== undefined && acceptsBoth(accept)) return { kind: "mcp", methodHeader: null };
  return null;
}

/**
 * Whether an `Accept` value names both media types with a non-zero weight: the errors layer's reading, which the
 * `auto` retry-hint profile also uses (src/errors/client-kind.ts), so the two never disagree on what is MCP.
 */
export const acceptsBoth = acceptsJsonAndEventStream;

/**
 * Cheap pre-check on the forwarded-fields record of the header scan: true when the request may be MCP, so that the
 * method is read only then. The record holds every field but `Set-Cookie`-carrying requests (`null`), for which
 * the caller reads the two headers itself.
 */
export function mayBeMcp(fields: Readonly<Record<string, string>>): boolean {
  if (fields["mcp-method"] !== undefined) return true;
  const accept = fields["accept"];
  return accept !== undefined && EVENT_STREAM.test(accept);
}

const EVENT_STREAM = /text\/event-stream/i;
