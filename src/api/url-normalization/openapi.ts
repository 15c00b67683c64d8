/**
 * The URL normalisation API's part of the OpenAPI document (docs/rules-language.md, docs/configuration.md); the
 * body's schema `UrlNormalization` is the validator's (src/state/zone/url-normalization/validate.ts).
 */
import { jsonBody, ok, operation, param, ref, response, type OpenApiFragment } from "../kit/openapi";
import { INVALID_URL_NORMALIZATION } from "./routes";

export const urlNormalizationOpenApi: OpenApiFragment = {
  description:
    "URL normalisation per zone, as published (developers.cloudflare.com/rules/normalization/): the path rules " +
    "see (`http.request.uri.path`, `uri`, `full_uri`) is normalised before the request phases and custom error " +
    "rules run; with scope `both` the origin receives the normalised path too.",
  paths: {
    "/zones/{zone}/url_normalization": {
      parameters: [param("Zone")],
      get: operation("zones:read", "getUrlNormalization", "The setting in force (the defaults when none was written)", {
        "200": ok("The setting", ref("UrlNormalization")),
      }),
      put: operation(
        "zones:write",
        "putUrlNormalization",
        "Replace the zone's URL normalisation setting",
        { "200": ok("The stored setting", ref("UrlNormalization")), "413": response("TooLarge") },
        {
          description:
            "Both fields are required. An invalid body answers 400 " +
            `(${INVALID_URL_NORMALIZATION}) naming each wrong field; nothing is stored.`,
          requestBody: jsonBody("UrlNormalization"),
        },
      ),
      delete: operation(
        "zones:write",
        "deleteUrlNormalization",
        "Remove the stored setting: the zone gets the defaults again",
        { "204": { description: "Removed; no body" } },
      ),
    },
  },
};
