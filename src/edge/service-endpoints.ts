/**
 * Service endpoints on every host under SERVICE_PREFIX (docs/errors.md):
 *   GET|HEAD {prefix}/error/{code}    the error as if it had just occurred on this zone (through the pipeline);
 *                                     on a host of API_HOSTS, the structured default only
 *   GET|HEAD {prefix}/errors          the reference of every code
 *   GET|HEAD {prefix}/errors/{code}   the reference page of one code (the target of `type`)
 * An unknown or malformed code, or an unknown path, answers a 404 RFC 9457 problem; another method 405 + `Allow`.
 *
 * Dispatch is a direct match of the path (three fixed shapes), not itty-router: itty's `Router.fetch` re-parses the
 * URL and builds `request.query` with `[].concat` per repeated key, which is quadratic in the query string
 * (16,000 `a=1` pairs took ~650 ms of CPU per request, measured) and runs before any handler on every host; these
 * endpoints read no query at all. Handlers never copy the request (docs/development.md "itty-router's request proxy").
 */
import type { Settings } from "../shared/settings";
import type { RequestContext } from "../shared/request-context";
import { customizationFor } from "./custom-errors/apply";
import { compiledZone, type ZoneLookup } from "./compiled-zone";
import { err, ok, type Result } from "../shared/result";
import { catalogEntry, type CatalogEntry } from "../errors/catalog";
import { chooseErrorFormat } from "../errors/format";
import { negotiatedResponse, serviceHeaders } from "../errors/headers";
import { errorResponse, typeUri, type Answered, type ErrorScope } from "../errors/pipeline";
import { PROBLEMS, renderProblem, type Problem } from "../errors/problem";
import { referenceEntry, renderReferenceEntry, renderReferenceList } from "../errors/reference";
import { chooseLanguage } from "../errors/language";
import { wordsOf } from "../errors/localize";

const ALLOW = ["GET", "HEAD"] as const;
/** The reference changes only on deploy; a short shared-cache lifetime keeps it fresh after one. */
const REFERENCE_CACHE_CONTROL = "public, max-age=300";
const PROBLEM_CACHE_CONTROL = "private, no-store";

/**
 * Not `async`, nor is `previewError`: they return a promise made from the pipeline's, so a preview does not
 * resolve a promise of its own with another. A throw here is caught by the caller's `try` around `await` (app.ts),
 * as a rejection would be.
 */
export function handleServiceRequest(rc: RequestContext): Promise<Response> {
  const { request, settings } = rc;
  const route = serviceRoute(rc.url.pathname, settings.servicePrefix);
  if (route.kind === "unknown") return problemResponse(request, PROBLEMS.unknownPath());
  if (request.method !== "GET" && request.method !== "HEAD") {
    return problemResponse(request, PROBLEMS.methodNotAllowed(ALLOW), { Allow: ALLOW.join(", ") });
  }
  switch (route.kind) {
    case "error":
      return previewError(rc, route.code);
    case "errors":
      return referenceList(request, settings);
    case "errors-code":
      return referencePage(request, route.code, settings);
  }
}

/** Which endpoint a path names; the code segment is still raw (validated by `parseCode`). */
export type ServiceRoute =
  | { readonly kind: "error"; readonly code: string }
  | { readonly kind: "errors" }
  | { readonly kind: "errors-code"; readonly code: string }
  | { readonly kind: "unknown" };

/**
 * `{prefix}/error/{code}`, `{prefix}/errors`, `{prefix}/errors/{code}`, each with optional trailing slashes; the
 * prefix is matched literally (it is a var, never a pattern). Pure; exported for tests.
 */
export function serviceRoute(path: string, prefix: string): ServiceRoute {
  if (!path.startsWith(prefix + "/")) return UNKNOWN;
  // Trailing slashes trimmed by a loop: `/\/+$/` backtracks quadratically on a long run of inner slashes.
  let end = path.length;
  while (end > prefix.length + 1 && path.charCodeAt(end - 1) === 0x2f) end--;
  const rest = path.slice(prefix.length + 1, end);
  if (rest === "errors") return ERRORS;
  const slash = rest.indexOf("/");
  if (slash === -1 || rest.indexOf("/", slash + 1) !== -1) return UNKNOWN;
  const head = rest.slice(0, slash);
  const code = rest.slice(slash + 1);
  if (code === "") return UNKNOWN;
  if (head === "error") return { kind: "error", code };
  if (head === "errors") return { kind: "errors-code", code };
  return UNKNOWN;
}

const UNKNOWN: ServiceRoute = { kind: "unknown" };
const ERRORS: ServiceRoute = { kind: "errors" };

