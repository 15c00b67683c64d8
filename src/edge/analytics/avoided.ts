/**
 * What was avoided (docs/fewer-errors.md): a request whose origin failed, or was skipped, and whose visitor got an
 * answer anyway or got the error at once. Zone traffic notes one per request (`Progress.avoided`, set where it
 * happened) and `answer` hands it here.
 */
import type { ShardTarget } from "./recorder";

/** How an error was avoided, and the code of the origin's failure (or of the failure that opened its circuit). */
export interface Avoided {
  /** `stale`: a kept copy answered; `failover`: the fallback origin answered; `circuit_open`: the error at once. */
  readonly kind: "stale" | "failover" | "circuit_open";
  readonly code: number;
}

/** Counts one avoided error of the zone; never awaited by the response path. */
export function countAvoided(
  _target: ShardTarget,
  _avoided: Avoided,
  _env: Env,
  _invocation: Pick<ExecutionContext, "waitUntil">,
): void {
  // Counting lands with the analytics' avoided counts; until then zone traffic only notes it.
}
