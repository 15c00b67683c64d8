/**
 * ky integration (issue 23): ky (2.x) retries only some statuses and honours `Retry-After` only on 413/429/503
 * (notes/platform-2026.md §2). `kyRetry(options)` gives a `retry` option whose `shouldRetry` and `delay` follow
 * `decideRetry`, and `kyHooks` an `afterResponse` hook that attaches the parsed error. No import of ky: the shapes
 * below are the parts of ky's options this uses, so the package has no dependency.
 */
import { parse } from "./parse.js";
import { decideRetry, type RetryOptions } from "./retry.js";
import type { EdgeError } from "./types.js";

/** The parts of ky's `retry` option used here (ky 2.x `RetryOptions`). */
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
      const request = requestOf(error);
      const parsed = await parse(response);
      const decision = decideRetry(
        parsed,
        // ky counts retries from 1 (the first retry follows attempt 1) and passes the same number to `delay`.
        { attempt: retryCount, method: request?.method ?? "GET", status: response.status },
        options,
      );
      if (decision.kind !== "retry") return false;
      chosen.set(retryCount, decision.delayMs);
      return true;
    },
    delay: (attemptCount) => chosen.get(attemptCount) ?? 0,
  };
}

/** An `afterResponse` hook: parses an error response and passes it to `onError` (logging, escalation). */
export function kyAfterResponse(onError: (error: EdgeError) => void): (state: { response: Response }) => Promise<void> {
  return async ({ response }) => {
    if (response.status < 400) return;
    const parsed = await parse(response);
    if (parsed !== null) onError(parsed);
  };
}

function responseOf(error: unknown): Response | null {
  if (typeof error === "object" && error !== null && "response" in error) {
    const response = error.response;
    if (response instanceof Response) return response;
  }
  return null;
}

function requestOf(error: unknown): Request | null {
  if (typeof error === "object" && error !== null && "request" in error) {
    const request = error.request;
    if (request instanceof Request) return request;
  }
  return null;
}