/**
 * A code in a path is a canonical decimal integer that exists: no sign, no leading zero, no exponent, no
 * fraction, no padding, no percent-encoding (`0522`, `-1`, `1e3`, `522.0`, ` 522`, `%00` are all refused). The
 * length check comes first so a 10 KB segment costs nothing.
 */
export function parseCode(segment: string): Result<CatalogEntry, "malformed" | "unknown"> {
  // `^[1-9][0-9]*$` read as a loop that also makes the number: no regular expression run and no `Number()` of
  // the string per preview (parseCode was ~0.8 % of an error's samples in workerd's profiler).
  if (segment.length === 0 || segment.length > 6) return err("malformed");
  let code = 0;
  for (let i = 0; i < segment.length; i++) {
    const digit = segment.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9 || (i === 0 && digit === 0)) return err("malformed");
    code = code * 10 + digit;
  }
  const entry = catalogEntry(code);
  return entry ? ok(entry) : err("unknown");
}

/**
 * `{prefix}/error/{code}`: the error as if it had just occurred on this zone, with the zone's custom error rules
 * and pages applied (docs/errors.md "Endpoints", docs/custom-errors.md "Precedence"): exactly what the zone would
 * serve to this request. On an API host, the structured default only.
 */
function previewError(rc: RequestContext, segment: string): Promise<Response> {
  const code = parseCode(segment);
  if (!code.ok) return problemResponse(rc.request, PROBLEMS.unknownCode());
  // On a host of the management API only the structured default answers, never a zone's rules, pages or assets,
  // whatever zone of that name is stored (one written before the zones API refused such names, or named before
  // API_HOSTS listed it): operator content must never run on the API's origin (docs/configuration.md "Zone names").
  if (rc.settings.apiHosts.has(rc.zone)) return previewOn(rc, NO_ZONE, code.value);
  const lookup = compiledZone(rc.env, rc.zone); // the hot path: a value on a hit, no promise
  if (lookup instanceof Promise) return lookup.then((config) => previewOn(rc, config, code.value));
  return previewOn(rc, lookup, code.value);
}

/** No zone config: the structured default answers. */
const NO_ZONE: ZoneLookup = ok(null);

/** The preview of `entry` on the zone's compiled config (a 500 when the config could not be read). */
function previewOn(rc: RequestContext, config: ZoneLookup, entry: CatalogEntry): Promise<Response> {
  const { request, url } = rc;
  if (!config.ok) return errorResponse({ code: 500, request, url, cause: config.error.cause }, rc).then(responseOf);
  const zone = config.value;
  const customization = zone ? customizationFor(zone.customErrors, rc.env.CONFIG) : undefined;
  const event = { code: entry.code, request, url, cause: "preview endpoint", preview: true };
  const scope: ErrorScope = zone
    ? { ...rc, customization, retryHints: zone.retryHints, readTimeout: zone.readTimeout }
    : rc;
  return errorResponse(event, scope).then(responseOf);
}

function responseOf(answered: Answered): Response {
  return answered.response;
}

async function referenceList(request: Request, settings: Settings): Promise<Response> {
  const choice = chooseErrorFormat(request.headers.get("Accept"));
  // The reference speaks every language, whatever a zone limits its errors to (docs/languages.md).
  const language = chooseLanguage(request.headers.get("Accept-Language"));
  // Rendered per request: the reference is not a hot path, and no benchmark row showed a cache paying.
  const body = renderReferenceList((code) => typeUri(code, request.url, settings), choice, language);
  const headers = await serviceHeaders(choice, REFERENCE_CACHE_CONTROL, language);
  return negotiatedResponse(request.method, 200, headers, body);
}

async function referencePage(request: Request, segment: string, settings: Settings): Promise<Response> {
  const code = parseCode(segment);
  if (!code.ok) return problemResponse(request, PROBLEMS.unknownCode());
  const choice = chooseErrorFormat(request.headers.get("Accept"));
  const language = chooseLanguage(request.headers.get("Accept-Language"));
  const entry = referenceEntry(code.value, typeUri(code.value.code, request.url, settings), language);
  const body = renderReferenceEntry(entry, choice, `${settings.servicePrefix}/errors`, wordsOf(language));
  const headers = await serviceHeaders(choice, REFERENCE_CACHE_CONTROL, language);
  return negotiatedResponse(request.method, 200, headers, body);
}

async function problemResponse(
  request: Request,
  problem: Problem,
  extra: Record<string, string> = {},
): Promise<Response> {
  const choice = chooseErrorFormat(request.headers.get("Accept"));
  const headers = await serviceHeaders(choice, PROBLEM_CACHE_CONTROL);
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  return negotiatedResponse(request.method, problem.status, headers, renderProblem(problem, choice));
}
