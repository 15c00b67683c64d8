/**
 * Validation of every tagging API input (docs/tags-api.md), pure: no bindings, no I/O. Each function returns the
 * FIRST failing check, in the order fixed by docs/tags-api.md ("check order"), so a request with several
 * problems always gets the same error.
 */
import { err, ok, type Result } from "../../shared/result";
import {
  MAX_BULK_EDITS,
  MAX_FILTER_VALUES,
  MAX_ID_PARAMS,
  MAX_NAME_CODE_POINTS,
  MAX_RESOURCE_ID_CODE_POINTS,
  type ValidationFailure,
} from "../../state/tags/errors";
import {
  ACCOUNT_RESOURCE_TYPES,
  ZONE_TAGGABLE_TYPES,
  isAccountResourceType,
  isZoneTaggableType,
  needsWorkerId,
} from "../../state/tags/resource-types";
import { fold, isWellFormed } from "../../state/tags/text";
import type { IfMatch, ResourceQuery, ResourceRef, TagFilter, TagPairs } from "../../state/tags/types";
import type { PatchPairs, TagEdit } from "../../state/tags/edits";
import {
  EFFECTIVE,
  RESOURCE_TYPE,
  TAG_FILTERS,
  TAG_KEY,
  TAG_KEY_PATTERN,
  TAG_VALUE,
  wellFormedText,
} from "../../state/tags/tag-schema";
import * as z from "zod/mini";
import { isObject } from "../../shared/validation";
import { described, FLAGS, later, oneOf, type Later, type Schema } from "../../shared/schema";

/** Key checks in order: empty or bad characters (1014), then the rest of `TAG_KEY`: length in code points (1011). */
export function validateKey(key: string): Result<string, ValidationFailure> {
  if (!TAG_KEY_PATTERN.test(key)) return err({ kind: "invalid-key", key });
  return TAG_KEY().safeParse(key).success ? ok(key) : err({ kind: "key-too-long" });
}

/**
 * Parses one `tag=` filter (docs/tags-api.md): a leading `!` makes the rest a key that must be
 * absent; otherwise split at the first `=`, negated when the character before it is `!`, values split on `,`.
 * Keys cannot contain `= ! ,`, so the grammar is unambiguous. Checks: syntax 1007 → key 1014/1011 →
 * more than 10 values 1013 → value length 1012.
 */
export function parseFilter(raw: string): Result<TagFilter, ValidationFailure> {
  if (raw === "") return err({ kind: "invalid-filter", why: "empty filter" });
  if (raw.startsWith("!")) {
    const key = raw.slice(1);
    if (key === "" || key.includes("=") || key.startsWith("!"))
      return err({ kind: "invalid-filter", why: "'!' must be followed by a key alone" });
    const checked = validateKey(key);
    return checked.ok ? ok({ kind: "lacks", key }) : checked;
  }
  const eq = raw.indexOf("=");
  if (eq === -1) {
    const checked = validateKey(raw);
    return checked.ok ? ok({ kind: "has", key: raw }) : checked;
  }
  const negated = eq > 0 && raw[eq - 1] === "!";
  const key = raw.slice(0, negated ? eq - 1 : eq);
  const rest = raw.slice(eq + 1);
  if (key === "") return err({ kind: "invalid-filter", why: "missing key before '='" });
  if (negated && rest === "") return err({ kind: "invalid-filter", why: "'!=' needs at least one value" });
  const values = rest.split(",");
  // `k=` alone is one empty value (key-only tags are stored as ""), but an empty member of a list is a typo.
  if (values.length > 1 && values.includes("")) return err({ kind: "invalid-filter", why: "empty value in list" });
  if (!values.every(isWellFormed)) return err({ kind: "invalid-filter", why: "value is not well-formed Unicode" });
  const checked = validateKey(key);
  if (!checked.ok) return checked;
  if (values.length > MAX_FILTER_VALUES) return err({ kind: "too-many-values" });
  // Well-formed already: what TAG_VALUE can still refuse is the length.
  if (values.some((value) => !TAG_VALUE().safeParse(value).success)) return err({ kind: "value-too-long" });
  return ok({ kind: negated ? "notEquals" : "equals", key, values });
}

