/**
 * `grpc-status-details-bin` of a generated error (docs/grpc.md "Details"): a `google.rpc.Status`
 * (https://github.com/googleapis/googleapis/blob/master/google/rpc/status.proto) carrying an `ErrorInfo` and, when
 * the error is retryable, a `RetryInfo` (https://github.com/googleapis/googleapis/blob/master/google/rpc/error_details.proto),
 * each packed in a `google.protobuf.Any`. Pure: no bindings.
 *
 * Written with the wire writer of @bufbuild/protobuf (`@bufbuild/protobuf/wire`), not its reflection API: the four
 * messages are fixed, and the reflection API would bring message descriptors and their registry into the bundle for
 * three fields each (docs/grpc.md "Why the wire writer"). The tests decode the bytes with the library's reflection API
 * from the .proto definitions, so a field number or wire type written wrong here fails them.
 */
import { base64Encode, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";

/** `ErrorInfo.domain` of every error this service generates: its name, as in `Proxy-Status` (proxy-status.ts). */
export const GRPC_ERROR_DOMAIN = "edge-errors";

const ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo";
const RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo";

/** What the details say about one error. */
export interface GrpcDetails {
  /** The gRPC status code (also `grpc-status`). */
  readonly code: number;
  /** The human message (also `grpc-message`, there percent-encoded). */
  readonly message: string;
  /** `ErrorInfo.reason`: the catalog's `error_name`. */
  readonly reason: string;
  /** `ErrorInfo.metadata`: `code` (the catalog code) and `ray_id`. */
  readonly errorCode: number;
  readonly rayId: string;
  /** `RetryInfo.retry_delay` in seconds; `null`: not retryable, no `RetryInfo`. */
  readonly retryAfter: number | null;
}

/** The `google.rpc.Status` message as bytes. */
export function statusDetails(d: GrpcDetails): Uint8Array {
  const w = new BinaryWriter();
  // Status: int32 code = 1; string message = 2; repeated google.protobuf.Any details = 3.
  if (d.code !== 0) w.tag(1, WireType.Varint).int32(d.code);
  if (d.message !== "") w.tag(2, WireType.LengthDelimited).string(d.message);
  w.tag(3, WireType.LengthDelimited).fork();
  packAny(w, ERROR_INFO_TYPE, errorInfo(d));
  w.join();
  if (d.retryAfter !== null) {
    w.tag(3, WireType.LengthDelimited).fork();
    packAny(w, RETRY_INFO_TYPE, retryInfo(d.retryAfter));
    w.join();
  }
  return w.finish();
}

/**
 * The header value: base64 without padding, as gRPC over HTTP/2 asks of binary headers ("Implementations MUST accept
 * padded and un-padded values and should emit un-padded values",
 * https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md).
 */
export function statusDetailsHeader(d: GrpcDetails): string {
  return base64Encode(statusDetails(d), "std_raw");
}

/** google.protobuf.Any: string type_url = 1; bytes value = 2. */
function packAny(w: BinaryWriter, typeUrl: string, value: Uint8Array): void {
  w.tag(1, WireType.LengthDelimited).string(typeUrl);
  w.tag(2, WireType.LengthDelimited).bytes(value);
}

/** ErrorInfo: string reason = 1; string domain = 2; map<string, string> metadata = 3 (entries: key = 1, value = 2). */
function errorInfo(d: GrpcDetails): Uint8Array {
  const w = new BinaryWriter();
  w.tag(1, WireType.LengthDelimited).string(d.reason);
  w.tag(2, WireType.LengthDelimited).string(GRPC_ERROR_DOMAIN);
  for (const [key, value] of [
    ["code", String(d.errorCode)],
    ["ray_id", d.rayId],
  ] as const) {
    w.tag(3, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).string(key);
    w.tag(2, WireType.LengthDelimited).string(value);
    w.join();
  }
  return w.finish();
}

/** RetryInfo: google.protobuf.Duration retry_delay = 1 (Duration: int64 seconds = 1; int32 nanos = 2). */
function retryInfo(seconds: number): Uint8Array {
  const w = new BinaryWriter();
  w.tag(1, WireType.LengthDelimited).fork();
  w.tag(1, WireType.Varint).int64(seconds);
  w.join();
  return w.finish();
}
