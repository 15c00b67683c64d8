/**
 * Turning an answered error into a record: what answered comes from where it was decided (the pipeline's
 * `answeredBy`: a custom error rule or page, or the structured default with its Ray ID and format; for an origin's
 * error, the rule `applyToOriginError` returned), else the format from what was served (the response's
 * `Content-Type`, set by the rule).
 */
import type { AnsweredBy } from "../../errors/pipeline";
import {
  formatOf,
  recordedPath,
  sanitiseCause,
  type ErrorRecord,
  type ErrorSource,
} from "../../state/analytics/record";
import { logEvent } from "../../shared/log";
import { clientCountry } from "../../shared/country";
import { isRayId, newRayId } from "../../shared/ray";
import { analyticsSink, recorder } from "./recorder";

export interface Occurrence {
  readonly zone: string;
  readonly source: ErrorSource;
  /** Catalog code (edge) or the origin's status (origin). */
  readonly code: number;
  readonly cause?: string;
  readonly request: Request;
  readonly url: URL;
  readonly response: Response;
  /**
   * Who answered (src/errors/pipeline.ts `AnsweredBy`): the structured default with its Ray ID and format, or the
   * custom error rule or page; absent for an origin's error passed through unchanged.
   */
  readonly answeredBy?: AnsweredBy;
}

/**
 * The record of one answered error, under the Ray ID the client saw; an origin error passed through unchanged
 * (docs/custom-errors.md) has none, so its record gets a new one, found through the analytics (docs/analytics.md).
 */
export function recordOf(o: Occurrence, now = Date.now()): ErrorRecord | null {
  // The pipeline's structured default is known without reading its headers back (src/errors/pipeline.ts).
  const by = o.answeredBy;
  const generated = by?.kind === "default" ? by : undefined;
  const sent = generated?.ray ?? o.response.headers.get("Ray-ID");
  const ray = sent !== null && isRayId(sent) ? sent : o.source === "origin" ? newRayId() : null;
  if (ray === null) return null;
  const answer = by?.kind === "rule" || by?.kind === "page" ? by : undefined;
  return {
    ray,
    at: now,
    code: o.code,
    status: o.response.status,
    source: o.source,
    answered_by: answer?.kind ?? (o.source === "origin" ? "origin" : "default"),
    answer_id: answer?.id ?? null,
    format: generated?.format ?? formatOf(o.response.headers.get("Content-Type")),
    method: o.request.method.slice(0, 16),
    path: recordedPath(o.url.pathname),
    country: clientCountry(o.request) ?? null,
    cause: o.source === "origin" ? null : sanitiseCause(o.cause),
  };
}

/** Records an answered error after the response (never awaited by the response path, never throws). */
export function recordError(o: Occurrence, env: Env, invocation: Pick<ExecutionContext, "waitUntil">): void {
  // A deployment without the `ZONE_ANALYTICS` binding records nothing (docs/analytics.md "Turning it off"): no
  // batch is held and no failure is logged per batch.
  const namespace: Env["ZONE_ANALYTICS"] | undefined = env.ZONE_ANALYTICS;
  if (namespace === undefined) return;
  try {
    const record = recordOf(o);
    if (record !== null) recorder.add(o.zone, record, analyticsSink(env), invocation);
  } catch (error) {
    logEvent("analytics_record_failed", { zone: o.zone, cause: String(error) });
  }
}
