/** The analytics endpoints' part of the OpenAPI document (docs/configuration.md, docs/analytics.md). */
import { COMMON_ERRORS, ok, param, type Json, type OpenApiFragment } from "../kit/openapi";
import { RAY_ID_PATTERN } from "../../shared/ray";

const query = (name: string, description: string, schema: Json): Json => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});

export const analyticsOpenApi: OpenApiFragment = {
  description:
    "Error analytics (`zones:read`): counts per minute (3 days) and per hour (35 days), one occurrence by Ray ID (7 days); the page GET /zones/{zone}/analytics is a public HTML shell holding no data.",
  paths: {
    "/zones/{zone}/analytics/errors": {
      parameters: [param("Zone")],
      get: {
        operationId: "zoneErrorAnalytics",
        summary: "Counts of generated errors and passed-through origin errors over time, grouped",
        security: [{ bearer: ["zones:read"] }],
        parameters: [
          query("since", "RFC 3339 or epoch seconds; default until − 1 h", { type: "string" }),
          query("until", "RFC 3339 or epoch seconds; default now", { type: "string" }),
          query("step", "minute (range ≤ 24 h, last 3 days) or hour (range ≤ 35 days)", { enum: ["minute", "hour"] }),
          query("group_by", "up to 2 of code, source, answered_by, format, comma-separated (≤ 50 series)", {
            type: "string",
          }),
          query("code", "filter", { type: "integer" }),
          query("source", "filter", { enum: ["edge", "origin"] }),
          query("answered_by", "filter", { enum: ["rule", "page", "default", "origin"] }),
          query("format", "filter", { type: "string" }),
        ],
        responses: {
          "200": ok("Series, top codes and top paths", { $ref: "#/components/schemas/ErrorCounts" }),
          ...COMMON_ERRORS,
        },
      },
    },
    "/zones/{zone}/errors/{ray}": {
      parameters: [
        param("Zone"),
        { name: "ray", in: "path", required: true, schema: { type: "string", pattern: RAY_ID_PATTERN.source } },
      ],
      get: {
        operationId: "zoneErrorByRay",
        summary: "One recorded occurrence by Ray ID, within 7 days",
        security: [{ bearer: ["zones:read"] }],
        responses: { "200": ok("The occurrence", { $ref: "#/components/schemas/ErrorOccurrence" }), ...COMMON_ERRORS },
      },
    },
  },
  schemas: {
    ErrorCounts: {
      type: "object",
      required: ["zone", "since", "until", "step", "total", "timestamps", "series", "top_codes", "top_paths"],
      properties: {
        zone: { type: "string" },
        since: { type: "string", format: "date-time" },
        until: { type: "string", format: "date-time" },
        step: { enum: ["minute", "hour"] },
        group_by: { type: "array", items: { type: "string" } },
        filters: { type: "object" },
        total: { type: "integer" },
        timestamps: { type: "array", items: { type: "string", format: "date-time" } },
        series: {
          type: "array",
          items: {
            type: "object",
            properties: {
              group: { type: "object" },
              counts: { type: "array", items: { type: "integer" } },
              total: { type: "integer" },
            },
          },
        },
        top_codes: {
          type: "array",
          items: { type: "object", properties: { code: { type: "integer" }, count: { type: "integer" } } },
        },
        top_paths: {
          type: "array",
          items: { type: "object", properties: { path: { type: "string" }, count: { type: "integer" } } },
        },
      },
    },
    ErrorOccurrence: {
      type: "object",
      properties: {
        ray: { type: "string" },
        zone: { type: "string" },
        time: { type: "string", format: "date-time" },
        at: { type: "integer" },
        code: { type: "integer" },
        status: { type: "integer" },
        source: { enum: ["edge", "origin"] },
        answered_by: { enum: ["rule", "page", "default", "origin"] },
        answer_id: { type: ["string", "null"] },
        format: { type: "string" },
        method: { type: "string" },
        path: { type: "string" },
        country: { type: ["string", "null"] },
        cause: {
          type: ["string", "null"],
          description: "Why it was generated; origin addresses replaced by [origin]/[address]",
        },
      },
    },
  },
};
