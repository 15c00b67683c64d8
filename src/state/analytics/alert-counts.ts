/**
 * Errors and requests over alert windows, summed over every shard of a zone within retention (docs/analytics.md
 * "Alerts"): the fan-out of an evaluation, one call per shard for all the windows. Kept apart from fan-out.ts,
 * which names the object class, because the object itself (shard 0's alarm) calls this.
 */
import type { WindowCount, WindowQuery } from "./alerts";
import { shardNames, type ShardPlan } from "./shards";

/** `ask` answers one object by name: an RPC to the shard, or the evaluating object answering for itself. */
export async function zoneAlertCounts(
  zone: string,
  plan: ShardPlan,
  windows: readonly WindowQuery[],
  ask: (name: string) => Promise<readonly WindowCount[]> | readonly WindowCount[],
): Promise<readonly WindowCount[]> {
  const answers = await Promise.all(shardNames(zone, plan, Date.now()).map(async (name) => ask(name)));
  return windows.map((_, i) =>
    answers.reduce(
      (sum, answer) => ({
        errors: sum.errors + (answer[i]?.errors ?? 0),
        requests: sum.requests + (answer[i]?.requests ?? 0),
      }),
      { errors: 0, requests: 0 },
    ),
  );
}
