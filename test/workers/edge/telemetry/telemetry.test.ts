/**
 * Telemetry (docs/telemetry.md): a zone's traces and logs exported over OTLP/HTTP to a real receiver on 127.0.0.1
 * (test/servers/otlp-receiver.ts, which decodes protobuf with the OpenTelemetry project's generated code for the
 * official OTLP protos, and JSON), the W3C trace context from the client to the origin, `trace_id` in generated
 * errors, sampling, a receiver that is down, and settings whose secrets are never answered.
 */
import { describe, expect, it } from "vitest";
import type { ReceivedTelemetry } from "../../../servers/context";
import { api, apiOk, entrypoint } from "../../support/envelope";
import { loopback, ports, sendTraffic, zoneFor } from "../../support/origin";

const SECRET = "otlp-secret-value-7f3a9c";
const CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";
const CLIENT_PARENT = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`;

let names = 0;
/** A receiver path of its own per test (the receiver keeps what each name got). */
const receiverName = (): string => `t${++names}-${Math.random().toString(36).slice(2, 8)}`;
const endpointOf = (name: string): string => `${loopback(ports.otlp)}/${name}/v1/traces`;

async function received(name: string): Promise<ReceivedTelemetry> {
  const res = await fetch(`${loopback(ports.otlp)}/received/${name}`);
  return await res.json<ReceivedTelemetry>();
}

interface Settings {
  readonly protocol?: "http/json" | "http/protobuf";
  readonly sample?: { errors?: number; requests?: number };
  readonly trace_context?: "accept" | "ignore";
  readonly endpoint?: string;
}

async function withTelemetry(zone: string, name: string, s: Settings = {}): Promise<void> {
  await apiOk("PUT", `/zones/${zone}/telemetry`, {
    otlp: {
      endpoint: s.endpoint ?? endpointOf(name),
      protocol: s.protocol ?? "http/protobuf",
      headers: { "x-api-key": SECRET },
    },
    sample: s.sample ?? { errors: 1, requests: 0 },
    ...(s.trace_context === undefined ? {} : { trace_context: s.trace_context }),
  });
}

interface TelemetryStatus {
  enabled: boolean;
  otlp?: { headers: Record<string, string> };
  exported: number;
  dropped: number;
  last_error: string | null;
}

describe("traces and logs of a generated error", () => {
  for (const protocol of ["http/protobuf", "http/json"] as const) {
    it(`a 521 with a client traceparent arrives as one trace of the client's (${protocol})`, async () => {
      const zone = await zoneFor("otel-521", loopback(ports.closed));
      // A firewall rule that does not match: its phase runs, and passes.
      await apiOk("PUT", entrypoint(zone, "http_request_firewall_custom"), {
        rules: [{ expression: 'http.request.uri.path eq "/blocked"', action: "block" }],
      });
      const name = receiverName();
      await withTelemetry(zone, name, { protocol });

      const res = await sendTraffic(`http://${zone}/shop?secret=1`, {
        traceparent: CLIENT_PARENT,
        "user-agent": "otel-test/1",
      });
      expect(res.status).toBe(521);
      const body = await res.json<{ trace_id?: string; ray_id: string; error_name: string }>();
      expect(body.trace_id).toBe(CLIENT_TRACE);

      const got = await received(name);
      expect(got.requests.map((r) => r.signal).sort()).toEqual(["logs", "traces"]);
      for (const request of got.requests) {
        expect(request.contentType).toBe(protocol === "http/json" ? "application/json" : "application/x-protobuf");
        expect(request.headers["x-api-key"]).toBe(SECRET);
      }
      expect(new Set(got.spans.map((s) => s.traceId))).toEqual(new Set([CLIENT_TRACE]));
      const server = got.spans.find((s) => s.kind === 2);
      expect(server).toBeDefined();
      expect(server?.parentSpanId).toBe(CLIENT_SPAN);
      expect(server?.statusCode).toBe(2);
      expect(server?.attributes).toMatchObject({
        "http.request.method": "GET",
        "url.path": "/shop",
        "http.response.status_code": 521,
        "server.address": zone,
        "user_agent.original": "otel-test/1",
        "error.type": body.error_name,
        "edge_errors.code": 521,
        "edge_errors.answered_by": "default",
        "edge_errors.request_reached_origin": false,
        "edge_errors.format": "json",
        "cloudflare.ray_id": body.ray_id,
      });
      expect(server?.resource["service.name"]).toBe("edge-errors");
      const children = got.spans.filter((s) => s !== server);
      expect(children.every((s) => s.parentSpanId === server?.spanId)).toBe(true);
      expect(children.map((s) => s.name).sort()).toEqual(["edge_errors.firewall", "origin fetch"]);
      const origin = children.find((s) => s.name === "origin fetch");
      expect(origin?.kind).toBe(3);
      expect(origin?.statusCode).toBe(2);
      expect(origin?.attributes["error.type"]).toBe(body.error_name);
      expect(origin?.attributes["url.full"]).toBe(`${loopback(ports.closed)}/shop`);
      expect(got.spans.find((s) => s.name === "edge_errors.firewall")?.attributes["edge_errors.phase.outcome"]).toBe(
        "pass",
      );

      expect(got.logs).toHaveLength(1);
      const log = got.logs[0];
      expect(log?.traceId).toBe(CLIENT_TRACE);
      expect(log?.spanId).toBe(server?.spanId);
      expect(log?.severityText).toBe("ERROR");
      expect(log?.attributes).toMatchObject({
        "edge_errors.code": 521,
        "error.type": body.error_name,
        "cloudflare.ray_id": body.ray_id,
        "edge_errors.zone": zone,
        "edge_errors.source": "edge",
      });

      const status = (await apiOk<TelemetryStatus>("GET", `/zones/${zone}/telemetry`)).result;
      expect(status.exported).toBe(got.spans.length + got.logs.length);
      expect(status.dropped).toBe(0);
    });
  }

  it("trace_id is in the Markdown frontmatter and the HTML island too", async () => {
    const zone = await zoneFor("otel-formats", loopback(ports.closed));
    await withTelemetry(zone, receiverName());
    const md = await (
      await sendTraffic(`http://${zone}/`, { traceparent: CLIENT_PARENT, Accept: "text/markdown" })
    ).text();
    expect(md).toContain(`\ntrace_id: "${CLIENT_TRACE}"\n---\n`);
    const html = await (
      await sendTraffic(`http://${zone}/`, { traceparent: CLIENT_PARENT, Accept: "text/html" })
    ).text();
    const island = /<script type="application\/problem\+json" id="edge-error">(.*?)<\/script>/s.exec(html)?.[1];
    expect((JSON.parse(island ?? "{}") as { trace_id?: string }).trace_id).toBe(CLIENT_TRACE);
  });
});

