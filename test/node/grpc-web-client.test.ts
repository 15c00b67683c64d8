/**
 * A real gRPC-Web client through the real Worker (docs/grpc.md): connect's gRPC-Web transport
 * (`@connectrpc/connect-web` `createGrpcWebTransport`, over Node's fetch) calls a unary method on a host whose origin
 * refuses connections; the Worker (src/index.ts bundled, served by Miniflare on 127.0.0.1) answers Trailers-Only.
 * The client raises `Code.Unavailable` and finds our `ErrorInfo` and `RetryInfo` among the error's details with the
 * descriptors of test/servers/google-rpc.ts; the client package reads the same error from the metadata.
 */
import { closedPort } from "../servers/ports.ts";
import { resolve } from "node:path";
import { create } from "@bufbuild/protobuf";
import { file_google_protobuf_empty, FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { createFileRegistry } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveWorker, type Served } from "../../bench/lib/serve.ts";
import { parseGrpcError } from "../../packages/client/src/grpc.ts";
import { ERROR_INFO, RETRY_INFO } from "../servers/google-rpc.ts";

const root = resolve(import.meta.dirname, "../..");

/** A one-method service (`edge.test.Echo/Ping`, Empty → Empty): the Worker never reaches it, its origin is down. */
const ECHO = createFileRegistry(
  create(FileDescriptorProtoSchema, {
    name: "edge/test/echo.proto",
    package: "edge.test",
    syntax: "proto3",
    dependency: ["google/protobuf/empty.proto"],
    service: [
      {
        name: "Echo",
        method: [{ name: "Ping", inputType: ".google.protobuf.Empty", outputType: ".google.protobuf.Empty" }],
      },
    ],
  }),
  (name) => (name === "google/protobuf/empty.proto" ? file_google_protobuf_empty : undefined),
).getService("edge.test.Echo");

type UnaryCall = (request: object, options: { timeoutMs: number }) => Promise<unknown>;

let served: Served;
beforeAll(async () => {
  // Hosts without a zone go to DEFAULT_ORIGIN (docs/configuration.md): `localhost`, no API host here, then reaches
  // the closed port.
  served = await serveWorker({
    root,
    entry: "src/index.ts",
    bindings: { API_HOSTS: "api.test", DEFAULT_ORIGIN: `http://127.0.0.1:${await closedPort()}` },
  });
}, 120_000);
afterAll(() => served?.dispose());

describe("connect's gRPC-Web transport through the Worker", () => {
  it("gets Code.Unavailable with our ErrorInfo and RetryInfo; the client package reads the same error", async () => {
    if (ECHO === undefined) throw new Error("the test service did not build");
    const transport = createGrpcWebTransport({ baseUrl: `http://localhost:${served.url.port}` });
    // A service built at run time has no generated types: its one method, as connect makes it.
    const client = createClient(ECHO, transport) as unknown as Readonly<Record<"ping", UnaryCall>>;
    const caught = await client.ping({}, { timeoutMs: 20_000 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(caught).toBeInstanceOf(ConnectError);
    const error = caught as ConnectError;
    expect(error.code).toBe(Code.Unavailable);
    expect(error.rawMessage).toBe("Error 521: Web server is down");
    const ray = error.metadata.get("Ray-ID") ?? "";
    expect(ray).toMatch(/^[0-9a-f]{16}$/);
    const [info] = error.findDetails(ERROR_INFO);
    expect(info).toMatchObject({
      reason: "origin_down",
      domain: "edge-errors",
      metadata: { code: "521", ray_id: ray },
    });
    const [retry] = error.findDetails(RETRY_INFO) as { retryDelay?: { seconds: bigint } }[];
    expect(retry?.retryDelay?.seconds).toBe(120n);
    // connect keeps a Trailers-Only answer's headers as the error's metadata: the client package reads them.
    const edge = parseGrpcError(error.metadata);
    expect(edge).toMatchObject({
      source: "grpc",
      code: 521,
      name: "origin_down",
      rayId: ray,
      retryable: true,
      retryAfter: 120,
      // Proxy-Status `connection_refused`: the request never left the edge, so a POST may be retried.
      requestReachedOrigin: false,
      grpc: { code: 14, errorInfo: { reason: "origin_down", domain: "edge-errors" }, retryDelay: 120 },
    });
  });
});
