/**
 * The body of `PUT /zones/{zone}/url_normalization` (the published API: `{scope, type}`, both required here so a
 * write never leaves half a setting to a default). Pure.
 */
import {
  URL_NORMALIZATION_SCOPES,
  URL_NORMALIZATION_TYPES,
  type UrlNormalization,
} from "../../../shared/url-normalise";
import { err, ok, type Result } from "../../../shared/result";
import { IssueList, readEnum, readObject, unknownKeys, type Issues } from "../../../shared/validation";

const FIELDS = new Set(["scope", "type"]);
/** At most this many issues are listed (a body of 50,000 keys still answers one short error, counting the rest). */
export const MAX_URL_NORMALIZATION_ISSUES = 5;

export function parseUrlNormalization(body: unknown): Result<UrlNormalization, Issues> {
  const issues = new IssueList(MAX_URL_NORMALIZATION_ISSUES);
  const input = readObject(body, "body", "must be a JSON object {scope, type}");
  if (!input.ok) {
    issues.push(input.error);
    return err(issues.issues);
  }
  // The two fields first, so a body of many unknown keys still names what is wrong with them.
  const scope = readEnum(input.value.scope, "scope", URL_NORMALIZATION_SCOPES);
  if (!scope.ok) issues.push(scope.error);
  const type = readEnum(input.value.type, "type", URL_NORMALIZATION_TYPES);
  if (!type.ok) issues.push(type.error);
  const unknown = unknownKeys(input.value, FIELDS);
  for (const key of unknown) issues.add("unknown-field", key, "is not a url_normalization setting (scope, type)");
  if (unknown.length > 0) return err(issues.issues);
  if (!scope.ok || !type.ok) return err(issues.issues);
  return ok({ scope: scope.value, type: type.value });
}
