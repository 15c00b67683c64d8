/** The preview endpoint's part of the OpenAPI document (contract §6). */
import { COMMON_ERRORS, param, type OpenApiFragment } from "../kit/openapi";

export const previewOpenApi: OpenApiFragment = {
  paths: {
    "/zones/{zone}/preview/{code}": {
      parameters: [param("Zone"), { name: "code", in: "path", required: true, schema: { type: "integer" } }],
      get: {
        operationId: "previewError",
        summary: "Exactly the response the zone would serve for this error to this request",
        description:
          "Negotiated from the request's `Accept` and other headers, with the zone's custom error rules and pages " +
          "applied (contract §2.1). Not the envelope: the error response itself.",
        security: [{ bearer: ["zones:read"] }],
        responses: {
          default: {
            description: "The error response (JSON, Markdown, HTML, or the zone's own content)",
            content: { "application/json": {}, "text/markdown": {}, "text/html": {} },
          },
          ...COMMON_ERRORS,
        },
      },
      head: {
        operationId: "previewErrorHead",
        summary: "Headers of the preview",
        security: [{ bearer: ["zones:read"] }],
        responses: { default: { description: "The error response's headers" } },
      },
    },
  },
};
