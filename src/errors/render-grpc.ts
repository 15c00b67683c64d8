/**
 * The answer a gRPC or gRPC-Web client gets for a generated error (docs/grpc.md): Trailers-Only, the one form of a
 * gRPC response that carries only a status ("Trailers-Only is permitted for calls that produce an immediate error",
 * https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md): HTTP 200, the request's own gRPC content type,
 * `grpc-status`, `grpc-message`, `grpc-status-details-bin`, an empty body, and the headers of every generated error
 * (`Ray-ID`, `Proxy-Status`, the retry verdicts: headers.ts). gRPC-Web sends the same header block: its protocol
 * allows trailers "sent together with response headers, with no message in the body"
 * (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-WEB.md), which is what connect-web, grpc-web and Envoy's
 * filter read (docs/grpc.md "gRPC-Web: headers, not a trailer frame"). Pure: no bindings.
 */
import type { ErrorFields } from "./fields";
import type { HeaderRecord } from "./headers";
import { statusDetailsHeader } from "./grpc-details";
import { grpcStatusOf } from "./grpc-status";

/**
 * The gRPC content types (PROTOCOL-HTTP2.md "Content-Type", PROTOCOL-WEB.md): `application/grpc`,
 * `application/grpc-web` and `application/grpc-web-text`, each with an optional `+codec` suffix.
 */
const GRPC_CONTENT_TYPE = /^application\/grpc(?:-web(?:-text)?)?(?:\+[a-z0-9][a-z0-9._-]{0,31})?$/;

/**
 * The request's gRPC content type (lower case, parameters dropped), or `null` for every request that is not a gRPC
 * or gRPC-Web call. The answer repeats it: a client checks the response's content type against what it sent.
 */
export function grpcContentType(request: Request): string | null {
  const value = request.headers.get("Content-Type");
  // Every other request pays one header read and this prefix test.
  if (value === null || value.length > 96 || !/^\s*application\/grpc/i.test(value)) return null;
  const type = value.split(";", 1)[0]!.trim().toLowerCase();
  return GRPC_CONTENT_TYPE.test(type) ? type : null;
}

const utf8 = new TextEncoder();

/**
 * `grpc-message`: "Percent-Byte-Unencoded = 1*( %x20-%x24 / %x26-%x7E )", every other byte of the UTF-8 text as
 * `%XX` (PROTOCOL-HTTP2.md "Responses").
 */
export function percentEncoded(text: string): string {
  // A title of printable ASCII without `%` (every English one) is sent as it is.
  if (/^[\x20-\x24\x26-\x7e]*$/.test(text)) return text;
  let out = "";
  for (const byte of utf8.encode(text)) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** What the answer needs besides the error's fields. */
export interface GrpcAnswerInput {
  /** The request's gRPC content type (`grpcContentType`). */
  readonly contentType: string;
  /** The request carried `grpc-timeout` (a 524 is then `DEADLINE_EXCEEDED`: grpc-status.ts). */
  readonly deadlineSent: boolean;
  /** The headers every generated error has (headers.ts `buildErrorHeaders`), for this error. */
  readonly headers: HeaderRecord;
}

/** The Trailers-Only answer of one generated error. */
export function grpcAnswer(fields: ErrorFields, input: GrpcAnswerInput): Response {
  const code = grpcStatusOf(fields.error_code, fields.status, input.deadlineSent);
  const headers: HeaderRecord = { ...input.headers, "Content-Type": input.contentType };
  // No document is sent: a page's policy says nothing about an empty body.
  delete headers["Content-Security-Policy"];
  headers["grpc-status"] = String(code);
  headers["grpc-message"] = percentEncoded(fields.title);
  headers["grpc-status-details-bin"] = statusDetailsHeader({
    code,
    message: fields.title,
    reason: fields.error_name,
    errorCode: fields.error_code,
    rayId: fields.ray_id,
    retryAfter: fields.retry_after ?? null,
  });
  return new Response(null, { status: 200, headers });
}
