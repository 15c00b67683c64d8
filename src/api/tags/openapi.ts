/**
 * The tagging API's part of the OpenAPI document (docs/tags-api.md).
 */
import {
  jsonBody,
  ok,
  operation,
  param,
  parameterOf,
  queryParameters,
  ref,
  response,
  type Json,
  type OpenApiFragment,
} from "../kit/openapi";
import { RESOURCE_PARAMS, RESOURCE_QUERY } from "./validate";
import {
  MAX_BULK_EDITS,
  MAX_FILTERS,
  MAX_FILTER_VALUES,
  MAX_KEY_CODE_POINTS,
  MAX_VALUE_CODE_POINTS,
} from "../../state/tags/errors";
import { HISTORY_RETENTION_DAYS, HISTORY_VIA } from "../../state/tags/history";
import * as z from "zod/mini";
import { dateTime, described, later, named, oneOf } from "../../shared/schema";
import { POLICY_RULES } from "../../state/tags/errors";
import { POLICY_KEYS, POLICY_MODE } from "../../state/tags/policy";
import { TAGS_ETAG_PATTERN } from "../../state/tags/etag";
import { EFFECTIVE, RESOURCE_TYPE, TAG_KEY, TAG_VALUE } from "../../state/tags/tag-schema";
import { INHERITED_FROM } from "../../state/tags/types";

/** A tag set: key → value. */
const TAGS = later(() => z.record(TAG_KEY(), TAG_VALUE()), { id: "Tags" });

/** The fields of a resource as every answer shows it. */
const resourceFields = () => ({
  id: z.string(),
  type: z.string(),
  name: z.string(),
  tags: TAGS(),
  etag: z.string().check(z.regex(TAGS_ETAG_PATTERN)),
  tags_updated_at: z.optional(dateTime()),
  worker_id: z.optional(z.string()),
  zone_id: z.optional(described(z.string(), "On `zone` and `zone_ruleset`: the zone.")),
  inherited_tags: z.optional(
    described(
      z.record(
        z.string(),
        z.object({
          value: TAG_VALUE(),
          from: z.object({ resource_type: oneOf(INHERITED_FROM), resource_id: z.string() }),
        }),
      ),
      "Only with `effective=true`: inherited tags the resource does not set itself.",
    ),
  ),
});

/** One resource with its tags (every tag answer, a listing's item). */
export const TAGGED_RESOURCE = later(() => z.object(resourceFields()), { id: "TaggedResource" });

/** One key of one change (`GET …/tags/history`). */
export const TAG_HISTORY_ENTRY = later(
  () =>
    z.object({
      id: described(z.string(), "Increasing with time within the account."),
      change_id: described(z.int(), "Shared by the keys of one write of one resource."),
      at: dateTime(),
      token_name: described(z.string(), "The `name` of the API token that wrote."),
      via: oneOf(HISTORY_VIA),
      resource_type: RESOURCE_TYPE(),
      resource_id: z.string(),
      worker_id: z.optional(z.string()),
      zone_id: z.optional(described(z.string(), "The zone of a zone resource (`zone`, `zone_ruleset`).")),
      key: TAG_KEY(),
      before: described(z.nullable(TAG_VALUE()), "`null`: the key was added."),
      after: described(z.nullable(TAG_VALUE()), "`null`: the key was removed."),
    }),
  {
    id: "TagHistoryEntry",
    example: {
      id: "42",
      change_id: 17,
      at: "2026-11-26T10:00:00.000Z",
      token_name: "ci-deploy",
      via: "patch",
      resource_type: "zone",
      resource_id: "shop.example",
      zone_id: "shop.example",
      key: "team",
      before: "web",
      after: "payments",
    },
  },
);

/** A tagged resource that breaks the policy, with every rule it breaks (`GET …/tags/compliance`). */
export const COMPLIANCE_ITEM = later(
  () =>
    z.object({
      ...resourceFields(),
      violations: z.array(
        z.object({
          kind: z.string(),
          rule: oneOf(POLICY_RULES),
          key: TAG_KEY(),
          value: z.optional(TAG_VALUE()),
          code: z.int(),
          message: z.string(),
        }),
      ),
    }),
  { id: "ComplianceItem" },
);

