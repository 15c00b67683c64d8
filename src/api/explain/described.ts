/**
 * The described request's parts both runs read the same way, the draft preview (`POST /zones/{zone}/preview`,
 * src/api/preview/draft.ts) and the request tracer (src/api/tracer/tracer.ts): their limits (`REQUEST_LIMITS`), a
 * header object, and what the origin did (docs/custom-errors.md "Draft preview", "Request tracer"). Pure: no bindings.
 */
import * as z from "zod/mini";
import { catalogEntry } from "../../errors/catalog";
import { described, fields, int, oneOf, text, type Output } from "../../shared/schema";
import { isObject, isOneOf, unknownKeys, type IssueKind, type IssueList } from "../../shared/validation";
import { ORIGIN_FAILURES, type DescribedError } from "./explain";

export const REQUEST_LIMITS = {
  methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
  pathChars: 8192,
  headers: 100,
  headerNameChars: 256,
  headerValueChars: 8192,
  /** All described header names and values together (the zone's own limit, docs/configuration.md, applies to traffic before rules). */
  headerBytes: 65_536,
  originBodyChars: 65_536,
  /** An origin response status: 200–599 (under 400 it passes through, as on traffic). */
  originStatus: { min: 200, max: 599 },
} as const;

/** Set by the preview itself: the zone's host is the URL's, the client address is `client_ip`. */
const RESERVED_HEADERS = new Set(["host", "cf-connecting-ip"]);
const ORIGIN_FIELDS = new Set(["status", "headers", "body", "failure"]);
/** RFC 9110 §5.6.2 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** What the described request says the edge or the origin did: `code` or `origin`; `null` when refused (issues added). */
export function parseError(raw: Record<string, unknown>, issues: IssueList): DescribedError | null {
  const at = (kind: IssueKind, field: string, message: string) => issues.add(kind, `request.${field}`, message);
  if ((raw.code === undefined) === (raw.origin === undefined)) {
    at("missing", "code", "give exactly one of code (a catalog error) or origin (what the origin did)");
    return null;
  }
  if (raw.code !== undefined) {
    const code = raw.code;
    if (typeof code !== "number" || !Number.isInteger(code) || catalogEntry(code) === undefined) {
      at("invalid", "code", "must be an error code of the catalog (GET /cdn-cgi/errors lists them)");
      return null;
    }
    return { kind: "code", code };
  }
  const origin = raw.origin;
  if (!isObject(origin)) {
    at("wrong-type", "origin", "must be an object {status, headers?, body?} or {failure}");
    return null;
  }
  for (const key of unknownKeys(origin, ORIGIN_FIELDS)) at("unknown-field", `origin.${key}`, "is not an origin field");
  if ((origin.status === undefined) === (origin.failure === undefined)) {
    at("missing", "origin.status", "give exactly one of status (the origin's response) or failure");
    return null;
  }
  if (origin.failure !== undefined) {
    if (origin.headers !== undefined || origin.body !== undefined)
      at("not-allowed", "origin.failure", "takes no headers or body (the origin sent no response)");
    const failure = origin.failure;
    if (!isOneOf(ORIGIN_FAILURES, failure)) {
      at("not-allowed", "origin.failure", `must be one of ${ORIGIN_FAILURES.join(", ")}`);
      return null;
    }
    return { kind: "origin-failure", failure };
  }
  const { min, max } = REQUEST_LIMITS.originStatus;
  const status = origin.status;
  if (typeof status !== "number" || !Number.isInteger(status) || status < min || status > max)
    at("out-of-range", "origin.status", `must be an integer from ${min} to ${max}`);
  const headers = readHeaders(origin.headers, "request.origin.headers", issues);
  const body = origin.body ?? "";
  if (typeof body !== "string" || body.length > REQUEST_LIMITS.originBodyChars)
    at("out-of-range", "origin.body", `must be a string of at most ${REQUEST_LIMITS.originBodyChars} characters`);
  if (typeof status !== "number" || headers === null || typeof body !== "string") return null;
  return { kind: "origin-response", status, headers, body };
}

