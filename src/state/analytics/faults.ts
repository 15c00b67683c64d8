/**
 * The one way to make a ZoneAnalytics object refuse batches on purpose (docs/analytics.md "Loss is counted"), for
 * the tests that show a refused batch is counted. It is module state: nothing in a deployment sets it (no variable,
 * binding, header or API reaches it), only a test that imports this module into the Worker's isolate and adds an
 * object's name. While a name is in the set, that object's `recordEncoded` throws as an overloaded object does.
 */
const failing = new Set<string>();

/** Tests only: make the named shard (shards.ts `shardName`) refuse every batch until `restore`. */
export function failOnPurpose(name: string): void {
  failing.add(name);
}

/** Tests only: the named shard takes batches again. */
export function restore(name: string): void {
  failing.delete(name);
}

/** Whether the object of this name was made to fail (an object without a name never is). */
export function failsOnPurpose(name: string | undefined): boolean {
  return failing.size > 0 && name !== undefined && failing.has(name);
}
