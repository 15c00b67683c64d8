/**
 * Headers of every generated error (docs/errors.md) and of the other negotiated service answers.
 *
 * Content-Security-Policy: the pages carry one inline `<style>` and one inline `<script>` and nothing else, so the
 * policy allows exactly those two by their SHA-256 (CSP3 §8.4 hash-source) and nothing at all otherwise: no other
 * script, images, frames, forms, connections or base changes. A hash rather than `'unsafe-inline'` keeps the policy
 * strict; it is computed once per isolate from the sources themselves (PAGE_STYLE, PAGE_SCRIPT), so editing them
 * can never leave a stale hash behind; after the first error the value is a plain string and the hot path awaits
 * nothing.
 */
import { BoundedCache } from "../shared/bounded-cache";
import { sha256 } from "../shared/crypto";
import type { ErrorFields } from "./fields";
import type { ErrorFormatChoice } from "./format";
import type { Language } from "./language";
import { BOX_STYLE, PAGE_SCRIPT, PAGE_STYLE } from "./page";
import { proxyStatus } from "./proxy-status";

let cspPromise: Promise<string> | null = null;
let csp: string | null = null;

/** The CSP header value, computed on first use (crypto is async and not allowed at global scope). */
export function contentSecurityPolicy(): Promise<string> {
  cspPromise ??= pagePolicy(null, false).then((policy) => (csp = policy));
  return cspPromise;
}

/**
 * The page's policy, also allowing a second stylesheet `extraStyle` by its hash and, with `dataImages`, inline
 * `data:` images (an overlay's branding and logo, the agents work (2026-11-23): still no request leaves the page, docs/errors.md).
 */
export async function pagePolicy(extraStyle: string | null, dataImages: boolean): Promise<string> {
  const [style, script, extra] = await Promise.all([
    sha256Base64(PAGE_STYLE),
    sha256Base64(PAGE_SCRIPT),
    extraStyle === null ? null : sha256Base64(extraStyle),
  ]);
  return (
    `default-src 'none'; style-src 'sha256-${style}'${extra === null ? "" : ` 'sha256-${extra}'`}; ` +
    `${dataImages ? "img-src data:; " : ""}script-src 'sha256-${script}'; ` +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
  );
}

/**
 * The `Content-Security-Policy` of an operator's own content: a custom error rule's `content` or asset, a custom
 * error page (src/edge/custom-errors/apply.ts; docs/custom-errors.md "Operator content runs sandboxed"). `sandbox`
 * without `allow-same-origin` (CSP3 §6.3.2; HTML "sandboxing flag set") gives the document an opaque origin: its
 * script runs, its images, styles and fonts load as the operator's own policy allows, its forms submit and its links
 * open new windows (unsandboxed, `allow-popups-to-escape-sandbox`), but it shares no origin with anything, so
 * whatever host serves it, it reads no storage or cookie of that host and no same-origin window (a management API
 * page it opened included). A restriction only: the operator's own policy (a `<meta>` CSP) applies as well.
 */
export const CUSTOM_CONTENT_POLICY =
  "sandbox allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox allow-modals";

let boxHash: Promise<string> | null = null;

/**
 * `'sha256-…'` of the error box's stylesheet, the one inline style an operator's page gains from the box token
 * (render-html.ts `renderHtmlBox`): a page with its own strict CSP allows the box by adding this source to its
 * `style-src` (CSP3 §8.4 hash-source). Shown by the custom pages API; constant per release.
 */
export function boxStyleHash(): Promise<string> {
  boxHash ??= sha256Base64(BOX_STYLE).then((hash) => `'sha256-${hash}'`);
  return boxHash;
}

/** The base64 SHA-256 of a CSP hash-source (CSP3 §2.3.1 `hash-source`). */
async function sha256Base64(text: string): Promise<string> {
  return btoa(String.fromCharCode(...(await sha256(text))));
}

/** What varies between two generated errors' headers, besides the format and the CSP. */
export interface ErrorHeaderValues {
  readonly code: number;
  readonly rayId: string;
  /** Seconds; `null` = not retryable (no `Retry-After`, no `retry-after-ms`, `x-should-retry: false`). */
  readonly retryAfter: number | null;
  /** The `Server-Timing` value (server-timing.ts); `null`: none (a prototype, the values per occurrence). */
  readonly serverTiming: string | null;
  /** The language of the prose (docs/languages.md), sent as `Content-Language`. */
  readonly language: Language;
}

/**
 * `Vary` of every generated error and reference page: the format follows `Accept`, the prose `Accept-Language`
 * (RFC 9110 §12.5.5; docs/languages.md), also on a zone that pins one language, so one value holds everywhere.
 */
export const ERROR_VARY = "Accept, Accept-Language";

/**
 * Headers of a generated error (docs/errors.md "Headers"), the one place they are made, whoever writes the body (the
 * structured default, HEAD, a custom error rule, page, asset or overlay keep them all and replace only
 * `Content-Type` and, for operator content, the CSP): Content-Type with charset, `Cache-Control: private, no-store`
 * (a negotiated, per-occurrence answer must never be cached and served to another client), `Vary: Accept`,
 * `Ray-ID`, `nosniff`, `Proxy-Status` of the code (RFC 9209, proxy-status.ts), `Retry-After` only when retryable,
 * equal to the body's `retry_after`, the retry verdicts `x-should-retry` (= `retryable`) and, when retryable,
 * `retry-after-ms` (= `Retry-After` × 1000) that the Stainless-generated SDKs read before `Retry-After`, and
 * `Server-Timing`.
 */