/** A header object `{name: value}` within `REQUEST_LIMITS`; `null` when refused (issues added). */
export function readHeaders(raw: unknown, path: string, issues: IssueList): [string, string][] | null {
  if (raw === undefined) return [];
  if (!isObject(raw)) {
    issues.add("wrong-type", path, 'must be an object {"name": "value"}');
    return null;
  }
  const entries = Object.entries(raw);
  if (entries.length > REQUEST_LIMITS.headers) {
    issues.add("out-of-range", path, `must hold at most ${REQUEST_LIMITS.headers} headers`);
    return null;
  }
  const start = issues.count;
  let bytes = 0;
  const out: [string, string][] = [];
  for (const [name, value] of entries) {
    const where = `${path}.${name.length > 64 ? `${name.slice(0, 64)}…` : name}`;
    if (name.length > REQUEST_LIMITS.headerNameChars || !TOKEN.test(name))
      issues.add("invalid", where, "is not a header name (RFC 9110 token characters, at most 256)");
    else if (RESERVED_HEADERS.has(name.toLowerCase()))
      issues.add("not-allowed", where, "is set by the preview (the host is the zone; give client_ip for the address)");
    else if (typeof value !== "string" || value.length > REQUEST_LIMITS.headerValueChars)
      issues.add("out-of-range", where, `must be a string of at most ${REQUEST_LIMITS.headerValueChars} characters`);
    // RFC 9110 §5.5: no CR, LF or NUL in a field value; the rest of Latin-1 is what a Headers object can hold.
    else if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(value))
      issues.add("invalid", where, "must hold no control characters and only Latin-1 (RFC 9110 §5.5)");
    else {
      bytes += name.length + value.length;
      out.push([name, value.trim()]);
    }
  }
  if (bytes > REQUEST_LIMITS.headerBytes)
    issues.add("out-of-range", path, `must be at most ${REQUEST_LIMITS.headerBytes} bytes of names and values`);
  return issues.count > start ? null : out;
}

const HEADER_NAME_RULE = `is not a header name (RFC 9110 token characters, at most ${REQUEST_LIMITS.headerNameChars})`;
const HEADER_VALUE_RULE = `must be a string of at most ${REQUEST_LIMITS.headerValueChars} characters`;

/**
 * A header object `{name: value}` within `REQUEST_LIMITS`: each name a token, each value a string of Latin-1 without
 * controls, none that the run sets itself, at most `headers` of them and `headerBytes` of names and values.
 */
export const HEADER_MAP = z
  .record(
    text({ max: REQUEST_LIMITS.headerNameChars, pattern: TOKEN }, HEADER_NAME_RULE),
    z.string({ error: HEADER_VALUE_RULE }).check(
      // `abort`: a value too long is one refusal, not that and its characters too.
      z.maxLength(REQUEST_LIMITS.headerValueChars, { error: HEADER_VALUE_RULE, abort: true }),
      // RFC 9110 §5.5: no CR, LF or NUL in a field value; the rest of Latin-1 is what a Headers object can hold.
      z.regex(/^[\t\x20-\x7e\x80-\xff]*$/, {
        error: "must hold no control characters and only Latin-1 (RFC 9110 §5.5)",
      }),
    ),
    {
      error: (issue) =>
        issue.code === "invalid_key"
          ? HEADER_NAME_RULE
          : issue.code === "invalid_type"
            ? 'must be an object {"name": "value"}'
            : undefined,
    },
  )
  .check(
    z.superRefine((headers, context) => {
      const entries = Object.entries(headers);
      if (entries.length > REQUEST_LIMITS.headers) {
        context.issues.push({
          code: "custom",
          message: `must hold at most ${REQUEST_LIMITS.headers} headers`,
          input: headers,
        });
        return;
      }
      let bytes = 0;
      for (const [name, value] of entries) {
        bytes += name.length + value.length;
        if (RESERVED_HEADERS.has(name.toLowerCase()))
          context.issues.push({
            code: "custom",
            message: "is set by the preview (the host is the zone; give client_ip for the address)",
            path: [name],
            input: value,
          });
      }
      if (bytes > REQUEST_LIMITS.headerBytes)
        context.issues.push({
          code: "custom",
          message: `must be at most ${REQUEST_LIMITS.headerBytes} bytes of names and values`,
          input: headers,
        });
    }),
    // What the emitter cannot read from the refinement above, stated from the same constant.
    z.meta({
      maxProperties: REQUEST_LIMITS.headers,
      description:
        `Header name → value; at most ${REQUEST_LIMITS.headerBytes} bytes of names and values. \`Host\` and ` +
        "`CF-Connecting-IP` are refused (the host is the zone; give `client_ip`).",
    }),
  );

