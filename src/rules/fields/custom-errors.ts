/**
 * The field set of custom error rules (docs/custom-errors.md, docs/rules-language.md): the request fields plus the error being answered.
 * `cf.response.*` are accepted as aliases of the `edge.response.*` names (docs/differences.md), so rules written for the
 * published platform work unchanged.
 */
import { BYTES, INT, mapOf, arrayOf } from "../types";
import { defineFieldSet, type FieldDef } from "./field-set";
import { HeaderMap } from "./header-map";
import { REQUEST_FIELDS } from "./request";

export const RESPONSE_FIELDS: Readonly<Record<string, FieldDef>> = {
  "http.response.code": { type: INT, source: "status of the error response", extract: (f) => f.input.error?.status },
  "edge.response.1xxx_code": {
    type: INT,
    source: "the 1xxx code, 0 when none",
    extract: (f) => f.input.error?.code1xxx,
  },
  "edge.response.error_type": {
    type: BYTES,
    source: '"1xxx", "5xx", or "" (an origin\'s error)',
    extract: (f) => f.input.error?.errorType,
  },
  "http.response.headers": {
    type: mapOf(arrayOf(BYTES)),
    source: "headers of the error response, lower-case names",
    extract: (f) => (f.input.error ? new HeaderMap(f.input.error.responseHeaders ?? new Headers()) : undefined),
  },
};

export const CUSTOM_ERROR_ALIASES: Readonly<Record<string, string>> = {
  "cf.response.1xxx_code": "edge.response.1xxx_code",
  "cf.response.error_type": "edge.response.error_type",
};

export const customErrorFields = defineFieldSet({ ...REQUEST_FIELDS, ...RESPONSE_FIELDS }, CUSTOM_ERROR_ALIASES);
