/**
 * What was avoided (docs/fewer-errors.md, docs/analytics.md "Avoided errors"): a request whose origin failed, or was
 * skipped, and whose visitor got an answer anyway or got the error at once. Zone traffic notes one per request
 * (`Progress.avoided`, set where it happened) and `answer` hands it here.
 */
import type { AvoidedKind } from "../../state/analytics/avoided";
import { countAvoidedError } from "./occurrence";
import type { ShardTarget } from "./recorder";

/** How an error was avoided, and the code of the origin's failure (or of the failure that opened its circuit). */
export interface Avoided {
  /** `stale`: a kept copy answered; `failover`: the fallback origin answered; `circuit_open`: the error at once. */
  readonly kind: AvoidedKind;
  readonly code: number;
}

/**
 * Counts one avoided error of the zone; never awaited by the response path. A map increment in the isolate's
 * batcher, delivered with the zone's request counts (src/edge/analytics/recorder.ts).
 */
export function countAvoided(
  target: ShardTarget,
  avoided: Avoided,
  env: Env,
  invocation: Pick<ExecutionContext, "waitUntil">,
): void {
  countAvoidedError(target, avoided.kind, avoided.code, env, invocation);
}
