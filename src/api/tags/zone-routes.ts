/**
 * Zone tags at the published `/zones/{zone_id}/tags` (docs/tags-api.md "Zone tags"): GET, PUT and DELETE as the
 * official SDK's `resourceTagging.zoneTags` sends them, and PATCH; and the history of the zone's resources at
 * `/zones/{zone_id}/tags/history` (docs/tags-api.md "History"). `resource_type` is `zone` (the zone itself, its
 * `resource_id` the zone) or `zone_ruleset`. The tags are stored in the TagStore of the zone's account (the zone
 * object's `account.id`), with the account's other tags: the same limit, listings, filters, history and policy.
 *
 * Check order: token (401) → route → zone name (400, 7003) → permission and zone scope (403) → the zone (404, 1001)
 * → its account (409, 1027) → then the account endpoint's checks, in its order.
 */
import type { Permission } from "../kit/auth";
import type { ApiMethod, ApiRoute } from "../kit/types";
import { readZone, zoneHandler, zoneTarget } from "../kit/zone-section";
import { ok } from "../../shared/result";
import { zoneAccountId } from "../../state/zone/schema";
import { deleteTags, failure, getTags, listHistory, patchTags, putTags, type TagRequest } from "./routes";

const ZONE_TAGS = "/zones/:zone/tags";

function zoneTagRoute(
  method: ApiMethod,
  permission: Permission,
  handler: (c: TagRequest) => Promise<Response>,
  path = ZONE_TAGS,
): ApiRoute {
  return {
    method,
    path,
    permission,
    target: zoneTarget,
    handle: zoneHandler(async (c, zone) => {
      const current = await readZone(c.env, zone);
      if (!current.ok) return current;
      const account = zoneAccountId(current.value.zone.settings);
      if (account === null) return ok(failure({ kind: "zone-without-account", zone }));
      const store = c.env.TAG_STORE.get(c.env.TAG_STORE.idFromName(account));
      return ok(
        await handler({
          request: c.request,
          params: c.params,
          url: c.url,
          account,
          store,
          settings: c.settings,
          actor: c.principal.name,
          scope: { kind: "zone", zone },
        }),
      );
    }),
  };
}

export const zoneTagRoutes: readonly ApiRoute[] = [
  zoneTagRoute("GET", "tags:read", getTags),
  zoneTagRoute("PUT", "tags:write", putTags),
  zoneTagRoute("DELETE", "tags:write", deleteTags),
  zoneTagRoute("PATCH", "tags:write", patchTags),
  zoneTagRoute("GET", "tags:read", listHistory, `${ZONE_TAGS}/history`),
];
