/**
 * Edits of a resource's tag set as data (docs/tags-api.md "PATCH" and "Bulk edit"), and the pure functions that
 * apply them: a JSON Merge Patch of the tag map (RFC 7396 §2: a member with `null` removes the key, any other
 * member sets it, keys the patch does not name are kept), a replacement (PUT), or a removal (DELETE).
 */
import { compareCodePoints } from "./text";
import type { IfMatch, ResourceRef, TagPairs } from "./types";

/** One member of a merge patch: a value sets the key, `null` removes it. */
export type PatchPairs = readonly (readonly [string, string | null])[];

export type TagEdit =
  | { readonly kind: "merge"; readonly ref: ResourceRef; readonly patch: PatchPairs; readonly ifMatch: IfMatch | null }
  | { readonly kind: "replace"; readonly ref: ResourceRef; readonly tags: TagPairs; readonly ifMatch: IfMatch | null }
  | { readonly kind: "delete"; readonly ref: ResourceRef; readonly ifMatch: IfMatch | null };

/** The set an edit leaves, from the set before it; sorted by code point like every read. */
export function applyEdit(edit: TagEdit, before: TagPairs): TagPairs {
  switch (edit.kind) {
    case "replace":
      return sortPairs(edit.tags);
    case "delete":
      return [];
    case "merge": {
      // A Map keeps the key "__proto__" as data, unlike a plain object.
      const next = new Map<string, string>(before);
      for (const [key, value] of edit.patch) {
        if (value === null) next.delete(key);
        else next.set(key, value);
      }
      return sortPairs([...next]);
    }
  }
}

export function sortPairs(tags: TagPairs): TagPairs {
  return [...tags].sort(([a], [b]) => compareCodePoints(a, b));
}

/** One key's change: `null` before = added, `null` after = removed. */
export interface KeyChange {
  readonly key: string;
  readonly before: string | null;
  readonly after: string | null;
}

/** The keys whose value differs between two sets (added, removed or changed), in code point order. */
export function diffTags(before: TagPairs, after: TagPairs): KeyChange[] {
  const old = new Map<string, string>(before);
  const changes: KeyChange[] = [];
  for (const [key, value] of after) {
    const was = old.get(key);
    if (was !== value) changes.push({ key, before: was ?? null, after: value });
    old.delete(key);
  }
  for (const [key, value] of old) changes.push({ key, before: value, after: null });
  return changes.sort((a, b) => compareCodePoints(a.key, b.key));
}
