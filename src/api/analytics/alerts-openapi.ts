/** The alert policies' part of the OpenAPI document (docs/analytics.md "Alerts"), merged into openapi.ts. */
import { COMMON_ERRORS, jsonBody, ok, param, parameterOf, ref, type Json } from "../kit/openapi";
import { API_CODES } from "../kit/codes";
import { MAX_ALERT_POLICIES } from "../../state/analytics/alerts";
import { ALERT_ID } from "./schemas";

const code = (kind: keyof typeof API_CODES): number => API_CODES[kind].code;

const REFUSALS =
  `Refused with 400: ${code("invalid-alert-policy")} (a field), ${code("invalid-alert-window")} (a window out of ` +
  `bounds), ${code("invalid-webhook-target")} (not https: http only for loopback under WEBHOOK_LOOPBACK=allow), ` +
  `${code("webhook-target-api-host")} (a host of API_HOSTS), ${code("webhook-target-private")} (a private or ` +
  "loopback address).";

/** Called when the document is built: `ALERT_ID` is made on its first use (`later`), not at start-up. */
export const alertPaths = (): Record<string, Json> => {
  const alertId = parameterOf(ALERT_ID(), { name: "alert_id", in: "path" });
  return {
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
};
