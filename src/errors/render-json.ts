/**
 * JSON body of a generated error (contract §1.1): one flat object, keys in wire order. The same bytes serve
 * `application/json` and `application/problem+json` (RFC 9457 §3); only the Content-Type differs (headers.ts).
 */
import type { ErrorFields } from "./fields";

export function renderJson(fields: ErrorFields): string {
  // errorFields() builds the object in wire order and omits `retry_after` when not retryable, so plain
  // JSON.stringify is both correct and the fastest serialiser available.
  return JSON.stringify(fields);
}
