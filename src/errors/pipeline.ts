/**
 * The error pipeline: the one place every producer of a service-generated error goes through
 * (origin failures, blocks, rate limits, the service's own faults, the preview endpoints).
 * Input: a catalog code + the request (+ an optional dynamic Retry-After). Output: a Response.
 *
 * Precedence (docs/custom-errors.md), in this order, visible in `errorResponse`:
 *   1. the zone's custom error rules   → `scope.customization.rule`
 *   2. the zone's error page           → `scope.customization.page`
 *   3. the structured default           → negotiated JSON / problem+json / Markdown / HTML
 * Steps 1–2 come from the zone's compiled config (src/edge/custom-errors), already loaded: no KV read happens here.
 * Whatever answers, the pipeline logs ONE structured line per error (error-log.ts). Per error it does only what
 * varies between occurrences (docs/errors.md "What an error costs"): bodies spliced from per-code
 * templates as bytes, a prototype Response copied with its ray, no await once the isolate is warm.
 */
import type { Settings } from "../shared/settings";
import type { RequestContext } from "../shared/request-context";
import { newRayId } from "../shared/ray";
import type { RuleUrl } from "../shared/rule-url";
import { catalogEntry, type CatalogEntry } from "./catalog";
import { logEdgeError, type Invocation } from "./error-log";
import { errorFields, footerText, wireTimestamp, type ErrorFields, type Occurrence } from "./fields";
import { chooseErrorFormat, type ErrorFormatChoice } from "./format";
import {
  buildErrorHeaders,
  errorHeaders,
  negotiatedResponse,
  contentSecurityPolicy,
  pagePolicyKnown,
  prototypedErrorResponse,
  type HeaderRecord,
} from "./headers";
import { EVERY_LANGUAGE, type Language, type LanguageChooser } from "./language";
import type { Words } from "./languages/words";
import { footerIn, localizedEntry, wordsOf } from "./localize";
import { htmlBodyIn } from "./render-html";
import { jsonBodyIn, renderJson } from "./render-json";
import { markdownBodyIn } from "./render-markdown";
import { READ_TIMEOUT_CODE, detailForReadTimeout, guidanceForWait } from "./wording";
import { grpcAnswer, grpcContentType } from "./render-grpc";
import { typicalReach, type ReachedOrigin } from "./reached-origin";
import { agentHint, profileFor, type RetryHintProfile } from "./retry-hints";
import { openAiDialect, withOpenAiError } from "./sdk-dialect";
import { serverTiming, type OriginTiming } from "./server-timing";

/** One occurrence of a service-generated error. */
export interface ErrorEvent {
  /** A code of the catalog (docs/errors.md). */
  readonly code: number;
  /** The request being answered: its `Accept` negotiates the format, its fields feed custom rules. */
  readonly request: Request;
  /** `request.url` already parsed, when the producer has it (custom rules then read it without a second parse). */
  readonly url?: URL;
  /**
   * The URL as the zone's rules see it (zone host, normalised path), when the producer has made it: custom error
   * rules then reuse it, so a request normalises its path at most once (docs/rules-language.md).
   */
  readonly ruleUrl?: RuleUrl;
  /** Seconds set dynamically (rate limiting); wins over the catalog default in header and body (docs/errors.md). */
  readonly retryAfter?: number;
  /** Why it happened, for the structured log line only; never sent to the client. */
  readonly cause?: string;
  /**
   * The error is shown because someone asked to see it (the preview endpoints), not because anything failed: its
   * log line is an `error_preview` at info, never an `edge_error` (error-log.ts).
   */
  readonly preview?: boolean;
  /**
   * Whether the origin saw the request, when the producer knows (docs/errors.md "Did the request reach the origin?"):
   * the proxy from its classification, the refusals before the origin `false`. Absent: the code's usual value
   * (reached-origin.ts `typicalReach`).
   */
  readonly reachedOrigin?: ReachedOrigin;
  /** The origin attempt that failed, for `Server-Timing` (server-timing.ts); absent when the origin was not tried. */
  readonly origin?: OriginTiming;
}

