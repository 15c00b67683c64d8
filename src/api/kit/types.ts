/**
 * The shapes every management API feature shares (docs/tags-api.md, docs/configuration.md). A leaf of the api kit: features import these
 * types and export their route tables; only the root, `src/app.ts`, imports the features and hands their tables to
 * `mountApi` (kit/mount.ts), so the arrows run one way, root → feature → kit (docs/architecture.md).
 */
import type { RequestContext } from "../../shared/request-context";
import type { Result } from "../../shared/result";
import type { AccessTarget, Permission, Principal } from "./auth";
import type { ApiFailure } from "./envelope";

/** What one authenticated, authorised API request hands its handler: the request's context, and what auth found. */
export interface ApiContext extends RequestContext {
  /** Path parameters of the matched route, raw as they appear in the path (not percent-decoded). */
  readonly params: Readonly<Record<string, string>>;
  readonly principal: Principal;
  /**
   * `?dry_run=true` on a write (docs/configuration.md, kit/dry-run.ts): validate and authorise as usual, store nothing. The
   * zone-section kit's writers read it, so a route cannot store by mistake while rehearsing.
   */
  readonly dryRun: boolean;
}

export type ApiMethod = "GET" | "HEAD" | "PUT" | "DELETE" | "POST" | "PATCH";

/**
 * One endpoint of a feature. The root authenticates first (docs/configuration.md: every management request, 401 before
 * any 404/405), then matches the route, then asks `target` what the request is about (an account or a zone;
 * a malformed id answers its own failure here, e.g. 404), then authorises `permission` on that target (403),
 * and only then runs `handle`.
 */
export interface ApiRoute {
  /** Absent in the resources' tables: a route is an API route unless it says it is a page. */
  readonly kind?: "api";
  readonly method: ApiMethod;
  /** itty-router pattern, e.g. `/zones/:zone`. */
  readonly path: string;
  readonly permission: Permission;
  readonly target: (params: Readonly<Record<string, string>>) => Result<AccessTarget, ApiFailure>;
  readonly handle: (c: ApiContext) => Promise<Response>;
  /** The route honours `?dry_run=true` (kit/dry-run.ts); a write route without it refuses the parameter (400). */
  readonly dryRun?: true;
  /** The route creates its zone when it is not configured (auth.ts `Requirement.createsZone`). */
  readonly createsZone?: true;
}

/**
 * A public page of an API host (the front door, the analytics pages): it holds no data, so it is served before
 * authentication, to GET and HEAD only, on the path without the `/client/v4` prefix, and it is not in the OpenAPI
 * document, which describes the JSON API. `page` answers null when the path's parameters name nothing it shows (a
 * malformed zone name or account id): the request then goes on to the API as if no page were there.
 */
export interface PageRoute {
  readonly kind: "page";
  /** itty-router pattern, e.g. `/zones/:zone/analytics`. */
  readonly path: string;
  readonly page: (rc: RequestContext, params: Readonly<Record<string, string>>) => Response | null;
}

/** One entry of the route table the root mounts: everything an API host answers but `/openapi.json` and `/mcp`. */
export type Route = ApiRoute | PageRoute;
