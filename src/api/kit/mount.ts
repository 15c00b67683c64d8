/**
 * The management API's mount (docs/architecture.md step 2, docs/configuration.md): the root (src/app.ts) hands it every feature's route
 * table and the OpenAPI document; it serves the API routes with and without the `/client/v4` prefix and is the ONE
 * wrapper every endpoint goes through:
 *
 *   authenticate (401) → match the path (404) and method (405 + Allow) → the route's target (e.g. a malformed
 *   account id, 404) → authorise the permission on that target (403) → `?dry_run` (400 unless `true`/`false`,
 *   kit/dry-run.ts) → the handler.
 *
 * Authentication comes first (docs/configuration.md): without a valid token nothing about the API's shape is disclosed,
 * not even which paths exist. `GET /openapi.json` is the one public document (docs/differences.md); the table's pages
 * (types.ts `PageRoute`: the front door, the analytics pages) are public shells holding no data, served to GET and
 * HEAD before authentication.
 *
 * itty-router compiles the patterns (its route table); it does not dispatch: `Router.fetch` first builds
 * `request.query` with one `[].concat` per repeated query key, quadratic in the query string (40,000 `a=1` pairs
 * cost ~6 s of CPU, measured), before any handler and so before authentication. `match` walks the same compiled
 * table; handlers read `url.searchParams` (docs/configuration.md).
 */
import { Router, type RouterType } from "itty-router";
import type { RequestContext } from "../../shared/request-context";
import { authenticate, authorize, type Principal } from "./auth";
import { API_FAILURES, apiFailureResponse } from "./envelope";
import { dryRunAnswer, readDryRun } from "./dry-run";
import { OPENAPI_PATH, openApiResponse } from "./openapi";
import type { ApiRoute, PageRoute, Route } from "./types";
import { isV4Path, V4_BASE } from "./misdirected";
import type { ApiFailure } from "./envelope";
import { readZone, zoneApiFailure } from "./zone-section";
import { parseZoneName, zoneAccountId } from "../../state/zone/schema";
import { err, ok, type Result } from "../../shared/result";

/** A path pattern with every method it serves, compiled once per isolate by itty-router. */
interface CompiledPath {
  readonly pattern: RegExp;
  readonly byMethod: ReadonlyMap<string, ApiRoute>;
  readonly allow: string;
}

/** A page with its pattern, compiled as the API's (so a trailing slash means the same path in both). */
interface CompiledPage {
  readonly pattern: RegExp;
  readonly route: PageRoute;
}

/** itty-router's compiled pattern of each path, in order. */
function patterns(base: string, paths: readonly string[]): readonly RegExp[] {
  const router: RouterType = Router({ base });
  for (const path of paths) router.all(path, () => undefined);
  // itty appends one entry per registration, in order.
  return router.routes.map((entry) => entry[1]);
}

function compile(base: string, routes: readonly ApiRoute[]): readonly CompiledPath[] {
  const paths = new Map<string, Map<string, ApiRoute>>();
  for (const route of routes) {
    let methods = paths.get(route.path);
    if (!methods) {
      methods = new Map();
      paths.set(route.path, methods);
    }
    methods.set(route.method, route);
  }
  const compiled = patterns(base, [...paths.keys()]);
  return [...paths.values()].map((byMethod, i) => ({
    pattern: compiled[i]!,
    byMethod,
    allow: [...byMethod.keys()].join(", "),
  }));
}

const isPage = (route: Route): route is PageRoute => route.kind === "page";
const isApiRoute = (route: Route): route is ApiRoute => route.kind !== "page";

/** Where a method + path lands. */
export type RouteMatch =
  | { readonly kind: "route"; readonly route: ApiRoute; readonly params: Record<string, string> }
  | { readonly kind: "method-not-allowed"; readonly allow: string }
  | { readonly kind: "not-found" };

export interface MountedApi {
  /** Every endpoint, in matching order (first match wins, as in itty). */
  readonly routes: readonly ApiRoute[];
  /** The public pages, in matching order, served before authentication. */
  readonly pages: readonly PageRoute[];
  /** Which route serves `method` + `path`, or why none does. Pure. */
  match(method: string, path: string): RouteMatch;
  /** Serves one management API request. Handlers return Responses; thrown errors are the caller's to funnel. */
  handle(rc: RequestContext): Promise<Response>;
  /**
   * Serves one request for a principal already authenticated: everything `handle` does after authentication. The MCP
   * endpoint's tools call it (src/api/mcp/), so a tool is routed, authorised, bounded and logged exactly as its REST
   * call is.
   */
  dispatch(rc: RequestContext, principal: Principal): Promise<Response>;
}

/**
 * Mounts the route table, its API routes and pages (compiled once per isolate), and the OpenAPI document, built and
 * serialised on its first request (not at start-up: emitting every request schema is work a fresh isolate answering
 * traffic never needs).
 */
