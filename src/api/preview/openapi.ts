/** The preview endpoints' part of the OpenAPI document (docs/configuration.md), from the same constants as the code. */
import { COMMON_ERRORS, jsonBody, ok, param, ref, refTo, type Json, type OpenApiFragment } from "../kit/openapi";
import * as z from "zod/mini";
import { described, later, named, oneOf, type Schema } from "../../shared/schema";
import { ANSWERED_BY } from "../../state/analytics/record";
import { MAX_SHOWN_BODY_CHARS, PREVIEW_FORMATS, STEP_OUTCOMES, STEPS, type PreviewFormat } from "../explain/explain";
import { MAX_SHOWN_CHARS, MAX_SHOWN_ENTRIES, TRACED_OUTCOMES } from "../explain/trace";
import { ERROR_FORMATS } from "../../errors/format";
import { PREVIEW_BOUNDS, PREVIEW_LIMITED_CODE, REPLAY_BOUNDS } from "../explain/bound";
import { PREVIEW_CODE } from "./draft";
import { REPLAY_LIMITS } from "./replay";
import { API_CODES } from "../kit/codes";

/** Which step answered: a rule (its id and position), a page, the default, or the origin. */
const answeredSchema = (): Schema =>
  z.object({
    kind: oneOf(ANSWERED_BY),
    id: z.optional(described(z.string(), "The rule's id, or the page's id")),
    index: z.optional(described(z.int(), "The rule's 0-based position in the ruleset")),
  });

/** One answer as a preview shows it. */
const previewShownResponse = (answered: Schema): Schema =>
  named(
    z.object({
      status: z.int(),
      headers: z.record(z.string(), z.string()),
      body: described(z.string(), `The body as text, cut at ${MAX_SHOWN_BODY_CHARS} characters`),
      body_bytes: described(z.int(), "The whole body's size"),
      body_truncated: z.boolean(),
      answered_by: answered,
    }),
    { id: "PreviewShownResponse" },
  );

/**
 * A draft preview's answer: the error, the answer in the negotiated format and in each format, the trace. Only the
 * document shows these schemas (the route builds its answer by hand): made when the document is built.
 */
function previewResultSchemas(): void {
  const answered = answeredSchema();
  const shown = previewShownResponse(answered);
  named(
    // Its members as the route answers them; the document has never marked any required.
    z.partial(
      z.object({
        zone: z.string(),
        version: described(z.int(), "The saved configuration's version the preview started from"),
        draft: z.boolean(),
        request: z.partial(z.object({ method: z.string(), url: z.string() })),
        error: described(
          z.record(z.string(), z.unknown()),
          "{kind: generated, code, status, cause} or {kind: origin-response, status}",
        ),
        format: oneOf(ERROR_FORMATS),
        answered_by: answered,
        response: shown,
        responses: z.partialRecord(oneOf(Object.keys(PREVIEW_FORMATS) as [PreviewFormat, ...PreviewFormat[]]), shown),
        trace: z.partial(
          z.object({
            request_phases: described(
              z.nullable(z.record(z.string(), z.unknown())),
              "IP access, firewall custom rules and rate limiting on the described request, as traffic runs them " +
                "(rate-limiting rules evaluated, never counted): each phase's outcome (blocked, passed, not-run) and " +
                "its rules' outcomes; `blocked` is the error a phase answered (1006, 1009, 1020), which then replaces " +
                "the described error",
            ),
            steps: z.array(
              z.partial(
                z.object({
                  step: oneOf(STEPS),
                  outcome: oneOf(STEP_OUTCOMES),
                  id: z.optional(z.string()),
                  reason: z.optional(z.string()),
                }),
              ),
            ),
            rules: z.array(
              z.partial(
                z.object({
                  index: z.int(),
                  id: z.string(),
                  description: z.string(),
                  expression: z.string(),
                  outcome: oneOf(TRACED_OUTCOMES),
                  cost: described(z.int(), "Budget units spent"),
                  reason: z.optional(z.string()),
                  fields: z.optional(z.array(z.string())),
                }),
              ),
            ),
            fields: described(
              z.record(z.string(), z.unknown()),
              `Every field a rule reads → its value for this request (strings cut at ${MAX_SHOWN_CHARS} ` +
                `characters, arrays and maps at ${MAX_SHOWN_ENTRIES} entries)`,
            ),
          }),
        ),
        cost: z.partial(
          z.object({
            units: z.int(),
            budget: described(z.int(), "The request's budget (docs/rules-language.md)"),
            rule_budget: described(z.int(), "One rule's budget"),
          }),
        ),
      }),
    ),
    { id: "PreviewResult" },
  );
}

/** `Retry-After` of a bound's 429: whole seconds, at least one (src/api/explain/bound.ts rounds up from 1). */
const RETRY_AFTER_SECONDS = later(() => z.int().check(z.minimum(1)), { id: "RetryAfterSeconds" });

/** A 429 of the previews' bounds (src/api/explain/bound.ts), with the `Retry-After` it carries. */
const limited = (description: string, what: "preview" | "replay"): Json => ({
  description,
  headers: {
    "Retry-After": {
      description: `Whole seconds until a ${what} is admitted again`,
      schema: refTo(RETRY_AFTER_SECONDS()),
    },
  },
  content: { "application/json": { schema: ref("FailureEnvelope") } },
});

