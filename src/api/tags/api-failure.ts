/**
 * The HTTP edge of the tagging domain's failures: each kind of `TagFailure` becomes an HTTP status and a v4
 * code (docs/tags-api.md's list, 1002…1018) here, and nowhere else. The switch has no default: with the declared
 * return type, a kind without a case is a compile error (TS2366), so a new kind cannot ship unmapped.
 * Codes 1016–1018 are our own: the published API has none.
 */
import { apiFailure, type ApiFailure } from "../kit/envelope";
import {
  MAX_FILTERS,
  MAX_FILTER_VALUES,
  MAX_KEY_CODE_POINTS,
  MAX_VALUE_CODE_POINTS,
  type TagFailure,
} from "../../state/tags/errors";

export function toApiFailure(failure: TagFailure): ApiFailure {
  switch (failure.kind) {
    case "invalid-set-payload":
      return apiFailure(400, 1002, `Invalid set payload: ${failure.why}`);
    case "resource-required":
      return apiFailure(400, 1003, failure.why);
    case "invalid-resource-type":
      return apiFailure(400, 1006, `Invalid resource type ${JSON.stringify(failure.type)} for this endpoint`);
    case "invalid-filter":
      return apiFailure(
        400,
        1007,
        `tag parameter must be in format key, key=value[,value...], !key or key!=value[,value...]: ${failure.why}`,
      );
    case "tag-key-required":
      return apiFailure(400, 1009, "tag_key is required");
    case "too-many-filters":
      return apiFailure(400, 1010, `too many tag filters (maximum ${MAX_FILTERS})`);
    case "key-too-long":
      return apiFailure(400, 1011, `tag key too long (maximum ${MAX_KEY_CODE_POINTS} characters)`);
    case "value-too-long":
      return apiFailure(400, 1012, `tag value too long (maximum ${MAX_VALUE_CODE_POINTS} characters)`);
    case "too-many-values":
      return apiFailure(400, 1013, `too many OR values in tag filter (maximum ${MAX_FILTER_VALUES})`);
    case "invalid-key":
      return apiFailure(
        400,
        1014,
        `Invalid tag key ${JSON.stringify(failure.key)}: keys are letters of any script (with combining marks), decimal digits, '_', '.' and '-'`,
      );
    case "invalid-delete-payload":
      return apiFailure(400, 1015, `Invalid delete payload: ${failure.why}`);
    case "limit-reached":
      return apiFailure(
        400,
        1016,
        `account tag limit reached: at most ${failure.limit} tags (resource, key pairs) per account`,
      );
    case "invalid-cursor":
      return apiFailure(
        400,
        1017,
        "invalid cursor: it was altered, or it belongs to another account, endpoint or query",
      );
    case "precondition-failed":
      return apiFailure(412, 1018, "If-Match does not match the current ETag of the resource's tags; GET it and retry");
  }
}
