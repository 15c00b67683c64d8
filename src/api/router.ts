/**
 * The management API on API hosts (contract §0 step 2, §5, §6, §7). Paths are accepted with or without the
 * `/client/v4` prefix: the same routes are registered on two itty routers, one per base, so handlers see the
 * same `params` either way and the request is never copied or rewritten.
 *
 * itty is used to register and compile the routes, not to dispatch: its `Router.fetch` first builds
 * `request.query` with one `[].concat` per repeated query key, quadratic in the query string (40,000 `a=1` pairs
 * cost ~6 s of CPU, measured), before any handler, and so before authentication. `dispatch` walks the same
 * route table without that step; handlers read `new URL(request.url).searchParams` (contract §8).
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
  return dispatch(router, request, path, env, ctx, settings);
}

/**
 * itty's matching, in its order: the first route whose method (or `ALL`) and pattern match gets `params`, and
 * its handlers run until one returns a Response. Every router ends with a catch-all, so a Response always comes.
 */
async function dispatch(router: ApiRouter, request: Request, path: string, ...args: ApiArgs): Promise<Response> {
  const routed = request as IRequest;
  for (const [method, pattern, handlers] of router.routes) {
    if (method !== request.method && method !== "ALL") continue;
    const match = pattern.exec(path);
    if (match === null) continue;
    routed.params = match.groups ?? {};
    for (const handler of handlers) {
      const response: unknown = await handler(routed, ...args);
      if (response instanceof Response) return response;
    }
  }
  return apiFailureResponse(API_FAILURES.notFound());
}
