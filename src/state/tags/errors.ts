/**
 * The tagging domain's failures (docs/tags-api.md) as closed unions of plain values.
 * Validation and the TagStore object return them; they speak no HTTP and cross Durable Object RPC unchanged.
 * Only the edge (api-failure.ts) turns a kind into an HTTP status and a v4 code, in one exhaustive switch, so
 * adding a kind here breaks the build until it is mapped there (style.md, Addendum).
 */

export const MAX_KEY_CODE_POINTS = 256;
export const MAX_VALUE_CODE_POINTS = 1024;
export const MAX_FILTERS = 20;
export const MAX_FILTER_VALUES = 10;
export const MAX_ID_PARAMS = 50;
export const MAX_NAME_CODE_POINTS = 256;
export const MAX_RESOURCE_ID_CODE_POINTS = 256;

/** If-Match named an ETag other than the resource's current one (docs/tags-api.md). */
export type PreconditionFailed = { readonly kind: "precondition-failed" };
/** The write would take the account past its tag limit, in (resource, key) pairs (docs/tags-api.md, TAG_LIMIT). */
export type LimitReached = { readonly kind: "limit-reached"; readonly limit: number };
/** The cursor was altered, or belongs to another account, endpoint or query (docs/tags-api.md). */
/** `repeated`: the query names `cursor` more than once (which one would be meant is not guessed). */
export type InvalidCursor = { readonly kind: "invalid-cursor"; readonly repeated?: true };

/**
 * An enforced tag policy refuses the write (docs/tags-api.md "Policies"): `rule` names the rule broken, `key` the
 * tag (and `value` its value) that broke it; for `required-key-missing`, the key the resource lacks.
 */
/** The policy fields a violation can break (docs/tags-api.md "Policies"). */
export const POLICY_RULES = ["allowed_keys", "allowed_values", "required_keys", "key_case"] as const;
export type PolicyRule = (typeof POLICY_RULES)[number];

export type PolicyViolation =
  | { readonly kind: "key-not-allowed"; readonly key: string }
  | { readonly kind: "value-not-allowed"; readonly key: string; readonly value: string }
  | { readonly kind: "required-key-missing"; readonly key: string; readonly type: string }
  | { readonly kind: "key-case"; readonly key: string; readonly case: "lower" | "upper" };

/** What a write refuses in the object: If-Match, the account limit, or an enforced policy. */
export type WriteFailure = PreconditionFailed | LimitReached | PolicyViolation;

/** What the TagStore object can refuse: the checks that need the account's stored state. */
export type StoreFailure = PreconditionFailed | LimitReached | InvalidCursor | PolicyViolation;

/** Most resources one bulk edit names (docs/tags-api.md "Bulk edit"). */
export const MAX_BULK_EDITS = 100;

/** What pure validation of a request can refuse (validate.ts), in the check order of docs/tags-api.md */
export type ValidationFailure =
  | { readonly kind: "invalid-set-payload"; readonly why: string }
  | { readonly kind: "resource-required"; readonly why: string }
  | { readonly kind: "invalid-resource-type"; readonly type: string }
  | { readonly kind: "invalid-filter"; readonly why: string }
  | { readonly kind: "tag-key-required" }
  | { readonly kind: "too-many-filters" }
  | { readonly kind: "key-too-long" }
  | { readonly kind: "value-too-long" }
  | { readonly kind: "too-many-values" }
  | { readonly kind: "invalid-key"; readonly key: string }
  | { readonly kind: "invalid-delete-payload"; readonly why: string }
  | { readonly kind: "invalid-bulk-payload"; readonly why: string }
  | { readonly kind: "bulk-too-large"; readonly count: number }
  | { readonly kind: "invalid-policy"; readonly why: string }
  | { readonly kind: "zone-without-account"; readonly zone: string };

/** Every failure of the tagging API's domain; a cursor that does not decode is `invalid-cursor` too. */
export type TagFailure = ValidationFailure | StoreFailure;
