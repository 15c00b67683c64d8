/**
 * The exporter's bounds (docs/telemetry.md "Export"), driven directly: at most one export in flight per zone, counted
 * as connections at a receiver that never answers (test/servers/webhook-receiver.ts `/hang/{name}`), and a queue
 * that keeps 2,048 spans and 2,048 log records, dropping and counting the rest.
 */
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  EXPORT_LIMITS,
  enqueueTelemetry,
  exportStats,
  type LogRecordData,
  type SpanData,
  type TelemetryTarget,
} from "../../../../src/edge/telemetry/exporter";
import { loopback, ports } from "../../support/origin";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

function spans(n: number): SpanData[] {
  return Array.from({ length: n }, (_, i) => ({
    name: "GET",
    kind: 2,
    traceId: TRACE,
    spanId: (i + 1).toString(16).padStart(16, "0"),
    parentSpanId: null,
    parentRemote: false,
    traceState: null,
    flags: 1,
    start: 1_700_000_000_000,
    end: 1_700_000_000_001,
    attributes: { "http.request.method": "GET" },
    status: { code: 0 },
  }));
}

function logs(n: number): LogRecordData[] {
  return Array.from({ length: n }, (_, i) => ({
    time: 1_700_000_000_000,
    traceId: TRACE,
    spanId: (i + 1).toString(16).padStart(16, "0"),
    flags: 1,
    severityNumber: 17,
    severityText: "ERROR",
    body: "edge error 521 origin_connection_refused",
    attributes: { "edge_errors.code": 521 },
  }));
}

/** A zone whose receiver takes every export and never answers it. */
function hangingTarget(name: string): TelemetryTarget {
  const endpoint = `${loopback(ports.webhook)}/hang/${name}`;
  return {
    zone: `exporter-${name}.test`,
    settings: {
      otlp: { endpoint, protocol: "http/protobuf", headers: {} },
      sample: { errors: 1, requests: 1 },
      trace_context: "accept",
    },
    logsEndpoint: endpoint,
  };
}

async function openAt(name: string): Promise<{ hung: number; open: number }> {
  const res = await fetch(`${loopback(ports.webhook)}/open/${name}`);
  return await res.json<{ hung: number; open: number }>();
}

/** Polls the receiver until `want` holds (the export starts in waitUntil, after enqueueTelemetry returns). */
async function until(
  name: string,
  want: (c: { hung: number; open: number }) => boolean,
): Promise<{ hung: number; open: number }> {
  for (let i = 0; i < 200; i++) {
    const c = await openAt(name);
    if (want(c)) return c;
    await new Promise((r) => setTimeout(r, 25));
  }
  return await openAt(name);
}

describe("the exporter's bounds", () => {
  it("one export in flight per zone: three sampled requests while it hangs make one connection", async () => {
    const name = `one-${Math.random().toString(36).slice(2, 8)}`;
    const target = hangingTarget(name);
    const ctx = createExecutionContext();
    enqueueTelemetry(target, spans(2), logs(1), ctx);
    expect((await until(name, (c) => c.hung >= 1)).hung).toBe(1);
    enqueueTelemetry(target, spans(2), logs(1), ctx);
    enqueueTelemetry(target, spans(2), logs(1), ctx);
    // Give a second export every chance to start: the receiver still saw one.
    await new Promise((r) => setTimeout(r, 200));
    expect(await openAt(name)).toEqual({ hung: 1, open: 1 });
    // The first batch (2 spans) is in flight; what came meanwhile waits for it.
    expect(exportStats(target.zone)).toMatchObject({ exported: 0, dropped: 0, queued: 4 + 3 });
  });

  it("the queue keeps 2,048 spans and 2,048 log records; the rest is dropped and counted", async () => {
    const name = `full-${Math.random().toString(36).slice(2, 8)}`;
    const target = hangingTarget(name);
    const ctx = createExecutionContext();
    enqueueTelemetry(target, spans(1), [], ctx);
    await until(name, (c) => c.hung >= 1);
    // In flight: the first span. The queue is empty again and now takes at most its bound of each.
    enqueueTelemetry(target, spans(3_000), logs(2_500), ctx);
    enqueueTelemetry(target, spans(10), logs(10), ctx);
    const stats = exportStats(target.zone);
    expect(stats.queued).toBe(EXPORT_LIMITS.queue * 2);
    expect(stats.dropped).toBe(3_000 + 10 - EXPORT_LIMITS.queue + (2_500 + 10 - EXPORT_LIMITS.queue));
    expect(stats.exported).toBe(0);
    expect((await openAt(name)).hung).toBe(1);
  });
});