/** Folds a filter for `case_insensitive=true`: compared against the folded columns (docs/tags-api.md). */
export function foldFilter(filter: TagFilter): TagFilter {
  switch (filter.kind) {
    case "has":
    case "lacks":
      return { kind: filter.kind, key: fold(filter.key) };
    case "equals":
    case "notEquals":
      return { kind: filter.kind, key: fold(filter.key), values: filter.values.map(fold) };
  }
}

/** A resource id (and a worker id): a well-formed string of 1 to 256 code points. */
const RESOURCE_ID = later(() => wellFormedText(MAX_RESOURCE_ID_CODE_POINTS).check(z.minLength(1)), {
  id: "ResourceId",
  description: "Lengths in code points.",
  example: "api",
});

/** The parameters of the resources listing that may repeat (ANDed filters, ORed types and ids). */
const LISTS = ["tag", "type", "id"] as const;

/**
 * `GET /tags/resources` query (docs/tags-api.md): the validator and the document's parameters. Other parameters
 * (`cursor`, read by the route) pass.
 */
export const RESOURCE_QUERY = later(
  () =>
    z.looseObject({
      tag: z.optional(TAG_FILTERS()),
      type: z.optional(described(z.array(RESOURCE_TYPE()), "Resource types, ORed.")),
      id: z.optional(described(z.array(RESOURCE_ID()).check(z.maxLength(MAX_ID_PARAMS)), "Resource ids, ORed.")),
      name: z.optional(
        described(
          wellFormedText(MAX_NAME_CODE_POINTS),
          "Case-insensitive substring of the resource name (code points).",
        ),
      ),
      case_insensitive: z.optional(
        described(oneOf(FLAGS), "Compare `tag` keys and values case-insensitively (stored casing is unchanged)."),
      ),
      effective: z.optional(EFFECTIVE()),
    }),
  { id: "TaggedResourceQuery", example: { tag: ["env=prod,staging", "!archived"], type: ["worker"] } },
);

/** The query as the schema reads it: the repeatable parameters as lists, any other as its first value. */
function listingQuery(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name of new Set(params.keys()))
    out[name] = (LISTS as readonly string[]).includes(name) ? params.getAll(name) : (params.get(name) ?? "");
  return out;
}

/**
 * `GET /tags/resources` query (docs/tags-api.md): `tag` (≤20, ANDed), `type` (ORed), `id` (≤50, ORed), `name`
 * (case-insensitive substring), `case_insensitive`, `effective`. The schema's refusals in the documented order:
 * 1010 → each filter (parseFilter) → `type` 1006 → `id`/`name` 1003 → `case_insensitive` and `effective` 1007.
 */
export function parseResourceQuery(params: URLSearchParams, account = ""): Result<ResourceQuery, ValidationFailure> {
  const parsed = RESOURCE_QUERY().safeParse(listingQuery(params), { reportInput: true });
  const refusal = parsed.success ? undefined : firstRanked(parsed.error.issues, resourceQueryRefusal)?.[1];
  if (refusal?.kind === "too-many-filters") return err(refusal);
  const filters: TagFilter[] = [];
  for (const raw of params.getAll("tag")) {
    const filter = parseFilter(raw);
    if (!filter.ok) return filter;
    filters.push(filter.value);
  }
  if (!parsed.success) return err(refusal ?? { kind: "invalid-filter", why: "the query is not valid" });
  const q = parsed.data;
  const caseInsensitive = q.case_insensitive === "true";
  if (q.effective === "true" && caseInsensitive)
    return err({ kind: "invalid-filter", why: "effective=true cannot be combined with case_insensitive=true" });
  return ok({
    filters: caseInsensitive ? filters.map(foldFilter) : filters,
    types: [...new Set(q.type ?? [])].sort(),
    ids: [...new Set(q.id ?? [])].sort(),
    name: q.name === undefined || q.name === "" ? null : fold(q.name),
    caseInsensitive,
    ...(q.effective === "true" ? { effective: account } : {}),
  });
}

