/**
 * What the origin servers' globalSetup hands to the tests (vitest `provide` / `inject`).
 * Shared by the Node side (test/servers/global-setup.ts) and the workerd tests (test/workers/edge/origin/**),
 * so it holds only types and constants.
 */

/** The body of the origin's `/status/503-json` (non-ASCII on purpose): must reach the client byte for byte. */
export const ORIGIN_503_BODY = '{"origin":"down for maintenance","retry":true,"bytes":"\u00e9\u2603"}\n';
/** The bytes the origin serves as `image/png` under `/asset/` (not a real image: only the bytes matter). */
export const ASSET_PNG: readonly number[] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x10, 0x80];

export interface OriginPorts {
  /** node:http origin with well-behaved modes (healthy, echo, slow body, 503 JSON, big bodies, ...). */
  readonly http: number;
  /** Raw TCP server that misbehaves per path: hang, reset, garbage, empty reply, bad header. */
  readonly raw: number;
  /** HTTPS origin with a self-signed certificate (generated with openssl at setup). */
  readonly tls: number;
  /** Raw TCP origin whose event streams and NDJSON break after their headers (stream-origin.ts). */
  readonly stream: number;
  /** A loopback port with nothing listening: connections are refused. */
  readonly closed: number;
  /** The alert tests' webhook receiver (webhook-receiver.ts). */
  readonly webhook: number;
  /** The control server of origins a test can stop and start (switch-origin.ts). */
  readonly switchboard: number;
  /** The telemetry tests' OTLP/HTTP receiver (otlp-receiver.ts). */
  readonly otlp: number;
}

declare module "vitest" {
  export interface ProvidedContext {
    originPorts: OriginPorts;
  }
}

/** One request the webhook receiver kept (webhook-receiver.ts): its headers, its body, the status it answered. */
export interface ReceivedWebhook {
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly answered: number;
}

/** One span as the OTLP receiver decoded it (otlp-receiver.ts): ids hex, attributes as plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** `""` for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP `SpanKind`: 1 INTERNAL, 2 SERVER, 3 CLIENT. */
  readonly kind: number;
  /** OTLP `Status.code`: 0 UNSET, 1 OK, 2 ERROR. */
  readonly statusCode: number;
  readonly start: string;
  readonly end: string;
  readonly attributes: Readonly<Record<string, string | number | boolean | null>>;
  readonly resource: Readonly<Record<string, string | number | boolean | null>>;
}

/** One log record as the OTLP receiver decoded it. */
export interface ReceivedLog {
  readonly traceId: string;
  readonly spanId: string;
  readonly severityText: string;
  readonly body: string | number | boolean | null;
  readonly attributes: Readonly<Record<string, string | number | boolean | null>>;
}

/** What the OTLP receiver kept for one name. */
export interface ReceivedTelemetry {
  readonly spans: readonly ReceivedSpan[];
  readonly logs: readonly ReceivedLog[];
  readonly requests: readonly {
    readonly signal: string;
    readonly contentType: string;
    readonly headers: Readonly<Record<string, string>>;
  }[];
}
