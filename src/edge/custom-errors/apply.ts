/**
 * Applying a zone's custom errors (docs/custom-errors.md), in its order:
 *   1. the first enabled custom error rule whose expression matches serves its content (status_code if set);
 *   2. else the zone's error page of the error's class, as `text/html` whatever `Accept`;
 *   3. else the pipeline's structured default.
 * Rules also apply to the origin's own error responses (status ≥ 400); pages and defaults never replace those.
 * Tokens `::RAY_ID::`, `::CLIENT_IP::`, `::GEO::` are replaced only by validated values, never by request text.
 */
import { BOX_TOKENS, MAX_PAGE_BYTES, pageClassOf, type PageId } from "../../state/zone/custom-pages/validate";
import { CUSTOM_CONTENT_POLICY, negotiatedResponse, pagePolicy, type HeaderRecord } from "../../errors/headers";
import type { CustomAnswered, ErrorCustomization, GeneratedError, StepResult } from "../../errors/pipeline";
import { MAX_BOX_BYTES, renderHtmlBox } from "../../errors/render-html";
import { clientCountry } from "../../shared/country";
import { isRayId, newRayId } from "../../shared/ray";
import { RuleUrl } from "../../shared/rule-url";
import { clientAddress } from "../../shared/client-address";
import { customErrorFields, type ErrorInfo } from "../../rules";
import { allMatches, firstMatch, type RuleListTracer } from "../../rules/rule-list";
import { overlaidFields, renderOverlaid, type PreparedOverlay } from "../../errors/overlay";
import type { AssetSource, CompiledCustomErrors, CompiledRule, ContentParameters } from "./compiled";
import { cachedAsset, loadAsset, pageHtml, type CachedPart } from "./page-cache";

export type { AssetSource } from "./compiled";
import { servesAsset } from "../../state/zone/rulesets/serve-error";

/** The customisation steps of docs/custom-errors.md for one zone, filled for the error pipeline's seam. */
export function customizationFor(compiled: CompiledCustomErrors, kv: KVNamespace): ErrorCustomization | undefined {
  if (!compiled.active || (compiled.rules.rules.length === 0 && compiled.pages.size === 0)) return undefined;
  // Built once per compiled version and KV binding, not per error; kept in the compiled value itself.
  const known = compiled.steps;
  if (known !== undefined && known.kv === kv) return known.steps;
  const steps = stepsOf(compiled, (id) => pageHtml(kv, compiled, id), assetsOf(compiled, kv), undefined);
  compiled.steps = { kv, steps };
  return steps;
}

/** Where the page step reads a customised page's HTML: KV through the page cache, or a draft (the draft preview). */
export type PageSource = (id: PageId) => Promise<string | null>;

/** The zone's assets from KV through the part cache; one source per compiled version and binding. */
export function assetsOf(compiled: CompiledCustomErrors, kv: KVNamespace): AssetSource {
  const known = compiled.assets;
  if (known !== undefined && known.kv === kv) return known.source;
  const source: AssetSource = {
    held: (name) => cachedAsset(compiled, name),
    read: (name) => loadAsset(kv, compiled, name),
  };
  compiled.assets = { kv, source };
  return source;
}

/**
 * The same steps as `customizationFor`, with a tracer on the rule step and the pages read from `pages` (the draft
 * preview, src/api/explain/explain.ts): what answers is decided by exactly the code traffic runs. Built per
 * call, never cached in the compiled value (a traced step must not serve traffic).
 */
export function tracedCustomization(
  compiled: CompiledCustomErrors,
  pages: PageSource,
  tracer: RuleListTracer,
  assets: AssetSource = NO_ASSETS,
): ErrorCustomization | undefined {
  if (!compiled.active || (compiled.rules.rules.length === 0 && compiled.pages.size === 0)) return undefined;
  return stepsOf(compiled, pages, assets, tracer);
}

/** No asset can be read: a rule naming one does not answer (the next step does). */
const NO_ASSETS: AssetSource = { held: () => null, read: async () => null };

function stepsOf(
  compiled: CompiledCustomErrors,
  pages: PageSource,
  assets: AssetSource,
  tracer: RuleListTracer | undefined,
): ErrorCustomization {
  return {
    rule: compiled.rules.rules.length === 0 ? undefined : (error) => ruleStep(compiled, assets, error, tracer),
    page: compiled.pages.size === 0 ? undefined : (error) => pageStep(compiled, pages, error),
  };
}

