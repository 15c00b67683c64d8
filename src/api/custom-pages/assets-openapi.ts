/** The custom error assets' part of the OpenAPI document (docs/configuration.md; docs/custom-errors.md "Custom error assets"). */
import {
  errorResponse,
  jsonBody,
  ok,
  operation,
  param,
  parameterOf,
  queryParameters,
  ref,
  type OpenApiFragment,
} from "../kit/openapi";
// CustomAsset is a component of ./assets.ts (the answer's own schema).
import { ASSET_QUERY } from "./assets";
import { ASSET_LIMITS } from "../../state/zone/custom-pages/assets";
import { ASSET_NAME } from "../../state/zone/custom-pages/asset-name";

const FETCHED =
  "The URL must be http(s), without credentials, on the zone's host or one of its subdomains, and never a host of " +
  "API_HOSTS (400, 20050). Its path and query are fetched from the zone's origin as zone traffic is (the zone's " +
  "timeouts; redirects are not followed), then its `<link rel=stylesheet>`, `<img src>` and CSS `url(…)` references " +
  "on the same scope, which are inlined (`<style>`, `data:` URIs). A page answered with 4xx/5xx is accepted; a " +
  `linked resource must answer 2xx. Everything must arrive within the zone's read timeout; at most ` +
  `${ASSET_LIMITS.resources} linked resources; the final HTML at most ${ASSET_LIMITS.bytes} bytes (400, 20056). ` +
  "Any fetch failure is 400 (20055) naming the URL and the origin's failure. Paid plans only (403, 1100); at most " +
  `${Object.entries(ASSET_LIMITS.perPlan)
    .map(([plan, n]) => `${n} on ${plan}`)
    .join(", ")} (400, 20053).`;

export const assetsOpenApi: OpenApiFragment = {
  get paths() {
    return {
      "/zones/{zone}/custom_pages/assets": {
        parameters: [param("Zone")],
        get: operation(
          "zones:read",
          "listCustomAssets",
          "Custom error assets, by name",
          { "200": ok("One page of assets", { type: "array", items: ref("CustomAsset") }, ref("PageResultInfo")) },
          { parameters: queryParameters(ASSET_QUERY()) },
        ),
        post: operation(
          "zones:write",
          "createCustomAsset",
          "Create an asset from a URL of the zone (fetched once, stylesheets and images inlined)",
          { "200": ok("The asset", ref("CustomAsset")), "409": errorResponse("An asset of that name exists (20052)") },
          { description: FETCHED, requestBody: jsonBody("CustomAssetCreate") },
        ),
      },
      "/zones/{zone}/custom_pages/assets/{asset_name}": {
        parameters: [param("Zone"), param("AssetName")],
        get: operation("zones:read", "getCustomAsset", "One custom error asset", {
          "200": ok("The asset", ref("CustomAsset")),
        }),
        put: operation(
          "zones:write",
          "updateCustomAsset",
          "Change an asset's description or URL; always fetches again (the same URL refetches)",
          { "200": ok("The asset", ref("CustomAsset")) },
          {
            description: `${FETCHED} The name cannot change. Unknown name: 404 (20051).`,
            requestBody: jsonBody("CustomAssetUpdate"),
          },
        ),
        delete: operation("zones:write", "deleteCustomAsset", "Delete an asset no custom error rule names", {
          "204": { description: "Deleted" },
          "409": errorResponse(
            "A custom error rule names the asset (20054): the message lists the rules; nothing deleted",
          ),
        }),
      },
    };
  },
  get parameters() {
    return {
      AssetName: parameterOf(ASSET_NAME(), { name: "asset_name", in: "path", example: "maintenance_page" }),
    };
  },
};
