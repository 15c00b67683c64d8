/**
 * JSON body of a generated error (docs/errors.md): one flat object, keys in wire order. The same bytes serve
 * `application/json` and `application/problem+json` (RFC 9457 §3); only the Content-Type differs (headers.ts).
 */
import type { ErrorFields } from "./fields";
import type { Language } from "./language";
import { occurrenceTemplate, type OccurrenceRenderer } from "./occurrence-template";

/** The body in full. errorFields() builds the object in wire order and omits `retry_after` when not retryable. */
export function renderJsonFull(fields: ErrorFields): string {
  return JSON.stringify(fields);
}

/**
 * Printable ASCII but the quote and the backslash: the characters JSON.stringify writes as they are (ECMA-262 QuoteJSONString
 * escapes only the quote, the backslash, controls below U+0020 and lone surrogates; this range also leaves out all non-ASCII).
 */
const JSON_VERBATIM = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * `JSON.stringify(value)` for a string. A slot value (a type URL, the ray, the timestamp, a zone) is nearly always
 * printable ASCII without a quote or a backslash, and is then only quoted: one regular-expression test instead of
 * the stringifier, which measured ~2× dearer on such short strings in Node (five values per error).
 */
export function jsonString(value: string): string {
  return JSON_VERBATIM.test(value) ? `"${value}"` : JSON.stringify(value);
}

/** The same body as `renderJsonFull`, spliced from a per-code template (occurrence-template.ts). */
export const jsonBody = occurrenceTemplate(renderJsonFull, jsonString);
export const renderJson: (fields: ErrorFields) => string = jsonBody.text;

/**
 * The body's renderer per language (docs/languages.md), made on first use. The JSON body is its fields alone, but
 * each language keeps templates of its own, so one language's constant texts can never be spliced into another's.
 */
const jsonBodies = new Map<Language, OccurrenceRenderer>([["en", jsonBody]]);

/** `jsonBody` in `language`. */
export function jsonBodyIn(language: Language): OccurrenceRenderer {
  let body = jsonBodies.get(language);
  if (body === undefined) jsonBodies.set(language, (body = occurrenceTemplate(renderJsonFull, jsonString)));
  return body;
}
