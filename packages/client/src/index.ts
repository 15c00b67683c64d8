/** @edge-errors/client: read edge errors, retry the way they say (README.md; docs/client.md in the repository). */
export { ACCEPT } from "./accept.js";
export { CATALOG, RETRY_DEFAULTS, type CatalogEntry } from "./codes.js";
export { fetchWithRetry, type FetchResult, type FetchWithRetryOptions } from "./fetch.js";
export {
  kyAfterResponse,
  kyRetry,
  type KyAfterResponseArgs,
  type KyAfterResponseHook,
  type KyRetryLike,
} from "./ky.js";
export {
  readHints,
  readRateLimit,
  retryAfterHeader,
  retryAfterMsHeader,
  shouldRetryHeader,
  type RetryHints,
} from "./hints.js";
export { GRPC_ERROR_DOMAIN, isGrpcStatusAnswer, parseGrpcError, readGrpcStatus } from "./grpc.js";
export { parseMcpError } from "./mcp.js";
export { parse, PROXY_NAME } from "./parse.js";
export { decideRetry, type RetryContext, type RetryDecision, type RetryOptions } from "./retry.js";
export { readStale } from "./stale.js";
export { parseStreamError } from "./stream.js";
export { parseSfList, type SfBareItem, type SfItem, type SfMember, type SfToken } from "./structured-field.js";
export type {
  EdgeError,
  EdgeErrorFields,
  EdgeErrorLink,
  EdgeErrorSource,
  GrpcErrorInfo,
  GrpcStatus,
  ProxyStatus,
  RateLimitInfo,
  RateLimitPolicy,
  ServiceLimit,
  StaleAnswer,
} from "./types.js";
