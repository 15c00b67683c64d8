/**
 * Who is asking, as far as an error's answer depends on it (docs/errors.md "SDK dialect" and "Retry-hint profiles"),
 * decided from the request's method, path and headers only. Pure: no bindings.
 *
 * - A Stainless-generated SDK (openai-node, anthropic-sdk-typescript, cloudflare-typescript, and their Python,
 *   Go and Java twins) sends `X-Stainless-*` headers on every request (`X-Stainless-Lang`, `X-Stainless-Retry-Count`,
 *   ...: `defaultHeaders` and `buildHeaders` in https://github.com/openai/openai-node/blob/master/src/client.ts).
 * - An MCP request (Streamable HTTP): a `POST` with the `Mcp-Method` header, or a `POST` whose `Accept` names both
 *   `application/json` and `text/event-stream`, as every Streamable HTTP client must send
 *   (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#sending-messages-to-the-server).
 * - The client package (`@edge-errors/client`): its `ACCEPT`, exactly (packages/client/src/accept.ts); it adds no
 *   header of its own, so that a browser never needs a CORS preflight for it.
 */

/** The `Accept` the client package sends (packages/client/src/accept.ts `ACCEPT`); a test keeps the two equal. */
export const CLIENT_PACKAGE_ACCEPT = "application/problem+json, application/json;q=0.9, text/markdown;q=0.8, */*;q=0.1";

const STAINLESS_PREFIX = "x-stainless-";

/**
 * Whether the request carries any `x-stainless-*` header. The runtime yields header names lower-cased and sorted
 * (Fetch standard "sort and combine"), so the scan stops at the first name past the prefix.
 */
export function fromStainlessSdk(headers: Headers): boolean {
  for (const name of headers.keys()) {
    if (name.startsWith(STAINLESS_PREFIX)) return true;
    if (name > STAINLESS_PREFIX && !name.startsWith("x-stainless")) return false;
  }
  return false;
}

/**
 * An OpenAI-style API path: `/v1/` followed by one of the OpenAI API's resources, after any prefix (a gateway's
 * `/openai/v1/chat/completions` counts). The resources are those of https://platform.openai.com/docs/api-reference.
 */
const OPENAI_PATH =
  /\/v1\/(?:chat\/completions|completions|embeddings|responses|models|moderations|images|audio|files|uploads|batches|fine_tuning|assistants|threads|vector_stores|realtime|conversations|evals|containers)(?:\/|$)/;

export function isOpenAiStylePath(pathname: string): boolean {
  return pathname.includes("/v1/") && OPENAI_PATH.test(pathname);
}

/**
 * Whether an `Accept` value names both `application/json` and `text/event-stream` with a non-zero weight (RFC 9110
 * §12.5.1: case-insensitive, parameters other than `q` ignored): the mark of an MCP Streamable HTTP client.
 */
export function acceptsJsonAndEventStream(accept: string): boolean {
  let json = false;
  let sse = false;
  for (const member of accept.toLowerCase().split(",")) {
    const [range = "", ...params] = member.split(";");
    const type = range.trim();
    if (type !== "application/json" && type !== "text/event-stream") continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    if (type === "application/json") json = true;
    else sse = true;
  }
  return json && sse;
}

/** An MCP request by its headers (see above); the body is not read. */
export function looksLikeMcp(request: Request): boolean {
  if (request.method !== "POST") return false;
  const headers = request.headers;
  if (headers.has("Mcp-Method")) return true;
  const accept = headers.get("Accept");
  return accept !== null && acceptsJsonAndEventStream(accept);
}

/**
 * A client that retries by itself and is better served by short hints (the `auto` profile's agent side): a
 * Stainless SDK, an MCP request, the client package.
 */
export function isAgentClient(request: Request): boolean {
  const headers = request.headers;
  if (headers.get("Accept") === CLIENT_PACKAGE_ACCEPT) return true;
  return fromStainlessSdk(headers) || looksLikeMcp(request);
}
