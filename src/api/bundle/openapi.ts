/** The bundle's part of the OpenAPI document (docs/config-as-code.md); its schema is `ZoneBundle` (schema.ts). */
import { COMMON_ERRORS, ok, param, ref, type OpenApiFragment } from "../kit/openapi";
// For its side effect: the named schema `ZoneBundle` is registered before the document is built.
import "./schema";

export const bundleOpenApi: OpenApiFragment = {
  description:
    "A zone as code: its whole configuration as one deterministic document with an ETag (docs/config-as-code.md).",
  paths: {
    "/zones/{zone}/bundle": {
      parameters: [param("Zone")],
      get: {
        operationId: "getZoneBundle",
        summary: "The zone's whole configuration as one document (no secrets), with a strong ETag",
        security: [{ bearer: ["zones:read"] }],
        responses: {
          "200": ok("The bundle; the same configuration is always the same bytes", ref("ZoneBundle"), false, {
            ETag: { description: "SHA-256 of the bundle's canonical JSON, quoted", schema: { type: "string" } },
          }),
          ...COMMON_ERRORS,
        },
      },
    },
  },
};
