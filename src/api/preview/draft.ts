/**
 * The body of `POST /zones/{zone}/preview` (docs/custom-errors.md "Draft preview"): an optional draft and
 * a described request, validated into values. Pure apart from the zone it is given: no bindings, nothing stored.
 *
 * A draft is validated exactly as a write would be: its rules by `parseRuleset` (the entrypoint PUT's validator,
 * same plan limits, same zone-wide regex program cap over the other phases), each page by `parsePageBody` (the
 * custom pages PUT's validator). What a draft omits is the saved configuration. The described request has limits of
 * its own (`REQUEST_LIMITS`), each refusal a 400 naming the field (code `PREVIEW_CODE`).
 */
import { catalogEntry } from "../../errors/catalog";
import { API_CODES } from "../kit/codes";
import { ORIGIN_FAILURES, type DescribedError, type DescribedRequest } from "../explain/explain";
import { randomId } from "../../shared/crypto";
import { parseIp } from "../../shared/ip";
import { err, ok, type Result } from "../../shared/result";
import {
  IssueList,
  isObject,
  isOneOf,
  unknownKeys,
  type FieldIssue,
  type IssueKind,
  type Issues,
} from "../../shared/validation";
import { pageSection, type PageMeta } from "../../state/zone/custom-pages/stored";
import { isPageId, PAGE_IDS, parsePageBody, type PageId } from "../../state/zone/custom-pages/validate";
import type { Phase } from "../../state/zone/rulesets/phases";
import { rulesetSection, storedRuleset } from "../../state/zone/rulesets/stored";
import { parseRuleset, type StoredRule } from "../../state/zone/rulesets/validate";
import type { Zone, ZoneDocument } from "../../state/zone/schema";
import type { ZoneApiFailure } from "../kit/zone-section";

/** The envelope code of a refused described request or preview body (the zone API's 200xx block). */
export const PREVIEW_CODE = API_CODES["invalid-preview"].code;

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
const BODY_FIELDS = new Set(["draft", "request"]);
const DRAFT_FIELDS = new Set(["rules", "pages"]);
const REQUEST_FIELDS = new Set(["method", "scheme", "path", "headers", "client_ip", "country", "code", "origin"]);
const ORIGIN_FIELDS = new Set(["status", "headers", "body", "failure"]);
/** RFC 9110 §5.6.2 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, no `#` (a fragment never reaches the edge): a path as a client sends it, percent-encoded. */
const PATH = /^\/[\x21-\x22\x24-\x7e]*$/;

export interface DraftPreview {
  /** The zone document with the draft's sections in place of the saved ones (never written). */
  readonly document: ZoneDocument;
  /** The draft's custom error rules, validated and shaped as a write would store them. */
  readonly rules: readonly StoredRule[];
  /** The draft's customised pages; a page the draft resets to `default` is absent from `document`. */
  readonly pages: ReadonlyMap<PageId, string>;
}

export interface PreviewBody {
  /** `null`: the saved configuration is previewed. */
  readonly draft: Readonly<Record<string, unknown>> | null;
  readonly request: DescribedRequest;
}

const invalid = (issues: Issues): ZoneApiFailure => ({ kind: "invalid-preview", issues });

/** The body's shape and the described request (the draft is checked against the zone by `applyDraft`). */
export function parsePreviewBody(body: unknown, zone: string): Result<PreviewBody, ZoneApiFailure> {
  const issues = new IssueList();
  if (!isObject(body)) {
    issues.add("wrong-type", "body", "must be a JSON object {draft?, request}");
    return err(invalid(issues.issues));
  }
  for (const key of unknownKeys(body, BODY_FIELDS)) issues.add("unknown-field", key, "is not a preview field");
  let draft: Record<string, unknown> | null = null;
  if (body.draft !== undefined) {
    if (!isObject(body.draft)) issues.add("wrong-type", "draft", "must be an object {rules?, pages?}");
    else {
      draft = body.draft;
      for (const key of unknownKeys(draft, DRAFT_FIELDS))
        issues.add("unknown-field", `draft.${key}`, "is not a draft field");
      if (draft.pages !== undefined) {
        if (!isObject(draft.pages))
          issues.add("wrong-type", "draft.pages", `must be an object keyed by ${PAGE_IDS.join(" or ")}`);
        else
          for (const key of Object.keys(draft.pages))
            if (!isPageId(key))
              issues.add("unknown-field", `draft.pages.${key}`, `is not a page: one of ${PAGE_IDS.join(", ")}`);
      }
    }
  }
  const request = parseRequest(body.request, zone, issues);
  if (issues.count > 0 || request === null) return err(invalid(issues.issues));
  return ok({ draft, request });
}

