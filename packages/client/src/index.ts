/** @edge-errors/client: read edge errors, retry the way they say (contract §10; README.md). */
export { ACCEPT } from "./accept";
export { RETRY_DEFAULTS } from "./codes";
export { fetchWithRetry, type FetchResult, type FetchWithRetryOptions } from "./fetch";
export { kyAfterResponse, kyRetry, type KyRetryLike } from "./ky";
export { parse, PROXY_NAME, retryAfterHeader } from "./parse";
export { decideRetry, type RetryDecision, type RetryOptions } from "./retry";
export { parseSfList, type SfBareItem, type SfItem, type SfMember, type SfToken } from "./structured-field";
export type { EdgeError, EdgeErrorFields, EdgeErrorSource, ProxyStatus } from "./types";
