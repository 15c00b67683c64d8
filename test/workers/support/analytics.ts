/** Recorded errors as the analytics tests make them (src/state/analytics/record.ts). */
import type { ErrorRecord } from "../../../src/state/analytics/record";

/** The Ray ID of record `i`: 16 hex digits. */
export const rayOf = (i: number): string => i.toString(16).padStart(16, "0");

/** Record `i`, at `at` (ms): a 502 the edge answered with its default, `extra` on top. */
export function errorRecord(i: number, at = 0, extra: Partial<ErrorRecord> = {}): ErrorRecord {
  return {
    ray: rayOf(i),
    at,
    code: 502,
    status: 502,
    source: "edge",
    answered_by: "default",
    answer_id: null,
    format: "json",
    method: "GET",
    path: "/p",
    country: null,
    cause: "origin sent garbage",
    detail: null,
    ...extra,
  };
}
