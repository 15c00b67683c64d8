/** The request tracer's part of the OpenAPI document (docs/custom-errors.md "Request tracer"), from the code's constants. */
import { COMMON_ERRORS, ok, param, ref, type OpenApiFragment } from "../kit/openapi";
import { ORIGIN_FAILURES } from "../explain/explain";
import { PREVIEW_LIMITED_CODE } from "../explain/bound";
import { REQUEST_LIMITS } from "../explain/described";

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
    type: { type: "string", enum: ["phase", "ruleset", "rule", "origin", "page", "default"] },
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
        requestBody: { required: true, content: { "application/json": { schema: ref("TraceBody") } } },
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
    TraceBody: {
      type: "object",
      required: ["method", "url"],
      additionalProperties: false,
      properties: {
        method: { type: "string", enum: [...REQUEST_LIMITS.methods] },
        url: { type: "string", description: "An absolute http(s) URL; its host is the zone" },
        headers: {
          type: "object",
          maxProperties: REQUEST_LIMITS.headers,
          additionalProperties: { type: "string", maxLength: REQUEST_LIMITS.headerValueChars },
          description:
            "Header name → value. `CF-Connecting-IP` gives the client's address (`ip.src`); `Host` is refused (the " +
            "host is the URL's).",
        },
        cookies: {
          type: "object",
          additionalProperties: { type: "string" },
          description: "Sent as one `Cookie` header",
        },
        context: {
          type: "object",
          additionalProperties: false,
          properties: {
            geoloc: {
              type: "object",
              properties: { iso_code: { type: "string", description: "The client's country (`ip.src.country`)" } },
            },
            bot_score: { type: "integer", description: "Accepted and unused: this service has no bot score" },
            threat_score: { type: "integer", description: "Accepted and unused" },
            skip_challenge: { type: "boolean", description: "Accepted and unused: this service has no challenge" },
          },
        },
        body: { type: "object", description: "Accepted and unused: no rule of this service reads the body" },
        protocol: { type: "string", description: "Accepted and unused" },
        skip_response: {
          type: "boolean",
          description: "Published: do not contact the origin. The origin is contacted only with `origin.contact`.",
        },
        origin: {
          description:
            "This service's addition: `{contact: true}` sends the request (GET or HEAD only; the token needs " +
            "`zones:write`; counted by the zone's rate-limiting rules) to the zone's origin for real, and reads at " +
            "most 64 KiB of an error body; " +
            "`{status, headers?, body?}` is the origin's described answer; `{failure}` one of " +
            `${ORIGIN_FAILURES.join(", ")}. Absent: not contacted.`,
          oneOf: [
            { type: "object", required: ["contact"], properties: { contact: { type: "boolean", enum: [true] } } },
            {
              type: "object",
              required: ["status"],
              properties: {
                status: { type: "integer", minimum: REQUEST_LIMITS.originStatus.min, maximum: 599 },
                headers: { type: "object", additionalProperties: { type: "string" } },
                body: { type: "string", maxLength: REQUEST_LIMITS.originBodyChars },
              },
            },
            {
              type: "object",
              required: ["failure"],
              properties: { failure: { type: "string", enum: [...ORIGIN_FAILURES] } },
            },
          ],
        },
      },
      example: {
        method: "GET",
        url: "https://shop.example/api/cart",
        headers: { Accept: "application/json", "CF-Connecting-IP": "203.0.113.7" },
        context: { geoloc: { iso_code: "FR" } },
        origin: { status: 503, headers: { "Content-Type": "text/html" }, body: "<h1>down</h1>" },
      },
    },
    TraceResult: {
      type: "object",
      properties: {
        status_code: { type: "integer" },
        trace: { type: "array", items: ref("TraceItem") },
      },
    },
  },
};
