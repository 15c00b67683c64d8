/**
 * The telemetry API's part of the OpenAPI document (docs/telemetry.md). The request body is the settings' own schema
 * (`TelemetrySettings`); what `GET` answers is a schema here, built from the same enums, so no bound is written twice.
 */
import * as z from "zod/mini";
import { COMMON_ERRORS, jsonBody, ok, param, ref, response, type OpenApiFragment } from "../kit/openapi";
import { described, later, oneOf } from "../../shared/schema";
import { OTLP_PROTOCOLS, TRACE_CONTEXT_POLICIES } from "../../state/zone/telemetry/settings";
import { INVALID_TELEMETRY } from "./routes";

const count = (description: string) => described(z.int(), description);

/** `GET`'s result: the settings as stored, header values shown as `set`, and this isolate's export counts. */
export const TELEMETRY_STATUS = later(
  () =>
    z.object({
      enabled: described(z.boolean(), "false: no telemetry (nothing else but the counts)"),
      otlp: z.optional(
        z.object({
          endpoint: z.string(),
          logs_endpoint: z.optional(z.string()),
          protocol: oneOf(OTLP_PROTOCOLS),
          headers: described(z.record(z.string(), z.literal("set")), "The header names; every value is shown as `set`"),
        }),
      ),
      sample: z.optional(z.object({ errors: z.number(), requests: z.number() })),
      trace_context: z.optional(oneOf(TRACE_CONTEXT_POLICIES)),
      exported: count("Spans and log records this isolate exported"),
      dropped: count("Spans and log records this isolate dropped (queue full, export failed)"),
      last_error: described(z.nullable(z.string()), "This isolate's last export failure"),
      queued: count("Waiting for this isolate's next export"),
    }),
  { id: "TelemetryStatus" },
);

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
        requestBody: jsonBody("TelemetrySettings"),
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
};
