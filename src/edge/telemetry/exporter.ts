/**
 * The isolate's OTLP/HTTP exporter (docs/telemetry.md "Export"): traffic never waits for it. A sampled request's
 * spans and log records join its zone's queue; the export runs after the response, from `ctx.waitUntil`, with at
 * most one export in flight per zone (whatever queued meanwhile goes in the next batch). The queue is bounded: what
 * does not fit is dropped and counted. A failed export is dropped and counted too, and the zone's exports then
 * wait (exponential back-off, 1 s doubling to 5 min) while new records queue. The counts are this isolate's
 * (`exportStats`, answered by `GET /zones/{zone}/telemetry`).
 *
 * Encoding is the OpenTelemetry project's own (@opentelemetry/otlp-transformer: OTLP JSON or protobuf from the SDK's
 * span and log record shapes), so the wire format is theirs, not a hand-written copy.
 */
import {
  JsonLogsSerializer,
  JsonTraceSerializer,
  ProtobufLogsSerializer,
  ProtobufTraceSerializer,
} from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { causeOf } from "../../shared/result";
import { TIMEOUT, within } from "../../shared/timeout";
import type { TelemetrySettings } from "../../state/zone/telemetry/settings";

/** Where one zone's telemetry goes (compiled once per zone version, src/edge/compiled-zone.ts). */
export interface TelemetryTarget {
  readonly zone: string;
  readonly settings: TelemetrySettings;
  /** `null`: no log records are sent (telemetry/stored.ts `logsEndpointOf`). */
  readonly logsEndpoint: string | null;
}

/** One finished span, as the request trace records it (ids hex, times ms since the epoch). */
export interface SpanData {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | null;
  readonly parentRemote: boolean;
  readonly traceState: string | null;
  readonly flags: number;
  readonly start: number;
  readonly end: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  readonly status: { readonly code: number };
}

/** One log record, correlated with its span. */
export interface LogRecordData {
  readonly time: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly flags: number;
  readonly severityNumber: number;
  readonly severityText: string;
  readonly body: string;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
}

/** Bounds (docs/telemetry.md "Export"). */
export const EXPORT_LIMITS = {
  /** Spans, and log records, a zone's queue holds on one isolate. */
  queue: 2048,
  /** Spans (or log records) per export request. */
  batch: 512,
  /** One export request's time limit. */
  timeoutMs: 10_000,
  backoffMs: { first: 1_000, max: 300_000 },
  /** Zones with a queue on one isolate; the idle ones go first beyond it. */
  zones: 1_000,
} as const;

/** What `GET /zones/{zone}/telemetry` answers of the export (this isolate's counts). */
export interface ExportStats {
  /** Spans and log records the receiver accepted. */
  readonly exported: number;
  /** Spans and log records dropped: the queue full, or an export failed. */
  readonly dropped: number;
  readonly last_error: string | null;
  /** Waiting for the next export. */
  readonly queued: number;
}

interface ZoneQueue {
  target: TelemetryTarget;
  spans: SpanData[];
  logs: LogRecordData[];
  inFlight: boolean;
  failures: number;
  retryAt: number;
  exported: number;
  dropped: number;
  lastError: string | null;
}

const queues = new Map<string, ZoneQueue>();

/** Queues a sampled request's spans and log records and, unless an export is in flight or backing off, exports. */
export function enqueueTelemetry(
  target: TelemetryTarget,
  spans: readonly SpanData[],
  logs: readonly LogRecordData[],
  ctx: ExecutionContext,
): void {
  const queue = queueOf(target);
  queue.target = target;
  queue.dropped += push(queue.spans, spans) + push(queue.logs, logs);
  if (queue.inFlight || Date.now() < queue.retryAt) return;
  queue.inFlight = true;
  ctx.waitUntil(drain(queue));
}

/** This isolate's export counts for a zone (zeros when it exported nothing here). */
export function exportStats(zone: string): ExportStats {
  const queue = queues.get(zone);
  if (queue === undefined) return { exported: 0, dropped: 0, last_error: null, queued: 0 };
  const { exported, dropped, lastError } = queue;
  return { exported, dropped, last_error: lastError, queued: queue.spans.length + queue.logs.length };
}

function queueOf(target: TelemetryTarget): ZoneQueue {
  let queue = queues.get(target.zone);
  if (queue === undefined) {
    if (queues.size >= EXPORT_LIMITS.zones) evictIdle();
    queue = {
      target,
      spans: [],
      logs: [],
      inFlight: false,
      failures: 0,
      retryAt: 0,
      exported: 0,
      dropped: 0,
      lastError: null,
    };
    queues.set(target.zone, queue);
  }
  return queue;
}

function evictIdle(): void {
  for (const [zone, queue] of queues) {
    if (!queue.inFlight) {
      queues.delete(zone);
      return;
    }
  }
}

/** Appends what fits; returns how many did not. */
function push<T>(into: T[], items: readonly T[]): number {
  const room = Math.max(0, EXPORT_LIMITS.queue - into.length);
  for (let i = 0; i < items.length && i < room; i++) into.push(items[i] as T);
  return Math.max(0, items.length - room);
}

