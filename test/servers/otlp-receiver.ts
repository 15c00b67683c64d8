/**
 * An OTLP/HTTP receiver on 127.0.0.1 for the telemetry tests (docs/telemetry.md): it decodes every export it is sent,
 * protobuf with the OpenTelemetry project's generated code for the official OTLP proto definitions (the
 * opentelemetry-proto messages as @opentelemetry/otlp-transformer 0.52.1 ships them, installed under the name
 * `otlp-proto-decoder`), JSON as OTLP/JSON, into one plain shape, so a test inside workerd reads what arrived.
 *
 * | path | behaviour |
 * |---|---|
 * | `POST /{name}/v1/traces`, `POST /{name}/v1/logs` | decoded and kept; 200 `{}` (400 when it does not decode) |
 * | `GET /received/{name}` | 200 JSON `{spans, logs, requests}`: every span and log record kept for `name` |
 */
import { createRequire } from "node:module";
import { createServer, type Server } from "node:http";
import type { ReceivedSpan, ReceivedLog, ReceivedTelemetry } from "./context.ts";

/** The generated protobufjs module (CommonJS): `opentelemetry.proto.collector.{trace,logs}.v1.Export*ServiceRequest`. */
interface Decoder {
  decode(bytes: Uint8Array): object;
  toObject(message: object, options: Record<string, unknown>): unknown;
}
interface ProtoRoot {
  readonly opentelemetry: {
    readonly proto: {
      readonly collector: {
        readonly trace: { readonly v1: { readonly ExportTraceServiceRequest: Decoder } };
        readonly logs: { readonly v1: { readonly ExportLogsServiceRequest: Decoder } };
      };
    };
  };
}
const root = createRequire(import.meta.url)("otlp-proto-decoder/build/src/generated/root.js") as ProtoRoot;
const { trace, logs } = root.opentelemetry.proto.collector;

type Value = string | number | boolean | null;
interface KeyValue {
  readonly key: string;
  readonly value: Readonly<Record<string, unknown>>;
}

/** An OTLP AnyValue (JSON or decoded protobuf with longs as strings) as a plain scalar. */
function scalar(value: Readonly<Record<string, unknown>> | undefined): Value {
  if (value === undefined) return null;
  if ("stringValue" in value) return String(value.stringValue);
  if ("boolValue" in value) return Boolean(value.boolValue);
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return Number(value.doubleValue);
  return null;
}

function attributes(list: unknown): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const kv of (list ?? []) as KeyValue[]) out[kv.key] = scalar(kv.value);
  return out;
}

/** Ids: hex in OTLP/JSON, base64 after protobufjs's `toObject` with `bytes: String`. */
function hex(id: unknown, protobuf: boolean): string {
  if (typeof id !== "string" || id === "") return "";
  return protobuf ? Buffer.from(id, "base64").toString("hex") : id.toLowerCase();
}

type Tree = Readonly<Record<string, unknown>>;
const list = (v: unknown): Tree[] => (Array.isArray(v) ? (v as Tree[]) : []);

function spansOf(request: Tree, protobuf: boolean): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of list(request.resourceSpans)) {
    const resource = attributes((rs.resource as Tree | undefined)?.attributes);
    for (const ss of list(rs.scopeSpans)) {
      for (const s of list(ss.spans)) {
        out.push({
          traceId: hex(s.traceId, protobuf),
          spanId: hex(s.spanId, protobuf),
          parentSpanId: hex(s.parentSpanId, protobuf),
          name: String(s.name),
          kind: Number(s.kind ?? 0),
          statusCode: Number((s.status as Tree | undefined)?.code ?? 0),
          start: String(s.startTimeUnixNano),
          end: String(s.endTimeUnixNano),
          attributes: attributes(s.attributes),
          resource,
        });
      }
    }
  }
  return out;
}

function logsOf(request: Tree, protobuf: boolean): ReceivedLog[] {
  const out: ReceivedLog[] = [];
  for (const rl of list(request.resourceLogs)) {
    for (const sl of list(rl.scopeLogs)) {
      for (const l of list(sl.logRecords)) {
        out.push({
          traceId: hex(l.traceId, protobuf),
          spanId: hex(l.spanId, protobuf),
          severityText: typeof l.severityText === "string" ? l.severityText : "",
          body: scalar(l.body as Tree | undefined),
          attributes: attributes(l.attributes),
        });
      }
    }
  }
  return out;
}

const TO_OBJECT = { longs: String, bytes: String, enums: Number, defaults: false };

export async function startOtlpReceiver(): Promise<{ server: Server; port: number }> {
  const received = new Map<
    string,
    { spans: ReceivedSpan[]; logs: ReceivedLog[]; requests: ReceivedTelemetry["requests"][number][] }
  >();
  const entry = (name: string) => {
    let kept = received.get(name);
    if (kept === undefined) received.set(name, (kept = { spans: [], logs: [], requests: [] }));
    return kept;
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const parts = url.pathname.split("/");
    if (req.method === "GET" && parts[1] === "received") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(received.get(parts[2] ?? "") ?? { spans: [], logs: [], requests: [] }));
      return;
    }
    const [, name = "", version, signal] = parts;
    if (req.method !== "POST" || version !== "v1" || (signal !== "traces" && signal !== "logs")) {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const contentType = req.headers["content-type"] ?? "";
      const protobuf = contentType === "application/x-protobuf";
      const kept = entry(name);
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers[key] = value;
      kept.requests.push({ signal, contentType, headers });
      try {
        const decoder = signal === "traces" ? trace.v1.ExportTraceServiceRequest : logs.v1.ExportLogsServiceRequest;
        const tree = (
          protobuf ? decoder.toObject(decoder.decode(body), TO_OBJECT) : JSON.parse(body.toString("utf8"))
        ) as Tree;
        if (signal === "traces") kept.spans.push(...spansOf(tree, protobuf));
        else kept.logs.push(...logsOf(tree, protobuf));
      } catch (e) {
        res.writeHead(400, { "content-type": "text/plain" }).end(String(e));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("OTLP receiver has no port");
  return { server, port: address.port };
}
