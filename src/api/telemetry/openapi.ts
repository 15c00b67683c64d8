/** The telemetry API's part of the OpenAPI document (docs/telemetry.md), from the module's constants. */
import { COMMON_ERRORS, ok, param, ref, response, type Json, type OpenApiFragment } from "../kit/openapi";
import { OTLP_PROTOCOLS, TELEMETRY_LIMITS, TRACE_CONTEXT_POLICIES } from "../../state/zone/telemetry/settings";
import { INVALID_TELEMETRY } from "./routes";

const rate = (description: string, value: number): Json => ({
  type: "number",
  minimum: 0,
  maximum: 1,
  default: value,
  description,
});

const otlp = (headerValue: "secret" | "redacted"): Json => ({
  type: "object",
  required: ["endpoint", "protocol"],
  additionalProperties: false,
  properties: {
    endpoint: {
      type: "string",
      format: "uri",
      maxLength: TELEMETRY_LIMITS.urlChars,
      description:
        "OTLP/HTTP traces endpoint (`…/v1/traces`): https, never a host of API_HOSTS, no private address; " +
        "loopback only when the Worker runs with WEBHOOK_LOOPBACK=allow",
    },
    logs_endpoint: {
      type: "string",
      format: "uri",
      maxLength: TELEMETRY_LIMITS.urlChars,
      description: "OTLP/HTTP logs endpoint; absent: the traces endpoint with `/v1/traces` as `/v1/logs`",
    },
    protocol: { type: "string", enum: [...OTLP_PROTOCOLS] },
    headers:
      headerValue === "secret"
        ? {
            type: "object",
            maxProperties: TELEMETRY_LIMITS.headers,
            additionalProperties: { type: "string", maxLength: TELEMETRY_LIMITS.headerValueChars },
            description: "Sent with every export (an API key): stored, never answered back",
          }
        : {
            type: "object",
            additionalProperties: { type: "string", enum: ["set"] },
            description: "The header names; every value is shown as `set`",
          },
  },
});

const properties = (headerValue: "secret" | "redacted"): Readonly<Record<string, Json>> => ({
  otlp: otlp(headerValue),
  sample: {
    type: "object",
    additionalProperties: false,
    properties: {
      errors: rate("Share of requests that end in a generated error whose trace is exported", 1),
      requests: rate("Share of all requests whose trace is exported (decided when the request arrives)", 0),
    },
  },
  trace_context: {
    type: "string",
    enum: [...TRACE_CONTEXT_POLICIES],
    default: "accept",
    description: "`accept`: a client's W3C traceparent is the parent; `ignore`: every request starts a trace",
  },
});

export const telemetryOpenApi: OpenApiFragment = {
  description:
    "OpenTelemetry per zone: one server span per sampled request with a span per phase, log records for generated " +
    "errors, exported over OTLP/HTTP after the response; W3C trace context to the origin and `trace_id` in errors.",
  paths: {
    "/zones/{zone}/telemetry": {
      parameters: [param("Zone")],
      get: {
        operationId: "getTelemetry",
        summary: "The zone's telemetry settings (header values as `set`) and this isolate's export counts",
        security: [{ bearer: ["zones:read"] }],
        responses: { "200": ok("The settings and counts", ref("TelemetryStatus")), ...COMMON_ERRORS },
      },
      put: {
        operationId: "putTelemetry",
        summary: "Replace the zone's telemetry settings",
        description: `An invalid body answers 400 (${INVALID_TELEMETRY}) naming each wrong field; nothing is stored.`,
        security: [{ bearer: ["zones:write"] }],
        requestBody: { required: true, content: { "application/json": { schema: ref("TelemetrySettings") } } },
        responses: {
          "200": ok("The stored settings (header values as `set`)", ref("TelemetryStatus")),
          ...COMMON_ERRORS,
          "413": response("TooLarge"),
        },
      },
      delete: {
        operationId: "deleteTelemetry",
        summary: "Remove the settings: no telemetry",
        security: [{ bearer: ["zones:write"] }],
        responses: { "204": { description: "Removed; no body" }, ...COMMON_ERRORS },
      },
    },
  },
  schemas: {
    TelemetrySettings: {
      type: "object",
      required: ["otlp"],
      additionalProperties: false,
      properties: properties("secret"),
      example: {
        otlp: {
          endpoint: "https://otlp.example.net/v1/traces",
          protocol: "http/protobuf",
          headers: { "x-api-key": "…" },
        },
        sample: { errors: 1, requests: 0.01 },
        trace_context: "accept",
      },
    },
    TelemetryStatus: {
      type: "object",
      required: ["enabled", "exported", "dropped", "last_error", "queued"],
      properties: {
        enabled: { type: "boolean" },
        ...properties("redacted"),
        exported: { type: "integer", description: "Spans and log records this isolate exported" },
        dropped: {
          type: "integer",
          description: "Spans and log records this isolate dropped (queue full, export failed)",
        },
        last_error: { type: ["string", "null"], description: "This isolate's last export failure" },
        queued: { type: "integer", description: "Waiting for this isolate's next export" },
      },
    },
  },
};
