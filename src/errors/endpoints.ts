/**
 * Service endpoints on every host under SERVICE_PREFIX (contract §1.6):
 *   GET|HEAD {prefix}/error/{code}    the error as if it had just occurred on this zone (through the pipeline)
 *   GET|HEAD {prefix}/errors          the reference of every code
 *   GET|HEAD {prefix}/errors/{code}   the reference page of one code (the target of `type`)
 * An unknown or malformed code, or an unknown path, answers a 404 RFC 9457 problem; another method 405 + `Allow`.
 *
 * One itty Router per prefix, built on first use and kept for the isolate (the prefix is a var: one value per
 * deployment, bounded anyway). Handlers never copy the request (toolchain.md §8.2).
 */
import { Router, type IRequest, type RouterType } from "itty-router";
import type { Settings } from "../config/settings";
import { zoneOf } from "../http/host";
import { err, ok, type Result } from "../result";
import { catalogEntry, type CatalogEntry } from "./catalog";
import { chooseErrorFormat } from "./format";
import { serviceHeaders } from "./headers";
import { errorResponse, typeUri } from "./pipeline";
import { PROBLEMS, renderProblem, type Problem } from "./problem";
import { referenceEntry, renderReferenceEntry, renderReferenceList } from "./reference";

type ServiceArgs = [env: Env, ctx: ExecutionContext, settings: Settings];
type ServiceRouter = RouterType<IRequest, ServiceArgs, Response>;

const ALLOW = ["GET", "HEAD"] as const;
/** The reference changes only on deploy; a short shared-cache lifetime keeps it fresh after one. */
const REFERENCE_CACHE_CONTROL = "public, max-age=300";
const PROBLEM_CACHE_CONTROL = "private, no-store";

export async function handleServiceRequest(
  request: Request,
  env: Env,
  ctx: ExecutionContext,
  settings: Settings,
): Promise<Response> {
  return routerFor(settings.servicePrefix).fetch(request, env, ctx, settings);
}

/**
 * A code in a path is a canonical decimal integer that exists: no sign, no leading zero, no exponent, no
 * fraction, no padding, no percent-encoding (`0522`, `-1`, `1e3`, `522.0`, ` 522`, `%00` are all refused). The
 * length check comes first so a 10 KB segment costs nothing.
 */
export function parseCode(segment: string): Result<CatalogEntry, "malformed" | "unknown"> {
  if (segment.length > 6 || !/^[1-9][0-9]*$/.test(segment)) return err("malformed");
  const entry = catalogEntry(Number(segment));
  return entry ? ok(entry) : err("unknown");
}

const routers = new Map<string, ServiceRouter>();
const MAX_ROUTERS = 8;

function routerFor(prefix: string): ServiceRouter {
  let router = routers.get(prefix);
  if (!router) {
    if (routers.size >= MAX_ROUTERS) routers.clear();
    router = buildRouter(prefix);
    routers.set(prefix, router);
  }
  return router;
}

function buildRouter(prefix: string): ServiceRouter {
  const router = Router<IRequest, ServiceArgs, Response>({ base: routeBase(prefix) });
  const refuse = (request: IRequest) => problemResponse(request, PROBLEMS.methodNotAllowed(ALLOW), { Allow: ALLOW.join(", ") });
  router
    .get("/error/:code", previewError)
    .head("/error/:code", previewError)
    .all("/error/:code", refuse)
    .get("/errors", referenceList)
    .head("/errors", referenceList)
    .all("/errors", refuse)
    .get("/errors/:code", referencePage)
    .head("/errors/:code", referencePage)
    .all("/errors/:code", refuse)
    .all("*", (request) => problemResponse(request, PROBLEMS.unknownPath()));
  return router;
}

/**
 * itty compiles `base + path` into a RegExp and escapes only `.`; escape the other metacharacters a prefix
 * could hold so `SERVICE_PREFIX` is matched literally (`*` and `:name` keep their itty meaning: documented).
 */
function routeBase(prefix: string): string {
  return prefix.replace(/[\\^$+?()[\]{}|]/g, "\\$&");
}

/** `{prefix}/error/{code}`: the full pipeline, as if the error had just occurred on this zone (contract §1.6). */
async function previewError(request: IRequest, _env: Env, _ctx: ExecutionContext, settings: Settings): Promise<Response> {
  const code = parseCode(request.params.code ?? "");
  if (!code.ok) return problemResponse(request, PROBLEMS.unknownCode());
  const zone = zoneOf(new URL(request.url));
  return errorResponse({ code: code.value.code, request, cause: "preview endpoint" }, { settings, zone });
}

// Rendered lists per format and base URL; bounded (contract §8), one or two entries in practice.
const listCache = new Map<string, string>();
const MAX_LISTS = 32;

async function referenceList(request: IRequest, _env: Env, _ctx: ExecutionContext, settings: Settings): Promise<Response> {
  const choice = chooseErrorFormat(request.headers.get("Accept"));
  const sample = typeUri(0, request.url, settings);
  const key = `${choice.format}\u0000${sample}`;
  let body = listCache.get(key);
  if (body === undefined) {
    body = renderReferenceList((code) => typeUri(code, request.url, settings), choice);
    if (listCache.size >= MAX_LISTS) listCache.clear();
    listCache.set(key, body);
  }
  const headers = await serviceHeaders(choice, REFERENCE_CACHE_CONTROL);
  return new Response(request.method === "HEAD" ? null : body, { status: 200, headers });
}

async function referencePage(request: IRequest, _env: Env, _ctx: ExecutionContext, settings: Settings): Promise<Response> {
  const code = parseCode(request.params.code ?? "");
  if (!code.ok) return problemResponse(request, PROBLEMS.unknownCode());
  const choice = chooseErrorFormat(request.headers.get("Accept"));
  const body = renderReferenceEntry(referenceEntry(code.value, typeUri(code.value.code, request.url, settings)), choice);
  const headers = await serviceHeaders(choice, REFERENCE_CACHE_CONTROL);
  return new Response(request.method === "HEAD" ? null : body, { status: 200, headers });
}

async function problemResponse(request: IRequest, problem: Problem, extra: Record<string, string> = {}): Promise<Response> {
  const choice = chooseErrorFormat(request.headers.get("Accept"));
  const headers = await serviceHeaders(choice, PROBLEM_CACHE_CONTROL);
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  const body = request.method === "HEAD" ? null : renderProblem(problem, choice);
  return new Response(body, { status: problem.status, headers });
}
