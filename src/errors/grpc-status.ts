/**
 * The gRPC status of a generated error (docs/grpc.md "The mapping"): one table from this service's codes and statuses
 * to the canonical codes of https://grpc.github.io/grpc/core/md_doc_statuscodes.html. Pure: no bindings.
 *
 * An origin that cannot be reached is what gRPC calls `UNAVAILABLE` (the one code its docs call retryable by the
 * client at once: "most likely a transient condition"); a rate limit is `RESOURCE_EXHAUSTED` ("some resource has
 * been exhausted, perhaps a per-user quota"); a block by the zone's policy is `PERMISSION_DENIED`; a missing
 * credential `UNAUTHENTICATED`. A 524 is `DEADLINE_EXCEEDED` only when the client set a deadline (`grpc-timeout`):
 * then the client's own deadline is what a gRPC library reports; without one the timeout is the edge's, and the
 * call may succeed on a retry, so `UNAVAILABLE`. Everything else is `UNKNOWN`, which no gRPC library retries.
 */

/** The canonical gRPC status codes this service sends (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
export const GRPC_CODES = {
  UNKNOWN: 2,
  DEADLINE_EXCEEDED: 4,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcCode = (typeof GRPC_CODES)[keyof typeof GRPC_CODES];

/** Catalog codes with a status of their own; 524 is decided by `grpc-timeout` (`grpcStatusOf`). */
export const GRPC_BY_CODE: Readonly<Record<number, GrpcCode>> = {
  521: GRPC_CODES.UNAVAILABLE,
  522: GRPC_CODES.UNAVAILABLE,
  523: GRPC_CODES.UNAVAILABLE,
  525: GRPC_CODES.UNAVAILABLE,
  526: GRPC_CODES.UNAVAILABLE,
  1016: GRPC_CODES.UNAVAILABLE,
  1015: GRPC_CODES.RESOURCE_EXHAUSTED,
  1006: GRPC_CODES.PERMISSION_DENIED,
  1009: GRPC_CODES.PERMISSION_DENIED,
  1020: GRPC_CODES.PERMISSION_DENIED,
};

/** Then the HTTP status the error would have had (a 530 tunnel error, every 429 and 403 of the catalog). */
export const GRPC_BY_STATUS: Readonly<Record<number, GrpcCode>> = {
  530: GRPC_CODES.UNAVAILABLE,
  429: GRPC_CODES.RESOURCE_EXHAUSTED,
  403: GRPC_CODES.PERMISSION_DENIED,
  401: GRPC_CODES.UNAUTHENTICATED,
};

/** The catalog code whose gRPC status depends on whether the client sent a deadline. */
const ORIGIN_READ_TIMEOUT = 524;

/**
 * The gRPC status of catalog `code` answered with HTTP `status`; `deadlineSent`: the request carried `grpc-timeout`.
 * By code first, then by status, else `UNKNOWN`.
 */
export function grpcStatusOf(code: number, status: number, deadlineSent: boolean): GrpcCode {
  if (code === ORIGIN_READ_TIMEOUT) return deadlineSent ? GRPC_CODES.DEADLINE_EXCEEDED : GRPC_CODES.UNAVAILABLE;
  return GRPC_BY_CODE[code] ?? GRPC_BY_STATUS[status] ?? GRPC_CODES.UNKNOWN;
}
