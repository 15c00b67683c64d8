/**
 * The URL normalisation API's part of the OpenAPI document (docs/rules-language.md, docs/configuration.md); the
 * body's schema `UrlNormalization` is the validator's (src/state/zone/url-normalization/validate.ts).
 */
import { COMMON_ERRORS, jsonBody, ok, param, ref, response, type OpenApiFragment } from "../kit/openapi";
import { INVALID_URL_NORMALIZATION } from "./routes";

export const urlNormalizationOpenApi: OpenApiFragment = {
  description:
    "URL normalisation per zone, as published (developers.cloudflare.com/rules/normalization/): the path rules " +
    "see (`http.request.uri.path`, `uri`, `full_uri`) is normalised before the request phases and custom error " +
    "rules run; with scope `both` the origin receives the normalised path too.",
  paths: {
    "/zones/{zone}/url_normalization": {
      parameters: [param("Zone")],
      get: {
        operationId: "getUrlNormalization",
        summary: "The setting in force (the defaults when none was written)",
        security: [{ bearer: ["zones:read"] }],
        responses: { "200": ok("The setting", ref("UrlNormalization")), ...COMMON_ERRORS },
      },
      put: {
        operationId: "putUrlNormalization",
        summary: "Replace the zone's URL normalisation setting",
        description:
          "Both fields are required. An invalid body answers 400 " +
          `(${INVALID_URL_NORMALIZATION}) naming each wrong field; nothing is stored.`,
        security: [{ bearer: ["zones:write"] }],
        requestBody: jsonBody("UrlNormalization"),
        responses: {
          "200": ok("The stored setting", ref("UrlNormalization")),
          ...COMMON_ERRORS,
          "413": response("TooLarge"),
        },
      },
      delete: {
        operationId: "deleteUrlNormalization",
        summary: "Remove the stored setting: the zone gets the defaults again",
        security: [{ bearer: ["zones:write"] }],
        responses: { "204": { description: "Removed; no body" }, ...COMMON_ERRORS },
      },
    },
  },
};