export const previewOpenApi: OpenApiFragment = {
  documentOnly: previewResultSchemas,
  // Built with the document: `RETRY_AFTER_SECONDS` is made on its first use (`later`), not at start-up.
  get paths(): Record<string, Json> {
    return {
      "/zones/{zone}/preview/{code}": {
        parameters: [param("Zone"), { name: "code", in: "path", required: true, schema: { type: "integer" } }],
        get: {
          operationId: "previewError",
          summary: "Exactly the response the zone would serve for this error to this request",
          description:
            "Negotiated from the request's `Accept` and other headers, with the zone's custom error rules and pages " +
            "applied (docs/custom-errors.md). Not the envelope: the error response itself.",
          security: [{ bearer: ["zones:read"] }],
          responses: {
            default: {
              description: "The error response (JSON, Markdown, HTML, or the zone's own content)",
              content: { "application/json": {}, "text/markdown": {}, "text/html": {} },
            },
            ...COMMON_ERRORS,
          },
        },
        head: {
          operationId: "previewErrorHead",
          summary: "Headers of the preview",
          security: [{ bearer: ["zones:read"] }],
          responses: { default: { description: "The error response's headers" } },
        },
      },
      "/zones/{zone}/preview/replay": {
        parameters: [param("Zone")],
        post: {
          operationId: "previewReplay",
          summary: "What a draft would have changed on the zone's recorded errors",
          description:
            "The draft a draft preview takes (or, without `draft`, the saved configuration) evaluated against the zone's " +
            `recorded errors of a window, at most the newest ${REPLAY_LIMITS.records}, each rebuilt from its record ` +
            "(method, path, Accept family, address class, country, the code or the origin's status and format) and " +
            "answered by the preview's engine. Counts per (answer before → answer after) with status and format, per " +
            "rule, with sample Ray IDs. Stores nothing. A refused body is 400 (code " +
            `${API_CODES["invalid-replay"].code}; 20021 / 20023 for draft rules and pages). docs/custom-errors.md "Replay".`,
          security: [{ bearer: ["zones:read"] }],
          requestBody: jsonBody("ReplayBody"),
          responses: {
            "200": ok("What would change", ref("ReplayResult")),
            ...COMMON_ERRORS,
            "429": limited(
              `Too many replays of this zone for this token (code ${API_CODES["replay-limited"].code}): ` +
                `${REPLAY_BOUNDS.concurrent} at a time, a burst of ${REPLAY_BOUNDS.burst}, then one per ` +
                `${1 / REPLAY_BOUNDS.perSecond} s, per token and zone on each server`,
              "replay",
            ),
          },
        },
      },
      "/zones/{zone}/preview": {
        parameters: [param("Zone")],
        post: {
          operationId: "previewDraft",
          summary: "What a draft (or the saved configuration) would serve a described request, and why",
          description:
            "A draft (custom error rules and/or pages, validated exactly as the entrypoint and custom pages PUTs " +
            "validate them, never stored) or, without `draft`, the saved configuration, and a described request. " +
            "Runs the request through the code zone traffic runs (its request phases first: IP access, firewall, rate limiting evaluated without counting) and answers, for each " +
            "format, exactly what the zone would serve, plus a trace: which step of docs/custom-errors.md answered, every " +
            "rule's outcome (match, no-match, over-budget, skipped-by-index, not-reached, disabled, unusable), the " +
            "values of the fields the rules read, and the evaluation cost in budget units. A refused body is 400 " +
            `(code ${PREVIEW_CODE} for the body and request, 20021 for draft rules, 20023 for draft pages; 403 1100 ` +
            'when the plan cannot use them). docs/custom-errors.md "Draft preview".',
          security: [{ bearer: ["zones:read"] }],
          requestBody: jsonBody("PreviewBody"),
          responses: {
            "200": ok("The preview and its trace", ref("PreviewResult")),
            ...COMMON_ERRORS,
            "429": limited(
              `Too many draft previews of this zone for this token (code ${PREVIEW_LIMITED_CODE}): at most ` +
                `${PREVIEW_BOUNDS.concurrent} running at once, a burst of ${PREVIEW_BOUNDS.burst}, then ` +
                `${PREVIEW_BOUNDS.perSecond} per second, per token and zone on each server`,
              "preview",
            ),
          },
        },
      },
    };
  },
  schemas: {
    ReplayAnswer: {
      type: "object",
      properties: {
        answered_by: ref("AnsweredBy"),
        answer_id: { type: ["string", "null"] },
        status: { type: "integer" },
        format: { type: "string" },
      },
    },
    ReplayResult: {
      type: "object",
      properties: {
        zone: { type: "string" },
        version: { type: "integer" },
        draft: { type: "boolean" },
        window: { type: "object" },
        records: { type: "integer", description: "Recorded errors read from the window" },
        replayed: { type: "integer" },
        unchanged: { type: "integer" },
        changed: { type: "integer" },
        not_replayable: {
          type: "object",
          properties: { count: { type: "integer" }, reasons: { type: "object" } },
        },
        changes: {
          type: "array",
          description: "One entry per (answer before → answer after) that differs, most frequent first",
          items: {
            type: "object",
            properties: {
              before: ref("ReplayAnswer"),
              after: ref("ReplayAnswer"),
              count: { type: "integer" },
              codes: { type: "array", items: { type: "integer" } },
              sample_rays: { type: "array", items: { type: "string" } },
            },
          },
        },
        rules: {
          type: "array",
          description: "The draft's rules in order, then the saved rules it drops (index null)",
          items: {
            type: "object",
            properties: {
              id: { type: "string" },
              index: { type: ["integer", "null"] },
              description: { type: "string" },
              enabled: { type: "boolean" },
              before: { type: "integer" },
              after: { type: "integer" },
              gained: { type: "integer" },
              lost: { type: "integer" },
              sample_rays: { type: "object" },
              reads_unrecorded: { type: "array", items: { type: "string" } },
            },
          },
        },
        cost: { type: "object" },
      },
    },
  },
};
