/**
 * The root: the single `fetch` entry's dispatch, in the order of docs/architecture.md, and the composition of the
 * management API from its features (the only module that imports the features; they import the kit, never this):
 *
 *   0. a request carrying this service's own `CDN-Loop` mark is a loop, whatever it asks for → 1000 (docs/origin.md);
 *   1. any host, path under SERVICE_PREFIX → service endpoints (docs/errors.md);
 *   2. a host of API_HOSTS → management API (docs/tags-api.md, docs/configuration.md), mounted from the features' route tables,
 *      and its MCP endpoint `/mcp` (docs/mcp.md), whose tools call those routes;
 *   3. any other host → zone traffic (docs/origin.md, docs/producers.md).
 *
 * It is also the last funnel for the service's own faults: an exception escaping a handler becomes the structured
 * error 1101 (zone traffic, service endpoints) or a 500 envelope (API), never a bare 500.
 */
import { mountApi, routeSignatures } from "./api/kit/mount";
import type { ApiRoute, Route } from "./api/kit/types";
import { openApiDocument } from "./api/kit/openapi";
import { API_FAILURES, apiFailureResponse } from "./api/kit/envelope";
import type { Settings } from "./shared/settings";
import { requestContextOf, type RequestContext } from "./shared/request-context";
import { handleServiceRequest } from "./edge/service-endpoints";
import { errorResponse, fallbackErrorResponse } from "./errors/pipeline";
import { isUnderPrefix, zoneOf } from "./shared/host";
import { logEvent } from "./shared/log";
import { newRayId } from "./shared/ray";
import { hasOwnLoopMark } from "./edge/origin/headers";
import { causeOf } from "./shared/result";
import { trafficBegan, trafficEnded } from "./shared/traffic-in-flight";
import { accessRulesOpenApi } from "./api/access-rules/openapi";
import { accessRuleRoutes } from "./api/access-rules/routes";
import { previewOpenApi } from "./api/preview/openapi";
import { previewRoutes } from "./api/preview/routes";
import { tracerOpenApi } from "./api/tracer/openapi";
import { tracerRoutes } from "./api/tracer/routes";
import { customPagesOpenApi } from "./api/custom-pages/openapi";
import { customPageRoutes } from "./api/custom-pages/routes";
import { rulesetsOpenApi } from "./api/rulesets/openapi";
import { rulesetRoutes } from "./api/rulesets/routes";
import { tagsOpenApi } from "./api/tags/openapi";
import { tagRoutes } from "./api/tags/routes";
import { zoneTagRoutes } from "./api/tags/zone-routes";
import { zonesOpenApi } from "./api/zones/openapi";
import { zoneRoutes } from "./api/zones/routes";
import { handleZoneTraffic } from "./edge/zone-traffic";
import { urlNormalizationOpenApi } from "./api/url-normalization/openapi";
import { urlNormalizationRoutes } from "./api/url-normalization/routes";
import { telemetryOpenApi } from "./api/telemetry/openapi";
import { telemetryRoutes } from "./api/telemetry/routes";
import { analyticsOpenApi } from "./api/analytics/openapi";
import { analyticsPages, analyticsRoutes } from "./api/analytics/routes";
import { homeRoutes } from "./api/home/page";
import { bundleOpenApi } from "./api/bundle/openapi";
import { bundleRoutes } from "./api/bundle/routes";
import { isV4Path, notAnApiHost } from "./api/kit/misdirected";
import { isIpLiteral } from "./shared/ip";
import { MCP_PATHS, mcpEndpoint } from "./api/mcp/endpoint";

/**
 * What an API host answers, in one table: the public pages (the front door, the analytics pages: served before
 * authentication, kit/types.ts `PageRoute`) and every feature's API routes; each feature's part of the OpenAPI
 * document beside it. Beyond the table, the kit answers `/openapi.json` and the root `/mcp`.
 */
const apiRoutes: readonly Route[] = [
  ...homeRoutes,
  ...analyticsPages,
  ...zoneRoutes,
  ...rulesetRoutes,
  ...customPageRoutes,
  ...accessRuleRoutes,
  ...urlNormalizationRoutes,
  ...telemetryRoutes,
  ...bundleRoutes,
  ...previewRoutes,
  ...tracerRoutes,
  ...tagRoutes,
  ...zoneTagRoutes,
  ...analyticsRoutes,
];

