/**
 * The zone configuration API's part of the OpenAPI document (contract §6).
 */
import { COMMON_ERRORS, ok, param, ref, response, type Json, type OpenApiFragment } from "../kit/openapi";
import { HOSTNAME_LIMITS } from "../../shared/host";
import { PLANS, ZONE_LIMITS } from "../../state/zone/schema";

const zonePaths: Record<string, Json> = {
  "/zones/{zone}": {
    parameters: [param("Zone")],
    get: {
      operationId: "getZone",
      summary: "A zone's configuration",
      security: [{ bearer: ["zones:read"] }],
      responses: { "200": ok("The zone", ref("Zone")), ...COMMON_ERRORS },
    },
    put: {
      operationId: "putZone",
      summary: "Create or replace a zone",
      security: [{ bearer: ["zones:write"] }],
      requestBody: { required: true, content: { "application/json": { schema: ref("ZoneSettings") } } },
      responses: { "200": ok("The stored zone", ref("Zone")), ...COMMON_ERRORS, "413": response("TooLarge") },
    },
    delete: {
      operationId: "deleteZone",
      summary: "Delete a zone with all its rules and pages",
      security: [{ bearer: ["zones:write"] }],
      responses: {
        "200": ok("Deleted", { type: "object", required: ["id"], properties: { id: { type: "string" } } }),
        ...COMMON_ERRORS,
      },
    },
  },
};

export const zonesOpenApi: OpenApiFragment = {
  paths: zonePaths,
  description: "Zone configuration (contract §6).",
  parameters: {
    Zone: {
      name: "zone",
      in: "path",
      required: true,
      description: "Hostname.",
      schema: { type: "string", maxLength: HOSTNAME_LIMITS.maxLength },
      example: "www.example.com",
    },
  },
  schemas: {
    ZoneSettings: {
      type: "object",
      required: ["plan", "origin"],
      additionalProperties: false,
      properties: {
        plan: { type: "string", enum: [...PLANS] },
        origin: { type: "string", format: "uri", description: "`http(s)://host[:port]`" },
        connect_timeout: {
          type: "number",
          description: "seconds",
          minimum: ZONE_LIMITS.connectTimeout.min,
          maximum: ZONE_LIMITS.connectTimeout.max,
          default: ZONE_LIMITS.connectTimeout.default,
        },
        read_timeout: {
          type: "number",
          description: "seconds",
          minimum: ZONE_LIMITS.readTimeout.min,
          maximum: ZONE_LIMITS.readTimeout.max,
          default: ZONE_LIMITS.readTimeout.default,
        },
        max_request_header_bytes: {
          type: "integer",
          minimum: ZONE_LIMITS.maxRequestHeaderBytes.min,
          maximum: ZONE_LIMITS.maxRequestHeaderBytes.max,
          default: ZONE_LIMITS.maxRequestHeaderBytes.default,
        },
      },
      example: { plan: "pro", origin: "https://origin.example.com", connect_timeout: 10 },
    },
    Zone: {
      description: "The zone's settings as written, with its name and the document's revision.",
      allOf: [
        ref("ZoneSettings"),
        {
          type: "object",
          required: ["zone", "version", "modified_on"],
          properties: {
            zone: { type: "string" },
            version: { type: "integer" },
            modified_on: { type: "string", format: "date-time" },
          },
        },
      ],
    },
  },
};
