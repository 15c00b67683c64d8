/**
 * Zone traffic: everything that is neither a service endpoint nor the management API (contract §0 step 3).
 * PLACEHOLDER of the foundation skeleton: answers 1001 until the origin issue lands.
 */
import type { Settings } from "../config/settings";
import { errorResponse } from "../errors/pipeline";
import { zoneOf } from "../http/host";

export async function handleZoneTraffic(
  request: Request,
  _env: Env,
  _ctx: ExecutionContext,
  settings: Settings,
): Promise<Response> {
  return errorResponse({ code: 1001, request, cause: "no zone config" }, { settings, zone: zoneOf(new URL(request.url)) });
}