/** A parsed header object as the run sends it: values trimmed, in the order given. */
export const headerList = (headers: Output<typeof HEADER_MAP> | undefined): [string, string][] =>
  Object.entries(headers ?? {}).map(([name, value]) => [name, value.trim()]);

const ORIGIN_SHAPE_RULE = "must be an object {status, headers?, body?} or {failure}";

/** What the origin did: `{status, headers?, body?}` (it answered) or `{failure}` (it did not). */
export const DESCRIBED_ORIGIN = fields(
  {
    status: z.optional(int(REQUEST_LIMITS.originStatus.min, REQUEST_LIMITS.originStatus.max)),
    headers: z.optional(HEADER_MAP),
    body: z.optional(
      text(
        { max: REQUEST_LIMITS.originBodyChars },
        `must be a string of at most ${REQUEST_LIMITS.originBodyChars} characters`,
      ),
    ),
    failure: z.optional(
      described(
        oneOf(ORIGIN_FAILURES),
        "Classified by the proxy's own classifier (docs/origin.md): refused 521, unreachable 523, unresolvable " +
          "1016, connect-timeout 522, read-timeout 524, reset 520, malformed 502, tls-handshake 525, " +
          "tls-certificate 526",
      ),
    ),
  },
  "is not an origin field",
  ORIGIN_SHAPE_RULE,
).check(
  z.superRefine((origin, context) => {
    if ((origin.status === undefined) === (origin.failure === undefined))
      context.issues.push({
        code: "custom",
        message: "give exactly one of status (the origin's response) or failure",
        path: ["status"],
        input: origin.status,
      });
    else if (origin.failure !== undefined && (origin.headers !== undefined || origin.body !== undefined))
      context.issues.push({
        code: "custom",
        message: "takes no headers or body (the origin sent no response)",
        path: ["failure"],
        input: origin.failure,
      });
  }),
  z.describe("Exactly one of `status` (the origin answered) and `failure` (it did not)"),
);

const CODE_RULE = "must be an error code of the catalog (GET /cdn-cgi/errors lists them)";

/** A catalog error the edge generates. */
export const CATALOG_CODE = z.int({ error: CODE_RULE }).check(
  z.refine((code) => catalogEntry(code) !== undefined, { error: CODE_RULE }),
  z.describe("A catalog error the edge generates (a block, a rate limit, a 52x)"),
);

/** A parsed origin as the run takes it (the schema's refinement let exactly one of `status` and `failure` through). */
export function originError(origin: Output<typeof DESCRIBED_ORIGIN>): DescribedError {
  if (origin.failure !== undefined) return { kind: "origin-failure", failure: origin.failure };
  return {
    kind: "origin-response",
    status: origin.status ?? REQUEST_LIMITS.originStatus.min,
    headers: headerList(origin.headers),
    body: origin.body ?? "",
  };
}
