/** The custom error assets' part of the OpenAPI document (docs/configuration.md; docs/custom-errors.md "Custom error assets"). */
import {
  COMMON_ERRORS,
  jsonBody,
  ok,
  param,
  parameterOf,
  queryParameters,
  ref,
  type Json,
  type OpenApiFragment,
} from "../kit/openapi";
// CustomAsset is a component of ./assets.ts (the answer's own schema).
import { ASSET_QUERY } from "./assets";
import { ASSET_LIMITS } from "../../state/zone/custom-pages/assets";
import { ASSET_NAME } from "../../state/zone/custom-pages/asset-name";

const failure = (description: string): Json => ({
  description,
  content: { "application/json": { schema: ref("FailureEnvelope") } },
});

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
  paths: {
    "/zones/{zone}/custom_pages/assets": {
      parameters: [param("Zone")],
      get: {
        operationId: "listCustomAssets",
        summary: "Custom error assets, by name",
        security: [{ bearer: ["zones:read"] }],
        parameters: queryParameters(ASSET_QUERY),
        responses: {
          "200": ok("One page of assets", { type: "array", items: ref("CustomAsset") }, ref("PageResultInfo")),
          ...COMMON_ERRORS,
        },
      },
      post: {
        operationId: "createCustomAsset",
        summary: "Create an asset from a URL of the zone (fetched once, stylesheets and images inlined)",
        description: FETCHED,
        security: [{ bearer: ["zones:write"] }],
        requestBody: jsonBody("CustomAssetCreate"),
        responses: {
          "200": ok("The asset", ref("CustomAsset")),
          ...COMMON_ERRORS,
          "409": failure("An asset of that name exists (20052)"),
        },
      },
    },
    "/zones/{zone}/custom_pages/assets/{asset_name}": {
      parameters: [param("Zone"), param("AssetName")],
      get: {
        operationId: "getCustomAsset",
        summary: "One custom error asset",
        security: [{ bearer: ["zones:read"] }],
        responses: { "200": ok("The asset", ref("CustomAsset")), ...COMMON_ERRORS },
      },
      put: {
        operationId: "updateCustomAsset",
        summary: "Change an asset's description or URL; always fetches again (the same URL refetches)",
        description: `${FETCHED} The name cannot change. Unknown name: 404 (20051).`,
        security: [{ bearer: ["zones:write"] }],
        requestBody: jsonBody("CustomAssetUpdate"),
        responses: { "200": ok("The asset", ref("CustomAsset")), ...COMMON_ERRORS },
      },
      delete: {
        operationId: "deleteCustomAsset",
        summary: "Delete an asset no custom error rule names",
        security: [{ bearer: ["zones:write"] }],
        responses: {
          "204": { description: "Deleted" },
          ...COMMON_ERRORS,
          "409": failure("A custom error rule names the asset (20054): the message lists the rules; nothing deleted"),
        },
      },
    },
  },
  parameters: {
    AssetName: parameterOf(ASSET_NAME, { name: "asset_name", in: "path", example: "maintenance_page" }),
  },
};
