/** The request tracer's part of the OpenAPI document (docs/custom-errors.md "Request tracer"), from the code's constants. */
import * as z from "zod/mini";
import { COMMON_ERRORS, jsonBody, ok, param, ref, type OpenApiFragment } from "../kit/openapi";
import { described, later, oneOf } from "../../shared/schema";
import { API_CODES } from "../kit/codes";
import { PREVIEW_LIMITED_CODE } from "../explain/bound";
import { TRACE_ITEM_TYPES } from "./tracer";

/**
 * The published `TraceItem` (tracer.ts builds it), with this service's `outcome` and `reason`: a schema for the
 * document only, its `type` enum the tuple the answer's type is derived from. Its `trace` holds items of its own
 * kind (a getter: the schema refers to itself).
 */
const TRACE_ITEM = later(
  () =>
    z.object({
      step_name: described(
        z.string(),
        "url_normalization, ip_access, http_request_firewall_custom, http_ratelimit, origin, http_custom_errors, " +
          "500_errors or 1000_errors (the page), default; a rule's id inside a phase",
      ),
      type: oneOf(TRACE_ITEM_TYPES),
      matched: described(z.boolean(), "Whether the step acted on the request (a rule: whether it matched)"),
      expression: z.optional(z.string()),
      action: z.optional(z.string()),
      action_parameters: z.optional(z.unknown()),
      description: z.optional(z.string()),
      kind: z.optional(z.string()),
      name: z.optional(z.string()),
      outcome: z.optional(
        described(
          z.string(),
          "This service's addition: the rule's outcome as the draft preview names it, or the phase's",
        ),
      ),
      reason: z.optional(z.string()),
      get trace() {
        return z.optional(z.array(TRACE_ITEM()));
      },
    }),
  { id: "TraceItem" },
);

/** The tracer's answer: the status the zone would answer, and the trace. */
later(() => z.partial(z.object({ status_code: z.int(), trace: z.array(TRACE_ITEM()) })), { id: "TraceResult" });

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
          "only when the origin is contacted), the origin (as `TraceBody`'s `origin` says), custom error rules, the " +
          `page and the default. A refused body is 400 (code ${API_CODES["invalid-trace"].code}); bounded like the ` +
          `draft preview (429, code ${PREVIEW_LIMITED_CODE}). docs/custom-errors.md "Request tracer".`,
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
};
