/**
 * The HTTP edge of the tagging domain's failures: each kind of `TagFailure` gets its message here, and its HTTP
 * status and v4 code (docs/tags-api.md's list, 1002…1018) from the one table, src/api/kit/codes.ts, under the same
 * kind (a kind the table lacks does not compile). The switch has no default: with the declared return type, a kind
 * without a case is a compile error (TS2366), so a new kind cannot ship unmapped.
 * Codes 1016–1018 are our own: the published API has none.
 */
import { failureOf, type ApiFailure } from "../kit/envelope";
import {
  MAX_FILTERS,
  MAX_FILTER_VALUES,
  MAX_KEY_CODE_POINTS,
  MAX_BULK_EDITS,
  MAX_VALUE_CODE_POINTS,
  type TagFailure,
} from "../../state/tags/errors";

export function toApiFailure(failure: TagFailure): ApiFailure {
  switch (failure.kind) {
    case "invalid-set-payload":
      return failureOf(failure.kind, `Invalid set payload: ${failure.why}`);
    case "resource-required":
      return failureOf(failure.kind, failure.why);
    case "invalid-resource-type":
      return failureOf(failure.kind, `Invalid resource type ${JSON.stringify(failure.type)} for this endpoint`);
    case "invalid-filter":
      return failureOf(
        failure.kind,
        `tag parameter must be in format key, key=value[,value...], !key or key!=value[,value...]: ${failure.why}`,
      );
    case "tag-key-required":
      return failureOf(failure.kind, "tag_key is required");
    case "too-many-filters":
      return failureOf(failure.kind, `too many tag filters (maximum ${MAX_FILTERS})`);
    case "key-too-long":
      return failureOf(failure.kind, `tag key too long (maximum ${MAX_KEY_CODE_POINTS} characters)`);
    case "value-too-long":
      return failureOf(failure.kind, `tag value too long (maximum ${MAX_VALUE_CODE_POINTS} characters)`);
    case "too-many-values":
      return failureOf(failure.kind, `too many OR values in tag filter (maximum ${MAX_FILTER_VALUES})`);
    case "invalid-key":
      return failureOf(
        failure.kind,
        `Invalid tag key ${JSON.stringify(failure.key)}: keys are letters of any script (with combining marks), decimal digits, '_', '.' and '-'`,
      );
    case "invalid-delete-payload":
      return failureOf(failure.kind, `Invalid delete payload: ${failure.why}`);
    case "limit-reached":
      return failureOf(
        failure.kind,
        `account tag limit reached: at most ${failure.limit} tags (resource, key pairs) per account`,
      );
    case "invalid-cursor":
      return failureOf(
        failure.kind,
        failure.repeated
          ? "invalid cursor: `cursor` is given more than once; send one"
          : "invalid cursor: it was altered, or it belongs to another account, endpoint or query",
      );
    case "precondition-failed":
      return failureOf(
        failure.kind,
        "If-Match does not match the current ETag of the resource's tags; GET it and retry",
      );
    case "invalid-bulk-payload":
      return failureOf(failure.kind, `Invalid bulk payload: ${failure.why}`);
    case "bulk-too-large":
      return failureOf(failure.kind, `too many edits in one bulk call: ${failure.count} (maximum ${MAX_BULK_EDITS})`);
    case "invalid-policy":
      return failureOf(failure.kind, `Invalid tag policy: ${failure.why}`);
    case "key-not-allowed":
      return failureOf(failure.kind, `tag policy: key ${JSON.stringify(failure.key)} is not in allowed_keys`);
    case "value-not-allowed":
      return failureOf(
        failure.kind,
        `tag policy: value ${JSON.stringify(failure.value)} of key ${JSON.stringify(failure.key)} is not allowed (allowed_values)`,
      );
    case "required-key-missing":
      return failureOf(
        failure.kind,
        `tag policy: resource type ${failure.type} requires key ${JSON.stringify(failure.key)} (required_keys)`,
      );
    case "key-case":
      return failureOf(
        failure.kind,
        `tag policy: key ${JSON.stringify(failure.key)} must be ${failure.case === "lower" ? "lower" : "upper"} case (key_case)`,
      );
    case "zone-without-account":
      return failureOf(
        failure.kind,
        `zone ${failure.zone} belongs to no account, so its tags have no store: set its account first (PUT /zones/${failure.zone} {"account": {"id": "…"}})`,
      );
  }
}
