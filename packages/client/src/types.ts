/**
 * What `parse` gives: one typed value per edge error, whatever format carried it (docs/client.md).
 */

/** The 17 fields of docs/errors.md, as the JSON body carries them. */
export interface EdgeErrorFields {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance: string;
  readonly error_code: number;
  readonly error_name: string;
  readonly error_category: string;
  readonly ray_id: string;
  readonly timestamp: string;
  readonly zone: string;
  readonly edge_error: true;
  readonly retryable: boolean;
  readonly retry_after?: number;
  readonly owner_action_required: boolean;
  readonly what_you_should_do: string;
  readonly footer: string;
  /**
   * Links a custom error rule's overlay added (the service's docs/custom-errors.md "Overlay"): present
   * only on an overlaid error, after `footer` in JSON and the page's island, after `what_you_should_do` in the
   * frontmatter.
   */
  readonly links?: readonly EdgeErrorLink[];
  /**
   * Extension member (RFC 9457 §3.2), after the 17 in every format: whether the origin saw the request (`false`: it
   * never left the edge or no origin accepted it; `true`: it was sent and the answer failed; `null`: unknown).
   */
  readonly request_reached_origin?: boolean | null;
}

/** One link of an overlay: an `https:` or `http:` URL and its title. */
export interface EdgeErrorLink {
  readonly title: string;
  readonly href: string;
}

/** Where the value came from. */
export type EdgeErrorSource =
  /** `application/json` or `application/problem+json` body (docs/errors.md). */
  | "json"
  /** `text/markdown` frontmatter + title and footer lines (docs/errors.md). */
  | "markdown"
  /** The HTML page's `application/problem+json` island (docs/errors.md). */
  | "html-island"
  /** `Proxy-Status` (RFC 9209) with the headers only: HEAD, or a body this package cannot read. */
  | "proxy-status"
  /** The published platform's HTML error page (code, ray). */
  | "legacy-html"
  /** The published platform's `error code: NNNN` plain text. */
  | "legacy-text"
  /** An MCP tool result with `isError: true` whose `structuredContent` is the problem object (`parseMcpError`). */
  | "mcp-tool-result"
  /** A JSON-RPC error whose `data` is the problem object (`parseMcpError`). */
  | "mcp-error"
  /** A stream's final error frame: an event stream's `event: error` data or NDJSON's `{"error": …}` line. */
  | "stream-error"
  /** A gRPC or gRPC-Web answer's `grpc-status` and `grpc-status-details-bin` (`parseGrpcError`). */
  | "grpc";

/** One edge error, as far as the response tells it. */
export interface EdgeError {
  readonly kind: "edge-error";
  readonly source: EdgeErrorSource;
  /** The HTTP status of the response. */
  readonly status: number;
  /** The catalog code (521, 1020…). */
  readonly code: number;
  /** `error_name`: the body's, else the shipped catalog's for the code `Proxy-Status` names; null for legacy bodies. */
  readonly name: string | null;
  /** `error_category`, from the same places as `name`. */
  readonly category: string | null;
  /** `Ray-ID` header, or the body's ray. */
  readonly rayId: string | null;
  /**
   * Whether retrying may help: the `x-should-retry` header (an explicit verdict), else the body's `retryable`, else
   * a `Retry-After` header, else the code's default.
   */
  readonly retryable: boolean;
  /** Seconds to wait: `Retry-After` header, else `retry_after`, else the code's default; null when not retryable. */
  readonly retryAfter: number | null;
  /** Milliseconds to wait: the `retry-after-ms` header, else `retryAfter` × 1000; null when not retryable. */
  readonly retryAfterMs: number | null;
  /**
   * `owner_action_required`: the body's, else the shipped catalog's for the code our `Proxy-Status` names (HEAD, an
   * operator's page); null when nothing says (legacy bodies).
   */
  readonly ownerActionRequired: boolean | null;
  /** `request_reached_origin`; null when unknown or not carried (HEAD, legacy bodies, an operator's page). */
  readonly requestReachedOrigin: boolean | null;
  /** Exactly the fields the response carried (all 17 for JSON and the island, all but `type` for Markdown). */
  readonly fields: Partial<EdgeErrorFields>;
  /** The parsed `Proxy-Status` member of this service, when sent. */
  readonly proxyStatus: ProxyStatus | null;
  /** The `RateLimit-Policy` and `RateLimit` fields, when sent and well-formed (`readRateLimit`). */
  readonly rateLimit: RateLimitInfo | null;
  /** The gRPC status a gRPC or gRPC-Web answer carried (source `grpc` only). */
  readonly grpc?: GrpcStatus;
}

