/**
 * How a tool reaches the management API: it names a route (method, path, query, body) and the mount serves it for the
 * token that called the tool (src/api/kit/mount.ts `dispatch`), in this same invocation: no HTTP request to itself,
 * no second authentication. So a tool is routed, authorised (the token's permissions, zones and accounts), validated,
 * bounded (the preview and replay bounds are per token, src/api/explain/bound.ts) and logged exactly as the REST call
 * is, by the handler the REST route runs (docs/mcp.md "One implementation").
 */
import type { Principal } from "../kit/auth";
import type { ApiMessage } from "../kit/envelope";
import type { MountedApi } from "../kit/mount";
import type { ApiMethod } from "../kit/types";
import type { RequestContext } from "../../shared/request-context";
import { err, ok, type Result } from "../../shared/result";

export interface RouteCall {
  readonly method: ApiMethod;
  /** The path with every parameter already encoded (`segment`). */
  readonly path: string;
  /** Query parameters; an undefined value is left out. */
  readonly query?: Readonly<Record<string, string | undefined>>;
  /** A JSON body. */
  readonly body?: unknown;
  readonly accept?: string;
}

/** What a route answered, in its v4 envelope: the result and the warnings, or the errors. */
export interface EnvelopeFailure {
  readonly status: number;
  readonly errors: readonly ApiMessage[];
  /** The answer's `Retry-After` (a bounded preview or replay, 429), when it has one. */
  readonly retryAfter: string | null;
}

export interface EnvelopeSuccess {
  readonly result: unknown;
  readonly messages: readonly ApiMessage[];
  readonly resultInfo: Readonly<Record<string, unknown>> | null;
}

/** Serves a route for the principal; the raw Response (the preview of an error is not enveloped). */
export type RouteCaller = (call: RouteCall) => Promise<Response>;

/** A caller bound to this request's context and its authenticated principal. */
export function routeCaller(api: Pick<MountedApi, "dispatch">, rc: RequestContext, principal: Principal): RouteCaller {
  return (call) => {
    const url = new URL(call.path, rc.url.origin);
    for (const [name, value] of Object.entries(call.query ?? {}))
      if (value !== undefined) url.searchParams.set(name, value);
    const headers = new Headers({ Accept: call.accept ?? "application/json" });
    if (call.body !== undefined) headers.set("Content-Type", "application/json");
    const request = new Request(url, {
      method: call.method,
      headers,
      body: call.body === undefined ? null : JSON.stringify(call.body),
    });
    return api.dispatch({ ...rc, request, url }, principal);
  };
}

/** A path parameter, percent-encoded as the routes' own parameters arrive. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}

/** Reads a route's v4 envelope. */
export async function envelopeOf(response: Response): Promise<Result<EnvelopeSuccess, EnvelopeFailure>> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  const envelope = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const messages = Array.isArray(envelope.messages) ? (envelope.messages as ApiMessage[]) : [];
  const info = envelope.result_info;
  const resultInfo = typeof info === "object" && info !== null ? (info as Record<string, unknown>) : null;
  if (response.ok && envelope.success === true) return ok({ result: envelope.result, messages, resultInfo });
  const errors = Array.isArray(envelope.errors)
    ? (envelope.errors as ApiMessage[])
    : [{ code: 0, message: `the API answered ${response.status} without an envelope` }];
  return err({ status: response.status, errors, retryAfter: response.headers.get("Retry-After") });
}
