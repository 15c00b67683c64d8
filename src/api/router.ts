/**
 * The management API on API hosts (contract §0 step 2, §5, §6, §7). Paths are accepted with or without the
 * `/client/v4` prefix: the same routes are registered on two itty routers, one per base, so handlers see the
 * same `params` either way and the request is never copied or rewritten.
 */
import { Router, type IRequest, type RouterType } from "itty-router";
import type { Settings } from "../config/settings";
import { registerTagRoutes } from "../tags/routes";
import { registerZoneRoutes } from "../zones/routes";
import { API_FAILURES, apiFailureResponse } from "./envelope";
import { serveOpenApi } from "./openapi";

/** Arguments every API handler receives after the request. */
export type ApiArgs = [env: Env, ctx: ExecutionContext, settings: Settings];
export type ApiRouter = RouterType<IRequest, ApiArgs, Response>;

const V4_BASE = "/client/v4";

function buildRouter(base: string): ApiRouter {
  const router = Router<IRequest, ApiArgs, Response>({ base });
  registerZoneRoutes(router);
  registerTagRoutes(router);
  router.get("/openapi.json", serveOpenApi);
  router.all("*", () => apiFailureResponse(API_FAILURES.notFound()));
  return router;
}

const bare = buildRouter("");
const v4 = buildRouter(V4_BASE);

/** Dispatches a management API request. Handlers return Responses; thrown errors are the caller's to funnel. */
export async function handleApiRequest(
  request: Request,
  env: Env,
  ctx: ExecutionContext,
  settings: Settings,
  url: URL = new URL(request.url),
): Promise<Response> {
  const path = url.pathname;
  const router = path === V4_BASE || path.startsWith(V4_BASE + "/") ? v4 : bare;
  return router.fetch(request, env, ctx, settings);
}
