/**
 * ky integration. ky retries only some statuses and honours `Retry-After` only on 413, 429 and 503 (its `retry`
 * option, https://github.com/sindresorhus/ky#retry). `kyRetry(options)` gives a `retry` option whose `shouldRetry`
 * and `delay` follow `decideRetry`, and `kyAfterResponse` an `afterResponse` hook that hands the parsed error to the
 * caller. No import of ky: the shapes below are the parts of ky's options used here, so the package has no dependency,
 * and they fit ky 1 (from 1.13, the first with `shouldRetry`) and ky 2 (docs/client.md "ky").
 */
import { readHints } from "./hints.js";
import { parse } from "./parse.js";
import { decideRetry, type RetryOptions } from "./retry.js";
import type { EdgeError } from "./types.js";

/** The parts of ky's `retry` option used here (`RetryOptions` of ky 1.13+ and ky 2). */
export interface KyRetryLike {
  limit: number;
  methods: string[];
  statusCodes: number[];
  afterStatusCodes: number[];
  maxRetryAfter: number;
  backoffLimit: number;
  jitter: boolean;
  shouldRetry: (state: { error: unknown; retryCount: number }) => Promise<boolean | undefined>;
  delay: (attemptCount: number) => number;
}

/**
 * ky's retry, driven by the error's own fields. ky's `shouldRetry` decides; the wait it then takes comes from
 * `delay`, which returns what `decideRetry` chose for this attempt (ky calls `delay` after `shouldRetry`).
 */
export function kyRetry(options: RetryOptions = {}): KyRetryLike {
  const maxAttempts = options.maxAttempts ?? 3;
  const chosen = new Map<number, number>();
  return {
    limit: maxAttempts - 1,
    methods: ["get", "put", "head", "delete", "options", "trace", "post", "patch"],
    // Every error status: the decision is decideRetry's, not a status list.
    statusCodes: Array.from({ length: 200 }, (_, i) => 400 + i),
    // Empty: ky would otherwise read Retry-After itself for these and ignore `delay`.
    afterStatusCodes: [],
    maxRetryAfter: options.maxDelayMs ?? 130_000,
    backoffLimit: options.maxDelayMs ?? 130_000,
    jitter: false,
    shouldRetry: async ({ error, retryCount }) => {
      const response = responseOf(error);
      if (response === null) return false;
      const parsed = await parse(response);
      const request = requestOf(error);
      const decision = decideRetry(
        parsed,
        // ky counts retries from 1 (the first retry follows attempt 1) and passes the same number to `delay`.
        {
          attempt: retryCount,
          method: request?.method ?? "GET",
          status: response.status,
          idempotencyKey: request?.headers.has("Idempotency-Key") ?? false,
          hints: readHints(response.headers),
        },
        options,
      );
      if (decision.kind !== "retry") return false;
      chosen.set(retryCount, decision.delayMs);
      return true;
    },
    delay: (attemptCount) => chosen.get(attemptCount) ?? 0,
  };
}

/**
 * What ky passes an `afterResponse` hook. ky 2 passes one state object (`{ request, options, response, retryCount }`);
 * ky 1 passes `(request, options, response, state)`. A hook written for one of them reads `response` from the wrong
 * argument under the other (ky 1 then hands it the Request, whose `response` is undefined).
 */
export type KyAfterResponseArgs =
  | readonly [state: { readonly response: Response }]
  | readonly [request: Request, options: unknown, response: Response, state?: unknown];

/** An `afterResponse` hook that fits both ky 1 and ky 2. */
export type KyAfterResponseHook = (...args: KyAfterResponseArgs) => Promise<void>;

/**
 * An `afterResponse` hook: parses an error response and passes it to `onError` (logging, escalation). It never throws
 * on what it does not recognise: a hook that throws replaces the error the caller would have seen.
 */
export function kyAfterResponse(onError: (error: EdgeError) => void): KyAfterResponseHook {
  return async (...args) => {
    // Read as unknown: a hook must not throw on a shape a future ky (or another caller) hands it.
    const first: unknown = args[0];
    const response: unknown =
      args.length !== 1
        ? args[2]
        : typeof first === "object" && first !== null && "response" in first
          ? first.response
          : null;
    if (!isResponse(response) || response.status < 400) return;
    const parsed = await parse(response);
    if (parsed !== null) onError(parsed);
  };
}

/** A `Response`, also one from another realm or fetch implementation (e.g. a custom `fetch` given to ky). */
function isResponse(value: unknown): value is Response {
  return (
    typeof value === "object" &&
    value !== null &&
    "status" in value &&
    typeof value.status === "number" &&
    "headers" in value &&
    "clone" in value
  );
}

function responseOf(error: unknown): Response | null {
  if (typeof error === "object" && error !== null && "response" in error && isResponse(error.response)) {
    return error.response;
  }
  return null;
}

/** The request of ky's `HTTPError`, read by shape (`method` and `headers`), or null. */
function requestOf(error: unknown): { readonly method: string; readonly headers: Headers } | null {
  if (typeof error === "object" && error !== null && "request" in error) {
    const request = error.request;
    if (
      typeof request === "object" &&
      request !== null &&
      "method" in request &&
      typeof request.method === "string" &&
      "headers" in request &&
      request.headers instanceof Headers
    ) {
      return { method: request.method, headers: request.headers };
    }
  }
  return null;
}