/**
 * What rules see of a generated error. A class, not a literal with a getter (made per error): the
 * response headers are read only if a rule uses `http.response.headers` (the field is extracted lazily).
 */
class GeneratedInfo implements ErrorInfo {
  readonly status: number;
  readonly code1xxx: number;
  readonly errorType: "1xxx" | "5xx";
  constructor(private readonly error: GeneratedError) {
    const code = error.entry.code;
    this.status = error.fields.status;
    this.code1xxx = code >= 1000 ? code : 0;
    this.errorType = code >= 1000 ? "1xxx" : "5xx";
  }

  get responseHeaders(): Headers {
    return this.error.headers;
  }
}

/** docs/custom-errors.md step 1 for a generated error (a promise only while a rule's asset is read from KV, once per version). */
function ruleStep(
  compiled: CompiledCustomErrors,
  assets: AssetSource,
  error: GeneratedError,
  tracer: RuleListTracer | undefined,
): StepResult {
  const matched = matchingRule(
    compiled,
    error.request,
    error.ruleUrl ?? ruleUrlOf(compiled, error.request, error.url),
    new GeneratedInfo(error),
    tracer,
  );
  if (!matched) return null;
  const answer = matched.answer;
  if (answer.kind === "overlay") return serveOverlay(matched.id, answer.overlay, error);
  const { request, fields } = error;
  const target = { request, headers: error.headerRecord, rayId: fields.ray_id, status: fields.status };
  return serveRule(assets, { id: matched.id, parameters: answer.parameters }, target);
}

/**
 * An overlay rule's answer (docs/custom-errors.md "Overlay"): the structured error in the negotiated
 * format with the rule's texts, links and branding, and every header of the error kept (`Proxy-Status` included:
 * it is still the service's error, docs/errors.md); only the page's CSP grows to allow the brand stylesheet.
 */
function serveOverlay(id: string, prepared: PreparedOverlay, error: GeneratedError): StepResult {
  const fields = overlaidFields(error.fields, prepared.overlay);
  const body = renderOverlaid(fields, error.choice.format, prepared, error.words);
  const respond = (policy: string | null): CustomAnswered => {
    const headers = error.headerRecord;
    if (policy !== null) headers["Content-Security-Policy"] = policy;
    const response = negotiatedResponse(error.request.method, error.fields.status, headers, body);
    return { response, answeredBy: { kind: "rule", id } };
  };
  // Only a branded HTML page has a policy of its own; it is computed once per prepared overlay.
  if (error.choice.format !== "html" || !prepared.hasOwnPolicy) return respond(null);
  const known = prepared.policyKnown();
  return known !== null ? respond(known) : prepared.policy(pagePolicy).then(respond);
}

/** docs/custom-errors.md step 2: the class's page with the default box and the tokens in place. */
async function pageStep(
  compiled: CompiledCustomErrors,
  pages: PageSource,
  error: GeneratedError,
): Promise<CustomAnswered | null> {
  const id = pageClassOf(error.entry.code);
  if (!compiled.pages.has(id)) return null;
  const page = await pages(id);
  if (page === null) return null;
  const body = substituteTokens(
    withBox(page, id, renderHtmlBox(error.fields, error.words)),
    error.request,
    error.fields.ray_id,
  );
  const headers = customHeaders(error.headerRecord, "text/html; charset=utf-8");
  const response = negotiatedResponse(error.request.method, error.fields.status, headers, body);
  return { response, answeredBy: { kind: "page", id } };
}

/**
 * The largest body a custom page is served as (docs/custom-errors.md "Maximum rendered size"): a page accepted by
 * the API is at most MAX_PAGE_BYTES with its value tokens at their longest, minus its one box token, plus one box.
 */
export const MAX_RENDERED_PAGE_BYTES = MAX_PAGE_BYTES + MAX_BOX_BYTES;

/**
 * The page with ONE box, at its class's first box token (docs/custom-errors.md: the token "at most once: a stored page
 * never renders past a documented size"). The API refuses a second token (custom-pages/validate.ts); a page stored
 * before that check may hold many (45,581 of them rendered 119,650,138 bytes per error), so the
 * others are removed here, which bounds it to its own size plus one box (docs/custom-errors.md).
 */
