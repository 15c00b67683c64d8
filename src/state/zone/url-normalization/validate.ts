/**
 * The body of `PUT /zones/{zone}/url_normalization` (the published API: `{scope, type}`, both required here so a
 * write never leaves half a setting to a default). Pure.
 */
import {
  URL_NORMALIZATION_SCOPES,
  URL_NORMALIZATION_TYPES,
  type UrlNormalization,
  type UrlNormalizationScope,
  type UrlNormalizationType,
} from "../../../shared/url-normalise";
import { err, ok, type Result } from "../../../shared/result";

/** One invalid field of the body, for the API's 400. */
export interface UrlNormalizationProblem {
  readonly field: string;
  readonly message: string;
}

const FIELDS = new Set(["scope", "type"]);
/** At most this many unknown keys are named (a body of 50,000 keys still answers one short error). */
const MAX_NAMED = 5;

export function parseUrlNormalization(body: unknown): Result<UrlNormalization, UrlNormalizationProblem[]> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return err([{ field: "body", message: "must be a JSON object {scope, type}" }]);
  }
  const input = body as Record<string, unknown>;
  const problems: UrlNormalizationProblem[] = [];
  const unknown = Object.keys(input).filter((k) => !FIELDS.has(k));
  for (const key of unknown.slice(0, MAX_NAMED)) {
    problems.push({ field: key, message: "is not a url_normalization setting (scope, type)" });
  }
  if (unknown.length > MAX_NAMED) {
    problems.push({ field: "body", message: `and ${unknown.length - MAX_NAMED} more unknown keys` });
  }
  const { scope, type } = input;
  if (!(URL_NORMALIZATION_SCOPES as readonly unknown[]).includes(scope)) {
    problems.push({ field: "scope", message: `must be one of ${URL_NORMALIZATION_SCOPES.join(", ")}` });
  }
  if (!(URL_NORMALIZATION_TYPES as readonly unknown[]).includes(type)) {
    problems.push({ field: "type", message: `must be one of ${URL_NORMALIZATION_TYPES.join(", ")}` });
  }
  if (problems.length > 0) return err(problems);
  return ok({ scope: scope as UrlNormalizationScope, type: type as UrlNormalizationType });
}
