/**
 * What zone traffic tells a request's trace (docs/telemetry.md "Spans"), kept here so the traffic path carries one
 * call per hook: the origin fetch (outcome and duration), a generated error (attributes and log record), an origin's
 * own error answered by a custom error rule.
 */
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_URL_FULL,
} from "@opentelemetry/semantic-conventions";
import { catalogEntry } from "../../errors/catalog";
import type { AnsweredBy, CustomAnswer, ErrorEvent } from "../../errors/pipeline";
import type { Result } from "../../shared/result";
import { formatOf } from "../../state/analytics/record";
import type { TimedOriginFailure } from "../origin/forward";
import type { RequestTrace } from "./request-trace";

/** The origin fetch as a CLIENT span: `url.full` without the query (it may hold a client's secrets). */
export function traceOrigin(
  trace: RequestTrace,
  o: {
    readonly start: number;
    readonly target: string;
    readonly path: string;
    readonly request: Request;
    readonly result: Result<Response, TimedOriginFailure>;
  },
): void {
  const query = o.path.indexOf("?");
  const attributes = {
    [ATTR_HTTP_REQUEST_METHOD]: o.request.method,
    [ATTR_URL_FULL]: o.target + (query === -1 ? o.path : o.path.slice(0, query)),
  };
  if (o.result.ok) {
    const status = o.result.value.status;
    trace.originFetch(o.start, Date.now(), { ...attributes, [ATTR_HTTP_RESPONSE_STATUS_CODE]: status }, status >= 500);
    return;
  }
  const failure = o.result.error;
  const name = catalogEntry(failure.code)?.errorName ?? String(failure.code);
  const detail = {
    ...attributes,
    [ATTR_ERROR_TYPE]: name,
    "edge_errors.origin.outcome": failure.reason,
    ...(failure.reached === null ? {} : { "edge_errors.request_reached_origin": failure.reached }),
  };
  trace.originFetch(o.start, Date.now(), detail, true);
}

/** A generated error: its attributes and log record (the server span ends when the request is answered). */
export function traceGenerated(
  trace: RequestTrace,
  e: { readonly event: ErrorEvent; readonly response: Response; readonly answeredBy: AnsweredBy },
): void {
  const { event, response, answeredBy } = e;
  const entry = catalogEntry(event.code) ?? catalogEntry(500);
  const custom = answeredBy.kind !== "default";
  trace.generated(
    {
      code: entry?.code ?? event.code,
      status: response.status,
      name: entry?.errorName ?? "internal_server_error",
      ray: custom ? (response.headers.get("Ray-ID") ?? "") : answeredBy.ray,
      answeredBy: answeredBy.kind,
      ruleId: custom ? answeredBy.id : null,
      reachedOrigin: event.reachedOrigin ?? null,
      format: custom ? formatOf(response.headers.get("Content-Type")) : answeredBy.format,
      cause: event.cause ?? null,
      source: "edge",
    },
    Date.now(),
  );
}

/** An origin's own error (4xx/5xx) answered by a custom error rule: that rule's span. */
export function traceOriginError(trace: RequestTrace, byRule: CustomAnswer): void {
  const now = Date.now();
  trace.phase("custom error rule", now, now, {
    "edge_errors.answered_by": byRule.kind,
    "edge_errors.rule_id": byRule.id,
  });
}
