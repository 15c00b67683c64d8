/**
 * The body of `PUT /zones/{zone}/url_normalization` (the published API: `{scope, type}`, both required here so a
 * write never leaves half a setting to a default): one schema, the validator, the type and the OpenAPI component
 * `UrlNormalization` (docs/architecture.md "Request schemas"). Pure.
 */
import {
  DEFAULT_URL_NORMALIZATION,
  URL_NORMALIZATION_SCOPES,
  URL_NORMALIZATION_TYPES,
  type UrlNormalization,
} from "../../../shared/url-normalise";
import type { Result } from "../../../shared/result";
import { described, fields, later, named, oneOf, parseWith } from "../../../shared/schema";
import type { Issues } from "../../../shared/validation";

/** At most this many issues are listed (a body of 50,000 keys still answers one short error, counting the rest). */
export const MAX_URL_NORMALIZATION_ISSUES = 5;

export const URL_NORMALIZATION_BODY = later(() =>
  named(
    fields(
      {
        scope: described(oneOf(URL_NORMALIZATION_SCOPES), {
          description:
            "`incoming`: rules see the normalised URL, the origin the original; `both`: the origin gets the " +
            "normalised URL too; `none`: no normalisation",
          default: DEFAULT_URL_NORMALIZATION.scope,
        }),
        type: described(oneOf(URL_NORMALIZATION_TYPES), {
          description:
            "`rfc3986`: RFC 3986 §6.2.2 (unreserved characters decoded, percent-encodings upper-cased, dot " +
            "segments removed); `cloudflare`: also backslashes to slashes and successive slashes merged, first",
          default: DEFAULT_URL_NORMALIZATION.type,
        }),
      },
      "is not a url_normalization setting (scope, type)",
      "must be a JSON object {scope, type}",
    ),
    { id: "UrlNormalization", example: { scope: "both", type: "rfc3986" } },
  ),
);

/** Validates the body; the two fields' issues first, so a body of many unknown keys still names what is wrong with them. */
export function parseUrlNormalization(body: unknown): Result<UrlNormalization, Issues> {
  return parseWith(URL_NORMALIZATION_BODY, body, {
    root: "body",
    cap: MAX_URL_NORMALIZATION_ISSUES,
    unknownKeys: "last",
  });
}
