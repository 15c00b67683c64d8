/**
 * JSON body of a generated error (contract §1.1): one flat object, keys in wire order. The same bytes serve
 * `application/json` and `application/problem+json` (RFC 9457 §3); only the Content-Type differs (headers.ts).
 */
import type { ErrorFields } from "./fields";
import { occurrenceTemplate } from "./occurrence-template";

/** The body in full. errorFields() builds the object in wire order and omits `retry_after` when not retryable. */
export function renderJsonFull(fields: ErrorFields): string {
  return JSON.stringify(fields);
}

/** Issue 12: the same body as `renderJsonFull`, spliced from a per-code template (occurrence-template.ts). */
export const jsonBody = occurrenceTemplate(renderJsonFull, (value) => JSON.stringify(value));
export const renderJson: (fields: ErrorFields) => string = jsonBody.text;
