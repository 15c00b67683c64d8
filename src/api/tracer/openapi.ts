/** The request tracer's part of the OpenAPI document (docs/custom-errors.md "Request tracer"), from the code's constants. */
import { COMMON_ERRORS, jsonBody, ok, param, ref, type OpenApiFragment } from "../kit/openapi";
import { PREVIEW_LIMITED_CODE } from "../explain/bound";
import { TRACE_ITEM_TYPES } from "./tracer";

const traceItem = {
  type: "object",
  required: ["step_name", "type", "matched"],
  properties: {
    step_name: {
      type: "string",
      description:
        "url_normalization, ip_access, http_request_firewall_custom, http_ratelimit, origin, http_custom_errors, " +
        "500_errors or 1000_errors (the page), default; a rule's id inside a phase",
    },
    type: { type: "string", enum: [...TRACE_ITEM_TYPES] },
    matched: { type: "boolean", description: "Whether the step acted on the request (a rule: whether it matched)" },
    expression: { type: "string" },
    action: { type: "string" },
    action_parameters: {},
    description: { type: "string" },
    kind: { type: "string" },
    name: { type: "string" },
    outcome: {
      type: "string",
      description: "This service's addition: the rule's outcome as the draft preview names it, or the phase's",
    },
    reason: { type: "string" },
    trace: { type: "array", items: { $ref: "#/components/schemas/TraceItem" } },
  },
};

export const tracerOpenApi: OpenApiFragment = {
  paths: {
    "/accounts/{account_id}/request-tracer/trace": {
      parameters: [param("AccountId")],
      post: {
        operationId: "createRequestTrace",
        summary: "Trace a described request through every phase the zone runs (the published request simulator)",
        description:
          "The published `TraceCreateParams` → `TraceCreateResponse` shape. The zone is the URL's host and must " +
          "belong to the account (the zone object's `account.id`); any other host is 404 (1001). Every phase is a " +
          "`TraceItem`: URL normalisation, IP access, firewall custom rules, rate limiting (evaluated; counted " +
          "only when the origin is contacted), the origin (not contacted unless `origin` asks: `{contact: true}` " +
          "sends a GET or HEAD, needs `zones:write` and is counted by the rate-limiting rules, " +
          "`{status, headers?, body?}` or `{failure}` describes what it did), custom error rules, the page and " +
          "the default. The client address is the `CF-Connecting-IP` header, the country `context.geoloc.iso_code`. " +
          `A refused body is 400 (code 20085); bounded like the draft preview (429, code ${PREVIEW_LIMITED_CODE}). ` +
          'docs/custom-errors.md "Request tracer".',
        security: [{ bearer: ["zones:read"] }],
        requestBody: jsonBody("TraceBody"),
        responses: {
          "200": ok(
            "The status the zone would answer (absent when the origin was not contacted nor described and nothing blocked the request) and the trace",
            ref("TraceResult"),
          ),
          ...COMMON_ERRORS,
        },
      },
    },
  },
  schemas: {
    TraceItem: traceItem,
    TraceResult: {
      type: "object",
      properties: {
        status_code: { type: "integer" },
        trace: { type: "array", items: ref("TraceItem") },
      },
    },
  },
};
