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
  | "legacy-text";

/** One edge error, as far as the response tells it. */
export interface EdgeError {
  readonly kind: "edge-error";
  readonly source: EdgeErrorSource;
  /** The HTTP status of the response. */
  readonly status: number;
  /** The catalog code (521, 1020…). */
  readonly code: number;
  /** `error_name` when known (every source but legacy bodies). */
  readonly name: string | null;
  /** `Ray-ID` header, or the body's ray. */
  readonly rayId: string | null;
  /** Whether retrying may help: the body's `retryable`, else a `Retry-After` header, else the code's default. */
  readonly retryable: boolean;
  /** Seconds to wait: `Retry-After` header, else `retry_after`, else the code's default; null when not retryable. */
  readonly retryAfter: number | null;
  /** `owner_action_required`; null when the response does not say (legacy bodies, HEAD). */
  readonly ownerActionRequired: boolean | null;
  /** Exactly the fields the response carried (all 17 for JSON and the island, all but `type` for Markdown). */
  readonly fields: Partial<EdgeErrorFields>;
  /** The parsed `Proxy-Status` member of this service, when sent. */
  readonly proxyStatus: ProxyStatus | null;
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