export function withBox(page: string, id: PageId, box: string): string {
  const [own, alias] = BOX_TOKENS[id];
  const ownAt = page.indexOf(own);
  const aliasAt = page.indexOf(alias);
  const first = ownAt === -1 || (aliasAt !== -1 && aliasAt < ownAt) ? alias : own;
  const at = first === own ? ownAt : aliasAt;
  if (at === -1) return page;
  const rest = page.slice(at + first.length);
  const tail = rest.includes("_BOX::") ? rest.replaceAll(own, "").replaceAll(alias, "") : rest;
  return page.slice(0, at) + box + tail;
}

/**
 * Custom error rules on an origin's error response (docs/custom-errors.md): the rule sees the origin's status, and
 * `edge.response.error_type` is "". A match replaces the body; `Content-Encoding`, `Content-Length`,
 * `Content-Range` and `ETag` are dropped, `Ray-ID` and `Cache-Control: private, no-store` set. `null` = no rule
 * matched: the origin's response passes through unchanged.
 */
export function applyToOriginError(
  compiled: CompiledCustomErrors,
  request: Request,
  response: Response,
  options: OriginErrorOptions = {},
): StepResult {
  if (!compiled.active || compiled.rules.rules.length === 0 || response.status < 400) return null;
  const info: ErrorInfo = { status: response.status, code1xxx: 0, errorType: "", responseHeaders: response.headers };
  const ruleUrl = options.ruleUrl ?? ruleUrlOf(compiled, request, options.url);
  const matched = matchingContentRule(compiled, request, ruleUrl, info, options.tracer);
  if (!matched) return null;
  const headers = new Headers(response.headers);
  for (const name of ["Content-Encoding", "Content-Length", "Content-Range", "ETag"]) headers.delete(name);
  const rayId = newRayId();
  headers.set("Ray-ID", rayId);
  headers.set("Cache-Control", "private, no-store");
  // The origin's body is let go only once the rule answers: a rule whose asset cannot be read passes it through.
  const served = serveRule(options.assets ?? NO_ASSETS, matched, { request, headers, rayId, status: response.status });
  const replaced = (answer: CustomAnswered | null): CustomAnswered | null => {
    if (answer) void response.body?.cancel();
    return answer;
  };
  return served instanceof Promise ? served.then(replaced) : replaced(served);
}

/** What `applyToOriginError` may be given besides the error; traffic passes the URLs and its assets. */
export interface OriginErrorOptions {
  /** `request.url` already parsed. */
  readonly url?: URL;
  /** The URL as the zone's rules see it, when the caller has made it (docs/rules-language.md). */
  readonly ruleUrl?: RuleUrl;
  /** The draft preview's trace (src/api/explain/explain.ts); traffic passes none. */
  readonly tracer?: RuleListTracer;
  /** Where a rule's asset is read (`assetsOf` for traffic); none: a rule naming an asset does not answer. */
  readonly assets?: AssetSource;
}

/**
 * The first matching rule that serves content, for an origin's error: an overlay rule is passed over (an origin's
 * own error is not the service's structured error, so there is nothing to overlay; docs/custom-errors.md
 * "Overlay"), and the rules after it are still tried, in order.
 */
function matchingContentRule(
  compiled: CompiledCustomErrors,
  request: Request,
  ruleUrl: RuleUrl,
  error: ErrorInfo,
  tracer: RuleListTracer | undefined,
): { readonly id: string; readonly parameters: ContentParameters } | null {
  const ctx = customErrorFields.context({ request, ruleUrl, error });
  // The draft preview's trace then shows the overlay rule as a match and the content rule after it as the answer.
  for (const entry of allMatches(compiled.rules, ctx, compiled.zone, tracer)) {
    if (entry.answer.kind === "content") return { id: entry.id, parameters: entry.answer.parameters };
  }
  return null;
}

/**
 * The first enabled rule that matches (rule-list.ts `firstMatch`: the index's candidates in order; a rule over the
 * evaluation budget is a non-match, logged, docs/rules-language.md), so a rule can never turn an error page into a crash; the
 * budget is the request's, shared with its request phases (src/rules/budget.ts).
 */