/**
 * Where the error happens. The request context (src/shared/request-context.ts) is one: the edge passes its own,
 * with the zone's customisation added once the zone's config is known.
 */
export interface ErrorScope {
  readonly settings: Settings;
  /** The invocation, so the log line of an error in a burst can be written after the response (error-log.ts). */
  readonly ctx?: Invocation;
  /** Requested hostname, lower-case, no port. */
  readonly zone: string;
  /**
   * The zone's custom error rules and error page (docs/custom-errors.md steps 1–2), from the zone's compiled config,
   * already loaded (the pipeline reads no KV); absent for a host without zone config.
   */
  readonly customization?: ErrorCustomization;
  /** `Date.now()` when the request arrived (request-context.ts), for `Server-Timing`; absent: the error's own time. */
  readonly started?: number;
  /** The zone's `retry_hints` (docs/errors.md "Retry-hint profiles"); absent: `published`. */
  readonly retryHints?: RetryHintProfile;
  /** The zone's `read_timeout` in seconds, named by the 524 text (wording.ts `detailForReadTimeout`); absent: no zone. */
  readonly readTimeout?: number;
  /**
   * No `edge_error` line: the caller writes one line for a batch of errors it ran (a replay runs up to 1,000 recorded
   * errors, none of which failed: docs/custom-errors.md "Replay").
   */
  readonly quiet?: boolean;
  /**
   * The trace this error belongs to (docs/telemetry.md "Trace context"): its `trace_id` member. Absent on a zone
   * without telemetry, or when the request's trace is not exported.
   */
  readonly traceId?: string | undefined;
  /** The zone's `languages` (docs/languages.md): which languages its errors are written in. Absent: every one. */
  readonly languages?: LanguageChooser | undefined;
}

/** Which custom error rule or error page answered an error (docs/custom-errors.md steps 1–2), by its id. */
export interface CustomAnswer {
  readonly kind: "rule" | "page";
  readonly id: string;
}

/**
 * Who answered an error (analytics, the draft preview's `answered_by`): a custom error rule or page by its id, or
 * the structured default with the Ray ID and format it was given, so the analytics record need not read them back
 * from the response's headers (two calls into the runtime per error, ~2,500 instructions each).
 */
export type AnsweredBy =
  | CustomAnswer
  | { readonly kind: "default"; readonly ray: string; readonly format: ErrorFormatChoice["format"] | "grpc" };

/** What `errorResponse` returns: the response, and who answered it. */
export interface Answered {
  readonly response: Response;
  readonly answeredBy: AnsweredBy;
}

/** What a customisation step returns when it answers: its response and the rule or page it was. */
export interface CustomAnswered {
  readonly response: Response;
  readonly answeredBy: CustomAnswer;
}

/** Everything a customisation step may use to build its answer. */
export interface GeneratedError {
  readonly entry: CatalogEntry;
  readonly fields: ErrorFields;
  readonly request: Request;
  readonly url?: URL;
  readonly ruleUrl?: RuleUrl;
  /** The negotiated format (docs/negotiation.md): what an overlay rule answers in. */
  readonly choice: ErrorFormatChoice;
  /** The words of the negotiated language (docs/languages.md): an overlay's headings, the page's box. */
  readonly words: Words;
  /** The headers the error keeps whoever answers (`Ray-ID`, `Retry-After`, `Cache-Control`, `Vary`, ...). */
  readonly headers: Headers;
  /**
   * The same headers as a new record, for a step that answers: `new Response(body, { headers: record })` builds its
   * header list once, where a `Headers` copied and edited first is built twice (headers.ts). A rule's
   * answer made from it instead of two `Headers` copies measured 13–16 µs of CPU less (docs/benchmarks.md).
   */
  readonly headerRecord: HeaderRecord;
}

