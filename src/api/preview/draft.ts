/**
 * The body of `POST /zones/{zone}/preview` (docs/custom-errors.md "Draft preview"): an optional draft and
 * a described request, validated into values. Pure apart from the zone it is given: no bindings, nothing stored.
 *
 * A draft is validated exactly as a write would be: its rules by `parseRuleset` (the entrypoint PUT's validator,
 * same plan limits, same zone-wide regex program cap over the other phases), each page by `parsePageBody` (the
 * custom pages PUT's validator). What a draft omits is the saved configuration. The described request has limits of
 * its own (`REQUEST_LIMITS`), each refusal a 400 naming the field (code `PREVIEW_CODE`).
 */
import { API_CODES } from "../kit/codes";
import { parseError, readHeaders, REQUEST_LIMITS } from "../explain/described";
import type { DescribedRequest } from "../explain/explain";
import { randomId } from "../../shared/crypto";
import { parseIp } from "../../shared/ip";
import { err, ok, type Result } from "../../shared/result";
import {
  IssueList,
  isObject,
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

const BODY_FIELDS = new Set(["draft", "request"]);
const DRAFT_FIELDS = new Set(["rules", "pages"]);
const REQUEST_FIELDS = new Set(["method", "scheme", "path", "headers", "client_ip", "country", "code", "origin"]);
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
