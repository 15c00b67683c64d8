/**
 * `parseMcpError(message)` (docs/client.md "MCP"): the edge error an MCP answer carries. Behind this service an MCP
 * request that meets a generated error is answered so the session survives (docs/errors.md): a `tools/call` gets a
 * tool result with `isError: true` whose `structuredContent` is the problem object; any other method gets a
 * JSON-RPC error whose `data` is the problem object. Reads a JSON-RPC message (text or parsed), a bare tool result
 * (what an MCP SDK's `callTool` returns), or a JSON-RPC error object (what an SDK throws, with `code` and `data`).
 * Anything else, or a problem object that is not an edge error's, is `null`.
 */
import { CATALOG } from "./codes.js";
import { isEdgeFields } from "./parse.js";
import type { EdgeError, EdgeErrorFields, EdgeErrorSource } from "./types.js";

export function parseMcpError(message: unknown): EdgeError | null {
  let value = message;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) {
      const found = parseMcpError(item);
      if (found !== null) return found;
    }
    return null;
  }
  if (!isObject(value)) return null;
  const result = isObject(value.result) ? value.result : value;
  if (result.isError === true && isEdgeFields(result.structuredContent)) {
    return fromProblem(result.structuredContent, "mcp-tool-result");
  }
  const error = isObject(value.error) ? value.error : value;
  if (typeof error.code === "number" && isEdgeFields(error.data)) return fromProblem(error.data, "mcp-error");
  return null;
}

/** An `EdgeError` from a problem object found inside a message (the MCP shapes, a stream's error frame). */
export function fromProblem(fields: EdgeErrorFields, source: EdgeErrorSource): EdgeError {
  const entry = CATALOG.get(fields.error_code);
  const retryAfter = fields.retryable ? (fields.retry_after ?? entry?.retryAfter ?? null) : null;
  const reached = fields.request_reached_origin;
  return {
    kind: "edge-error",
    source,
    status: typeof fields.status === "number" ? fields.status : fields.error_code < 1000 ? fields.error_code : 0,
    code: fields.error_code,
    name: fields.error_name ?? entry?.name ?? null,
    category: fields.error_category ?? entry?.category ?? null,
    rayId: typeof fields.ray_id === "string" ? fields.ray_id : null,
    retryable: fields.retryable,
    retryAfter,
    retryAfterMs: retryAfter === null ? null : retryAfter * 1000,
    ownerActionRequired:
      typeof fields.owner_action_required === "boolean"
        ? fields.owner_action_required
        : (entry?.ownerActionRequired ?? null),
    requestReachedOrigin: typeof reached === "boolean" ? reached : null,
    fields,
    proxyStatus: null,
    rateLimit: null,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