/** Exports the zone's queue, batch by batch, one request at a time; a failure drops its batch and backs off. */
async function drain(queue: ZoneQueue): Promise<void> {
  try {
    while (queue.spans.length > 0 || queue.logs.length > 0) {
      const { target } = queue;
      const spans = queue.spans.splice(0, EXPORT_LIMITS.batch);
      if (
        spans.length > 0 &&
        !(await send(queue, target.settings.otlp.endpoint, encodeSpans(target, spans), spans.length))
      )
        return;
      const logs = queue.logs.splice(0, EXPORT_LIMITS.batch);
      if (logs.length > 0 && target.logsEndpoint !== null) {
        if (!(await send(queue, target.logsEndpoint, encodeLogs(target, logs), logs.length))) return;
      }
    }
  } finally {
    queue.inFlight = false;
  }
}

async function send(queue: ZoneQueue, endpoint: string, body: Uint8Array | undefined, count: number): Promise<boolean> {
  const { settings } = queue.target;
  const contentType = settings.otlp.protocol === "http/json" ? "application/json" : "application/x-protobuf";
  let failure: string | null;
  if (body === undefined) failure = "the records could not be encoded";
  else
    try {
      const response = await within(
        fetch(endpoint, { method: "POST", headers: { ...settings.otlp.headers, "content-type": contentType }, body }),
        EXPORT_LIMITS.timeoutMs,
      );
      if (response === TIMEOUT) failure = `no answer within ${EXPORT_LIMITS.timeoutMs} ms`;
      else {
        // The body is read (and dropped) so the connection is free again; a partial success still counts as sent.
        await response.arrayBuffer();
        failure = response.ok ? null : `HTTP ${response.status}`;
      }
    } catch (e) {
      failure = causeOf(e);
    }
  if (failure === null) {
    queue.exported += count;
    queue.failures = 0;
    return true;
  }
  queue.dropped += count;
  queue.lastError = `${new Date().toISOString()} ${endpoint}: ${failure}`.slice(0, 500);
  queue.failures++;
  const wait = Math.min(EXPORT_LIMITS.backoffMs.first * 2 ** (queue.failures - 1), EXPORT_LIMITS.backoffMs.max);
  queue.retryAt = Date.now() + wait;
  return false;
}

type ReadableSpans = Parameters<typeof ProtobufTraceSerializer.serializeRequest>[0];
type ReadableSpan = ReadableSpans[number];
type ReadableLogs = Parameters<typeof ProtobufLogsSerializer.serializeRequest>[0];
type ReadableLog = ReadableLogs[number];

/** The service as a resource (one per isolate) and the instrumentation scope its spans come from. */
const RESOURCE = resourceFromAttributes({ [ATTR_SERVICE_NAME]: "edge-errors" });
const SCOPE = { name: "edge-errors" } as const;

/** The request body; `undefined` when the serializer could not encode (it logs why): the batch is dropped. */
function encodeSpans(target: TelemetryTarget, spans: readonly SpanData[]): Uint8Array | undefined {
  const readable = spans.map(readableSpan);
  return target.settings.otlp.protocol === "http/json"
    ? JsonTraceSerializer.serializeRequest(readable)
    : ProtobufTraceSerializer.serializeRequest(readable);
}

function encodeLogs(target: TelemetryTarget, logs: readonly LogRecordData[]): Uint8Array | undefined {
  const readable = logs.map(readableLog);
  return target.settings.otlp.protocol === "http/json"
    ? JsonLogsSerializer.serializeRequest(readable)
    : ProtobufLogsSerializer.serializeRequest(readable);
}

/** [seconds, nanoseconds], the API's HrTime. */
function hrTime(ms: number): [number, number] {
  return [Math.floor(ms / 1000), (ms % 1000) * 1_000_000];
}

function readableSpan(s: SpanData): ReadableSpan {
  const traceState = s.traceState === null ? undefined : rawTraceState(s.traceState);
  const context = { traceId: s.traceId, spanId: s.spanId, traceFlags: s.flags, ...(traceState ? { traceState } : {}) };
  return {
    name: s.name,
    kind: s.kind,
    spanContext: () => context,
    ...(s.parentSpanId === null
      ? {}
      : {
          parentSpanContext: {
            traceId: s.traceId,
            spanId: s.parentSpanId,
            traceFlags: s.flags,
            isRemote: s.parentRemote,
          },
        }),
    startTime: hrTime(s.start),
    endTime: hrTime(s.end),
    duration: hrTime(s.end - s.start),
    ended: true,
    status: s.status,
    attributes: s.attributes,
    links: [],
    events: [],
    resource: RESOURCE,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

function readableLog(l: LogRecordData): ReadableLog {
  const time = hrTime(l.time);
  return {
    hrTime: time,
    hrTimeObserved: time,
    spanContext: { traceId: l.traceId, spanId: l.spanId, traceFlags: l.flags },
    severityNumber: l.severityNumber,
    severityText: l.severityText,
    body: l.body,
    resource: RESOURCE,
    instrumentationScope: SCOPE,
    attributes: l.attributes,
    droppedAttributesCount: 0,
  };
}

/** A `tracestate` value passed on as received (the serializer only calls `serialize`). */
function rawTraceState(value: string): NonNullable<ReturnType<ReadableSpan["spanContext"]>["traceState"]> {
  const state = {
    set: () => state,
    unset: () => state,
    get: () => undefined,
    serialize: () => value,
  };
  return state;
}