export async function errorHeaders(choice: ErrorFormatChoice, values: ErrorHeaderValues): Promise<HeaderRecord> {
  return buildErrorHeaders(choice, csp ?? (await contentSecurityPolicy()), values);
}

/** The page's CSP value once known (every error after the isolate's first), else `null` (`contentSecurityPolicy`). */
export function pagePolicyKnown(): string | null {
  return csp;
}

/** `errorHeaders` with the CSP value given (`pagePolicyKnown`): no promise. */
export function buildErrorHeaders(choice: ErrorFormatChoice, policy: string, values: ErrorHeaderValues): HeaderRecord {
  const { retryAfter } = values;
  // A plain record, not `Headers`: `new Response(body, {headers})` builds its own header list from
  // either, so a `Headers` made first is built twice. Callers that need one (custom rules) make it on demand.
  const headers: HeaderRecord = {
    "Content-Type": choice.contentType,
    "Cache-Control": "private, no-store",
    Vary: ERROR_VARY,
    "Content-Language": values.language,
    "Ray-ID": values.rayId,
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": policy,
    "Proxy-Status": proxyStatus(values.code),
    "x-should-retry": retryAfter === null ? "false" : "true",
  };
  if (retryAfter !== null) {
    headers["Retry-After"] = String(retryAfter);
    headers["retry-after-ms"] = String(retryAfter * 1000);
  }
  if (values.serverTiming !== null) headers["Server-Timing"] = values.serverTiming;
  return headers;
}

/**
 * A generated error's `Response` copied from a prototype Response that holds the status and the constant
 * headers of its (format, code, Retry-After), then given its ray and `Server-Timing`: the runtime copies the
 * prototype's header list natively, so two headers per error cross from JavaScript instead of eleven (measured ~2 µs
 * of workerd CPU less per error with seven). Null until the CSP value is known (the isolate's first error), and for
 * HEAD (negotiatedResponse). The prototypes have no body and belong to no request, so every request may copy them.
 */
export function prototypedErrorResponse(
  choice: ErrorFormatChoice,
  fields: Pick<ErrorFields, "status" | "error_code" | "ray_id" | "retry_after">,
  body: string | Uint8Array,
  serverTiming: string,
  language: Language,
): Response | null {
  if (csp === null) return null;
  const { status, error_code: code, ray_id: rayId } = fields;
  const retryAfter = fields.retry_after ?? null;
  let byLanguage = prototypes.get(choice);
  if (byLanguage === undefined)
    prototypes.set(choice, (byLanguage = new Map<Language, BoundedCache<number, Response>>()));
  let byKey = byLanguage.get(language);
  if (byKey === undefined)
    byLanguage.set(language, (byKey = new BoundedCache<number, Response>({ capacity: MAX_PROTOTYPES })));
  // Code (< 2^20: it decides status and Proxy-Status) and Retry-After (< 2^32, or none) in one number, below
  // 2^53: no string is built per error.
  const key = code * 0x1_0000_0000 + (retryAfter ?? 0xffff_ffff);
  // A hit does not refresh recency (`peek`: one Map lookup per error): dynamic Retry-After values (rate limiting)
  // make one prototype each, and past the bound the oldest made leaves first.
  let prototype = byKey.peek(key);
  if (prototype === undefined) {
    const headers = buildErrorHeaders(choice, csp, { code, rayId: "", retryAfter, serverTiming: null, language });
    delete headers["Ray-ID"];
    prototype = new Response(null, { status, headers });
    byKey.set(key, prototype);
  }
  const response = new Response(body, prototype);
  const headers = response.headers; // one read: each is a call into the runtime
  headers.set("Ray-ID", rayId);
  headers.set("Server-Timing", serverTiming);
  return response;
}

const MAX_PROTOTYPES = 512;
/** One cache per format and language (both closed sets of constants). */
const prototypes = new Map<ErrorFormatChoice, Map<Language, BoundedCache<number, Response>>>();

/** Header names → values, in the order they are sent. */
export type HeaderRecord = Record<string, string>;

/**
 * Headers of a 404/405 problem or a reference page: negotiated, so `Vary: Accept`; never sniffed. A reference page
 * is written in the request's language (docs/languages.md): `Content-Language` and `Vary: Accept, Accept-Language`.
 */
export async function serviceHeaders(
  choice: ErrorFormatChoice,
  cacheControl: string,
  language?: Language,
): Promise<Headers> {
  const headers = new Headers([
    ["Content-Type", choice.contentType],
    ["Cache-Control", cacheControl],
    ["Vary", language === undefined ? "Accept" : ERROR_VARY],
    ["X-Content-Type-Options", "nosniff"],
    ["Content-Security-Policy", csp ?? (await contentSecurityPolicy())],
  ]);
  if (language !== undefined) headers.set("Content-Language", language);
  return headers;
}

const utf8 = new TextEncoder();

/**
 * The one way a negotiated service answer becomes a Response. `HEAD` gets the same status and headers as `GET`,
 * `Content-Length` included (docs/errors.md; RFC 9110 §9.3.2), and no body: the body is rendered to be measured.
 */
export function negotiatedResponse(
  method: string,
  status: number,
  headers: Headers | HeaderRecord,
  body: string | Uint8Array,
): Response {
  if (method !== "HEAD") return new Response(body, { status, headers });
  const length = String(typeof body === "string" ? utf8.encode(body).byteLength : body.byteLength);
  if (headers instanceof Headers) headers.set("Content-Length", length);
  else headers["Content-Length"] = length;
  return new Response(null, { status, headers });
}
