/**
 * Validation of every tagging API input (docs/tags-api.md), pure: no bindings, no I/O. Each function returns the
 * FIRST failing check, in the order fixed by docs/tags-api.md ("check order"), so a request with several
 * problems always gets the same error.
 */
import { err, ok, type Result } from "../../shared/result";
import {
  MAX_FILTERS,
  MAX_FILTER_VALUES,
  MAX_ID_PARAMS,
  MAX_KEY_CODE_POINTS,
  MAX_NAME_CODE_POINTS,
  MAX_RESOURCE_ID_CODE_POINTS,
  MAX_VALUE_CODE_POINTS,
  type ValidationFailure,
} from "../../state/tags/errors";
import {
  isAccountResourceType,
  isKnownResourceType,
  isZoneTaggableType,
  needsWorkerId,
} from "../../state/tags/resource-types";
import { codePointLength, fold, isWellFormed } from "../../state/tags/text";
import type { IfMatch, ResourceQuery, ResourceRef, TagFilter, TagPairs } from "../../state/tags/types";
import type { PatchPairs, TagEdit } from "../../state/tags/edits";
import { MAX_BULK_EDITS } from "../../state/tags/errors";
import { TAG_KEY_PATTERN } from "../../state/tags/tag-schema";

const ACCOUNT_ID = /^[0-9a-f]{32}$/;

/** `account_id` is 32 lower-case hex characters (docs/tags-api.md); anything else is a 404. */
export function isAccountId(value: string): boolean {
  return ACCOUNT_ID.test(value);
}

/** Key checks in order: empty or bad characters (1014), then length in code points (1011). */
export function validateKey(key: string): Result<string, ValidationFailure> {
  if (!TAG_KEY_PATTERN.test(key)) return err({ kind: "invalid-key", key });
  if (codePointLength(key) > MAX_KEY_CODE_POINTS) return err({ kind: "key-too-long" });
  return ok(key);
}

