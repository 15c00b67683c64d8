/**
 * One request's trace (docs/telemetry.md "Spans"): made by zone traffic only when the zone has telemetry, so a zone
 * without it pays one check. It holds the server span's identity from the start (the origin request carries it as
 * parent, a generated error its trace id), collects a span per phase that ran, and at the end, if the request is
 * sampled, hands the spans and the log records of its generated errors to the isolate's exporter (exporter.ts),
 * after the response, from `ctx.waitUntil`.
 *
 * Times are `Date.now()`, which in a Worker advances only across I/O (a phase without I/O shows 0 ms: the published
 * platform's own traces do the same, https://developers.cloudflare.com/workers/observability/traces/).
 */
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from "@opentelemetry/semantic-conventions";
import { newSpanId, newTraceId, parseTraceparent, traceparentOf, type SpanIdentity } from "./trace-context";
import { enqueueTelemetry, type LogRecordData, type SpanData, type TelemetryTarget } from "./exporter";

/** OTLP span kinds as the API numbers them (`SpanKind`: INTERNAL 0, SERVER 1, CLIENT 2). */
export const SPAN_KIND = { internal: 0, server: 1, client: 2 } as const;
/** OTLP status codes (UNSET 0, OK 1, ERROR 2). */
const STATUS_ERROR = 2;

/** The attributes of one span or log record: OTLP scalar values. */
export type Attributes = Record<string, string | number | boolean>;

/** What a generated error tells its trace (zone traffic knows all of it when the error is answered). */
export interface TracedError {
  readonly code: number;
  readonly status: number;
  /** The catalog's `error_name` (docs/errors.md): the span's `error.type`. */
  readonly name: string;
  readonly ray: string;
  readonly answeredBy: "default" | "rule" | "page";
  readonly ruleId: string | null;
  readonly reachedOrigin: boolean | null;
  readonly format: string;
  readonly cause: string | null;
  /** The analytics record's `source` (docs/analytics.md "Records"). */
  readonly source: "edge" | "origin";
}

export class RequestTrace {
  readonly traceId: string;
  /** The server span. */
  readonly spanId: string;
  /** The client's span, when its `traceparent` is accepted. */
  private readonly parent: SpanIdentity | null;
  private readonly traceState: string | null;
  /** Head decision (`sample.requests`): the request's spans are exported whatever happens. */
  private sampled: boolean;
  private readonly spans: SpanData[] = [];
  private readonly logs: LogRecordData[] = [];
  private readonly attributes: Attributes;
  private error: TracedError | null = null;
  private originSpan: string | null = null;