const ETAG_HEADER: Json = {
  ETag: { description: 'The tag set\'s ETag, quoted: `"v1:…"`', schema: { type: "string" } },
};

/** The errors of a write beside the common ones: If-Match (412) and the body's size (413). */
const WRITE_ERRORS = { "412": response("PreconditionFailed"), "413": response("TooLarge") };
const REMOVED: Json = { description: "Removed (or there was nothing to remove); no body" };

/** What a write of one resource's tags answers: the resource with `what` (its new ETag too), or an error. */
const written = (what: string): Record<string, Json> => ({
  "200": ok(`The resource with its ${what} tags`, ref("TaggedResource"), false, ETAG_HEADER),
  ...WRITE_ERRORS,
});

const TAG_ERROR_CODES = [
  "1002 invalid PUT payload",
  "1003 resource_type/resource_id missing (also: more than 50 `id`, `name` too long)",
  "1006 unknown resource type",
  "1007 bad filter syntax (also: `case_insensitive` not true/false)",
  "1009 tag_key missing",
  `1010 more than ${MAX_FILTERS} tag filters`,
  `1011 key longer than ${MAX_KEY_CODE_POINTS} code points`,
  `1012 value longer than ${MAX_VALUE_CODE_POINTS} code points`,
  `1013 more than ${MAX_FILTER_VALUES} values in one filter`,
  "1014 invalid key characters",
  "1015 invalid DELETE payload",
  "1016 account tag limit reached",
  "1017 invalid cursor",
  "1018 If-Match mismatch (HTTP 412)",
  "1020 invalid bulk payload",
  `1021 more than ${MAX_BULK_EDITS} edits in one bulk call`,
  "1022 invalid tag policy",
  "1023 key not allowed by the policy",
  "1024 value not allowed by the policy",
  "1025 required key missing",
  "1026 key case rule broken",
  "1027 zone without an account (HTTP 409)",
].join("; ");

const POLICY_ERRORS =
  "An enforced tag policy refuses a write that breaks it (1023–1026); an advisory one reports it in `messages`.";

/** Made when the document is built: the parameters read the request schemas, which are made on first use. */
const READ = "tags:read";
const WRITE = "tags:write";