/** A resources query issue as its check's failure, ranked in the documented order (the filters' own are rank 1). */
function resourceQueryRefusal(issue: z.core.$ZodIssue): [number, ValidationFailure] | null {
  switch (issue.path[0]) {
    case "tag":
      return [0, { kind: "too-many-filters" }];
    case "type":
      return [2, { kind: "invalid-resource-type", type: String(issue.input) }];
    case "id": {
      const each = `id must be a non-empty, well-formed string of at most ${MAX_RESOURCE_ID_CODE_POINTS} characters`;
      const why = issue.path.length === 1 ? `at most ${MAX_ID_PARAMS} id parameters` : each;
      return [issue.path.length === 1 ? 3 : 4, { kind: "resource-required", why }];
    }
    case "name":
      return [
        5,
        { kind: "resource-required", why: `name must be well-formed and at most ${MAX_NAME_CODE_POINTS} characters` },
      ];
    case "case_insensitive":
      return [6, { kind: "invalid-filter", why: "case_insensitive must be true or false" }];
    case "effective":
      return [7, { kind: "invalid-filter", why: "effective must be true or false" }];
    default:
      return null;
  }
}

/** `effective=true|false` (docs/tags-api.md "Inherited tags"): opt in to effective tags; anything else 1007. */
export function parseEffective(params: URLSearchParams): Result<boolean, ValidationFailure> {
  const value = params.get("effective");
  if (value !== null && !EFFECTIVE().safeParse(value).success)
    return err({ kind: "invalid-filter", why: "effective must be true or false" });
  return ok(value === "true");
}

/** `?type=` of the values listing, required keys and compliance: absent (`null`), or a resource type (else 1006). */
export function typeParam(params: URLSearchParams): Result<string | null, ValidationFailure> {
  const type = params.get("type");
  return type === null || RESOURCE_TYPE().safeParse(type).success
    ? ok(type)
    : err({ kind: "invalid-resource-type", type });
}

/** `GET /tags/values/{tag_key}?type=`: the key is URL-decoded here, then empty 1009 → 1014/1011 → type 1006. */
export function parseValuesQuery(
  rawKey: string,
  params: URLSearchParams,
): Result<{ key: string; type: string | null }, ValidationFailure> {
  let key: string;
  try {
    key = decodeURIComponent(rawKey);
  } catch {
    return err({ kind: "invalid-key", key: rawKey });
  }
  if (key === "") return err({ kind: "tag-key-required" });
  const checked = validateKey(key);
  if (!checked.ok) return checked;
  const type = typeParam(params);
  if (!type.ok) return type;
  return ok({ key, type: type.value });
}

type IdentityFailure = (why: string) => ValidationFailure;
type RefFields = { readonly resource_type: string; readonly resource_id: string; readonly worker_id?: unknown };

/**
 * Where a resource is named: an account route (account-level types) or a zone route (`zone` and `zone_ruleset`
 * of that zone, docs/tags-api.md "Zone tags").
 */
export type TagScope = { readonly kind: "account" } | { readonly kind: "zone"; readonly zone: string };

export const ACCOUNT_SCOPE: TagScope = { kind: "account" };

/**
 * The resource a body or query names, after its schema refused no shape (docs/tags-api.md: shape → resource_type
 * 1006 → extra ids): `resource_type` is a non-empty string and `resource_id` a `RESOURCE_ID`. `missing` is the code
 * of a malformed field: 1002 (PUT), 1015 (DELETE), 1003 (GET).
 */
function resourceRef(
  fields: RefFields,
  missing: IdentityFailure,
  scope: TagScope,
): Result<ResourceRef, ValidationFailure> {
  const { resource_type: type, resource_id: id, worker_id: workerId } = fields;
  if (scope.kind === "zone") {
    if (!isZoneTaggableType(type)) return err({ kind: "invalid-resource-type", type });
    if (workerId !== undefined && workerId !== null) return err(missing("worker_id is not accepted on zone routes"));
    if (type === "zone" && id !== scope.zone)
      return err(missing(`resource_id of resource_type zone must be the zone of the path (${scope.zone})`));
    return ok({ type, parent: scope.zone, id });
  }
  if (!isAccountResourceType(type)) return err({ kind: "invalid-resource-type", type });
  if (needsWorkerId(type)) {
    const worker = RESOURCE_ID().safeParse(workerId);
    if (!worker.success) return err(missing("worker_id is required for resource_type worker_version"));
    return ok({ type, parent: worker.data, id });
  }
  if (workerId !== undefined && workerId !== null)
    return err(missing("worker_id is only accepted with resource_type worker_version"));
  return ok({ type, parent: "", id });
}

