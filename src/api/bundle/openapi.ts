/** The bundle's part of the OpenAPI document (docs/config-as-code.md); its schema is `ZoneBundle` (schema.ts). */
import { errorResponse, jsonBody, ok, operation, param, ref, response, type OpenApiFragment } from "../kit/openapi";
import { API_CODES } from "../kit/codes";
// For their side effect: the named schemas `ZoneBundle` and `BundlePlan` are registered before the document is built.
import "./schema";
import "./plan";

const etag = (description: string) => ({ ETag: { description, schema: { type: "string" } } });

export const bundleOpenApi: OpenApiFragment = {
  description:
    "A zone as code: its whole configuration as one deterministic document with an ETag (docs/config-as-code.md).",
  paths: {
    "/zones/{zone}/bundle": {
      parameters: [param("Zone")],
      get: operation(
        "zones:read",
        "getZoneBundle",
        "The zone's whole configuration as one document (no secrets), with a strong ETag",
        {
          "200": ok(
            "The bundle; the same configuration is always the same bytes",
            ref("ZoneBundle"),
            false,
            etag("SHA-256 of the bundle's canonical JSON, quoted"),
          ),
        },
      ),
      put: operation(
        "zones:write",
        "putZoneBundle",
        "Make the zone match the bundle, or with `plan=true` only say what that would change",
        {
          "200": ok(
            "The plan (applied, unless planning only)",
            ref("BundlePlan"),
            false,
            etag("The bundle's ETag after"),
          ),
          "409": errorResponse(
            "Refused part way and not all put back (the zone or its tags written again meanwhile): applied in part",
          ),
          "412": errorResponse(
            "If-Match is stale, or the zone, its tags or its alert policies changed while applying; nothing changed",
          ),
          "413": response("TooLarge"),
        },
        {
          description:
            "Every section is checked first; a refusal names the section and field and changes nothing " +
            `(${API_CODES["invalid-bundle"].code}, or the section's own code); the tags and alert policies are ` +
            "checked by their stores too. Then the tags, the zone document's sections (one step) and the alert " +
            "policies are written; one refused by a change made meanwhile puts back those written before it " +
            '(docs/config-as-code.md "What atomic means"). ' +
            `\`If-Match\` other than the bundle's ETag: 412 (${API_CODES["bundle-precondition"].code}). A section ` +
            "left out is left as it is.",
          parameters: [
            {
              name: "plan",
              in: "query",
              required: false,
              description: "`true`: apply nothing, answer the plan (as `dry_run=true` does)",
              schema: { type: "boolean" },
            },
            {
              name: "If-Match",
              in: "header",
              required: false,
              description: "The ETag of the bundle the write was planned from",
              schema: { type: "string" },
            },
          ],
          requestBody: jsonBody("ZoneBundle"),
        },
      ),
    },
  },
};
