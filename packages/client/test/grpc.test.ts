/**
 * gRPC answers (docs/client.md "gRPC"): `readGrpcStatus` against `google.rpc.Status` bytes written by @bufbuild/protobuf's
 * reflection API (test/servers/google-rpc.ts), so the package's small wire reader is checked against the library;
 * then `parse`, `parseGrpcError` and `fetchWithRetry` against the real Worker's Trailers-Only answers.
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { anyPack, DurationSchema } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_INFO, RETRY_INFO, STATUS } from "../../../test/servers/google-rpc.ts";
import { fetchWithRetry, parse, parseGrpcError, readGrpcStatus } from "../src/index.js";
import { closedPort, startWorker, type TestWorker } from "./support/worker.js";

/** A Status the library writes: ErrorInfo, RetryInfo, and a detail of a type the reader does not know. */
function libraryStatus(options: { domain: string; seconds?: bigint; nanos?: number }): Uint8Array {
  const info = create(ERROR_INFO, {});
  const retry = create(RETRY_INFO, {});
  const infoFields = info as unknown as Record<string, unknown>;
  infoFields.reason = "rate_limited";
  infoFields.domain = options.domain;
  infoFields.metadata = { code: "1015", ray_id: "0123456789abcdef" };
  (retry as unknown as Record<string, unknown>).retryDelay = create(DurationSchema, {
    seconds: options.seconds ?? 30n,
    nanos: options.nanos ?? 0,
  });
  const status = create(STATUS, {});
  const statusFields = status as unknown as Record<string, unknown>;
  statusFields.code = 8;
  statusFields.message = "Error 1015: You are being rate limited — ünïcode";
  statusFields.details = [
    anyPack(DurationSchema, create(DurationSchema, { seconds: 5n })),
    anyPack(ERROR_INFO, info),
    anyPack(RETRY_INFO, retry),
  ];
  return toBinary(STATUS, status);
}

describe("readGrpcStatus: bytes written by @bufbuild/protobuf", () => {
  it("reads code, message, ErrorInfo and RetryInfo, skipping a detail it does not know", () => {
    const bytes = libraryStatus({ domain: "edge-errors", seconds: 30n, nanos: 500_000_000 });
    for (const encoding of ["std", "std_raw", "url"] as const) {
      const headers = new Headers({
        "grpc-status": "8",
        "grpc-message": "ignored when the details are readable",
        "grpc-status-details-bin": base64Encode(bytes, encoding),
      });
      expect(readGrpcStatus(headers), encoding).toEqual({
        code: 8,
        message: "Error 1015: You are being rate limited — ünïcode",
        errorInfo: {
          reason: "rate_limited",
          domain: "edge-errors",
          metadata: { code: "1015", ray_id: "0123456789abcdef" },
        },
        retryDelay: 30.5,
      });
    }
  });

  it("unreadable details: the status and the percent-decoded grpc-message only", () => {
    const truncated = base64Encode(libraryStatus({ domain: "edge-errors" }).subarray(0, 40));
    for (const details of [truncated, "not base64!", "AAAA"]) {
      const status = readGrpcStatus(
        new Headers({
          "grpc-status": "14",
          "grpc-message": "Fehler%20521%3A%20%C3%BC",
          "grpc-status-details-bin": details,
        }),
      );
      expect(status, details).toEqual({ code: 14, message: "Fehler 521: ü", errorInfo: null, retryDelay: null });
    }
    expect(readGrpcStatus(new Headers({ "grpc-status": "x" }))).toBeNull();
    expect(readGrpcStatus(new Headers())).toBeNull();
  });

  it("another server's ErrorInfo, or OK, is not an edge error", () => {
    const theirs = base64Encode(libraryStatus({ domain: "googleapis.com" }));
    expect(parseGrpcError(new Headers({ "grpc-status": "8", "grpc-status-details-bin": theirs }))).toBeNull();
    expect(parseGrpcError(new Headers({ "grpc-status": "0" }))).toBeNull();
    const ours = base64Encode(libraryStatus({ domain: "edge-errors" }));
    expect(parseGrpcError(new Headers({ "grpc-status": "8", "grpc-status-details-bin": ours }))).toMatchObject({
      source: "grpc",
      code: 1015,
      name: "rate_limited",
      retryable: true,
      retryAfter: 30,
    });
  });
});

describe("against the real Worker", () => {
  let worker: TestWorker;
  beforeAll(async () => {
    worker = await startWorker();
  }, 120_000);
  afterAll(() => worker?.dispose());

  it("parse reads a Trailers-Only answer: 1015 retryable, 525 not, both with the catalog's meaning", async () => {
    const ask = (code: number) =>
      fetch(`${worker.base}/cdn-cgi/error/${code}`, { headers: { "Content-Type": "application/grpc-web+proto" } });
    const limited = await ask(1015);
    expect(limited.status).toBe(200);
    expect(await parse(limited)).toMatchObject({
      source: "grpc",
      status: 200,
      code: 1015,
      name: "rate_limited",
      category: "rate_limit",
      retryable: true,
      retryAfter: 30,
      retryAfterMs: 30_000,
      requestReachedOrigin: false,
      grpc: { code: 8, message: "Error 1015: You are being rate limited", retryDelay: 30 },
    });
    const tls = await parse(await ask(525));
    expect(tls).toMatchObject({ code: 525, retryable: false, retryAfter: null, ownerActionRequired: true });
    expect(tls?.grpc).toMatchObject({ code: 14, retryDelay: null });
  });

  it("fetchWithRetry retries a gRPC POST the edge never sent, waiting what RetryInfo and Retry-After say", async () => {
    const zone = `grpc-client-${Date.now()}.example`;
    await worker.put(`/zones/${zone}`, {
      plan: "pro",
      origin: `http://127.0.0.1:${await closedPort()}`,
      connect_timeout: 1,
    });
    const waits: number[] = [];
    const result = await fetchWithRetry(
      `http://${zone}/edge.test.Echo/Ping`,
      { method: "POST", headers: { "Content-Type": "application/grpc-web+proto" }, body: new Uint8Array(5) },
      {
        fetch: worker.zoneFetch,
        maxAttempts: 2,
        maxDelayMs: 200_000,
        jitter: 0,
        sleep: async (ms) => void waits.push(ms),
      },
    );
    expect(result.attempts).toBe(2);
    expect(waits).toEqual([120_000]);
    expect(result.error).toMatchObject({ source: "grpc", code: 521, grpc: { code: 14 } });
    // 521: the website's owner must act once the attempts are used.
    expect(result.decision).toEqual({ kind: "escalate", reason: "2 attempts used" });
  });
});