function matchingRule(
  compiled: CompiledCustomErrors,
  request: Request,
  ruleUrl: RuleUrl,
  error: ErrorInfo,
  tracer: RuleListTracer | undefined,
): CompiledRule | null {
  return firstMatch(compiled.rules, customErrorFields.context({ request, ruleUrl, error }), compiled.zone, tracer);
}

/**
 * The URL custom error rules see when the producer made none (a `/cdn-cgi/error/{code}` page, a preview): the host
 * is the zone's (for a preview, the zone it names, not the API host), the path normalised per the zone's setting.
 * Built on an error only; the path is normalised only if a rule reads it.
 */
function ruleUrlOf(compiled: CompiledCustomErrors, request: Request, url: URL | undefined): RuleUrl {
  return new RuleUrl(url ?? new URL(request.url), compiled.zone, compiled.normalization);
}

/**
 * The matched rule's answer: its inline content, or its custom error asset (docs/custom-errors.md "Custom error
 * assets"), served as `text/html` from this isolate's cache (read from KV once per zone version, page-cache.ts). An
 * asset that cannot be read (KV failing, or its value not propagated yet) answers `null`: the next step of docs/custom-errors.md
 * answers instead (the page or the structured default; an origin's error passes through), logged.
 */
function serveRule(
  assets: AssetSource,
  rule: { readonly id: string; readonly parameters: ContentParameters },
  target: AnswerTarget,
): StepResult {
  const { id, parameters } = rule;
  const { request, headers, rayId, status } = target;
  const answer = (contentType: string, content: string, tokens: boolean): CustomAnswered => {
    const out = customHeaders(headers, `${contentType}; charset=utf-8`);
    const body = tokens ? substituteTokens(content, request, rayId) : content;
    const response = negotiatedResponse(request.method, parameters.status_code ?? status, out, body);
    return { response, answeredBy: { kind: "rule", id } };
  };
  if (!servesAsset(parameters)) return answer(parameters.content_type, parameters.content, true);
  const fromAsset = (part: CachedPart | null): CustomAnswered | null =>
    part?.kind === "text" ? answer("text/html", part.text, part.tokens) : null;
  // Held on this isolate for the zone's version: no promise; else read from KV once per version.
  const held = assets.held(parameters.asset_name);
  return held !== undefined ? fromAsset(held) : assets.read(parameters.asset_name).then(fromAsset);
}

/** The error a rule answers: its request, the headers it keeps (a copy of its own), its Ray ID and status. */
interface AnswerTarget {
  readonly request: Request;
  readonly headers: Headers | HeaderRecord;
  readonly rayId: string;
  readonly status: number;
}

/**
 * The error's headers for an operator's own content: its Content-Type, and instead of our page's CSP (a strict
 * policy meant for our page would break the operator's styles and scripts) the sandbox of CUSTOM_CONTENT_POLICY:
 * the content runs in an opaque origin, so no host that serves it, an API host least of all, lends it its origin
 * (docs/custom-errors.md "Operator content runs sandboxed"). Edited in place:
 * every caller hands over a copy of its own, a generated error's record (pipeline.ts `headerRecord`, under the names
 * `buildErrorHeaders` gives them) or an origin response's copied headers (`applyToOriginError`), so no third copy
 * is made per answer.
 */
function customHeaders(headers: Headers | HeaderRecord, contentType: string): Headers | HeaderRecord {
  // The operator's content is in whatever language they wrote it: no `Content-Language` of ours is claimed for it
  // (docs/languages.md "Custom rules and pages"); `Vary` stays, since the box in a page still follows the request.
  if (headers instanceof Headers) {
    headers.set("Content-Type", contentType);
    headers.set("Content-Security-Policy", CUSTOM_CONTENT_POLICY);
    headers.delete("Content-Language");
    return headers;
  }
  headers["Content-Type"] = contentType;
  headers["Content-Security-Policy"] = CUSTOM_CONTENT_POLICY;
  delete headers["Content-Language"];
  return headers;
}

/** `::RAY_ID::`, `::CLIENT_IP::`, `::GEO::`, each replaced only by a validated value (else by nothing). */
export function substituteTokens(content: string, request: Request, rayId: string): string {
  if (!content.includes("::")) return content;
  return content
    .replaceAll("::RAY_ID::", isRayId(rayId) ? rayId : "")
    .replaceAll("::CLIENT_IP::", clientAddress(request)?.text ?? "")
    .replaceAll("::GEO::", clientCountry(request) ?? "");
}
