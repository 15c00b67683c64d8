/**
 * The described request's parts both runs read the same way, the draft preview (`POST /zones/{zone}/preview`,
 * src/api/preview/draft.ts) and the request tracer (src/api/tracer/tracer.ts): their limits (`REQUEST_LIMITS`), a
 * header object, and what the origin did (docs/custom-errors.md "Draft preview", "Request tracer"). Pure: no bindings.
 */
import { catalogEntry } from "../../errors/catalog";
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