/**
 * What a customisation step answers: its answer, or `null` to let the next step of docs/custom-errors.md answer.
 * One of the few seams where a value may be a promise (docs/architecture.md "Per-isolate caches"): a rule answers
 * synchronously unless it reads an asset or a page from KV, so an error customised by a rule costs no microtask.
 */
export type StepResult = CustomAnswered | null | Promise<CustomAnswered | null>;

/** A customisation step (docs/custom-errors.md steps 1–2). */
export type CustomizationStep = (error: GeneratedError) => StepResult;

export interface ErrorCustomization {
  /** docs/custom-errors.md step 1: the first enabled custom error rule that matches. */
  readonly rule?: CustomizationStep;
  /** docs/custom-errors.md step 2: the zone's error page of the error's class (HTML whatever `Accept`). */
  readonly page?: CustomizationStep;
}

/**
 * The error as the customisation steps see it. A class, not a literal with a getter: it is made per error, and the
 * `Headers` are built only if a step reads them (a rule on `http.response.headers`, a rule or page that answers).
 */
class Generated implements GeneratedError {
  private built: Headers | undefined;
  readonly request: Request;
  readonly url: URL | undefined;
  readonly ruleUrl: RuleUrl | undefined;
  readonly choice: ErrorFormatChoice;
  readonly words: Words;
  constructor(
    readonly entry: CatalogEntry,
    readonly fields: ErrorFields,
    event: ErrorEvent,
    private readonly answer: DefaultAnswer,
  ) {
    this.choice = answer.choice;
    this.words = wordsOf(answer.language);
    this.request = event.request;
    this.url = event.url;
    this.ruleUrl = event.ruleUrl;
  }

  get headers(): Headers {
    return (this.built ??= new Headers(this.headerRecord));
  }

  get headerRecord(): HeaderRecord {
    return headerRecord(this.fields, this.answer);
  }
}

/**
 * The docs/errors.md headers of an error as a record, made only where one is used (a step reading or answering with the
 * headers, HEAD, the isolate's first error): the structured default of every other error is copied from its
 * prototype Response (headers.ts), and building the record anyway was one 8-property object per error.
 */
function headerRecord(fields: ErrorFields, answer: DefaultAnswer): HeaderRecord {
  const values = { code: fields.error_code, rayId: fields.ray_id, retryAfter: fields.retry_after ?? null };
  return buildErrorHeaders(answer.choice, answer.policy, {
    ...values,
    serverTiming: answer.timing,
    language: answer.language,
  });
}

/** The catalog code the pipeline answers when a producer passes a code the catalog does not have. */
const FALLBACK_CODE = 500;