export const api = mountApi(apiRoutes, () =>
  JSON.stringify(
    openApiDocument(
      [
        zonesOpenApi,
        rulesetsOpenApi,
        customPagesOpenApi,
        accessRulesOpenApi,
        urlNormalizationOpenApi,
        telemetryOpenApi,
        bundleOpenApi,
        previewOpenApi,
        tracerOpenApi,
        tagsOpenApi,
        analyticsOpenApi,
      ],
      routeSignatures(apiRoutes.filter((route): route is ApiRoute => route.kind !== "page" && route.dryRun === true)),
    ),
  ),
);

/** `/mcp` on API hosts (docs/mcp.md): the API's routes as MCP tools, for the API's tokens. */
const mcp = mcpEndpoint(api);

type Destination = "service" | "api" | "api-elsewhere" | "zone";

/**
 * Which part of the service answers this URL (pure; exported for tests). `zone` is `zoneOf(url)`, when known. An API
 * path on an IP literal that is no API host is `api-elsewhere`: no zone is named by an IP (docs/configuration.md
 * "API hosts").
 */
export function destinationOf(url: URL, settings: Settings, zone?: string): Destination {
  const path = url.pathname; // one read: each is a call into the runtime
  if (isUnderPrefix(path, settings.servicePrefix)) return "service";
  const host = zone ?? zoneOf(url);
  if (settings.apiHosts.has(host)) return "api";
  if (isV4Path(path) && isIpLiteral(host)) return "api-elsewhere";
  return "zone";
}

export async function handle(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  // The one object every door and the pipeline take (src/shared/request-context.ts): the URL parsed and the zone
  // named once per request.
  const rc = requestContextOf(request, env, ctx);
  const destination = destinationOf(rc.url, rc.settings, rc.zone);
  // Management calls' pieces wait while traffic is in flight (src/shared/traffic-in-flight.ts). The 1101 funnel's
  // answer, returned unawaited, stops counting before it is made: a piece may run beside that rare answer.
  const traffic = destination !== "api";
  if (traffic) trafficBegan();
  try {
    return await door(rc, destination);
  } catch (error) {
    return unhandled(error, destination, rc);
  } finally {
    if (traffic) trafficEnded();
  }
}

/** The door `destination` names (docs/architecture.md); `handle` awaits it, so its failures reach the funnel. */
function door(rc: RequestContext, destination: Destination): Response | Promise<Response> {
  switch (destination) {
    case "service":
      if (isLoop(rc.request)) return loop(rc);
      return handleServiceRequest(rc);
    case "api":
      if (isLoop(rc.request)) return loop(rc);
      if (MCP_PATHS.has(rc.url.pathname)) return mcp.handle(rc);
      return api.handle(rc);
    case "api-elsewhere":
      return notAnApiHost(rc);
    case "zone":
      // Zone traffic checks the mark in its single pass over the request headers (src/edge/zone-traffic.ts).
      return handleZoneTraffic(rc);
  }
}

function isLoop(request: Request): boolean {
  const mark = request.headers.get("cdn-loop");
  return mark !== null && hasOwnLoopMark(mark);
}

/** RFC 8586: our own mark means this request already went through this service once (docs/origin.md: 1000). */
async function loop(rc: RequestContext): Promise<Response> {
  const cause = "CDN-Loop already carries this service's mark";
  return (await errorResponse({ code: 1000, request: rc.request, url: rc.url, cause }, rc)).response;
}

async function unhandled(error: unknown, destination: Destination, rc: RequestContext): Promise<Response> {
  const cause = causeOf(error);
  if (destination === "api") {
    const ray = newRayId();
    logEvent("api_exception", { ray, path: rc.url.pathname, cause });
    return apiFailureResponse(API_FAILURES.internal(ray));
  }
  try {
    return (await errorResponse({ code: 1101, request: rc.request, url: rc.url, cause }, rc)).response;
  } catch (secondary) {
    // The pipeline itself failed (it should not): the same 1101, built without reading the request.
    return fallbackErrorResponse(1101, rc, `${cause}; then in the pipeline: ${causeOf(secondary)}`);
  }
}
