/**
 * gRPC and gRPC-Web answers (docs/client.md "gRPC"; the service's docs/grpc.md): a call that meets an edge error gets
 * HTTP 200 with `grpc-status`, `grpc-message` and `grpc-status-details-bin` (a `google.rpc.Status` carrying an
 * `ErrorInfo` whose `domain` is `edge-errors` and, when retryable, a `RetryInfo`) in its headers. `readGrpcStatus`
 * reads those headers from any gRPC answer; `parseGrpcError` turns this service's into an `EdgeError`. Both take a
 * `Headers`: a response's, or the metadata a gRPC library hands over with its error (connect's `ConnectError.metadata`
 * holds a trailers-only answer's headers).
 *
 * The package has no runtime dependency, so the three messages are read by the small protobuf wire reader below
 * (https://protobuf.dev/programming-guides/encoding/): only the fields of status.proto and error_details.proto it
 * needs, every other field skipped by its wire type, any malformed byte a `null`. The tests feed it bytes written by
 * @bufbuild/protobuf's reflection API as well as the Worker's answers.
 */
import { CATALOG } from "./codes.js";
import { readRateLimit } from "./hints.js";
import { neverSent, ourProxyStatus } from "./proxy-status.js";
import type { EdgeError, EdgeErrorFields, GrpcErrorInfo, GrpcStatus } from "./types.js";

/** `ErrorInfo.domain` of this service's errors (the service's src/errors/grpc-details.ts). */
export const GRPC_ERROR_DOMAIN = "edge-errors";

const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
const RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo";

/**
 * The gRPC status these headers (or trailers) carry, `null` when they carry none or `grpc-status` is not a number.
 * The details, when readable, win for the message (it is not percent-encoded there); an unreadable
 * `grpc-status-details-bin` leaves `errorInfo` and `retryDelay` null.
 */
export function readGrpcStatus(headers: Headers): GrpcStatus | null {
  const raw = headers.get("grpc-status")?.trim();
  if (raw === undefined || !/^\d{1,2}$/.test(raw)) return null;
  const code = Number(raw);
  const details = headers.get("grpc-status-details-bin");
  const status = details === null ? null : decodeStatus(details);
  return {
    code,
    message: status?.message ?? percentDecoded(headers.get("grpc-message") ?? ""),
    errorInfo: status?.errorInfo ?? null,
    retryDelay: status?.retryDelay ?? null,
  };
}

/** Whether a response is a gRPC answer carrying a status in its headers (a Trailers-Only answer). */
export function isGrpcStatusAnswer(response: Response): boolean {
  const type = (response.headers.get("Content-Type") ?? "").trim().toLowerCase();
  return type.startsWith("application/grpc") && response.headers.has("grpc-status");
}

/**
 * This service's error in gRPC headers: a non-zero `grpc-status` whose `ErrorInfo` has the domain `edge-errors`
 * (its `metadata.code` is the catalog code). `null` for `OK`, another server's status, or headers without it.
 * `httpStatus`: the response's status when there is one (200 for a Trailers-Only answer).
 */
export function parseGrpcError(headers: Headers, httpStatus = 200): EdgeError | null {
  const grpc = readGrpcStatus(headers);
  if (grpc === null || grpc.code === 0 || grpc.errorInfo?.domain !== GRPC_ERROR_DOMAIN) return null;
  const info = grpc.errorInfo;
  const code = Number(info.metadata.code);
  if (!Number.isInteger(code)) return null;
  const entry = CATALOG.get(code);
  // RetryInfo is sent exactly when the error is retryable; the headers' own verdicts win over it.
  const shouldRetry = headers.get("x-should-retry")?.trim();
  const retryable = shouldRetry === "true" ? true : shouldRetry === "false" ? false : grpc.retryDelay !== null;
  const retryAfterHeader = /^\d+$/.test(headers.get("Retry-After")?.trim() ?? "")
    ? Number(headers.get("Retry-After"))
    : null;
  const retryAfter = retryable ? (retryAfterHeader ?? grpc.retryDelay ?? entry?.retryAfter ?? null) : null;
  const retryMs = Number(headers.get("retry-after-ms"));
  const rayId = headers.get("Ray-ID") ?? info.metadata.ray_id ?? null;
  const proxyStatus = ourProxyStatus(headers.get("Proxy-Status"));
  const fields: Partial<EdgeErrorFields> = {
    title: grpc.message,
    error_code: code,
    error_name: info.reason,
    ...(rayId === null ? {} : { ray_id: rayId }),
    retryable,
    ...(retryAfter === null ? {} : { retry_after: retryAfter }),
  };
  return {
    kind: "edge-error",
    source: "grpc",
    status: httpStatus,
    code,
    name: info.reason,
    category: entry?.category ?? null,
    rayId,
    retryable,
    retryAfter,
    retryAfterMs:
      retryAfter === null ? null : Number.isFinite(retryMs) && retryMs > 0 ? Math.ceil(retryMs) : retryAfter * 1000,
    ownerActionRequired: entry?.ownerActionRequired ?? null,
    // A gRPC answer has no body to say it: this service's Proxy-Status says when the request was never sent.
    requestReachedOrigin: neverSent(proxyStatus),
    fields,
    proxyStatus,
    rateLimit: readRateLimit(headers),
    grpc,
  };
}