export async function errorResponse(event: ErrorEvent, scope: ErrorScope): Promise<Answered> {
  const { request } = event;
  const known = catalogEntry(event.code);
  // A producer passing an unknown code is the service's own bug: still a structured answer (500), never a crash.
  const entry = known ?? catalogEntry(FALLBACK_CODE)!;
  const cause = known ? event.cause : `unknown error code ${event.code} passed to the pipeline: ${event.cause ?? ""}`;
  const rayId = newRayId();
  const retryAfter = retryHint(entry, event.retryAfter, rayId, profileFor(scope.retryHints, request));
  const choice = chooseErrorFormat(request.headers.get("Accept"));
  const language = (scope.languages ?? EVERY_LANGUAGE).choose(request.headers.get("Accept-Language"));
  // The one clock read of an error: its timestamp and its Server-Timing.
  const now = Date.now();
  const occurrence = {
    type: typeUri(entry.code, request.url, scope.settings),
    rayId,
    timestamp: wireTimestamp(now),
    zone: scope.zone,
    retryAfter,
    footer: footerText(scope.settings.operatorName),
    reachedOrigin:
      known === undefined ? null : event.reachedOrigin === undefined ? typicalReach(entry) : event.reachedOrigin,
    traceId: scope.traceId,
  };
  // English is the catalog itself (the path every error took before languages existed); any other language is one
  // lookup of its entry and words (localize.ts, docs/languages.md).
  const fields =
    language === "en"
      ? errorFields(withZoneWords(withRetryGuidance(entry, retryAfter), scope.readTimeout), occurrence)
      : localizedFields(entry, occurrence, language, scope);
  const timing = serverTiming(now - (scope.started ?? now), event.origin);
  // The CSP value is known after the first error: no await on the hot path.
  const policy = pagePolicyKnown() ?? (await contentSecurityPolicy());
  // An unknown code is the service's own bug, preview or not.
  const preview = known !== undefined && event.preview === true;
  // An unknown code is logged even so: it is the service's own bug.
  if (scope.quiet !== true || known === undefined)
    logEdgeError(
      { ray: rayId, zone: scope.zone, code: entry.code, status: entry.status, cause, preview },
      scope.settings.errorLogCoalesceMs,
      scope.ctx,
    );

  const answer: DefaultAnswer = { choice, policy, timing, language };
  // docs/grpc.md: a gRPC or gRPC-Web call gets a gRPC status, before the customisation steps: a gRPC client reads
  // no page or rule body, only the status.
  const grpc = grpcContentType(request);
  if (grpc !== null) return grpcDefault(fields, answer, grpc, request);
  // docs/custom-errors.md, in order; the first step that answers wins.
  const custom = scope.customization;
  if (custom) {
    const generated = new Generated(entry, fields, event, answer);
    // A step that answers synchronously (rules always do) is not awaited: no microtask per error.
    const ruled = custom.rule?.(generated); // 1. the zone's custom error rules
    const byRule = ruled instanceof Promise ? await ruled : ruled;
    if (byRule) return byRule;
    const paged = custom.page?.(generated); // 2. the zone's error page of the error's class
    const byPage = paged instanceof Promise ? await paged : paged;
    if (byPage) return byPage;
  }
  // 3. the structured default
  const response = structuredDefault(fields, answer, event);
  return { response, answeredBy: { kind: "default", ray: rayId, format: choice.format } };
}

/**
 * The structured error built without reading the request, for the handler's last resort when `errorResponse`
 * itself threw (perhaps because reading the request is what fails): still the catalog's structured answer with the
 * docs/errors.md headers, never a bare 500 (docs/origin.md: an unhandled exception is 1101). JSON, because `Accept` belongs to
 * the request that could not be read; no customisation; from the URL and constants only.
 */
export async function fallbackErrorResponse(
  code: number,
  scope: Pick<RequestContext, "url" | "zone" | "settings"> & { readonly started?: number },
  cause: string,
): Promise<Response> {
  const { url, zone, settings } = scope;
  const entry = catalogEntry(code) ?? catalogEntry(FALLBACK_CODE)!;
  const rayId = newRayId();
  const now = Date.now();
  const fields = errorFields(entry, {
    type: typeUri(entry.code, url.href, settings),
    rayId,
    timestamp: wireTimestamp(now),
    zone,
    retryAfter: entry.retryAfter,
    footer: footerText(settings.operatorName),
    // The pipeline failed while answering: nothing is known of what happened before.
    reachedOrigin: null,
  });
  const choice = chooseErrorFormat("application/json");
  const serverTimingValue = serverTiming(now - (scope.started ?? now), undefined);
  const values = {
    code: entry.code,
    rayId,
    retryAfter: entry.retryAfter,
    serverTiming: serverTimingValue,
    language: "en" as const,
  };
  const headers = await errorHeaders(choice, values);
  logEdgeError({ ray: rayId, zone, code: entry.code, status: entry.status, cause, preview: false }, 0);
  return negotiatedResponse("GET", fields.status, headers, renderJson(fields));
}