const ACCOUNT_RESOURCE_TYPE = later(() => oneOf(ACCOUNT_RESOURCE_TYPES), {
  id: "AccountResourceType",
  example: "worker",
});
const ZONE_TAGGABLE_TYPE = later(() => oneOf(ZONE_TAGGABLE_TYPES), { id: "ZoneTaggableType", example: "zone_ruleset" });

const workerId = () => described(RESOURCE_ID(), "Required for `worker_version`, refused otherwise.");
/** The fields naming a resource on an account route and on a zone route (made by the schemas that hold them). */
const accountRef = () => ({
  resource_type: ACCOUNT_RESOURCE_TYPE(),
  resource_id: RESOURCE_ID(),
  worker_id: z.optional(z.nullable(workerId())),
});
const zoneRef = () => ({
  resource_type: ZONE_TAGGABLE_TYPE(),
  resource_id: described(RESOURCE_ID(), "For `zone`: the zone of the path."),
});

/** A schema per scope: an account route's and a zone route's. */
type ByScope<S extends Schema> = Readonly<Record<TagScope["kind"], Later<S>>>;

/**
 * The resource a query names (`GET …/tags`, the history's, the bodiless account DELETE's), as its body would: the
 * validator and the document's parameters. Other parameters (`effective`, `cursor`) are the route's.
 */
export const RESOURCE_PARAMS = {
  account: later(() => z.looseObject({ ...accountRef(), worker_id: z.optional(workerId()) }), {
    id: "ResourceParams",
    example: { resource_type: "worker", resource_id: "api" },
  }),
  zone: later(() => z.looseObject(zoneRef()), {
    id: "ZoneResourceParams",
    example: { resource_type: "zone", resource_id: "shop.example" },
  }),
} satisfies ByScope<Schema>;
const tags = () => described(z.record(TAG_KEY(), TAG_VALUE()), "The whole set: `{}` or absent removes every tag.");
const tagsPatch = () =>
  described(
    z.record(TAG_KEY(), z.nullable(TAG_VALUE())),
    "JSON Merge Patch (RFC 7396) of the tag map: a string sets the key, `null` removes it.",
  );

/** `PUT /accounts/{a}/tags` and `PUT /zones/{zone}/tags`. */
const SET_TAGS: ByScope<Schema> = {
  account: later(() => z.strictObject({ ...accountRef(), tags: z.optional(z.nullable(tags())) }), {
    id: "SetTagsBody",
    example: { resource_type: "worker", resource_id: "api", tags: { environment: "production", team: "platform" } },
  }),
  zone: later(() => z.strictObject({ ...zoneRef(), tags: z.optional(z.nullable(tags())) }), {
    id: "SetZoneTagsBody",
    example: {
      resource_type: "zone_ruleset",
      resource_id: "2f2feab2026849078ba485f918791bdc",
      tags: { team: "payments" },
    },
  }),
};
/** `PATCH /accounts/{a}/tags` and `PATCH /zones/{zone}/tags`. */
const PATCH_TAGS: ByScope<Schema> = {
  account: later(() => z.strictObject({ ...accountRef(), tags: tagsPatch() }), {
    id: "PatchTagsBody",
    example: { resource_type: "worker", resource_id: "api", tags: { team: "payments", deprecated: null } },
  }),
  zone: later(() => z.strictObject({ ...zoneRef(), tags: tagsPatch() }), {
    id: "PatchZoneTagsBody",
    example: {
      resource_type: "zone_ruleset",
      resource_id: "2f2feab2026849078ba485f918791bdc",
      tags: { team: "payments", old: null },
    },
  }),
};
/** `DELETE /accounts/{a}/tags` (a zone route's named resource takes the account's shape, minus worker_id). */
const RESOURCE_BODY: ByScope<Schema> = {
  account: later(() => z.strictObject(accountRef()), {
    id: "ResourceBody",
    example: { resource_type: "worker", resource_id: "api" },
  }),
  zone: later(() => z.strictObject(zoneRef())),
};

/** Where the resource check (1006, worker_id, the zone) stands among a tag body's ranks: after the shape's. */
const RESOURCE_CHECK = 5;

