/**
 * The tagging API's error catalog (contract §5; notes/tagging.md §1.10, §8.2). Every failure is a value
 * (`ApiFailure`, a plain object that also crosses Durable Object RPC unchanged); only routes.ts renders it.
 * Codes 1016–1018 are our own: the published API has no code for them (contract §5).
 */
import { apiFailure, type ApiFailure } from "../api/envelope";

export const MAX_KEY_CODE_POINTS = 256;
export const MAX_VALUE_CODE_POINTS = 1024;
export const MAX_FILTERS = 20;
export const MAX_FILTER_VALUES = 10;
export const MAX_ID_PARAMS = 50;
export const MAX_NAME_CODE_POINTS = 256;
export const MAX_RESOURCE_ID_CODE_POINTS = 256;

export const TAG_FAILURES = {
  invalidSetPayload: (why: string) => apiFailure(400, 1002, `Invalid set payload: ${why}`),
  resourceRequired: (why = "resource_type and resource_id are required") => apiFailure(400, 1003, why),
  invalidResourceType: (type: string) =>
    apiFailure(400, 1006, `Invalid resource type ${JSON.stringify(type)} for this endpoint`),
  invalidFilter: (why: string) =>
    apiFailure(
      400,
      1007,
      `tag parameter must be in format key, key=value[,value...], !key or key!=value[,value...]: ${why}`,
    ),
  tagKeyRequired: () => apiFailure(400, 1009, "tag_key is required"),
  tooManyFilters: () => apiFailure(400, 1010, `too many tag filters (maximum ${MAX_FILTERS})`),
  keyTooLong: () => apiFailure(400, 1011, `tag key too long (maximum ${MAX_KEY_CODE_POINTS} characters)`),
  valueTooLong: () => apiFailure(400, 1012, `tag value too long (maximum ${MAX_VALUE_CODE_POINTS} characters)`),
  tooManyValues: () => apiFailure(400, 1013, `too many OR values in tag filter (maximum ${MAX_FILTER_VALUES})`),
  invalidKey: (key: string) =>
    apiFailure(
      400,
      1014,
      `Invalid tag key ${JSON.stringify(key)}: keys are letters of any script (with combining marks), decimal digits, '_', '.' and '-'`,
    ),
  invalidDeletePayload: (why: string) => apiFailure(400, 1015, `Invalid delete payload: ${why}`),
  tagLimit: (limit: number) =>
    apiFailure(400, 1016, `account tag limit reached: at most ${limit} tags (resource, key pairs) per account`),
  invalidCursor: () =>
    apiFailure(400, 1017, "invalid cursor: it was altered, or it belongs to another account, endpoint or query"),
  preconditionFailed: () =>
    apiFailure(412, 1018, "If-Match does not match the current ETag of the resource's tags; GET it and retry"),
} as const satisfies Record<string, (...args: never[]) => ApiFailure>;
