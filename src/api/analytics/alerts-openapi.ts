/** The alert policies' part of the OpenAPI document (docs/analytics.md "Alerts"), merged into openapi.ts. */
import { COMMON_ERRORS, ok, param, ref, type Json } from "../kit/openapi";
import { API_CODES } from "../kit/codes";
import {
  BURN_LONG_WINDOW,
  BURN_SHORT_WINDOW,
  MAX_ALERT_POLICIES,
  MAX_NAME,
  MAX_PATH,
  MAX_TARGET,
  RESOLVE_AFTER,
  THRESHOLD_WINDOW,
} from "../../state/analytics/alerts";

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

const body = { "application/json": { schema: ref("AlertPolicyBody") } };

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
      requestBody: { required: true, content: body },
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
      requestBody: { required: true, content: body },
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

const filter: Json = {
  type: "object",
  additionalProperties: false,
  properties: {
    code: { type: "integer", minimum: 100, maximum: 9999 },
    source: {
      enum: ["edge", "origin"],
      description:
        "Who caused the error: origin = its 5xx passed through and a failed origin (502, 520–526, 1016); edge = every other error the edge generated",
    },
    path: { type: "string", maxLength: MAX_PATH, description: "The recorded path, exactly (no query)" },
  },
};

export const alertSchemas: Record<string, Json> = {
  AlertPolicyBody: {
    type: "object",
    required: ["name", "kind", "webhook"],
    description:
      "kind threshold: metric, window_minutes, above (resolve_below, filter, min_requests optional); kind burn_rate: " +
      'slo (long_window_minutes, short_window_minutes, burn_rate, min_requests optional). docs/analytics.md "Alerts".',
    properties: {
      name: { type: "string", minLength: 1, maxLength: MAX_NAME },
      kind: { enum: ["threshold", "burn_rate"] },
      enabled: { type: "boolean", default: true },
      metric: { enum: ["errors", "error_rate"] },
      window_minutes: { type: "integer", minimum: THRESHOLD_WINDOW.min, maximum: THRESHOLD_WINDOW.max },
      above: { type: "number", description: "errors: an integer ≥ 1; error_rate: (0, 1]. Fires at value ≥ above" },
      resolve_below: { type: "number", description: "Resolves below this (≤ above; default above)" },
      filter,
      min_requests: {
        type: "integer",
        minimum: 1,
        default: 1,
        description: "A rate over fewer requests is no evidence",
      },
      slo: { type: "number", minimum: 50, maximum: 99.999, description: "Percent of requests without an origin error" },
      long_window_minutes: {
        type: "integer",
        minimum: BURN_LONG_WINDOW.min,
        maximum: BURN_LONG_WINDOW.max,
        default: 60,
      },
      short_window_minutes: {
        type: "integer",
        minimum: BURN_SHORT_WINDOW.min,
        maximum: BURN_SHORT_WINDOW.max,
        default: 5,
      },
      burn_rate: { type: "number", minimum: 1, maximum: 1000, default: 14.4 },
      resolve_after: {
        type: "integer",
        minimum: RESOLVE_AFTER.min,
        maximum: RESOLVE_AFTER.max,
        default: RESOLVE_AFTER.default,
        description: "Consecutive evaluations (one a minute) with the condition false before it resolves",
      },
      webhook: {
        type: "object",
        required: ["url"],
        additionalProperties: false,
        properties: { url: { type: "string", format: "uri", maxLength: MAX_TARGET } },
      },
    },
    example: {
      // `source: origin` counts every error the origin caused: its 5xx passed through and a refused, timed-out or
      // unreachable origin (502, 520–526, 1016), as the burn rate's origin errors do; so this fires when it is down.
      name: "Origin failing",
      kind: "threshold",
      metric: "error_rate",
      window_minutes: 5,
      above: 0.05,
      resolve_below: 0.01,
      filter: { source: "origin" },
      min_requests: 20,
      webhook: { url: "https://hooks.example.com/edge-alerts" },
    },
  },
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
