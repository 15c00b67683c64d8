/**
 * `parse(response)` (docs/client.md): one typed `EdgeError` from any format the service answers in (JSON,
 * problem+json, Markdown frontmatter, the HTML page's island, `Proxy-Status` alone on HEAD) and from the published
 * platform's legacy bodies (its HTML error pages, `error code: NNNN` text); `null` when the response is not an edge
 * error (a success, or an origin's own error passed through). Reads a clone: the caller's response stays unread.
 */
import { CATALOG, RETRY_DEFAULTS } from "./codes.js";
import { readFrontmatter } from "./frontmatter.js";
import { isGrpcStatusAnswer, parseGrpcError } from "./grpc.js";
import { readRateLimit, retryAfterHeader, retryAfterMsHeader, shouldRetryHeader } from "./hints.js";
import { neverSent, ourProxyStatus } from "./proxy-status.js";
import type { EdgeError, EdgeErrorFields, EdgeErrorLink, EdgeErrorSource, ProxyStatus } from "./types.js";

export { PROXY_NAME } from "./proxy-status.js";

/** Bodies larger than this are not read (an error body is ~1 KB, a page ~12 KB; the platform's pages ~50 KB). */
const MAX_BODY_BYTES = 256 * 1024;

export async function parse(response: Response): Promise<EdgeError | null> {
  // A gRPC call's error is HTTP 200 with its status in the headers (docs/client.md "gRPC").
  if (isGrpcStatusAnswer(response)) return parseGrpcError(response.headers, response.status);
  if (response.status < 400) return null;
  const proxy = ourProxyStatus(response.headers.get("Proxy-Status"));
  const type = (response.headers.get("Content-Type") ?? "").toLowerCase();
  const text = await bodyText(response);
  const body = text !== null && text.length > 0 ? text.trimStart() : null;
  if (body !== null) {
    const ours = ownBody(body, type);
    if (ours !== null) return build(response, ours.source, ours.fields, ours.code, proxy);
  }
  // HEAD, or a body that is not ours (an operator's page or text, a custom rule's answer): this service's
  // Proxy-Status names the code, and it wins over any guess from the body (a shop's "Error 500" page answering a
  // 520 is a 520).
  if (proxy !== null) {
    const m = /^(\d{3,4}) ([a-z0-9_]+)$/.exec(proxy.details ?? "");
    if (m) {
      const fields: Partial<EdgeErrorFields> = { error_code: Number(m[1]), error_name: m[2] };
      return build(response, "proxy-status", fields, Number(m[1]), proxy);
    }
  }
  if (body === null) return null;
  const legacy = legacyBody(body, type);
  return legacy === null ? null : build(response, legacy.source, legacy.fields, legacy.code, proxy);
}

interface BodyResult {
  readonly source: EdgeErrorSource;
  readonly fields: Partial<EdgeErrorFields>;
  readonly code: number;
}

/** The service's own formats: JSON, Markdown frontmatter, the HTML page's island. */
function ownBody(trimmed: string, type: string): BodyResult | null {
  if (trimmed.startsWith("{")) {
    const fields = jsonFields(trimmed);
    if (fields !== null) return { source: "json", fields, code: fields.error_code };
  }
  if (trimmed.startsWith("---")) {
    const fields = markdownFields(trimmed);
    if (fields !== null) return { source: "markdown", fields, code: fields.error_code as number };
  }
  if (type.includes("html") || /^<(?:!doctype|html)/i.test(trimmed)) {
    const island = islandFields(trimmed);
    if (island !== null) return { source: "html-island", fields: island, code: island.error_code };
  }
  return null;
}

/** The published platform's legacy bodies, read only when this service's `Proxy-Status` names no code. */
function legacyBody(trimmed: string, type: string): BodyResult | null {
  if (type.includes("html") || /^<(?:!doctype|html)/i.test(trimmed)) {
    const legacy = legacyHtml(trimmed);
    if (legacy !== null) return legacy;
  }
  const plain = /^error code: (\d{3,4})\s*$/i.exec(trimmed);
  if (plain) return { source: "legacy-text", fields: {}, code: Number(plain[1]) };
  return null;
}

/** An edge error's JSON (docs/errors.md): `edge_error: true` and a numeric `error_code`. */
function jsonFields(text: string): EdgeErrorFields | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return isEdgeFields(value) ? value : null;
}

export function isEdgeFields(value: unknown): value is EdgeErrorFields {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return v.edge_error === true && typeof v.error_code === "number" && typeof v.retryable === "boolean";
}