function parseRequest(raw: unknown, zone: string, issues: IssueList): DescribedRequest | null {
  if (!isObject(raw)) {
    issues.add(
      raw === undefined ? "missing" : "wrong-type",
      "request",
      "must be an object {method?, path?, headers?, client_ip?, country?, code | origin}",
    );
    return null;
  }
  const at = (kind: IssueKind, field: string, message: string) => issues.add(kind, `request.${field}`, message);
  const start = issues.count;
  for (const key of unknownKeys(raw, REQUEST_FIELDS)) at("unknown-field", key, "is not a field of a described request");
  const method = raw.method ?? "GET";
  if (typeof method !== "string" || !(REQUEST_LIMITS.methods as readonly string[]).includes(method))
    at("not-allowed", "method", `must be one of ${REQUEST_LIMITS.methods.join(", ")}`);
  const scheme = raw.scheme ?? "https";
  if (scheme !== "http" && scheme !== "https") at("not-allowed", "scheme", "must be http or https");
  const path = raw.path ?? "/";
  if (typeof path !== "string") at("wrong-type", "path", "must be a string");
  else if (path.length > REQUEST_LIMITS.pathChars)
    at("out-of-range", "path", `must be at most ${REQUEST_LIMITS.pathChars} characters`);
  else if (!PATH.test(path))
    at("invalid", "path", "must start with / and hold visible ASCII only, no # (percent-encode anything else)");
  const headers = readHeaders(raw.headers, "request.headers", issues);
  const clientIp = raw.client_ip ?? null;
  if (clientIp !== null && (typeof clientIp !== "string" || parseIp(clientIp) === undefined))
    at("invalid", "client_ip", "must be an IPv4 or IPv6 address");
  const country = raw.country ?? null;
  if (country !== null && (typeof country !== "string" || !/^[A-Z]{2}$/.test(country)))
    at("invalid", "country", "must be a two-letter upper-case country code (ISO 3166-1 alpha-2)");
  const error = parseError(raw, issues);
  if (issues.count > start || headers === null || error === null) return null;
  return {
    method: method as string,
    url: new URL(`${scheme as string}://${zone}${path as string}`),
    headers,
    clientIp: clientIp as string | null,
    country: country as string | null,
    error,
  };
}

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

/**
 * The draft on top of the zone's saved document, validated as writes would be (docs/custom-errors.md limits, plan
 * included): rules through `parseRuleset`, pages through `parsePageBody`. Refusals name `draft.…` fields.
 */
export function applyDraft(
  zone: Zone,
  draft: Readonly<Record<string, unknown>>,
  /**
   * The regex program size of the zone's saved rules outside `phase`, for the zone-wide cap (draft-cache.ts takes it
   * from the compiled zone, once per version: the saved rules are never compiled per preview).
   */
  savedProgramSize: (phase: Phase) => number,
): Result<DraftPreview, ZoneApiFailure> {
  const document: Record<string, unknown> = { ...zone.document };
  const phase = "http_custom_errors";
  let rules = storedRuleset(zone.document, phase)?.rules ?? [];
  if (draft.rules !== undefined) {
    const others = savedProgramSize(phase);
    const previous = storedRuleset(zone.document, phase);
    const parsed = parseRuleset({ rules: draft.rules }, phase, {
      plan: zone.settings.plan,
      previous,
      now: new Date(),
      newId: randomId,
      otherPhasesProgramSize: others,
    });
    if (!parsed.ok) {
      const failure = parsed.error;
      return err(
        failure.kind === "invalid-ruleset" ? { ...failure, issues: prefixed(failure.issues, "draft.") } : failure,
      );
    }
    document[rulesetSection(phase)] = parsed.value;
    rules = parsed.value.rules;
  }
  const pages = new Map<PageId, string>();
  const drafted = isObject(draft.pages) ? draft.pages : {};
  for (const id of PAGE_IDS) {
    if (drafted[id] === undefined) continue;
    const page = parsePageBody(drafted[id], id, zone.settings.plan);
    if (!page.ok) {
      const failure = page.error;
      return err(
        failure.kind === "invalid-page"
          ? { ...failure, issues: prefixed(failure.issues, `draft.pages.${id}.`) }
          : failure,
      );
    }
    if (page.value.state === "default") delete document[pageSection(id)];
    else {
      const meta: PageMeta = {
        state: "customized",
        modified_on: new Date().toISOString(),
        bytes: new TextEncoder().encode(page.value.content).byteLength,
      };
      document[pageSection(id)] = meta;
      pages.set(id, page.value.content);
    }
  }
  return ok({ document: document as ZoneDocument, rules, pages });
}

function prefixed<K extends string>(issues: Issues<K>, prefix: string): Issues<K> {
  const listed = issues.listed.map((i): FieldIssue<K> => ({
    ...i,
    path: i.path === "body" || i.path === "" ? prefix.slice(0, -1) : prefix + i.path,
  }));
  return { listed, more: issues.more };
}