/** Made when the document is built: the parameters read the request schemas, which are made on first use. */
const tagPaths = (): Record<string, Json> => ({
  "/accounts/{account_id}/tags": {
    parameters: [param("AccountId")],
    get: operation(
      READ,
      "getResourceTags",
      "Tags of one resource",
      { "200": ok("The resource's tags", ref("TaggedResource"), false, ETAG_HEADER) },
      {
        description: "An untagged or unknown resource answers 200 with `tags: {}` and the ETag of the empty set.",
        parameters: [...queryParameters(RESOURCE_PARAMS.account()), param("Effective")],
      },
    ),
    put: operation(WRITE, "setResourceTags", "Replace the whole tag set of one resource", written("new"), {
      description:
        "No merge: the body's `tags` become the resource's only tags; `{}` or no `tags` removes them all. " +
        "Optimistic concurrency with `If-Match`. Refused with 1016 when the account would exceed its tag limit.",
      parameters: [param("IfMatch")],
      requestBody: jsonBody("SetTagsBody"),
    }),
    delete: operation(
      WRITE,
      "deleteResourceTags",
      "Remove every tag of one resource (idempotent)",
      { "204": REMOVED, ...WRITE_ERRORS },
      { parameters: [param("IfMatch")], requestBody: jsonBody("ResourceBody") },
    ),
    patch: operation(
      WRITE,
      "patchResourceTags",
      "Merge a JSON Merge Patch (RFC 7396) into one resource's tags",
      written("merged"),
      {
        description:
          "`tags` is a merge patch of the tag map: a string sets the key, `null` removes it, keys not named are kept. " +
          "Merged inside the account's object, so concurrent patches of different keys all land. Every check and code " +
          "of PUT, in PUT's order; optional `If-Match`. " +
          POLICY_ERRORS,
        parameters: [param("IfMatch")],
        requestBody: jsonBody("PatchTagsBody"),
      },
    ),
  },
  "/zones/{zone}/tags": {
    parameters: [param("Zone")],
    get: operation(
      READ,
      "getZoneResourceTags",
      "Tags of the zone or one of its zone rulesets",
      { "200": ok("The resource's tags", ref("TaggedResource"), false, ETAG_HEADER) },
      {
        description:
          "Stored with the tags of the zone's account (`account.id` of the zone): same limits, listings and filters. " +
          "404 (1001) for a zone not configured; 409 (1027) for a zone without an account.",
        parameters: [...queryParameters(RESOURCE_PARAMS.zone()), param("Effective")],
      },
    ),
    put: operation(
      WRITE,
      "setZoneResourceTags",
      "Replace the whole tag set of the zone or one of its zone rulesets",
      written("new"),
      { parameters: [param("IfMatch")], requestBody: jsonBody("SetZoneTagsBody") },
    ),
    patch: operation(
      WRITE,
      "patchZoneResourceTags",
      "Merge a JSON Merge Patch (RFC 7396) into the tags of the zone or one of its zone rulesets",
      written("merged"),
      { parameters: [param("IfMatch")], requestBody: jsonBody("PatchZoneTagsBody") },
    ),
    delete: operation(
      WRITE,
      "deleteZoneResourceTags",
      "Remove every tag of the zone (no body, as the published SDK sends it) or of a named zone resource",
      { "204": REMOVED, "412": response("PreconditionFailed") },
      { parameters: [param("IfMatch")] },
    ),
  },
  "/accounts/{account_id}/tags/bulk": {
    parameters: [param("AccountId")],
    post: operation(
      WRITE,
      "bulkEditTags",
      `Up to ${MAX_BULK_EDITS} tag edits (merge, replace, delete) in one atomic call`,
      {
        "200": ok("Each resource as its edit left it, in the order of the edits", {
          type: "array",
          items: ref("TaggedResource"),
        }),
        ...WRITE_ERRORS,
      },
      {
        description:
          "All or nothing: edits apply in order (a later edit sees the earlier ones); the first failing edit refuses " +
          "the whole call with its own code and a message naming `edits[i]` and its resource_id. More than " +
          `${MAX_BULK_EDITS} edits: 1021. ` +
          POLICY_ERRORS,
        requestBody: jsonBody("BulkEditBody"),
      },
    ),
  },
  "/accounts/{account_id}/tags/history": {
    parameters: [param("AccountId")],
    get: operation(
      READ,
      "listTagHistory",
      "Tag changes, newest first: one entry per changed key",
      { "200": ok("One page (at most 100 entries)", { type: "array", items: ref("TagHistoryEntry") }, true) },
      {
        description:
          `Kept ${HISTORY_RETENTION_DAYS} days (and at most 1,000,000 entries per account). Without resource_type and ` +
          "resource_id: the whole account.",
        parameters: [...queryParameters(RESOURCE_PARAMS.account(), true), param("Cursor")],
      },
    ),
  },
  "/zones/{zone}/tags/history": {
    parameters: [param("Zone")],
    get: operation(
      READ,
      "listZoneTagHistory",
      "Tag changes of the zone or one of its zone rulesets, newest first: one entry per changed key",
      {
        "200": ok("One page (at most 100 entries)", { type: "array", items: ref("TagHistoryEntry") }, true),
        "409": { description: "The zone has no account (code 1027)" },
      },
      {
        description:
          "The entries `GET /accounts/{account_id}/tags/history` lists for the same resource (the zone's account), " +
          "with the same cursors. Without resource_type and resource_id: the zone's own tags. " +
          "404 (1001) for a zone not configured; 409 (1027) for a zone without an account.",
        parameters: [...queryParameters(RESOURCE_PARAMS.zone(), true), param("Cursor")],
      },
    ),
  },
  "/accounts/{account_id}/tags/policy": {
    parameters: [param("AccountId")],
    get: operation(READ, "getTagPolicy", "The account's tag policy (an account without one allows everything)", {
      "200": ok("The policy", ref("TagPolicy")),
    }),
    put: operation(
      WRITE,
      "setTagPolicy",
      "Replace the account's tag policy; existing tags are never rewritten",
      { "200": ok("The stored policy", ref("TagPolicy")), "413": response("TooLarge") },
      { requestBody: jsonBody("TagPolicyBody") },
    ),
    delete: operation(WRITE, "deleteTagPolicy", "Remove the account's tag policy", {
      "204": { description: "Removed; no body" },
    }),
  },
  "/accounts/{account_id}/tags/policy/required_keys": {
    parameters: [param("AccountId")],
    get: operation(
      READ,
      "listRequiredTagKeys",
      "The keys the policy requires, per resource type",
      {
        "200": ok("Every resource type with required keys, ascending", {
          type: "array",
          items: ref("RequiredTagKeys"),
        }),
      },
      { parameters: [param("ResourceTypeFilter")] },
    ),
  },
  "/accounts/{account_id}/tags/compliance": {
    parameters: [param("AccountId")],
    get: operation(
      READ,
      "listTagCompliance",
      "Tagged resources that break the policy, with every rule they break",
      { "200": ok("One page (at most 100 resources)", { type: "array", items: ref("ComplianceItem") }, true) },
      { parameters: [param("ResourceTypeFilter"), param("Cursor")] },
    ),
  },
  "/accounts/{account_id}/tags/keys": {
    parameters: [param("AccountId")],
    get: operation(
      READ,
      "listTagKeys",
      "Distinct tag keys, ascending by code point",
      { "200": ok("One page (at most 100 keys)", { type: "array", items: ref("TagKey") }, true) },
      { parameters: [param("Cursor")] },
    ),
  },
  "/accounts/{account_id}/tags/values/{tag_key}": {
    parameters: [param("AccountId")],
    get: operation(
      READ,
      "listTagValues",
      "Distinct values of one key, ascending by code point",
      { "200": ok("One page (at most 100 values)", { type: "array", items: ref("TagValue") }, true) },
      {
        parameters: [
          parameterOf(TAG_KEY(), { name: "tag_key", in: "path", description: "URL-encoded key." }),
          param("ResourceTypeFilter"),
          param("Cursor"),
        ],
      },
    ),
  },
  "/accounts/{account_id}/tags/values": {
    parameters: [param("AccountId")],
    get: operation(
      READ,
      "listTagValuesWithoutKey",
      "The values listing without its key: always 400 (1009, tag_key is required)",
      {},
    ),
  },
  "/accounts/{account_id}/tags/resources": {
    parameters: [param("AccountId")],
    get: operation(
      READ,
      "listTaggedResources",
      "Tagged resources matching every filter",
      { "200": ok("One page (at most 100 resources)", { type: "array", items: ref("TaggedResource") }, true) },
      {
        description:
          "Filters: `tag` (repeatable, ANDed; the syntax in TaggedResourceQuery), `type` and `id` (repeatable, ORed). " +
          "Order: resource type, worker id, resource id, by code point.",
        parameters: [...queryParameters(RESOURCE_QUERY()), param("Cursor")],
      },
    ),
  },
  "/accounts/{account_id}/tags/summary": {
    parameters: [param("AccountId")],
    get: operation(
      READ,
      "tagSummary",
      "Keys with all their distinct values (100 keys per page)",
      { "200": ok("One page", { type: "array", items: ref("TagSummaryItem") }, true) },
      { parameters: [param("Cursor")] },
    ),
  },
});

