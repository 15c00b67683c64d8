/** The alert policies' part of the OpenAPI document (docs/analytics.md "Alerts"), merged into openapi.ts. */
import { COMMON_ERRORS, jsonBody, ok, param, ref, type Json } from "../kit/openapi";
import { API_CODES } from "../kit/codes";
import { MAX_ALERT_POLICIES } from "../../state/analytics/alerts";

const alertId: Json = {
  name: "alert_id",
  in: "path",
  required: true,
  schema: { type: "string", pattern: "^[0-9a-f]{32}$" },
};

const code = (kind: keyof typeof API_CODES): number => API_CODES[kind].code;

const REFUSALS =
  `Refused with 400: ${code("invalid-alert-policy")} (a field), ${code("invalid-alert-window")} (a window out of ` +
  `bounds), ${code("invalid-webhook-target")} (not https: http only for loopback under WEBHOOK_LOOPBACK=allow), ` +
  `${code("webhook-target-api-host")} (a host of API_HOSTS), ${code("webhook-target-private")} (a private or ` +
  "loopback address).";

export const alertPaths: Record<string, Json> = {
  "/zones/{zone}/analytics/alerts": {
    parameters: [param("Zone")],
    get: {
      operationId: "listZoneAlerts",
      summary: "The zone's alert policies and their state (ok or firing, since when)",
      security: [{ bearer: ["zones:read"] }],
      responses: { "200": ok("The policies", { type: "array", items: ref("AlertPolicy") }), ...COMMON_ERRORS },
    },
    post: {
      operationId: "createZoneAlert",
      summary: "Create an alert policy; the answer holds its webhook signing secret, shown this once",
      description: `At most ${MAX_ALERT_POLICIES} per zone (${code("too-many-alerts")}). ${REFUSALS}`,
      security: [{ bearer: ["zones:write"] }],
      requestBody: jsonBody("AlertPolicyBody"),
      responses: { "200": ok("The policy, with `webhook.secret`", ref("AlertPolicy")), ...COMMON_ERRORS },
    },
  },
  "/zones/{zone}/analytics/alerts/{alert_id}": {
    parameters: [param("Zone"), alertId],
    get: {
      operationId: "getZoneAlert",
      summary: "One alert policy and its state",
      security: [{ bearer: ["zones:read"] }],
      responses: { "200": ok("The policy", ref("AlertPolicy")), ...COMMON_ERRORS },
    },
    put: {
      operationId: "updateZoneAlert",
      summary: "Replace a policy's definition (its id, secret, state and deliveries stay)",
      description: `${REFUSALS} An unknown id: 404 (${code("unknown-alert")}).`,
      security: [{ bearer: ["zones:write"] }],
      requestBody: jsonBody("AlertPolicyBody"),
      responses: { "200": ok("The policy", ref("AlertPolicy")), ...COMMON_ERRORS },
    },
    delete: {
      operationId: "deleteZoneAlert",
      summary: "Delete a policy with its events (a pending webhook is not sent)",
      security: [{ bearer: ["zones:write"] }],
      responses: {
        "200": ok("The id deleted", { type: "object", properties: { id: { type: "string" } } }),
        ...COMMON_ERRORS,
      },
    },
  },
  "/zones/{zone}/analytics/alerts/{alert_id}/deliveries": {
    parameters: [param("Zone"), alertId],
    get: {
      operationId: "listZoneAlertDeliveries",
      summary: "The policy's events (firing, resolved), newest first, each with every delivery attempt",
      security: [{ bearer: ["zones:read"] }],
      responses: { "200": ok("The events", { type: "array", items: ref("AlertDelivery") }), ...COMMON_ERRORS },
    },
  },
};

export const alertSchemas: Record<string, Json> = {
  AlertPolicy: {
    type: "object",
    properties: {
      id: { type: "string" },
      name: { type: "string" },
      kind: { enum: ["threshold", "burn_rate"] },
      enabled: { type: "boolean" },
      resolve_after: { type: "integer" },
      webhook: {
        type: "object",
        properties: {
          url: { type: "string" },
          secret: { type: "string", description: "whsec_…: in the create answer only" },
        },
      },
      state: {
        type: "object",
        properties: {
          status: { enum: ["ok", "firing"] },
          since: { type: "string", format: "date-time" },
          value: { type: ["number", "null"], description: "The last value evaluated (burn_rate: the short window's)" },
          evaluated_at: { type: ["string", "null"], format: "date-time" },
        },
      },
      created_at: { type: "string", format: "date-time" },
      updated_at: { type: "string", format: "date-time" },
    },
    example: {
      id: "4b7d0c7e1f2a4e3c9d8b6a5f4e3d2c1b",
      name: "Checkout SLO",
      kind: "burn_rate",
      enabled: true,
      slo: 99.9,
      long_window_minutes: 60,
      short_window_minutes: 5,
      burn_rate: 14.4,
      min_requests: 1,
      resolve_after: 3,
      webhook: { url: "https://hooks.example.com/edge-alerts" },
      state: {
        status: "firing",
        since: "2026-11-26T10:42:05.000Z",
        value: 21.5,
        evaluated_at: "2026-11-26T10:44:05.000Z",
      },
      created_at: "2026-11-26T09:00:00.000Z",
      updated_at: "2026-11-26T09:00:00.000Z",
    },
  },
  AlertDelivery: {
    type: "object",
    properties: {
      id: { type: "string", description: "msg_…: the webhook-id of every attempt" },
      type: { enum: ["alert.firing", "alert.resolved"] },
      created_at: { type: "string", format: "date-time" },
      status: { enum: ["pending", "delivered", "failed"] },
      next_attempt_at: { type: ["string", "null"], format: "date-time" },
      payload: { type: "object", description: "The body sent" },
      attempts: {
        type: "array",
        items: {
          type: "object",
          properties: {
            attempt: { type: "integer" },
            at: { type: "string", format: "date-time" },
            outcome: { enum: ["delivered", "failed", "refused"] },
            http_status: { type: ["integer", "null"] },
            error: { type: ["string", "null"] },
          },
        },
      },
    },
  },
};