  constructor(
    private readonly target: TelemetryTarget,
    request: Request,
    url: URL,
    private readonly started: number,
  ) {
    const settings = target.settings;
    const accepted = settings.trace_context === "accept" ? parseTraceparent(request.headers.get("traceparent")) : null;
    this.parent = accepted;
    this.traceState = accepted === null ? null : request.headers.get("tracestate");
    this.traceId = accepted?.traceId ?? newTraceId();
    this.spanId = newSpanId();
    this.sampled = chance(settings.sample.requests);
    const port = url.port === "" ? null : Number(url.port);
    this.attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: request.method,
      [ATTR_URL_PATH]: url.pathname,
      [ATTR_URL_SCHEME]: url.protocol.slice(0, -1),
      [ATTR_SERVER_ADDRESS]: url.hostname,
      ...(port === null ? {} : { [ATTR_SERVER_PORT]: port }),
      ...optional(ATTR_USER_AGENT_ORIGINAL, request.headers.get("user-agent")),
    };
  }

  /** The `traceparent` and `tracestate` the origin request carries: the origin fetch span as parent. */
  originHeaders(): { readonly traceparent: string; readonly tracestate: string | null } {
    this.originSpan ??= newSpanId();
    const span = { traceId: this.traceId, spanId: this.originSpan, flags: this.sampled ? 1 : 0 };
    return { traceparent: traceparentOf(span), tracestate: this.traceState };
  }

  /**
   * Whether a generated error of this request carries `trace_id` (docs/errors.md): the request is sampled, or the
   * error is, by `sample.errors` (decided once, here, so the trace the error names is the one exported).
   */
  tracesError(): boolean {
    if (!this.sampled) this.sampled = chance(this.target.settings.sample.errors);
    return this.sampled;
  }

  /** A child span of the server span, for a phase that ran. */
  phase(name: string, start: number, end: number, attributes: Attributes, kind: number = SPAN_KIND.internal): void {
    this.spans.push(this.span({ name, kind, start, end, attributes, spanId: newSpanId(), parent: this.spanId }));
  }

  /** The origin fetch as a CLIENT span, with the id its `traceparent` named (when one was sent). */
  originFetch(start: number, end: number, attributes: Attributes, failed: boolean): void {
    const spanId = (this.originSpan ??= newSpanId());
    const span = this.span({ name: "origin fetch", kind: SPAN_KIND.client, start, end, attributes, spanId });
    this.spans.push(failed ? { ...span, status: { code: STATUS_ERROR } } : span);
  }

  /** A generated error: the server span's error attributes and one log record (docs/telemetry.md "Logs"). */
  generated(error: TracedError, at: number): void {
    this.error = error;
    if (error.answeredBy !== "default") {
      const name = error.answeredBy === "rule" ? "custom error rule" : "error page";
      this.phase(name, at, at, {
        "edge_errors.answered_by": error.answeredBy,
        ...optional("edge_errors.rule_id", error.ruleId),
      });
    }
    if (this.target.logsEndpoint === null) return;
    this.logs.push({
      time: at,
      traceId: this.traceId,
      spanId: this.spanId,
      flags: 1,
      severityNumber: error.status >= 500 ? 17 : 13, // ERROR, WARN (OTel log data model, SeverityNumber)
      severityText: error.status >= 500 ? "ERROR" : "WARN",
      body: `edge error ${error.code} ${error.name}`,
      attributes: {
        "edge_errors.code": error.code,
        "edge_errors.status": error.status,
        [ATTR_ERROR_TYPE]: error.name,
        "cloudflare.ray_id": error.ray,
        "edge_errors.zone": this.target.zone,
        "edge_errors.source": error.source,
        "edge_errors.answered_by": error.answeredBy,
        ...optional("edge_errors.rule_id", error.ruleId),
        ...reached(error.reachedOrigin),
        "edge_errors.format": error.format,
        [ATTR_HTTP_REQUEST_METHOD]: this.attributes[ATTR_HTTP_REQUEST_METHOD] as string,
        [ATTR_URL_PATH]: this.attributes[ATTR_URL_PATH] as string,
        ...optional("edge_errors.cause", error.cause),
      },
    });
  }

  /**
   * Ends the server span with the response's status and hands the trace to the exporter when sampled; returns the
   * response unchanged so zone traffic can `return trace.end(...)`.
   */
  end(response: Response, ctx: ExecutionContext): Response {
    if (!this.sampled) return response;
    const status = response.status;
    const error = this.error;
    const attributes: Attributes = { ...this.attributes, [ATTR_HTTP_RESPONSE_STATUS_CODE]: status };
    const ray = error?.ray ?? response.headers.get("Ray-ID");
    if (ray !== null) attributes["cloudflare.ray_id"] = ray;
    if (error !== null) {
      attributes[ATTR_ERROR_TYPE] = error.name;
      attributes["edge_errors.code"] = error.code;
      attributes["edge_errors.answered_by"] = error.answeredBy;
      if (error.ruleId !== null) attributes["edge_errors.rule_id"] = error.ruleId;
      Object.assign(attributes, reached(error.reachedOrigin));
      attributes["edge_errors.format"] = error.format;
    } else if (status >= 500) {
      // An origin's own 5xx passed through: the status code is the error type (HTTP semantic conventions).
      attributes[ATTR_ERROR_TYPE] = String(status);
    }
    const server = this.span({
      name: `${this.attributes[ATTR_HTTP_REQUEST_METHOD] as string}`,
      kind: SPAN_KIND.server,
      start: this.started,
      end: Date.now(),
      attributes,
      spanId: this.spanId,
      parent: this.parent?.spanId ?? null,
    });
    // Status ERROR only for 5xx; a server span's 4xx stays unset (HTTP semantic conventions, "Status").
    const spans = [status >= 500 ? { ...server, status: { code: STATUS_ERROR } } : server, ...this.spans];
    enqueueTelemetry(this.target, spans, this.logs, ctx);
    return response;
  }

  private span(s: {
    name: string;
    kind: number;
    start: number;
    end: number;
    attributes: Attributes;
    spanId: string;
    parent?: string | null;
  }): SpanData {
    return {
      name: s.name,
      kind: s.kind,
      traceId: this.traceId,
      spanId: s.spanId,
      parentSpanId: s.parent === undefined ? this.spanId : s.parent,
      parentRemote: s.parent !== undefined && s.parent !== null && s.parent === this.parent?.spanId,
      traceState: this.traceState,
      flags: 1,
      start: s.start,
      end: s.end,
      attributes: s.attributes,
      status: { code: 0 },
    };
  }
}

/** The URL of an origin request, for its span's `url.full` (the origin, never a client's credentials). */
export const URL_FULL = ATTR_URL_FULL;

function chance(rate: number): boolean {
  return rate >= 1 || (rate > 0 && Math.random() < rate);
}

function optional(key: string, value: string | null): Attributes {
  return value === null ? {} : { [key]: value };
}

function reached(value: boolean | null): Attributes {
  return value === null ? {} : { "edge_errors.request_reached_origin": value };
}

/** Zone traffic's handle on telemetry: a trace for a zone that has telemetry, `null` for one that has none. */
export function startTrace(
  telemetry: TelemetryTarget | null,
  request: Request,
  url: URL,
  started: number,
): RequestTrace | null {
  return telemetry === null ? null : new RequestTrace(telemetry, request, url, started);
}
