/**
 * Data shapes shared by the tagging routes (Worker side) and the TagStore Durable Object. Everything here is
 * plain data so it crosses RPC by structured clone (docs/tags-api.md; docs/tags-api.md).
 */
import { isZoneTaggableType, type TaggableType } from "./resource-types";

/**
 * One resource. `parent` is the worker id of a `worker_version`, the zone of a zone-level resource (`zone`,
 * `zone_ruleset`), else `""` (docs/tags-api.md).
 */
export interface ResourceRef {
  readonly type: TaggableType;
  readonly parent: string;
  readonly id: string;
}

/** A tag set as ordered `[key, value]` pairs: never a plain object, so a key like `__proto__` stays data. */
export type TagPairs = readonly (readonly [string, string])[];

/** The API's resource object (docs/tags-api.md). */
export interface TaggedResource {
  readonly id: string;
  readonly type: string;
  readonly name: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly etag: string;
  readonly tags_updated_at?: string;
  readonly worker_id?: string;
  readonly zone_id?: string;
  /** Only with `effective=true`: the tags the resource inherits and does not set itself, with their source. */
  readonly inherited_tags?: Readonly<Record<string, InheritedTag>>;
}

/** The field the `parent` column is shown as: `zone_id` for zone-level types, `worker_id` otherwise. */
export function parentField(type: string, parent: string): { worker_id?: string; zone_id?: string } {
  if (parent === "") return {};
  return isZoneTaggableType(type) ? { zone_id: parent } : { worker_id: parent };
}

/** One `tag=` filter, validated (docs/tags-api.md). `values` is non-empty for `equals` / `notEquals`. */
export type TagFilter =
  | { readonly kind: "has"; readonly key: string }
  | { readonly kind: "lacks"; readonly key: string }
  | { readonly kind: "equals"; readonly key: string; readonly values: readonly string[] }
  | { readonly kind: "notEquals"; readonly key: string; readonly values: readonly string[] };

/** A validated `GET /tags/resources` query. */
export interface ResourceQuery {
  readonly filters: readonly TagFilter[];
  readonly types: readonly string[];
  readonly ids: readonly string[];
  /** Lower-cased name substring, or null. */
  readonly name: string | null;
  readonly caseInsensitive: boolean;
  /**
   * `effective=true` (docs/tags-api.md "Inherited tags"): the account id whose `account` resource's tags are the
   * account-wide defaults; filters then match effective tags (own, else the zone's, else the account's).
   */
  readonly effective?: string;
}

/** The resources a tag is inherited from: a zone ruleset's zone, the account's default set. */
export const INHERITED_FROM = ["zone", "account"] as const;

/** Where an inherited tag comes from. */
export interface InheritedTag {
  readonly value: string;
  readonly from: { readonly resource_type: (typeof INHERITED_FROM)[number]; readonly resource_id: string };
}

/** `If-Match` (RFC 9110 §13.1.1): `*`, or a list of strong entity tags (opaque, unquoted here). */
export type IfMatch = { readonly kind: "any" } | { readonly kind: "tags"; readonly etags: readonly string[] };

/** One page of a listing: items, and the sort key of the last item when more follow. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly next: string | null;
}