/** Markdown (docs/errors.md): the frontmatter, `# {title}` and the footer after the last `---`. */
function markdownFields(text: string): Partial<EdgeErrorFields> | null {
  const read = readFrontmatter(text);
  if (read === null) return null;
  const v = read.values;
  if (v.get("edge_error") !== true || typeof v.get("error_code") !== "number") return null;
  const fields: Record<string, unknown> = {};
  const title = /^# (.+)$/m.exec(read.rest)?.[1];
  if (title !== undefined) fields.title = title;
  const status = v.get("status");
  if (status !== undefined) fields.status = status;
  const detail = v.get("detail");
  if (detail !== undefined) fields.detail = detail;
  const ray = v.get("ray_id");
  if (typeof ray === "string") fields.instance = ray; // docs/errors.md: instance = ray_id
  for (const key of ["error_code", "error_name", "error_category", "ray_id", "timestamp", "zone", "edge_error"]) {
    const value = v.get(key);
    if (value !== undefined) fields[key] = value;
  }
  for (const key of ["retryable", "retry_after", "owner_action_required", "what_you_should_do"]) {
    const value = v.get(key);
    if (value !== undefined) fields[key] = value;
  }
  // An extension member: a plain `null` reads as the string "null" in the frontmatter subset.
  const reached = v.get("request_reached_origin");
  if (reached === true || reached === false) fields.request_reached_origin = reached;
  else if (reached === "null") fields.request_reached_origin = null;
  const links = v.get("links");
  if (Array.isArray(links)) {
    const read = links.filter(isLink);
    if (read.length === links.length) fields.links = read.map((l) => ({ title: l.title, href: l.href }));
  }
  const sections = read.rest.split(/\n---\n/);
  if (sections.length > 1) {
    const footer = (sections[sections.length - 1] as string).trim();
    if (footer.length > 0) fields.footer = footer;
  }
  return fields;
}

function isLink(value: unknown): value is EdgeErrorLink {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.title === "string" && typeof v.href === "string";
}

const ISLAND = /<script\b[^>]*\btype="application\/problem\+json"[^>]*>([^<]*)<\/script>/i;

/** The HTML page's island (docs/errors.md): JSON with `<`, `>`, `&` as \u escapes, so `[^<]*` is the whole of it. */
function islandFields(html: string): EdgeErrorFields | null {
  const m = ISLAND.exec(html);
  return m ? jsonFields((m[1] as string).trim()) : null;
}

/**
 * The published platform's HTML error pages: the code as "Error 1020" / "error code: 1020" / "Error code 1020" in
 * the title or body (1xxx pages carry the status in the status line and the code in the body, docs/errors.md
 * docs/errors.md), and the ray in "Ray ID: <strong>…</strong>". Only 5xx codes the platform generates (500-526) and 1xxx codes
 * count: a bare "Error 503" on an origin's page is not an edge error.
 */
function legacyHtml(html: string): BodyResult | null {
  const text = html
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/&nbsp;|&#160;/g, " ")
    .replace(/\s+/g, " ");
  const m = /\berror(?: code)?:? ?(1\d{3}|5(?:00|02|04|2[0-6]))\b/i.exec(text);
  if (!m) return null;
  const hasPlatformMark = /\bray id\b|cloudflare|cf-error|cf-wrapper/i.test(html);
  if (!hasPlatformMark) return null;
  const ray = /\bray id:? ?([0-9a-f]{16})\b/i.exec(text)?.[1];
  const fields: Partial<EdgeErrorFields> = ray === undefined ? {} : { ray_id: ray };
  return { source: "legacy-html", fields, code: Number(m[1]) };
}

function build(
  response: Response,
  source: EdgeErrorSource,
  fields: Partial<EdgeErrorFields>,
  code: number,
  proxyStatus: ProxyStatus | null,
): EdgeError {
  const headers = response.headers;
  const header = retryAfterHeader(headers.get("Retry-After"));
  const headerMs = retryAfterMsHeader(headers.get("retry-after-ms"));
  // The catalog speaks for a code only when this service named it (our body or our Proxy-Status), not for a guess
  // from a legacy page.
  const entry = source === "legacy-html" || source === "legacy-text" ? undefined : CATALOG.get(code);
  const fromBody = typeof fields.retryable === "boolean" ? fields.retryable : null;
  const known = RETRY_DEFAULTS[code] ?? null;
  // docs/client.md "Headers read": an explicit verdict wins over everything inferred.
  const retryable = shouldRetryHeader(headers.get("x-should-retry")) ?? fromBody ?? (header !== null || known !== null);
  const seconds = header ?? fields.retry_after ?? (headerMs === null ? null : Math.ceil(headerMs / 1000)) ?? known;
  const retryAfter = retryable ? seconds : null;
  const owner = typeof fields.owner_action_required === "boolean" ? fields.owner_action_required : null;
  const reached = fields.request_reached_origin;
  return {
    kind: "edge-error",
    source,
    status: response.status,
    code,
    name: fields.error_name ?? entry?.name ?? null,
    category: fields.error_category ?? entry?.category ?? null,
    rayId: headers.get("Ray-ID") ?? fields.ray_id ?? null,
    retryable,
    retryAfter,
    retryAfterMs: retryable ? (headerMs ?? (retryAfter === null ? null : retryAfter * 1000)) : null,
    ownerActionRequired: owner ?? entry?.ownerActionRequired ?? null,
    // The body's value when it carries one (`null` included: the service said it does not know); else Proxy-Status.
    requestReachedOrigin: typeof reached === "boolean" || reached === null ? reached : neverSent(proxyStatus),
    fields,
    proxyStatus,
    rateLimit: readRateLimit(headers),
  };
}

async function bodyText(response: Response): Promise<string | null> {
  if (response.body === null) return null;
  const length = Number(response.headers.get("Content-Length") ?? "0");
  if (length > MAX_BODY_BYTES) return null;
  try {
    const text = await response.clone().text();
    return text.length > MAX_BODY_BYTES ? null : text;
  } catch {
    return null;
  }
}