function valueTooLong(value: string): boolean {
  // Cheap bound first: a string of at most 1,024 UTF-16 units has at most 1,024 code points.
  return value.length > MAX_VALUE_CODE_POINTS && codePointLength(value) > MAX_VALUE_CODE_POINTS;
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
  if (values.some(valueTooLong)) return err({ kind: "value-too-long" });
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

/**
 * `GET /tags/resources` query (docs/tags-api.md): `tag` (≤20, ANDed), `type` (ORed), `id` (≤50, ORed), `name`
 * (case-insensitive substring), `case_insensitive`. Order: 1010 → each filter → `type` 1006 → `id`/`name` 1003.
 */
export function parseResourceQuery(params: URLSearchParams, account = ""): Result<ResourceQuery, ValidationFailure> {
  const rawFilters = params.getAll("tag");
  if (rawFilters.length > MAX_FILTERS) return err({ kind: "too-many-filters" });
  const filters: TagFilter[] = [];
  for (const raw of rawFilters) {
    const filter = parseFilter(raw);
    if (!filter.ok) return filter;
    filters.push(filter.value);
  }
  const types = params.getAll("type");
  const unknownType = types.find((t) => !isKnownResourceType(t));
  if (unknownType !== undefined) return err({ kind: "invalid-resource-type", type: unknownType });
  const ids = params.getAll("id");
  if (ids.length > MAX_ID_PARAMS)
    return err({ kind: "resource-required", why: `at most ${MAX_ID_PARAMS} id parameters` });
  if (!ids.every((id) => id !== "" && isWellFormed(id)))
    return err({ kind: "resource-required", why: "id must be a non-empty, well-formed string" });
  const name = params.get("name");
  if (name !== null && (!isWellFormed(name) || codePointLength(name) > MAX_NAME_CODE_POINTS))
    return err({
      kind: "resource-required",
      why: `name must be well-formed and at most ${MAX_NAME_CODE_POINTS} characters`,
    });
  const ci = params.get("case_insensitive");
  if (ci !== null && ci !== "true" && ci !== "false")
    return err({ kind: "invalid-filter", why: "case_insensitive must be true or false" });
  const caseInsensitive = ci === "true";
  const effective = parseEffective(params);
  if (!effective.ok) return effective;
  if (effective.value && caseInsensitive)
    return err({ kind: "invalid-filter", why: "effective=true cannot be combined with case_insensitive=true" });
  return ok({
    filters: caseInsensitive ? filters.map(foldFilter) : filters,
    types: [...new Set(types)].sort(),
    ids: [...new Set(ids)].sort(),
    name: name === null || name === "" ? null : fold(name),
    caseInsensitive,
    ...(effective.value ? { effective: account } : {}),
  });
}

/** `effective=true|false` (docs/tags-api.md "Inherited tags"): opt in to effective tags; anything else 1007. */
export function parseEffective(params: URLSearchParams): Result<boolean, ValidationFailure> {
  const value = params.get("effective");
  if (value !== null && value !== "true" && value !== "false")
    return err({ kind: "invalid-filter", why: "effective must be true or false" });
  return ok(value === "true");
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
  const type = params.get("type");
  if (type !== null && !isKnownResourceType(type)) return err({ kind: "invalid-resource-type", type });
  return ok({ key, type });
}

type IdentityFailure = (why: string) => ValidationFailure;

/**
 * Where a resource is named: an account route (account-level types) or a zone route (`zone` and `zone_ruleset`
 * of that zone, docs/tags-api.md "Zone tags").
 */
export type TagScope = { readonly kind: "account" } | { readonly kind: "zone"; readonly zone: string };

export const ACCOUNT_SCOPE: TagScope = { kind: "account" };

function isResourceIdString(value: unknown): value is string {
  return (
    typeof value === "string" &&
    value !== "" &&
    isWellFormed(value) &&
    codePointLength(value) <= MAX_RESOURCE_ID_CODE_POINTS
  );
}

/**
 * The resource a body or query names (docs/tags-api.md: shape → resource_type 1006 → extra ids).
 * `missing` is the code for an absent or malformed field: 1002 (PUT), 1015 (DELETE), 1003 (GET).
 */
function resourceRef(
  fields: { resource_type: unknown; resource_id: unknown; worker_id: unknown },
  missing: IdentityFailure,
  scope: TagScope = ACCOUNT_SCOPE,
): Result<ResourceRef, ValidationFailure> {
  const { resource_type: type, resource_id: id, worker_id: workerId } = fields;
  if (typeof type !== "string" || type === "") return err(missing("resource_type is required (a string)"));
  if (!isResourceIdString(id))
    return err(missing(`resource_id is required (a string of 1 to ${MAX_RESOURCE_ID_CODE_POINTS} characters)`));
  if (scope.kind === "zone") {
    if (!isZoneTaggableType(type)) return err({ kind: "invalid-resource-type", type });
    if (workerId !== undefined && workerId !== null) return err(missing("worker_id is not accepted on zone routes"));
    if (type === "zone" && id !== scope.zone)
      return err(missing(`resource_id of resource_type zone must be the zone of the path (${scope.zone})`));
    return ok({ type, parent: scope.zone, id });
  }
  if (!isAccountResourceType(type)) return err({ kind: "invalid-resource-type", type });
  if (needsWorkerId(type)) {
    if (!isResourceIdString(workerId)) return err(missing("worker_id is required for resource_type worker_version"));
    return ok({ type, parent: workerId, id });
  }
  if (workerId !== undefined && workerId !== null)
    return err(missing("worker_id is only accepted with resource_type worker_version"));
  return ok({ type, parent: "", id });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const PUT_FIELDS: ReadonlySet<string> = new Set(["resource_type", "resource_id", "worker_id", "tags"]);
const DELETE_FIELDS: ReadonlySet<string> = new Set(["resource_type", "resource_id", "worker_id"]);

function unknownField(body: Record<string, unknown>, allowed: ReadonlySet<string>): string | undefined {
  return Object.keys(body).find((k) => !allowed.has(k));
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
  if (!isPlainObject(body)) return err(invalid("the body must be a JSON object"));
  const extra = unknownField(body, PUT_FIELDS);
  if (extra !== undefined) return err(invalid(`unknown field ${JSON.stringify(extra)}`));
  const tags = body.tags ?? {};
  if (!isPlainObject(tags)) return err(invalid("tags must be an object of string values"));
  const pairs: [string, string][] = [];
  for (const [key, value] of Object.entries(tags)) {
    if (typeof value !== "string") return err(invalid(`the value of tag ${JSON.stringify(key)} must be a string`));
    if (!isWellFormed(value)) return err(invalid(`the value of tag ${JSON.stringify(key)} is not well-formed Unicode`));
    pairs.push([key, value]);
  }
  const ref = resourceRef(
    { resource_type: body.resource_type, resource_id: body.resource_id, worker_id: body.worker_id },
    invalid,
    scope,
  );
  if (!ref.ok) return ref;
  for (const [key] of pairs) {
    const checked = validateKey(key);
    if (!checked.ok) return checked;
  }
  if (pairs.some(([, value]) => valueTooLong(value))) return err({ kind: "value-too-long" });
  return ok({ ref: ref.value, tags: pairs });
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
  if (!isPlainObject(body)) return err(invalid("the body must be a JSON object"));
  const extra = unknownField(body, PUT_FIELDS);
  if (extra !== undefined) return err(invalid(`unknown field ${JSON.stringify(extra)}`));
  const tags = body.tags;
  if (!isPlainObject(tags)) return err(invalid("tags must be an object whose values are strings or null"));
  const pairs: [string, string | null][] = [];
  for (const [key, value] of Object.entries(tags)) {
    if (value !== null && typeof value !== "string")
      return err(invalid(`the value of tag ${JSON.stringify(key)} must be a string, or null to remove it`));
    if (value !== null && !isWellFormed(value))
      return err(invalid(`the value of tag ${JSON.stringify(key)} is not well-formed Unicode`));
    pairs.push([key, value]);
  }
  const ref = resourceRef(
    { resource_type: body.resource_type, resource_id: body.resource_id, worker_id: body.worker_id },
    invalid,
    scope,
  );
  if (!ref.ok) return ref;
  for (const [key] of pairs) {
    const checked = validateKey(key);
    if (!checked.ok) return checked;
  }
  if (pairs.some(([, value]) => value !== null && valueTooLong(value))) return err({ kind: "value-too-long" });
  return ok({ ref: ref.value, patch: pairs });
}

/** A bulk edit's failure: which edit (its index, and its resource id when it has one) and why. */
export interface BulkFailure {
  readonly index: number | null;
  readonly id: string | null;
  readonly failure: ValidationFailure;
}

const BULK_OPS = ["merge", "replace", "delete"] as const;

/**
 * `POST /tags/bulk` body (docs/tags-api.md "Bulk edit"): `{"edits": [{op, resource_type, resource_id, worker_id?,
 * tags?, if_match?}, …]}`, 1 to 100 edits. The envelope first (1020, more than 100: 1021), then each edit in order
 * with the checks of its single-resource endpoint (merge = PATCH, replace = PUT, delete = DELETE); the first
 * failure is reported with the edit's index.
 */
export function parseBulkBody(body: unknown): Result<TagEdit[], BulkFailure> {
  const whole = (why: string): BulkFailure => ({
    index: null,
    id: null,
    failure: { kind: "invalid-bulk-payload", why },
  });
  if (!isPlainObject(body)) return err(whole("the body must be a JSON object"));
  const extra = Object.keys(body).find((k) => k !== "edits");
  if (extra !== undefined) return err(whole(`unknown field ${JSON.stringify(extra)}`));
  const edits = body.edits;
  if (!Array.isArray(edits) || edits.length === 0) return err(whole("edits must be a non-empty array"));
  if (edits.length > MAX_BULK_EDITS)
    return err({ index: null, id: null, failure: { kind: "bulk-too-large", count: edits.length } });
  const out: TagEdit[] = [];
  for (const [index, raw] of edits.entries()) {
    const at = (failure: ValidationFailure): BulkFailure => ({
      index,
      id: isPlainObject(raw) && typeof raw.resource_id === "string" ? raw.resource_id : null,
      failure,
    });
    if (!isPlainObject(raw)) return err(at({ kind: "invalid-bulk-payload", why: "an edit must be a JSON object" }));
    const { op, if_match: ifMatchRaw, ...rest } = raw;
    if (!BULK_OPS.includes(op as (typeof BULK_OPS)[number]))
      return err(at({ kind: "invalid-bulk-payload", why: 'op must be "merge", "replace" or "delete"' }));
    if (ifMatchRaw !== undefined && ifMatchRaw !== null && typeof ifMatchRaw !== "string")
      return err(at({ kind: "invalid-bulk-payload", why: "if_match must be an ETag string" }));
    const ifMatch = typeof ifMatchRaw === "string" ? parseIfMatch(ifMatchRaw) : null;
    if (op === "merge") {
      const parsed = parsePatchBody(rest);
      if (!parsed.ok) return err(at(parsed.error));
      out.push({ kind: "merge", ref: parsed.value.ref, patch: parsed.value.patch, ifMatch });
    } else if (op === "replace") {
      const parsed = parsePutBody(rest);
      if (!parsed.ok) return err(at(parsed.error));
      out.push({ kind: "replace", ref: parsed.value.ref, tags: parsed.value.tags, ifMatch });
    } else {
      const parsed = parseDeleteBody(rest);
      if (!parsed.ok) return err(at(parsed.error));
      out.push({ kind: "delete", ref: parsed.value, ifMatch });
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
  if (!isPlainObject(body)) return err(invalid("the body must be a JSON object"));
  const extra = unknownField(body, DELETE_FIELDS);
  if (extra !== undefined) return err(invalid(`unknown field ${JSON.stringify(extra)}`));
  return resourceRef(
    { resource_type: body.resource_type, resource_id: body.resource_id, worker_id: body.worker_id },
    invalid,
    scope,
  );
}

/** `GET /tags?resource_type=&resource_id=[&worker_id=]`: missing → 1003, unknown type → 1006. */
export function parseResourceParams(
  params: URLSearchParams,
  scope: TagScope = ACCOUNT_SCOPE,
): Result<ResourceRef, ValidationFailure> {
  return resourceRef(
    {
      resource_type: params.get("resource_type") ?? undefined,
      resource_id: params.get("resource_id") ?? undefined,
      worker_id: params.get("worker_id") ?? undefined,
    },
    (why) => ({ kind: "resource-required", why }),
    scope,
  );
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