/** A gRPC status as its headers (or trailers) carry it (`readGrpcStatus`). */
export interface GrpcStatus {
  /** `grpc-status`: the canonical code (14 UNAVAILABLE, 8 RESOURCE_EXHAUSTED, ...). */
  readonly code: number;
  /** The `google.rpc.Status` message, else `grpc-message` percent-decoded. */
  readonly message: string;
  /** The first `google.rpc.ErrorInfo` of the details; null when none or the details are unreadable. */
  readonly errorInfo: GrpcErrorInfo | null;
  /** `google.rpc.RetryInfo.retry_delay` in seconds; null when not sent. */
  readonly retryDelay: number | null;
}

/** `google.rpc.ErrorInfo`: this service's has `domain` `edge-errors`, `reason` = `error_name`, `metadata` code and ray_id. */
export interface GrpcErrorInfo {
  readonly reason: string;
  readonly domain: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/** A quota policy of `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers §3.1). */
export interface RateLimitPolicy {
  readonly name: string;
  /** `q`: quota units allowed per window. */
  readonly quota: number;
  /** `w`: the window, seconds; null when not sent. */
  readonly window: number | null;
  /** `qu`: the quota unit; null means the default, `requests`. */
  readonly unit: string | null;
}

/** A service limit of `RateLimit` (draft-ietf-httpapi-ratelimit-headers §4.1). */
export interface ServiceLimit {
  readonly policy: string;
  /** `r`: quota units left. */
  readonly remaining: number;
  /** `t`: seconds until more quota is available; null when not sent. */
  readonly reset: number | null;
}

/** Both fields as read, and the tightest limit. */
export interface RateLimitInfo {
  readonly policies: readonly RateLimitPolicy[];
  readonly limits: readonly ServiceLimit[];
  /** The least `remaining` of `limits`; null when `RateLimit` was not sent. */
  readonly remaining: number | null;
  /** Seconds until the tightest limit resets (the longest `t` among exhausted limits); null when unknown. */
  readonly reset: number | null;
}

/** A `Proxy-Status` member (RFC 9209 §2). */
export interface ProxyStatus {
  /** The intermediary's name (an sf-token or sf-string). */
  readonly name: string;
  /** `error` (RFC 9209 §2.1.1): a registered error type, e.g. `connection_refused`. */
  readonly error: string | null;
  /** `details` (§2.1.5). */
  readonly details: string | null;
}

/**
 * A stale answer (docs/client.md "Stale answers"): the edge's last good copy, served for a failed or slow origin,
 * read from its `Cache-Status` member (RFC 9211) and `Age`.
 */
export interface StaleAnswer {
  /** `Age`, seconds: how old the copy is (0 when absent or malformed). */
  readonly age: number;
  /** `detail`: the origin failed (`stale-if-error`) or had not answered in time (`stale-if-slow`). */
  readonly because: "stale-if-error" | "stale-if-slow" | "unknown";
  /** `fwd-status`: the status the origin's failure would have had; null when none (stale-if-slow). */
  readonly failedStatus: number | null;
  /** `ttl`: seconds of freshness left, negative once past it; null when not sent. */
  readonly ttl: number | null;
}
