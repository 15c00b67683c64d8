/**
 * The Cloudflare v4 API envelope (docs/tags-api.md, docs/configuration.md; docs/tags-api.md):
 * `{success, errors: [{code, message}], messages, result, result_info?}`.
 * Management API handlers return data; only this module shapes it into a Response.
 */
import * as z from "zod/mini";
import { API_CODES, type ApiCodeKind } from "./codes";
import { described, later, named, type Answer } from "../../shared/schema";

/**
 * One entry of the envelope's `errors` (or `messages`) array: the component `Message`. Codes are the published v4
 * API's (four digits and more) and this service's own blocks above them (codes.ts).
 */
export const API_MESSAGE = later(() =>
  named(
    z.object({
      code: z.int().check(z.minimum(1000)),
      message: z.string(),
      rule_id: z.optional(
        described(
          z.nullable(z.string()),
          "A rule linter warning's rule (20080–20084, docs/lint.md); null for a page or an asset",
        ),
      ),
      phase: z.optional(described(z.string(), "A rule linter warning's phase")),
      page: z.optional(described(z.string(), "A rule linter warning's page")),
      asset: z.optional(described(z.string(), "A rule linter warning's custom error asset")),
    }),
    { id: "Message" },
  ),
);
export type ApiMessage = Answer<typeof API_MESSAGE>;

/** The envelope of every answer (`result` is the operation's own). */
later(() =>
  named(
    z.object({
      success: z.boolean(),
      errors: z.array(API_MESSAGE()),
      messages: z.array(API_MESSAGE()),
      result: z.unknown(),
    }),
    { id: "Envelope" },
  ),
);

/** The envelope of a failure: at least one error, no result. */
later(() =>
  named(
    z.object({
      success: z.literal(false),
      errors: z.array(API_MESSAGE()).check(z.minLength(1)),
      messages: z.array(API_MESSAGE()),
      result: z.null(),
    }),
    {
      id: "FailureEnvelope",
      example: {
        success: false,
        errors: [{ code: API_CODES["too-many-filters"].code, message: "too many tag filters (maximum 20)" }],
        messages: [],
        result: null,
      },
    },
  ),
);

/** A management API failure as a value: the HTTP status and the envelope's errors. */
export interface ApiFailure {
  readonly status: number;
  readonly errors: readonly ApiMessage[];
  /** Extra response headers (e.g. `Allow` on 405). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Cursor pagination block of list endpoints (docs/tags-api.md). */
export interface ResultInfo {
  readonly count: number;
  readonly per_page: number;
  readonly cursor: string | null;
  readonly cursors: { readonly after: string | null };
}

/**
 * Page-number pagination block (the published v4 `V4PagePaginationArray`, e.g. custom error assets): `page` and
 * `per_page` as asked, `count` on this page, `total_count` and `total_pages` in all.
 */
export const PAGE_RESULT_INFO = later(() =>
  named(z.object({ page: z.int(), per_page: z.int(), count: z.int(), total_count: z.int(), total_pages: z.int() }), {
    id: "PageResultInfo",
    description: "Page-number pagination (the published V4PagePaginationArray)",
  }),
);
export type PageResultInfo = Answer<typeof PAGE_RESULT_INFO>;

export interface SuccessOptions {
  readonly status?: number;
  /** Warnings beside a success (the rule linter's, docs/lint.md): `{code, message, …}` each. */
  readonly messages?: readonly ApiMessage[];
  readonly resultInfo?: ResultInfo | PageResultInfo;
  readonly headers?: HeadersInit;
}

const JSON_TYPE = "application/json; charset=utf-8";

/** `{success: true, ...}` with `result` (and `result_info` for lists). */
export function apiSuccess(result: unknown, options: SuccessOptions = {}): Response {
  const body: Record<string, unknown> = { success: true, errors: [], messages: options.messages ?? [], result };
  if (options.resultInfo) body.result_info = options.resultInfo;
  const headers = new Headers(options.headers);
  headers.set("Content-Type", JSON_TYPE);
  headers.set("Cache-Control", "no-store");
  return new Response(JSON.stringify(body), { status: options.status ?? 200, headers });
}

/** `{success: false, errors, messages: [], result: null}` with the failure's status. */
export function apiFailureResponse(failure: ApiFailure): Response {
  const body = { success: false, errors: failure.errors, messages: [], result: null };
  const headers = new Headers(failure.headers);
  headers.set("Content-Type", JSON_TYPE);
  headers.set("Cache-Control", "no-store");
  return new Response(JSON.stringify(body), { status: failure.status, headers });
}

/**
 * A single-error failure value. Not exported: every failure is made by `failureOf` from a kind of the one code
 * table (codes.ts), so no status or code is written anywhere else.
 */
function apiFailure(status: number, code: number, message: string, headers?: Record<string, string>): ApiFailure {
  return headers ? { status, errors: [{ code, message }], headers } : { status, errors: [{ code, message }] };
}

/** A single-error failure of a named kind: status and code from the one table (codes.ts), this occurrence's message. */
export function failureOf(kind: ApiCodeKind, message: string, headers?: Record<string, string>): ApiFailure {
  const { status, code } = API_CODES[kind];
  return apiFailure(status, code, message, headers);
}

/** Common failures of every management endpoint, with the v4 API's own codes. */
export const API_FAILURES = {
  notFound: () => failureOf("no-route", "Could not route to the requested path: no such endpoint or resource"),
  methodNotAllowed: (allow: readonly string[], hint?: string) =>
    failureOf(
      "method-not-allowed",
      `Method not allowed; this endpoint accepts ${allow.join(", ")}${hint ? `: ${hint}` : ""}`,
      {
        Allow: allow.join(", "),
      },
    ),
  unauthenticated: () =>
    failureOf("unauthenticated", "Authentication error: send a valid API token as 'Authorization: Bearer <token>'", {
      "WWW-Authenticate": 'Bearer realm="api"',
    }),
  forbidden: () => failureOf("forbidden", "Authorization error: the token lacks the permission for this resource"),
  bodyTooLarge: (limit: number) => failureOf("body-too-large", `Request body exceeds the limit of ${limit} bytes`),
  invalidJson: (why: string) => failureOf("invalid-json", `Request body is not valid JSON: ${why}`),
  internal: (rayId: string) => failureOf("internal", `Internal error; reference ${rayId}`),
} as const;
