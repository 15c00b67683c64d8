/** The URL normalisation API's part of the OpenAPI document (docs/rules-language.md, docs/configuration.md), from the module's constants. */
import { COMMON_ERRORS, ok, param, ref, response, type OpenApiFragment } from "../kit/openapi";
import {
  DEFAULT_URL_NORMALIZATION,
  URL_NORMALIZATION_SCOPES,
  URL_NORMALIZATION_TYPES,
} from "../../shared/url-normalise";
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
        requestBody: { required: true, content: { "application/json": { schema: ref("UrlNormalization") } } },
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
  schemas: {
    UrlNormalization: {
      type: "object",
      required: ["scope", "type"],
      additionalProperties: false,
      properties: {
        scope: {
          type: "string",
          enum: [...URL_NORMALIZATION_SCOPES],
          default: DEFAULT_URL_NORMALIZATION.scope,
          description:
            "`incoming`: rules see the normalised URL, the origin the original; `both`: the origin gets the " +
            "normalised URL too; `none`: no normalisation",
        },
        type: {
          type: "string",
          enum: [...URL_NORMALIZATION_TYPES],
          default: DEFAULT_URL_NORMALIZATION.type,
          description:
            "`rfc3986`: RFC 3986 §6.2.2 (unreserved characters decoded, percent-encodings upper-cased, dot " +
            "segments removed); `cloudflare`: also backslashes to slashes and successive slashes merged, first",
        },
      },
      example: { scope: "both", type: "rfc3986" },
    },
  },
};
