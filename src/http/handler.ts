/**
 * The single `fetch` entry's dispatch, in the order of contract §0:
 *   1. any host, path under SERVICE_PREFIX → service endpoints (§1.6);
 *   2. a host of API_HOSTS → management API (§5, §6);
 *   3. any other host → zone traffic (§3, §4).
 * It is also the last funnel for the service's own faults: an exception escaping a handler becomes
 * the structured error 1101 (zone traffic, service endpoints) or a 500 envelope (API), never a bare 500.
 */
import { handleApiRequest } from "../api/router";
import { API_FAILURES, apiFailureResponse } from "../api/envelope";
import { settingsFor, type Settings } from "../config/settings";
import { handleServiceRequest } from "../errors/endpoints";
import { errorResponse, fallbackErrorResponse } from "../errors/pipeline";
import { handleZoneTraffic } from "../zones/traffic";
import { isUnderPrefix, zoneOf } from "./host";
import { newRayId } from "./ray";

type Destination = "service" | "api" | "zone";

/** Which part of the service answers this URL (pure; exported for tests). */
export function destinationOf(url: URL, settings: Settings): Destination {
  if (isUnderPrefix(url.pathname, settings.servicePrefix)) return "service";
  if (settings.apiHosts.has(zoneOf(url))) return "api";
  return "zone";
}

export async function handle(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const settings = settingsFor(env);
  const url = new URL(request.url);
  const destination = destinationOf(url, settings);
  try {
    switch (destination) {
      case "service":
        return await handleServiceRequest(request, env, ctx, settings);
      case "api":
        return await handleApiRequest(request, env, ctx, settings, url);
      case "zone":
        return await handleZoneTraffic(request, env, ctx, settings, url);
    }
  } catch (error) {
    return unhandled(error, destination, request, url, settings);
  }
}

async function unhandled(
  error: unknown,
  destination: Destination,
  request: Request,
  url: URL,
  settings: Settings,
): Promise<Response> {
  const cause = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (destination === "api") {
    const ray = newRayId();
    console.error(JSON.stringify({ event: "api_exception", ray, path: url.pathname, cause }));
    return apiFailureResponse(API_FAILURES.internal(ray));
  }
  try {
    return await errorResponse({ code: 1101, request, cause }, { settings, zone: zoneOf(url) });
  } catch (secondary) {
    // The pipeline itself failed (it should not): the same 1101, built without reading the request.
    return fallbackErrorResponse(1101, url, settings, `${cause}; then in the pipeline: ${String(secondary)}`);
  }
}