/**
 * A tag body's refusal as the failure its check answers, ranked in docs/tags-api.md's check order: the shape
 * (`invalid`: 1002 or 1015) — the body, its unknown fields, the tags' shape and values, `resource_type`,
 * `resource_id` — before the resource check, then the keys (1014/1011), then the values' length (1012). `null`: the
 * resource check decides (a `resource_type` string the list lacks, `worker_id`, on a zone route too).
 */
function tagBodyRank(
  issue: z.core.$ZodIssue,
  invalid: (why: string) => ValidationFailure,
  { patch, scope }: { readonly patch: boolean; readonly scope: TagScope },
): [number, ValidationFailure] | null {
  const [field, key] = issue.path;
  if (field === undefined) {
    if (issue.code !== "unrecognized_keys") return [0, invalid("the body must be a JSON object")];
    const extra = issue.keys.find((k) => scope.kind === "account" || k !== "worker_id");
    return extra === undefined ? null : [1, invalid(`unknown field ${JSON.stringify(extra)}`)];
  }
  if (field === "resource_type")
    return typeof issue.input !== "string" || issue.input === ""
      ? [3, invalid("resource_type is required (a string)")]
      : null;
  if (field === "resource_id")
    return [4, invalid(`resource_id is required (a string of 1 to ${MAX_RESOURCE_ID_CODE_POINTS} characters)`)];
  if (field !== "tags") return null;
  if (key === undefined)
    return [
      2,
      invalid(
        patch ? "tags must be an object whose values are strings or null" : "tags must be an object of string values",
      ),
    ];
  if (typeof key !== "string") return null;
  if (issue.code === "invalid_key") {
    const checked = validateKey(key);
    return checked.ok ? null : [6, checked.error];
  }
  const tag = `the value of tag ${JSON.stringify(key)}`;
  if (typeof issue.input !== "string")
    return [2, invalid(`${tag} must be a string${patch ? ", or null to remove it" : ""}`)];
  return isWellFormed(issue.input)
    ? [7, { kind: "value-too-long" }]
    : [2, invalid(`${tag} is not well-formed Unicode`)];
}

/**
 * A tag body through its schema, then the resource check (1006, worker_id, the zone) on the fields as sent, then
 * the keys and values the schema refused: the first failing check of docs/tags-api.md's order.
 */
function parseTagBody(
  schema: Later<Schema>,
  body: unknown,
  invalid: (why: string) => ValidationFailure,
  options: { readonly patch: boolean; readonly scope: TagScope },
): Result<{ ref: ResourceRef; fields: Record<string, unknown> }, ValidationFailure> {
  const parsed = schema().safeParse(body, { reportInput: true });
  const refusal = parsed.success ? null : firstRanked(parsed.error.issues, (i) => tagBodyRank(i, invalid, options));
  if (refusal !== null && refusal[0] < RESOURCE_CHECK) return err(refusal[1]);
  // The schema refused nothing of the shape: an object, its resource_type a non-empty string, its resource_id an id.
  const fields = body as RefFields & Record<string, unknown>;
  const ref = resourceRef(fields, invalid, options.scope);
  if (!ref.ok) return ref;
  if (refusal !== null) return err(refusal[1]);
  return ok({ ref: ref.value, fields });
}

/**
 * `PUT /tags` body (docs/tags-api.md): shape 1002 → resource_type 1006 → worker_id 1002 → every key 1014/1011 →
 * every value 1012. An omitted `tags` is the empty set (the resource leaves every listing).
 */
export function parsePutBody(
  body: unknown,
  scope: TagScope = ACCOUNT_SCOPE,
): Result<{ ref: ResourceRef; tags: TagPairs }, ValidationFailure> {
  const invalid = (why: string): ValidationFailure => ({ kind: "invalid-set-payload", why });
  const parsed = parseTagBody(SET_TAGS[scope.kind], body, invalid, { patch: false, scope });
  if (!parsed.ok) return parsed;
  // The pairs as sent (a key `__proto__` is a key like any other, which an object built from them would lose).
  const tags = (parsed.value.fields.tags ?? {}) as Record<string, string>;
  return ok({ ref: parsed.value.ref, tags: Object.entries(tags) });
}

/**
 * `PATCH /tags` body (docs/tags-api.md "PATCH"): `tags` is a JSON Merge Patch of the tag map (RFC 7396): a string
 * sets the key, `null` removes it. The checks and their order are PUT's: shape 1002 → resource_type 1006 →
 * worker_id 1002 → every key 1014 then 1011 (removed keys too) → every value 1012.
 */