/** How an error's headers are made: its format, the page's CSP, its `Server-Timing` and its language. */
interface DefaultAnswer {
  readonly choice: ErrorFormatChoice;
  readonly policy: string;
  readonly timing: string;
  readonly language: Language;
}

/** The fields in a language other than English: its entry, its footer, its title's words (localize.ts). */
function localizedFields(
  entry: CatalogEntry,
  occurrence: Occurrence,
  language: Exclude<Language, "en">,
  scope: Pick<ErrorScope, "settings" | "readTimeout">,
): ErrorFields {
  const words = wordsOf(language);
  const localized = { ...occurrence, footer: footerIn(words, scope.settings.operatorName) };
  const text = localizedEntry(entry, language, occurrence.retryAfter, scope.readTimeout);
  return errorFields(text, localized, words);
}

/**
 * docs/custom-errors.md step 3: the structured default in the negotiated format; `HEAD` gets the headers only. A JSON
 * body for a Stainless SDK or on an OpenAI-style path also carries the `error` member (sdk-dialect.ts).
 */
function structuredDefault(fields: ErrorFields, answer: DefaultAnswer, event: ErrorEvent): Response {
  const method = event.request.method;
  const rendered = render(fields, answer.choice, answer.language);
  const body =
    isJson(answer.choice) && openAiDialect(event.request, event.url) ? withOpenAiError(rendered, fields) : rendered;
  if (method !== "HEAD") {
    const copied = prototypedErrorResponse(answer.choice, fields, body, answer.timing, answer.language);
    if (copied !== null) return copied;
  }
  return negotiatedResponse(method, fields.status, headerRecord(fields, answer), body);
}

/** docs/grpc.md: the Trailers-Only answer, with the headers of every generated error. */
function grpcDefault(fields: ErrorFields, answer: DefaultAnswer, contentType: string, request: Request): Answered {
  const deadlineSent = request.headers.has("grpc-timeout");
  const response = grpcAnswer(fields, { contentType, deadlineSent, headers: headerRecord(fields, answer) });
  return { response, answeredBy: { kind: "default", ray: fields.ray_id, format: "grpc" } };
}

function isJson(choice: ErrorFormatChoice): boolean {
  return choice.format === "json" || choice.format === "problem+json";
}

/** The body as UTF-8 bytes, spliced from the per-code template of its language (occurrence-template.ts). */
function render(fields: ErrorFields, choice: ErrorFormatChoice, language: Language): Uint8Array {
  switch (choice.format) {
    case "json":
    case "problem+json":
      return jsonBodyIn(language).bytes(fields);
    case "markdown":
      return markdownBodyIn(language).bytes(fields);
    case "html":
      return htmlBodyIn(language).bytes(fields);
  }
}

/**
 * `null` for a code that is not retryable (docs/errors.md: no `retry_after`, no header, whatever the producer
 * asks). Otherwise a dynamic value wins (docs/errors.md) when it is a usable number of seconds: rounded up to a
 * whole second, at least 1 (docs/producers.md), else the catalog default.
 */
export function retryAfterOf(entry: CatalogEntry, dynamic: number | undefined): number | null {
  if (entry.retryAfter === null) return null;
  if (dynamic === undefined || !Number.isFinite(dynamic) || dynamic <= 0) return entry.retryAfter;
  return Math.min(Math.ceil(dynamic), 2_147_483_647);
}

/**
 * The error's hint (docs/errors.md "Retry-hint profiles"): `retryAfterOf`, then under the `agent` profile (a zone's
 * `agent`, or its `auto` for an agent client, resolved by the caller: retry-hints.ts `profileFor`) under 60 s, the
 * catalog's hints spread by Ray ID and a rate-limiting rule's value only capped.
 */
export function retryHint(
  entry: CatalogEntry,
  dynamic: number | undefined,
  rayId: string,
  profile: Exclude<RetryHintProfile, "auto"> | undefined,
): number | null {
  const hint = retryAfterOf(entry, dynamic);
  if (hint === null || profile !== "agent") return hint;
  return agentHint(hint, rayId, usable(dynamic));
}

