/**
 * One recorded error (docs/analytics.md "Records"): a generated error or an origin error passed through,
 * as the zone's analytics store keeps it. Plain JSON: it crosses the Durable Object RPC boundary as is.
 */

/** Who produced the status the client saw: the service (`edge`, docs/errors.md) or the origin (docs/custom-errors.md). */
export const SOURCES = ["edge", "origin"] as const;
export type ErrorSource = (typeof SOURCES)[number];

/** What answered (docs/custom-errors.md): a custom error rule, the zone's error page, the structured default, the origin. */
export const ANSWERED_BY = ["rule", "page", "default", "origin"] as const;
export type AnsweredBy = (typeof ANSWERED_BY)[number];

/** The short names of what was served (`formatOf`); the structured default is one of the first four or `grpc`. */
export const FORMATS = ["json", "problem+json", "markdown", "html", "text", "xml", "grpc", "other"] as const;
export type ServedFormat = (typeof FORMATS)[number];

export interface ErrorRecord {
  /** The occurrence's Ray ID: 16 lower-case hex (docs/errors.md), the key of the Ray lookup. */
  readonly ray: string;
  /** Milliseconds since the epoch. */
  readonly at: number;
  /** Catalog code (edge) or the origin's status (origin). */
  readonly code: number;
  /** The status served (a rule's `status_code` may differ from the catalog's). */
  readonly status: number;
  readonly source: ErrorSource;
  readonly answered_by: AnsweredBy;
  /** The rule's id (answered_by `rule`) or the page id (`page`), else null. */
  readonly answer_id: string | null;
  readonly format: ServedFormat;
  readonly method: string;
  /** Path only (never the query: it may hold secrets), at most MAX_RECORDED_PATH characters, no control characters. */
  readonly path: string;
  /** `request.cf.country` when it is two capital letters, else null. */
  readonly country: string | null;
  /** Why the error was generated, sanitised (`sanitiseCause`); null for an origin's own error. */
  readonly cause: string | null;
  /**
   * The request's `Accept` family and address class and each phase's outcome, packed (request-detail.ts
   * `encodeDetail`); null for a record stored before schema migration 4.
   */
  readonly detail: string | null;
}

/**
 * A batch as it crosses the Durable Object RPC and enters SQLite: one JSON string of one array per record, the
 * fields in `RECORD_COLUMNS` order. The object hands it to SQLite's `json_each` as one bound parameter
 * (zone-analytics.ts), so no record becomes a JavaScript object on its side and structured clone copies one string
 * instead of 13 properties per record (docs/analytics.md "Cost per error").
 */
export const RECORD_COLUMNS = [
  "ray",
  "at",
  "code",
  "status",
  "source",
  "answered_by",
  "answer_id",
  "format",
  "method",
  "path",
  "country",
  "cause",
  "detail",
] as const satisfies readonly (keyof ErrorRecord)[];

/** One record as `encodeBatch` writes it: the values of RECORD_COLUMNS, in order. */
export type EncodedRecord = readonly [
  string,
  number,
  number,
  number,
  string,
  string,
  string | null,
  string,
  string,
  string,
  string | null,
  string | null,
  string | null,
];

export function encodeBatch(batch: readonly ErrorRecord[]): string {
  return JSON.stringify(
    batch.map((r) => [
      r.ray,
      r.at,
      r.code,
      r.status,
      r.source,
      r.answered_by,
      r.answer_id,
      r.format,
      r.method,
      r.path,
      r.country,
      r.cause,
      r.detail,
    ]),
  );
}

/** A record as `encodeBatch` wrote it, back as a value (the Ray lookup, a replay's window). */
export function decodeRecord(r: EncodedRecord): ErrorRecord {
  return {
    ray: r[0],
    at: r[1],
    code: r[2],
    status: r[3],
    source: r[4] as ErrorSource,
    answered_by: r[5] as AnsweredBy,
    answer_id: r[6],
    format: r[7] as ServedFormat,
    method: r[8],
    path: r[9],
    country: r[10],
    cause: r[11],
    detail: r[12] ?? null,
  };
}

export const MAX_RECORDED_PATH = 256;
/** A recorded code: a catalog code (docs/errors.md) or an origin's status, the range a code filter takes. */
export const CODE_RANGE = { min: 100, max: 9999 } as const;
/**
 * 256, not the 300 it was before the request detail (request-detail.ts, at most 44 bytes with its comma): the
 * largest record stays the size it was (docs/analytics.md "Record size").
 */
export const MAX_RECORDED_CAUSE = 256;

/** The media type's short name. */
export function formatOf(contentType: string | null): ServedFormat {
  const type = (contentType ?? "").split(";", 1)[0]!.trim().toLowerCase();
  switch (type) {
    case "application/json":
      return "json";
    case "application/problem+json":
      return "problem+json";
    case "text/markdown":
      return "markdown";
    case "text/html":
      return "html";
    case "text/plain":
      return "text";
    case "application/xml":
    case "text/xml":
      return "xml";
    default:
      // docs/grpc.md: every gRPC and gRPC-Web content type (`application/grpc-web+proto`, ...).
      return type.startsWith("application/grpc") ? "grpc" : "other";
  }
}

/**
 * The path as recorded: a URL's pathname is already percent-encoded by the URL parser (WHATWG URL §4.4, C0
 * controls encoded), but a record may come from elsewhere, so control characters are encoded again here and the
 * length is bounded (a 10 KB path is one row of 256 characters, marked cut with `…`).
 */
export function recordedPath(pathname: string): string {
  const clean = withoutControls(pathname, (code) => `%${code.toString(16).padStart(2, "0").toUpperCase()}`);
  return clean.length <= MAX_RECORDED_PATH ? clean : `${clean.slice(0, MAX_RECORDED_PATH - 1)}…`;
}

/**
 * The cause as recorded and shown by the Ray lookup: origin causes name the origin's address ("GET
 * http://10.0.0.7:8080/x; TCP connection refused (…)"), which the zone's API readers need not see, so URLs, IP
 * addresses and `host:port` pairs are replaced by `[origin]` / `[address]`. Bounded in length.
 */
export function sanitiseCause(cause: string | undefined): string | null {
  if (cause === undefined) return null;
  // Each pattern below needs a ':' (URL, IPv6, host:port) or a '.' (IPv4): a cause with neither is kept as it is
  // without running them (most edge causes: "request headers over the zone's limit", …).
  const clean =
    !cause.includes(":") && !cause.includes(".")
      ? cause
      : cause
          .replace(/[a-z][a-z0-9+.-]*:\/\/[^\s;,()]+/gi, "[origin]")
          .replace(/\[?[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}\]?(?::\d+)?/gi, (m) =>
            m.includes(":") && /[0-9a-f]/i.test(m) ? "[address]" : m,
          )
          .replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, "[address]")
          .replace(/\b[a-z0-9-]+(?:\.[a-z0-9-]+)+:\d+\b/gi, "[address]");
  const plain = withoutControls(clean, () => " ");
  return plain.length <= MAX_RECORDED_CAUSE ? plain : `${plain.slice(0, MAX_RECORDED_CAUSE - 1)}…`;
}

/** The text with each C0 control character and DEL replaced. */
function withoutControls(text: string, replace: (code: number) => string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) {
      out += text.slice(from, i) + replace(code);
      from = i + 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}
