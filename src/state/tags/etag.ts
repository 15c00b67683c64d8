/**
 * The tag set's ETag, as the published SDK documents it (docs/tags-api.md):
 * `"v1:" + base64url(first 128 bits of SHA-256(RFC 8785 JCS(tags)))`. Verified against the SDK's examples
 * (`{}` → `v1:RBNvo1WzZ4oRRq0W9-hkng`).
 */
import { sha256 } from "../../shared/crypto";
import { bytesToBase64Url } from "./base64url";
import type { TagPairs } from "./types";

/** The ETag of the empty set: what an untagged (or unknown) resource has. */
export const EMPTY_TAGS_ETAG = "v1:RBNvo1WzZ4oRRq0W9-hkng";

/** Every tag set's ETag: `v1:` and 128 bits in base64url, unpadded. */
export const TAGS_ETAG_PATTERN = /^v1:[A-Za-z0-9_-]{22}$/;

/**
 * RFC 8785 for a flat string→string map: members sorted by their names as UTF-16 code units (JCS §3.2.3,
 * which is what JS `<` compares), strings serialised as ECMAScript JSON.stringify does (JCS §3.2.2.2).
 */
export function canonicalJson(tags: TagPairs): string {
  const sorted = [...tags].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${sorted.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`;
}

export async function etagOf(tags: TagPairs): Promise<string> {
  if (tags.length === 0) return EMPTY_TAGS_ETAG;
  const digest = await sha256(canonicalJson(tags));
  return `v1:${bytesToBase64Url(digest.subarray(0, 16))}`;
}