/** The parameters the tag paths share, made with the document as the paths are. */
const tagParameters = (): Record<string, Json> => ({
  Cursor: {
    name: "cursor",
    in: "query",
    description: "Opaque; from `result_info.cursor` of the previous page of the same query. Never expires.",
    schema: { type: "string" },
  },
  Effective: parameterOf(EFFECTIVE(), { name: "effective", in: "query" }),
  ResourceTypeFilter: parameterOf(RESOURCE_TYPE(), { name: "type", in: "query" }),
  IfMatch: {
    name: "If-Match",
    in: "header",
    description: "`*` or the resource's ETag (quoted or bare); a mismatch answers 412 (1018).",
    schema: { type: "string" },
  },
});

export const tagsOpenApi: OpenApiFragment = {
  get paths() {
    return tagPaths();
  },
  description: `Account resource tagging (docs/tags-api.md). Tagging error codes: ${TAG_ERROR_CODES}.`,
  get parameters() {
    return tagParameters();
  },
  documentOnly: () => {
    named(z.object({ key: TAG_KEY(), values: z.array(TAG_VALUE()) }), { id: "TagSummaryItem" });
    named(z.object({ resource_type: RESOURCE_TYPE(), keys: POLICY_KEYS(), mode: POLICY_MODE() }), {
      id: "RequiredTagKeys",
    });
  },
};