export function mountApi(table: readonly Route[], openApi: () => string): MountedApi {
  let openApiJson: string | null = null;
  const routes = table.filter(isApiRoute);
  const pages = table.filter(isPage);
  const bare = compile("", routes);
  const v4 = compile(V4_BASE, routes);
  const pagePatterns = patterns(
    "",
    pages.map((page) => page.path),
  );
  const compiledPages: readonly CompiledPage[] = pages.map((route, i) => ({ pattern: pagePatterns[i]!, route }));

  /** The page this GET or HEAD asks for, or null (then the API answers). */
  function page(rc: RequestContext): Response | null {
    for (const compiled of compiledPages) {
      const found = compiled.pattern.exec(rc.url.pathname);
      if (found === null) continue;
      const answer = compiled.route.page(rc, { ...found.groups });
      if (answer !== null) return answer;
    }
    return null;
  }

  function match(method: string, path: string): RouteMatch {
    const table = isV4Path(path) ? v4 : bare;
    for (const compiled of table) {
      const found = compiled.pattern.exec(path);
      if (found === null) continue;
      const route = compiled.byMethod.get(method);
      if (!route) return { kind: "method-not-allowed", allow: compiled.allow };
      return { kind: "route", route, params: { ...found.groups } };
    }
    return { kind: "not-found" };
  }

  async function handle(rc: RequestContext): Promise<Response> {
    const { request, url, env, settings } = rc;
    const path = url.pathname;
    if (isOpenApi(path)) {
      if (request.method !== "GET") return apiFailureResponse(API_FAILURES.methodNotAllowed(["GET"]));
      openApiJson ??= openApi();
      const response = openApiResponse(openApiJson);
      // `npm run dev` proves the server on its port is the one it started before sending it the admin token
      // (scripts/dev.mjs): DEV_INSTANCE is its per-run random value, never set in a deployment (check-config).
      if (settings.devInstance !== null) response.headers.set("X-Dev-Instance", settings.devInstance);
      return response;
    }
    if (request.method === "GET" || request.method === "HEAD") {
      const answer = page(rc);
      if (answer !== null) return answer;
    }
    const principal = await authenticate(request, env);
    if (!principal.ok) return apiFailureResponse(principal.error);
    return dispatch(rc, principal.value);
  }

  async function dispatch(rc: RequestContext, principal: Principal): Promise<Response> {
    const { request, url, env } = rc;
    const found = match(request.method, url.pathname);
    switch (found.kind) {
      case "not-found":
        return apiFailureResponse(API_FAILURES.notFound());
      case "method-not-allowed":
        return apiFailureResponse(
          API_FAILURES.methodNotAllowed(found.allow.split(", "), methodHint(request.method, url.pathname)),
        );
      case "route":
        break;
    }
    const { route, params } = found;
    const target = route.target(params);
    if (!target.ok) return apiFailureResponse(target.error);
    const need = { permission: route.permission, target: target.value, createsZone: route.createsZone === true };
    const access = await authorize(principal, need, (zone) => zoneAccountOf(env, zone));
    if (!access.ok) return apiFailureResponse(access.error);
    // After authorisation, before the body: a dry run is authorised exactly as the write (published semantics).
    const dryRun = readDryRun(request.method, url, route.dryRun === true);
    if (!dryRun.ok) return apiFailureResponse(dryRun.error);
    const response = await route.handle({ ...rc, params, principal: access.value, dryRun: dryRun.value });
    return dryRun.value ? await dryRunAnswer(response) : response;
  }

  return { routes, pages, match, handle, dispatch };
}

/**
 * What to do instead, for a method a client is likely to try where another one is meant: the published API creates
 * a zone with `POST /zones` (`{name, account}`); this API names a zone by its hostname in the path and creates it with
 * `PUT /zones/{zone}` (docs/configuration.md "Zones").
 */
function methodHint(method: string, path: string): string | undefined {
  if (method === "POST" && /^(?:\/client\/v4)?\/zones\/?$/.test(path))
    return "create or replace a zone with PUT /zones/{zone} (the zone's hostname in the path, a body of {plan, origin})";
  return undefined;
}

/**
 * The account of a zone as its writer of record holds it (authoritative: not the per-isolate cache), for a token
 * that reaches zones through its accounts (auth.ts `authorize`). A name that is no zone name is a zone not
 * configured; the handler answers its 400 when the token may reach it at all.
 */
async function zoneAccountOf(
  env: Env,
  zone: string,
): Promise<Result<{ readonly account: string | null } | null, ApiFailure>> {
  const name = parseZoneName(zone);
  if (!name.ok) return ok(null);
  const current = await readZone(env, name.value);
  if (current.ok) return ok({ account: zoneAccountId(current.value.zone.settings) });
  if (current.error.kind === "not-found") return ok(null);
  // A document that fails validation vouches for no account: only a token naming the zone reaches it (to repair it).
  if (current.error.kind === "corrupt") return ok({ account: null });
  return err(zoneApiFailure(current.error, name.value));
}

/** Whether a path is the public OpenAPI document (with or without the v4 prefix). */
function isOpenApi(path: string): boolean {
  return path === OPENAPI_PATH || path === V4_BASE + OPENAPI_PATH;
}

/** A route table as `METHOD /path` lines with `{param}` placeholders (compared with the OpenAPI document in tests). */
export function routeSignatures(routes: readonly ApiRoute[]): string[] {
  return routes.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`);
}