/** `grpc-message` is percent-encoded UTF-8 (gRPC's PROTOCOL-HTTP2.md); a malformed escape leaves the text as sent. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

interface DecodedStatus {
  readonly message: string;
  readonly errorInfo: GrpcErrorInfo | null;
  readonly retryDelay: number | null;
}

/** A base64 (padded or not, standard or URL alphabet) `google.rpc.Status`; `null` when malformed. */
function decodeStatus(value: string): DecodedStatus | null {
  const bytes = base64Bytes(value);
  if (bytes === null) return null;
  let message = "";
  let errorInfo: GrpcErrorInfo | null = null;
  let retryDelay: number | null = null;
  // Status: int32 code = 1; string message = 2; repeated google.protobuf.Any details = 3.
  const ok = readFields(bytes, (field, value) => {
    if (field === 2 && value instanceof Uint8Array) message = utf8(value);
    if (field !== 3 || !(value instanceof Uint8Array)) return true;
    const any = readAny(value);
    if (any === null) return false;
    if (any.typeUrl === ERROR_INFO) errorInfo = readErrorInfo(any.value) ?? errorInfo;
    if (any.typeUrl === RETRY_INFO) retryDelay = readRetryInfo(any.value) ?? retryDelay;
    return true;
  });
  return ok ? { message, errorInfo, retryDelay } : null;
}

/** google.protobuf.Any: string type_url = 1; bytes value = 2. */
function readAny(bytes: Uint8Array): { typeUrl: string; value: Uint8Array } | null {
  let typeUrl = "";
  let value: Uint8Array = new Uint8Array(0);
  const ok = readFields(bytes, (field, v) => {
    if (field === 1 && v instanceof Uint8Array) typeUrl = utf8(v);
    if (field === 2 && v instanceof Uint8Array) value = v;
    return true;
  });
  return ok ? { typeUrl, value } : null;
}

/** ErrorInfo: string reason = 1; string domain = 2; map<string, string> metadata = 3 (entry: key = 1, value = 2). */
function readErrorInfo(bytes: Uint8Array): GrpcErrorInfo | null {
  let reason = "";
  let domain = "";
  const metadata: Record<string, string> = {};
  const ok = readFields(bytes, (field, v) => {
    if (!(v instanceof Uint8Array)) return true;
    if (field === 1) reason = utf8(v);
    else if (field === 2) domain = utf8(v);
    else if (field === 3) {
      let key = "";
      let value = "";
      const entry = readFields(v, (f, e) => {
        if (f === 1 && e instanceof Uint8Array) key = utf8(e);
        if (f === 2 && e instanceof Uint8Array) value = utf8(e);
        return true;
      });
      if (!entry) return false;
      metadata[key] = value;
    }
    return true;
  });
  return ok ? { reason, domain, metadata } : null;
}

/** RetryInfo: google.protobuf.Duration retry_delay = 1; Duration: int64 seconds = 1; int32 nanos = 2. Seconds. */
function readRetryInfo(bytes: Uint8Array): number | null {
  let seconds: number | null = null;
  const ok = readFields(bytes, (field, v) => {
    if (field !== 1 || !(v instanceof Uint8Array)) return true;
    let s = 0;
    let nanos = 0;
    const duration = readFields(v, (f, d) => {
      if (f === 1 && typeof d === "number") s = d;
      if (f === 2 && typeof d === "number") nanos = d;
      return true;
    });
    if (!duration) return false;
    seconds = s + Math.max(0, nanos) / 1e9;
    return true;
  });
  return ok ? seconds : null;
}

/**
 * Calls `visit` with each field of a message: a varint as a number (exact below 2^53, which every field read here
 * is), a length-delimited field as its bytes; fixed-width fields are skipped. `false` when the bytes are not a
 * well-formed message or `visit` says so.
 */
function readFields(bytes: Uint8Array, visit: (field: number, value: number | Uint8Array) => boolean): boolean {
  let at = 0;
  while (at < bytes.length) {
    const tag = readVarint(bytes, at);
    if (tag === null) return false;
    at = tag.next;
    const field = Math.floor(tag.value / 8);
    const wireType = tag.value % 8;
    if (field === 0) return false;
    if (wireType === 0) {
      const v = readVarint(bytes, at);
      if (v === null) return false;
      at = v.next;
      if (!visit(field, v.value)) return false;
    } else if (wireType === 2) {
      const length = readVarint(bytes, at);
      if (length === null || length.next + length.value > bytes.length) return false;
      at = length.next + length.value;
      if (!visit(field, bytes.subarray(length.next, at))) return false;
    } else if (wireType === 1 || wireType === 5) {
      at += wireType === 1 ? 8 : 4;
      if (at > bytes.length) return false;
    } else return false;
  }
  return true;
}

/** One base-128 varint (at most 10 bytes); its value as a number. */
function readVarint(bytes: Uint8Array, start: number): { value: number; next: number } | null {
  let value = 0;
  let scale = 1;
  for (let at = start; at < bytes.length && at < start + 10; at++) {
    const byte = bytes[at] as number;
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if (byte < 0x80) return { value, next: at + 1 };
  }
  return null;
}

function base64Bytes(value: string): Uint8Array | null {
  const std = value.trim().replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  if (!/^[A-Za-z0-9+/]*$/.test(std) || std.length % 4 === 1) return null;
  try {
    const binary = atob(std + "=".repeat((4 - (std.length % 4)) % 4));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

const decoder = new TextDecoder();
function utf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}