function usable(dynamic: number | undefined): boolean {
  return dynamic !== undefined && Number.isFinite(dynamic) && dynamic > 0;
}

/**
 * The guidance names the catalog's wait ("Wait at least 30 seconds", and 1015's backoff examples); when a dynamic
 * Retry-After replaces that value, the text says the same wait as the header and `retry_after` (wording.ts).
 */
export function withRetryGuidance(entry: CatalogEntry, retryAfter: number | null): CatalogEntry {
  if (retryAfter === null || entry.retryAfter === null || retryAfter === entry.retryAfter) return entry;
  return { ...entry, whatYouShouldDo: guidanceForWait(entry.whatYouShouldDo, entry.retryAfter, retryAfter) };
}

/**
 * The 524 text names the read timeout the zone actually has (its `read_timeout`), not the published 120 s: a zone
 * with a 2 s timeout must not tell its users that the origin had two minutes. Without a zone, the catalog's text.
 */
export function withZoneWords(entry: CatalogEntry, readTimeout: number | undefined): CatalogEntry {
  if (readTimeout === undefined || entry.code !== READ_TIMEOUT_CODE) return entry;
  return { ...entry, detail: detailForReadTimeout(entry.detail, readTimeout) };
}

/** `/segment/segment`: no dot segments, nothing that resolution would encode or normalise, not `//host`. */
const PLAIN_PATH = /^(?:\/(?!\.{1,2}(?:\/|$))[A-Za-z0-9\-_.~]+)+$/;

interface TypeBase {
  /** absolute: used as is; plain: a path spliced after the request's authority; other: resolved by `new URL`. */
  readonly kind: "absolute" | "plain" | "other";
  readonly path: string;
}

/** What ERROR_DOCS_BASE is, decided once per settings (it is a var: the same for every error). */
const typeBases = new WeakMap<Settings, TypeBase>();
function typeBase(settings: Settings): TypeBase {
  let known = typeBases.get(settings);
  if (known === undefined) {
    const base = settings.errorDocsBase ?? `${settings.servicePrefix}/errors`;
    // Relative bases count from the zone's root (`errors/` never depends on the requested path); `//host/x`
    // keeps its host.
    const path = base.startsWith("/") ? base : `/${base}`;
    known = /^[a-z][a-z0-9+.-]*:/i.test(base)
      ? { kind: "absolute", path: base }
      : { kind: PLAIN_PATH.test(path) ? "plain" : "other", path };
    typeBases.set(settings, known);
  }
  return known;
}

/**
 * `type` (docs/errors.md): `{ERROR_DOCS_BASE}/{code}`, always absolute. ERROR_DOCS_BASE may itself be relative
 * (`/docs/errors`): it is then resolved against the request like the default, `{SERVICE_PREFIX}/errors` on the
 * requested zone, which is the service's own reference page of the code (docs/errors.md).
 */
export function typeUri(code: number, requestUrl: string, settings: Settings): string {
  const base = typeBase(settings);
  // Already absolute (RFC 3986 §3.1 scheme): used as is.
  if (base.kind === "absolute") return `${base.path}/${code}`;
  const path = base.path;
  // A plain absolute path (the default `/cdn-cgi/errors`) resolves to the request URL's scheme and
  // authority followed by the path, exactly what `new URL` would give (a serialised URL, so nothing to normalise),
  // without parsing the URL a second time per error.
  if (base.kind === "plain") {
    const authority = requestUrl.indexOf("//");
    const end = authority === -1 ? -1 : requestUrl.indexOf("/", authority + 2);
    if (end !== -1) return `${requestUrl.slice(0, end)}${path}/${code}`;
  }
  try {
    return new URL(`${path}/${code}`, requestUrl).href;
  } catch {
    return new URL(`${settings.servicePrefix}/errors/${code}`, requestUrl).href;
  }
}
