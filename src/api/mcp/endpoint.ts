/**
 * `/mcp` on API hosts (docs/mcp.md): the Model Context Protocol over Streamable HTTP, stateless
 * (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http): each POST carries one
 * JSON-RPC message and gets its answer as one `application/json` response; no session, no server-sent stream (GET and
 * DELETE: 405). The bearer token is the management API's (src/api/kit/auth.ts), checked on every request before
 * anything else: without a valid one, 401 with `WWW-Authenticate: Bearer` and nothing about the tools.
 *
 * Hand-written rather than the official SDK's server: the SDK's server and transport add about 880 KB to the bundle
 * (ajv among them, whose compiled validators need code generation the Workers runtime forbids) for the four methods
 * a stateless tool server answers (docs/mcp.md "Why not the SDK's server").
 */
import { authenticate, type Principal } from "../kit/auth";
import { readJsonBody } from "../kit/body";
import { API_FAILURES, apiFailureResponse } from "../kit/envelope";
import type { MountedApi } from "../kit/mount";
import type { RequestContext } from "../../shared/request-context";
import {
  classify,
  headerVersionAccepted,
  negotiatedVersion,
  PROTOCOL_VERSIONS,
  responseBody,
  result,
  rpcError,
  RPC_ERRORS,
  type RequestId,
  type RpcOutcome,
} from "./protocol";
import { readResource, resourceList, resourceTemplates } from "./resources";
import { routeCaller } from "./route-call";
import { TOOLS } from "./tools";

/** The endpoint's path on an API host (with or without the v4 prefix, as every API path). */
export const MCP_PATHS: ReadonlySet<string> = new Set(["/mcp", "/client/v4/mcp"]);

const SERVER_INFO = { name: "edge-errors", title: "edge-errors", version: "0.1.0" };

const INSTRUCTIONS =
  "Tools for an edge that answers a zone's traffic and generates its errors. Start with list_zones. A Ray ID " +
  "(16 hex) names one error: explain_error. top_errors and error_rate count a zone's errors over a window. " +
  "preview_error shows what a visitor gets; lint_rules and replay_draft judge a draft of custom error rules; " +
  "trace_request walks a request through every phase. Every error code's reference is a resource " +
  "edge-errors://codes/{code}. Nothing here changes a zone.";

const JSON_HEADERS = { "Content-Type": "application/json", "Cache-Control": "no-store" };

export interface McpEndpoint {
  handle(rc: RequestContext): Promise<Response>;
}

export function mcpEndpoint(api: Pick<MountedApi, "dispatch">): McpEndpoint {
  async function handle(rc: RequestContext): Promise<Response> {
    const { request } = rc;
    const principal = await authenticate(request, rc.env);
    if (!principal.ok) return apiFailureResponse(principal.error);
    if (request.method !== "POST") return apiFailureResponse(API_FAILURES.methodNotAllowed(["POST"]));
    if (!headerVersionAccepted(request.headers.get("MCP-Protocol-Version")))
      return rpcResponse(
        400,
        null,
        rpcError(
          RPC_ERRORS.invalidRequest,
          `Unsupported MCP-Protocol-Version; this server speaks ${PROTOCOL_VERSIONS.join(", ")}`,
        ),
      );
    const type = request.headers.get("Content-Type") ?? "";
    if (!/^application\/json\s*(;|$)/i.test(type))
      return rpcResponse(
        415,
        null,
        rpcError(RPC_ERRORS.invalidRequest, "Send the message as Content-Type: application/json"),
      );
    const body = await readJsonBody(request);
    if (!body.ok) {
      const [first] = body.error.errors;
      const code = body.error.status === 413 ? RPC_ERRORS.invalidRequest : RPC_ERRORS.parse;
      return rpcResponse(body.error.status, null, rpcError(code, first?.message ?? "unreadable body"));
    }
    const message = classify(body.value);
    switch (message.kind) {
      case "no-answer":
        return new Response(null, { status: 202 });
      case "invalid":
        return rpcResponse(400, null, rpcError(RPC_ERRORS.invalidRequest, message.why));
      case "request":
        return rpcResponse(200, message.id, await answer(rc, principal.value, message.method, message.params));
    }
  }

  async function answer(
    rc: RequestContext,
    principal: Principal,
    method: string,
    params: unknown,
  ): Promise<RpcOutcome> {
    const p = typeof params === "object" && params !== null ? (params as Record<string, unknown>) : {};
    switch (method) {
      case "initialize":
        return result({
          protocolVersion: negotiatedVersion(p.protocolVersion),
          capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
          serverInfo: SERVER_INFO,
          instructions: INSTRUCTIONS,
        });
      case "ping":
        return result({});
      case "tools/list":
        return result({ tools: TOOLS.filter((tool) => tool.visible(principal)).map((tool) => tool.listed()) });
      case "tools/call":
        return result(await callTool(rc, principal, p));
      case "resources/list":
        return result(resourceList());
      case "resources/templates/list":
        return result(resourceTemplates());
      case "resources/read": {
        const uri = typeof p.uri === "string" ? p.uri : "";
        const read = readResource(uri, rc.url.href, rc.settings);
        return read === null
          ? rpcError(
              RPC_ERRORS.resourceNotFound,
              "Resource not found: the catalog's resources are edge-errors://codes/{code}",
              {
                uri,
              },
            )
          : result(read);
      }
      default:
        return rpcError(RPC_ERRORS.methodNotFound, `Method not found: ${method.slice(0, 64)}`);
    }
  }

  async function callTool(rc: RequestContext, principal: Principal, p: Record<string, unknown>): Promise<unknown> {
    const name = typeof p.name === "string" ? p.name : "";
    const tool = TOOLS.find((t) => t.name === name);
    // A tool this token may not use is answered as one that does not exist: the list it got is the truth for it.
    if (tool === undefined || !tool.visible(principal)) {
      const offered = TOOLS.filter((t) => t.visible(principal)).map((t) => t.name);
      return errorResult(
        `No tool named ${JSON.stringify(name.slice(0, 64))} for this token. ` +
          (offered.length
            ? `Its tools: ${offered.join(", ")}.`
            : "It has no tools: it lacks the zones:read permission."),
      );
    }
    const context = { principal, call: routeCaller(api, rc, principal), now: Date.now(), settings: rc.settings };
    const outcome = await tool.call(p.arguments, context);
    switch (outcome.kind) {
      case "failed":
        return errorResult(outcome.sentence);
      case "ok":
        return {
          content: [
            { type: "text", text: outcome.summary },
            // The structured result as text too, for clients that do not read structuredContent (MCP 2025-06-18).
            { type: "text", text: JSON.stringify(outcome.structured) },
          ],
          structuredContent: outcome.structured,
        };
    }
  }

  return { handle };
}

function errorResult(sentence: string): unknown {
  return { content: [{ type: "text", text: sentence }], isError: true };
}

function rpcResponse(status: number, id: RequestId | null, outcome: RpcOutcome): Response {
  return new Response(JSON.stringify(responseBody(id, outcome)), { status, headers: JSON_HEADERS });
}