describe("trace context to the origin", () => {
  it("the origin request carries the edge's span as parent, in the client's trace", async () => {
    const zone = await zoneFor("otel-origin", loopback(ports.http));
    const name = receiverName();
    await withTelemetry(zone, name, { protocol: "http/json", sample: { errors: 1, requests: 1 } });
    const res = await sendTraffic(`http://${zone}/echo`, { traceparent: CLIENT_PARENT, tracestate: "vendor=1" });
    expect(res.status).toBe(200);
    const echoed = await res.json<{ headers: Record<string, string> }>();
    const sent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(echoed.headers.traceparent ?? "");
    expect(sent?.[1]).toBe(CLIENT_TRACE);
    expect(sent?.[2]).not.toBe(CLIENT_SPAN);
    expect(echoed.headers.tracestate).toBe("vendor=1");
    const got = await received(name);
    const originSpan = got.spans.find((s) => s.kind === 3);
    expect(originSpan?.spanId).toBe(sent?.[2]);
    expect(originSpan?.traceId).toBe(CLIENT_TRACE);
    const server = got.spans.find((s) => s.kind === 2);
    expect(server?.statusCode).toBe(0);
    expect(server?.attributes["http.response.status_code"]).toBe(200);
    expect(server?.attributes["error.type"]).toBeUndefined();
    expect(got.logs).toHaveLength(0);
  });

  it("trace_context ignore: a new trace, and the origin gets it instead of the client's", async () => {
    const zone = await zoneFor("otel-ignore", loopback(ports.http));
    await withTelemetry(zone, receiverName(), { sample: { requests: 1 }, trace_context: "ignore" });
    const res = await sendTraffic(`http://${zone}/echo`, { traceparent: CLIENT_PARENT, tracestate: "vendor=1" });
    const echoed = await res.json<{ headers: Record<string, string> }>();
    expect(echoed.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(echoed.headers.traceparent).not.toContain(CLIENT_TRACE);
    expect(echoed.headers.tracestate).toBeUndefined();
  });

  it("a 4xx of the origin leaves the server span's status unset; a zone without telemetry passes traceparent on", async () => {
    const zone = await zoneFor("otel-404", loopback(ports.http));
    const name = receiverName();
    await withTelemetry(zone, name, { sample: { requests: 1 } });
    expect((await sendTraffic(`http://${zone}/status/404`)).status).toBe(404);
    const server = (await received(name)).spans.find((s) => s.kind === 2);
    expect(server?.attributes["http.response.status_code"]).toBe(404);
    expect(server?.statusCode).toBe(0);

    const plain = await zoneFor("otel-none", loopback(ports.http));
    const plainRes = await sendTraffic(`http://${plain}/echo`, { traceparent: CLIENT_PARENT });
    const echoed = await plainRes.json<{ headers: Record<string, string> }>();
    expect(echoed.headers.traceparent).toBe(CLIENT_PARENT);
    const errorRes = await sendTraffic(`http://${await zoneFor("otel-none-521", loopback(ports.closed))}/`);
    const error = await errorRes.json<object>();
    expect("trace_id" in error).toBe(false);
  });
});

describe("sampling and a receiver that is down", () => {
  it("sampling 0 sends nothing and puts no trace_id in the error", async () => {
    const zone = await zoneFor("otel-zero", loopback(ports.closed));
    const name = receiverName();
    await withTelemetry(zone, name, { sample: { errors: 0, requests: 0 } });
    for (let i = 0; i < 5; i++) {
      const res = await sendTraffic(`http://${zone}/`, { traceparent: CLIENT_PARENT });
      expect(res.status).toBe(521);
      expect("trace_id" in (await res.json<object>())).toBe(false);
    }
    expect(await received(name)).toEqual({ spans: [], logs: [], requests: [] });
  });

  it("a receiver that is down: traffic answers as usual, the drops are counted and the failure shown", async () => {
    const zone = await zoneFor("otel-down", loopback(ports.http));
    await withTelemetry(zone, "", { endpoint: `${loopback(ports.closed)}/v1/traces`, sample: { requests: 1 } });
    const res = await sendTraffic(`http://${zone}/echo`, { traceparent: CLIENT_PARENT });
    expect(res.status).toBe(200);
    const status = (await apiOk<TelemetryStatus>("GET", `/zones/${zone}/telemetry`)).result;
    expect(status.exported).toBe(0);
    expect(status.dropped).toBeGreaterThanOrEqual(2); // the server span and the origin fetch span
    expect(status.last_error).toContain(`${loopback(ports.closed)}/v1/traces`);
    // Backing off: the next request is answered, and its spans wait in the queue rather than call the receiver.
    expect((await sendTraffic(`http://${zone}/echo`)).status).toBe(200);
    const after = (await apiOk<TelemetryStatus & { queued: number }>("GET", `/zones/${zone}/telemetry`)).result;
    expect(after.dropped).toBe(status.dropped);
    expect(after.queued).toBeGreaterThanOrEqual(2);
  });
});

describe("settings", () => {
  it("header values are secrets: never in an answer (PUT, dry run, GET, the zone)", async () => {
    const zone = await zoneFor("otel-secret", loopback(ports.http));
    const body = {
      otlp: { endpoint: endpointOf("s"), protocol: "http/json", headers: { "x-api-key": SECRET } },
      sample: { errors: 0.5, requests: 0.25 },
      trace_context: "ignore",
    };
    const put = await api("PUT", `/zones/${zone}/telemetry`, body);
    const dry = await api("PUT", `/zones/${zone}/telemetry?dry_run=true`, body);
    const get = await api<TelemetryStatus>("GET", `/zones/${zone}/telemetry`);
    const whole = await api("GET", `/zones/${zone}`);
    for (const answer of [put, dry, get, whole]) {
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain(SECRET);
    }
    expect(get.body.result).toMatchObject({
      enabled: true,
      otlp: { endpoint: endpointOf("s"), protocol: "http/json", headers: { "x-api-key": "set" } },
      sample: { errors: 0.5, requests: 0.25 },
      trace_context: "ignore",
    });
    expect((await api("DELETE", `/zones/${zone}/telemetry`)).status).toBe(204);
    expect((await apiOk<TelemetryStatus>("GET", `/zones/${zone}/telemetry`)).result.enabled).toBe(false);
  });

  it("endpoints follow the webhook target rules; bad shapes are named", async () => {
    const zone = await zoneFor("otel-refused", loopback(ports.http));
    const put = (otlp: Record<string, unknown>, more: Record<string, unknown> = {}) =>
      api("PUT", `/zones/${zone}/telemetry`, { otlp: { protocol: "http/json", ...otlp }, ...more });
    const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
      [{ endpoint: "http://otlp.example.net/v1/traces" }, {}, "must use https"],
      [{ endpoint: "https://localhost/v1/traces" }, {}, "management API"],
      [{ endpoint: "https://10.1.2.3/v1/traces" }, {}, "private"],
      [
        { endpoint: "https://otlp.example.net/v1/traces", logs_endpoint: "https://192.168.0.1/v1/logs" },
        {},
        "otlp.logs_endpoint",
      ],
      [{ endpoint: "https://otlp.example.net/v1/traces", protocol: "grpc" }, {}, "otlp.protocol"],
      [{ endpoint: "https://otlp.example.net/v1/traces", headers: { "content-type": "x" } }, {}, "otlp.headers"],
      [{ endpoint: "https://otlp.example.net/v1/traces" }, { sample: { errors: 2 } }, "sample.errors"],
      [{ endpoint: "https://otlp.example.net/v1/traces" }, { trace_context: "reject" }, "trace_context"],
      [{ endpoint: "https://otlp.example.net/v1/traces" }, { extra: true }, "extra"],
    ];
    for (const [otlp, more, expected] of cases) {
      const answer = await put(otlp, more);
      expect(answer.status, JSON.stringify(otlp)).toBe(400);
      expect(answer.body.errors[0]?.code).toBe(20140);
      expect(answer.body.errors[0]?.message).toContain(expected);
    }
    expect((await put({ endpoint: "https://otlp.example.net/v1/traces" })).status).toBe(200);
  });
});