export function parsePatchBody(
  body: unknown,
  scope: TagScope = ACCOUNT_SCOPE,
): Result<{ ref: ResourceRef; patch: PatchPairs }, ValidationFailure> {
  const invalid = (why: string): ValidationFailure => ({ kind: "invalid-set-payload", why });
  const parsed = parseTagBody(PATCH_TAGS[scope.kind], body, invalid, { patch: true, scope });
  if (!parsed.ok) return parsed;
  const tags = parsed.value.fields.tags as Record<string, string | null>;
  return ok({ ref: parsed.value.ref, patch: Object.entries(tags) });
}

/** A bulk edit's failure: which edit (its index, and its resource id when it has one) and why. */
export interface BulkFailure {
  readonly index: number | null;
  readonly id: string | null;
  readonly failure: ValidationFailure;
}

const BULK_OPS = ["merge", "replace", "delete"] as const;

/** A field of an edit the envelope passes on: its endpoint's parser checks it (PATCH, PUT or DELETE), with its codes. */
const checkedByTheEdit = (schema: Record<string, unknown>) => z.unknown().check(z.meta(schema));

/** The envelope's refusals of an edit, by the field refused (`""`: the edit itself); its endpoint checks the rest. */
const EDIT_REFUSALS: Readonly<Record<string, string>> = {
  "": "an edit must be a JSON object",
  op: 'op must be "merge", "replace" or "delete"',
  if_match: "if_match must be an ETag string",
};

/** `POST /tags/bulk`: the envelope, and what it reads of each edit (its op and if_match). */
const BULK_BODY = later(
  () =>
    z.strictObject({
      edits: z
        .array(
          z.looseObject({
            op: oneOf(BULK_OPS),
            resource_type: checkedByTheEdit({ $ref: "#/components/schemas/AccountResourceType" }),
            resource_id: checkedByTheEdit({ $ref: "#/components/schemas/ResourceId" }),
            worker_id: z.optional(checkedByTheEdit({ $ref: "#/components/schemas/ResourceId" })),
            tags: z.optional(
              checkedByTheEdit({
                type: "object",
                description: "merge: a merge patch (`null` removes); replace: the new set.",
              }),
            ),
            if_match: z.optional(
              z.nullable(described(z.string(), "The resource's ETag, as `If-Match` (412/1018 on mismatch).")),
            ),
          }),
        )
        .check(z.minLength(1), z.maxLength(MAX_BULK_EDITS)),
    }),
  {
    id: "BulkEditBody",
    example: {
      edits: [
        { op: "merge", resource_type: "worker", resource_id: "api", tags: { team: "payments", old: null } },
        { op: "replace", resource_type: "r2_bucket", resource_id: "logs", tags: { team: "payments" } },
        { op: "delete", resource_type: "queue", resource_id: "retired" },
      ],
    },
  },
);

/** The refusal among `issues` of the lowest rank (the first of it), or `null`. */
function firstRanked<T>(issues: readonly z.core.$ZodIssue[], rank: (issue: z.core.$ZodIssue) => [number, T] | null) {
  let best: [number, T] | null = null;
  for (const issue of issues) {
    const ranked = rank(issue);
    if (ranked !== null && (best === null || ranked[0] < best[0])) best = ranked;
  }
  return best;
}

/**
 * `POST /tags/bulk` body (docs/tags-api.md "Bulk edit"): `{"edits": [{op, resource_type, resource_id, worker_id?,
 * tags?, if_match?}, …]}`, 1 to 100 edits. The envelope first (1020, more than 100: 1021), then each edit in order:
 * its op and if_match (1020), then the checks of its single-resource endpoint (merge = PATCH, replace = PUT,
 * delete = DELETE); the first failure is reported with the edit's index.
 */
