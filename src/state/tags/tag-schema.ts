/**
 * Tag keys, tag values, resource types and the listings' filters as request schemas (src/shared/schema.ts): the
 * checks of docs/tags-api.md "Keys and values" and "Filtering", and the OpenAPI components `TagKey`, `TagValue`,
 * `ResourceType` and `EffectiveFlag`, from one place.
 *
 * Lengths are code points (docs/tags-api.md), which is also how JSON Schema counts a string's length
 * (https://json-schema.org/draft/2020-12/json-schema-validation#section-6.3.1); zod's own `maxLength` counts UTF-16
 * units, so the check is a refinement and the bound reaches the document as its `maxLength`.
 */
import * as z from "zod/mini";
import { described, FLAGS, later, oneOf, type Message } from "../../shared/schema";
import { MAX_FILTERS, MAX_KEY_CODE_POINTS, MAX_VALUE_CODE_POINTS } from "./errors";
import { ACCOUNT_RESOURCE_TYPES, isKnownResourceType, ZONE_RESOURCE_TYPES } from "./resource-types";
import { codePointLength, isWellFormed } from "./text";

/**
 * Tag keys (docs/tags-api.md, docs/differences.md): letters of any script with their combining marks, decimal digits, `_ . -`.
 * The `u` flag is what makes `\p{…}` a property escape (without it `\p{L}` matches the text "p{L}").
 * Lone surrogates never match a property class, so this also refuses them.
 */
export const TAG_KEY_PATTERN = /^[\p{L}\p{Mn}\p{Mc}\p{Nd}_.\-]+$/u;

/** At most `max` code points: checked here, stated to the document as `maxLength` (the same count there). */
function codePointsAtMost(max: number, message?: Message) {
  return [z.refine<string>((s) => codePointLength(s) <= max, { error: message }), z.meta({ maxLength: max })];
}

/** A well-formed string (no lone surrogate) of at most `max` code points: a tag value, a resource id or name. */
export function wellFormedText(max: number, message?: Message) {
  return z
    .string({ error: message })
    .check(z.refine<string>(isWellFormed, { error: message }), ...codePointsAtMost(max, message));
}

/**
 * A refused item of a list (or key of a map) is named by the list and its value: `allowed_keys: "bad key" is not a
 * valid tag key` (docs/tags-api.md "Policies").
 */
const notA =
  (what: string): Message =>
  (issue) =>
    `: ${JSON.stringify(issue.input)} is not a valid ${what}`;

/** A tag key: the pattern, then at most 256 code points. */
export const TAG_KEY = later(
  () =>
    z
      .string({ error: notA("tag key") })
      .check(
        z.regex(TAG_KEY_PATTERN, { error: notA("tag key") }),
        ...codePointsAtMost(MAX_KEY_CODE_POINTS, notA("tag key")),
      ),
  {
    id: "TagKey",
    description:
      "Letters of any script with combining marks, decimal digits, `_ . -`; case-sensitive; lengths in code points.",
    example: "environment",
  },
);

/** A tag value: any well-formed string of at most 1,024 code points (`""` for a key-only tag). */
export const TAG_VALUE = later(() => wellFormedText(MAX_VALUE_CODE_POINTS, notA("value")), {
  id: "TagValue",
  description: 'Any well-formed string; `""` for key-only tags.',
  example: "production",
});

/** Every resource type a tag can be on: the account's and the zone's (docs/tags-api.md "Resource types"). */
export const RESOURCE_TYPES = [...ACCOUNT_RESOURCE_TYPES, ...ZONE_RESOURCE_TYPES] as const;

/** A resource type named by a query's `type` (the listings, required keys, compliance): the component `ResourceType`. */
export const RESOURCE_TYPE = later(() => oneOf(RESOURCE_TYPES), { id: "ResourceType", example: "worker" });

/**
 * A resource type as the key of a map (`required_keys`): checked in the map's entry order, so the first entry
 * wrong is the one named; the document shows the list as the key's `enum`.
 */
export const RESOURCE_TYPE_KEY = later(() =>
  described(
    z.string().check(z.refine<string>(isKnownResourceType), z.meta({ enum: [...RESOURCE_TYPES] })),
    "A resource type (docs/tags-api.md).",
  ),
);

/**
 * `effective=true` (docs/tags-api.md "Inherited tags"): filters match effective tags and each resource carries
 * `inherited_tags`; anything but `true` or `false` is 1007.
 */
export const EFFECTIVE = later(() => oneOf(FLAGS), {
  id: "EffectiveFlag",
  description:
    "`true`: filters match effective tags (own, else the zone's for a zone ruleset, else the account's default " +
    "set, the tags of its `account` resource, for zone-level resources), and each resource carries " +
    "`inherited_tags` (key → value and source). Not with `case_insensitive=true` (1007).",
  example: "true",
});

/** `tag=` filters, repeatable, ANDed (docs/tags-api.md "Filtering"): more than 20 is 1010. */
export const TAG_FILTERS = later(() =>
  described(
    z.array(z.string()).check(z.maxLength(MAX_FILTERS)),
    "Tag filters, ANDed: `k` (has k), `k=v`, `k=v1,v2` (one of, ≤10), `!k` (lacks k), `k!=v[,v2]` (exact " +
      "negation of `k=v…`: includes resources lacking k). Encode `+` as `%2B`.",
  ),
);
