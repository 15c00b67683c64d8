/**
 * `fetchWithRetry` (docs/client.md): `fetch` that asks for structure (`ACCEPT`, unless the caller set `Accept`),
 * parses every error response and retries as `decideRetry` says. Abortable (`signal` stops a wait at once);
 * `fetch`, `sleep` and `random` are injectable, so tests run against the real Worker without waiting for real.
 */
import { ACCEPT } from "./accept.js";
import { isGrpcStatusAnswer } from "./grpc.js";
import { readHints } from "./hints.js";
import { parse } from "./parse.js";
import { decideRetry, type RetryDecision, type RetryOptions } from "./retry.js";
import { readStale } from "./stale.js";
import type { EdgeError, RateLimitInfo, StaleAnswer } from "./types.js";

export interface FetchWithRetryOptions extends RetryOptions {
  /** The fetch to use (default: the global one). */
  readonly fetch?: (request: Request) => Promise<Response>;
  /** Waits `ms` or rejects when `signal` aborts (default: a timer). */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Called before each retry (logging, metrics). */
  readonly onRetry?: (info: { attempt: number; error: EdgeError | null; delayMs: number }) => void;
}

/** The outcome: the last response, its parsed error (null on success or a non-edge answer) and the last decision. */
export interface FetchResult {
  readonly response: Response;
  readonly error: EdgeError | null;
  readonly attempts: number;
  /** Null when the last response was not an error. */
  readonly decision: RetryDecision | null;
  /**
   * The last response's `RateLimit-Policy` / `RateLimit` fields (any status): `remaining` and `reset` tell a caller
   * how much it may still send and when more is allowed. Null when not sent.
   */
  readonly rateLimit: RateLimitInfo | null;
  /** The last response is the edge's stale copy (`readStale`): how old and why; null when it is not. */
  readonly stale: StaleAnswer | null;
}

export async function fetchWithRetry(
  input: Request | string | URL,
  init: RequestInit = {},
  options: FetchWithRetryOptions = {},
): Promise<FetchResult> {
  const doFetch = options.fetch ?? ((request: Request) => fetch(request));
  const sleep = options.sleep ?? defaultSleep;
  const template = new Request(input, init);
  if (!init.headers || !new Headers(init.headers).has("Accept")) {
    if (!(input instanceof Request && input.headers.has("Accept"))) template.headers.set("Accept", ACCEPT);
  }
  const idempotencyKey = template.headers.has("Idempotency-Key");
  const signal = init.signal ?? (input instanceof Request ? input.signal : undefined) ?? undefined;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    const response = await doFetch(template.clone());
    const hints = readHints(response.headers);
    const rateLimit = hints.rateLimit;
    // A gRPC call's error comes with HTTP 200 and its status in the headers (docs/client.md "gRPC").
    const grpcError = isGrpcStatusAnswer(response) && response.headers.get("grpc-status")?.trim() !== "0";
    if (response.status < 400 && !grpcError) {
      const stale = readStale(response.headers);
      return { response, error: null, attempts: attempt, decision: null, rateLimit, stale };
    }
    const error = await parse(response);
    const context = { attempt, method: template.method, status: response.status, idempotencyKey, hints };
    const decision = decideRetry(error, context, options);
    if (decision.kind !== "retry") return { response, error, attempts: attempt, decision, rateLimit, stale: null };
    options.onRetry?.({ attempt, error, delayMs: decision.delayMs });
    await response.body?.cancel();
    await sleep(decision.delayMs, signal);
  }
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The signal's reason when it is an Error (AbortController.abort() gives a DOMException "AbortError"). */
function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new DOMException("The operation was aborted.", "AbortError");
}