export function parseBulkBody(body: unknown): Result<TagEdit[], BulkFailure> {
  const whole = (failure: ValidationFailure): BulkFailure => ({ index: null, id: null, failure });
  const invalid = (why: string): ValidationFailure => ({ kind: "invalid-bulk-payload", why });
  const parsed = BULK_BODY().safeParse(body, { reportInput: true });
  const issues = parsed.success ? [] : parsed.error.issues;
  // The body's own refusal (no object, an unknown field) before its `edits`' (zod lists the unknown fields last).
  const envelope = issues.find((issue) => issue.path.length === 0) ?? issues.find((issue) => issue.path.length === 1);
  if (envelope?.code === "unrecognized_keys")
    return err(whole(invalid(`unknown field ${JSON.stringify(envelope.keys[0])}`)));
  if (envelope?.code === "too_big" && Array.isArray(envelope.input))
    return err(whole({ kind: "bulk-too-large", count: envelope.input.length }));
  if (envelope !== undefined)
    return err(
      whole(invalid(envelope.path.length === 0 ? "the body must be a JSON object" : "edits must be a non-empty array")),
    );
  // The envelope refused nothing, so the body holds an array of 1 to 100 edits.
  const edits = (body as { readonly edits: readonly unknown[] }).edits;
  const out: TagEdit[] = [];
  for (const [index, raw] of edits.entries()) {
    const at = (failure: ValidationFailure): BulkFailure => ({
      index,
      id: isObject(raw) && typeof raw.resource_id === "string" ? raw.resource_id : null,
      failure,
    });
    // The edit's own refusal, else its op's, else its if_match's: zod's order is the fields'.
    const why = issues
      .filter((issue) => issue.path[1] === index)
      .map((issue) => EDIT_REFUSALS[String(issue.path[2] ?? "")])
      .find((refusal) => refusal !== undefined);
    if (why !== undefined) return err(at(invalid(why)));
    const { op, if_match: ifMatchRaw, ...rest } = raw as Record<string, unknown>;
    const ifMatch = typeof ifMatchRaw === "string" ? parseIfMatch(ifMatchRaw) : null;
    if (op === "merge") {
      const patch = parsePatchBody(rest);
      if (!patch.ok) return err(at(patch.error));
      out.push({ kind: "merge", ref: patch.value.ref, patch: patch.value.patch, ifMatch });
    } else if (op === "replace") {
      const put = parsePutBody(rest);
      if (!put.ok) return err(at(put.error));
      out.push({ kind: "replace", ref: put.value.ref, tags: put.value.tags, ifMatch });
    } else {
      const ref = parseDeleteBody(rest);
      if (!ref.ok) return err(at(ref.error));
      out.push({ kind: "delete", ref: ref.value, ifMatch });
    }
  }
  return ok(out);
}

/** `DELETE /tags` body: `{resource_type, resource_id, worker_id?}`; anything malformed is 1015. */
export function parseDeleteBody(
  body: unknown,
  scope: TagScope = ACCOUNT_SCOPE,
): Result<ResourceRef, ValidationFailure> {
  const invalid = (why: string): ValidationFailure => ({ kind: "invalid-delete-payload", why });
  const parsed = parseTagBody(RESOURCE_BODY[scope.kind], body, invalid, { patch: false, scope });
  return parsed.ok ? ok(parsed.value.ref) : parsed;
}

/**
 * `GET /tags?resource_type=&resource_id=[&worker_id=]` through `RESOURCE_PARAMS` and the resource check, each
 * parameter's first value: missing → 1003, unknown type → 1006, then `worker_id` 1003.
 */
export function parseResourceParams(
  params: URLSearchParams,
  scope: TagScope = ACCOUNT_SCOPE,
): Result<ResourceRef, ValidationFailure> {
  const missing = (why: string): ValidationFailure => ({ kind: "resource-required", why });
  const parsed = parseTagBody(RESOURCE_PARAMS[scope.kind], listingQuery(params), missing, { patch: false, scope });
  return parsed.ok ? ok(parsed.value.ref) : parsed;
}

/**
 * `If-Match` (RFC 9110 §13.1.1; notes §8.1): `*`, or a comma-separated list of entity tags, quoted or bare.
 * Weak tags (`W/"…"`) never match: If-Match uses the strong comparison. An absent header is `null`.
 */
export function parseIfMatch(header: string | null): IfMatch | null {
  if (header === null) return null;
  const trimmed = header.trim();
  if (trimmed === "*") return { kind: "any" };
  const etags = trimmed
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "" && !part.startsWith("W/"))
    .map((part) => (part.length >= 2 && part.startsWith('"') && part.endsWith('"') ? part.slice(1, -1) : part));
  return { kind: "tags", etags };
}
