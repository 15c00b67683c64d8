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
import { encodeDetail, NOT_REACHED, type OriginMark, type RequestDetail } from "../../state/analytics/request-detail";
import { logEvent } from "../../shared/log";
import { clientCountry } from "../../shared/country";
import type { CompiledRequestPhase } from "../request-phases/compile";
import type { RequestPhaseOutcome } from "../request-phases/request-phase";
import { isRayId, newRayId } from "../../shared/ray";
import type { AvoidedKind } from "../../state/analytics/avoided";
import { analyticsSink, recorder, type RecordSink, type ShardTarget } from "./recorder";
import { acceptFamily, addressClass } from "./request-class";

export interface Occurrence {
  readonly zone: string;
  /** The zone's analytics shard count now (the compiled zone's `analyticsShards`). */
  readonly shards: number;
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
  /** How far the request went through the phases (docs/analytics.md "Request detail"); absent: nowhere known. */
  readonly phases?: PhaseProgress;
}

/** What zone traffic knows of the phases when an error is recorded (src/edge/zone-traffic.ts). */
export interface PhaseProgress {
  /** The zone's compiled request phases; null when they were not reached (a limit refused the request first). */
  readonly compiled: CompiledRequestPhase | null;
  /** Their outcome; null when they did not run. */
  readonly outcome: RequestPhaseOutcome | null;
  readonly origin: OriginMark;
  /** Whether the zone's custom error rules run (a paid plan and at least one enabled rule). */
  readonly customRules: boolean;
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
    detail: encodeDetail(detailOf(o, answer !== undefined && answer.kind === "rule")),
  };
}

function detailOf(o: Occurrence, ruleAnswered: boolean): RequestDetail {
  const p = o.phases;
  return {
    accept: acceptFamily(o.request),
    client: addressClass(o.request),
    ...requestPhaseMarks(p?.compiled ?? null, p?.outcome ?? null),
    origin: p?.origin ?? { kind: "not-reached" },
    rules: ruleAnswered ? "matched" : p?.customRules === true ? "no-match" : "not-run",
    blockedBy: p?.outcome?.kind === "error" ? p.outcome.ruleId : null,
  };
}

type PhaseMarks = Pick<RequestDetail, "ipAccess" | "firewall" | "rateLimit">;

/** Each request phase's outcome: one with no rule is `none`; after a block, the later ones were not reached. */
function requestPhaseMarks(compiled: CompiledRequestPhase | null, outcome: RequestPhaseOutcome | null): PhaseMarks {
  if (compiled === null || outcome === null) return NOT_REACHED;
  const ran = (present: boolean): "passed" | "none" => (present ? "passed" : "none");
  const access = ran(compiled.access !== null);
  const firewall = ran(compiled.firewall !== null);
  const rateLimit = ran(compiled.rateLimits !== null);
  if (outcome.kind === "pass") return { ipAccess: access, firewall, rateLimit };
  switch (outcome.code) {
    case 1006:
    case 1009:
      return { ipAccess: "blocked", firewall: "not-reached", rateLimit: "not-reached" };
    case 1020:
      return { ipAccess: access, firewall: "blocked", rateLimit: "not-reached" };
    case 1015:
      return { ipAccess: access, firewall, rateLimit: "blocked" };
  }
}

/** Records an answered error after the response (never awaited by the response path, never throws). */
export function recordError(o: Occurrence, env: Env, invocation: Pick<ExecutionContext, "waitUntil">): void {
  // A deployment without the `ZONE_ANALYTICS` binding records nothing (docs/analytics.md "Turning it off"): no
  // batch is held and no failure is logged per batch.
  const namespace: Env["ZONE_ANALYTICS"] | undefined = env.ZONE_ANALYTICS;
  if (namespace === undefined) return;
  try {
    const record = recordOf(o);
    if (record !== null) recorder.add({ zone: o.zone, shards: o.shards }, record, sinkOf(env), invocation);
  } catch (error) {
    logEvent("analytics_record_failed", { zone: o.zone, cause: String(error) });
  }
}

/**
 * Counts one request of a configured zone (the error rates' denominator, docs/analytics.md "Requests and drops"):
 * a map increment in the isolate's batcher, delivered with its batches after the response. No KV read, no await.
 */
export function countRequest(target: ShardTarget, env: Env, invocation: Pick<ExecutionContext, "waitUntil">): void {
  const namespace: Env["ZONE_ANALYTICS"] | undefined = env.ZONE_ANALYTICS;
  if (namespace === undefined) return;
  recorder.count(target, sinkOf(env), invocation);
}

/**
 * Counts one avoided error of a configured zone (docs/analytics.md "Avoided errors"): a map increment, delivered as
 * the request counts are. No KV read, no await.
 */
export function countAvoidedError(
  target: ShardTarget,
  kind: AvoidedKind,
  code: number,
  env: Env,
  invocation: Pick<ExecutionContext, "waitUntil">,
): void {
  const namespace: Env["ZONE_ANALYTICS"] | undefined = env.ZONE_ANALYTICS;
  if (namespace === undefined) return;
  recorder.avoid(target, { kind, code }, sinkOf(env), invocation);
}

// The sink of the last environment seen: the same object on every request of an isolate, so a request makes no
// closure (the count runs on every request of a configured zone).
let lastEnv: Env | null = null;
let lastSink: RecordSink | null = null;

function sinkOf(env: Env): RecordSink {
  if (env !== lastEnv || lastSink === null) {
    lastEnv = env;
    lastSink = analyticsSink(env);
  }
  return lastSink;
}
