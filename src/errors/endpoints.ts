/**
 * Service endpoints on every host under SERVICE_PREFIX (contract §1.6).
 * PLACEHOLDER of the foundation skeleton.
 */
import type { Settings } from "../config/settings";

export async function handleServiceRequest(
  request: Request,
  _env: Env,
  _ctx: ExecutionContext,
  settings: Settings,
): Promise<Response> {
  return new Response(`not yet: ${new URL(request.url).pathname} under ${settings.servicePrefix}`, { status: 404 });
}
