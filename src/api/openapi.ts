/**
 * OpenAPI 3.1 description of the management API: the tagging API (contract §5) and the zone configuration API
 * (contract §6), with the auth of §7 and the abuse limits of §8. Served as `GET /openapi.json` on API hosts
 * (with or without `/client/v4`), without a token: it documents the API, it discloses no data.
 *
 * Built once per isolate (a module constant), serialised once, and served from memory.
 */
import {
  MAX_FILTERS,
  MAX_FILTER_VALUES,
  MAX_ID_PARAMS,
  MAX_KEY_CODE_POINTS,
  MAX_NAME_CODE_POINTS,
  MAX_RESOURCE_ID_CODE_POINTS,
  MAX_VALUE_CODE_POINTS,
} from "../tags/errors";
import { ACCOUNT_RESOURCE_TYPES, ZONE_RESOURCE_TYPES } from "../tags/resource-types";
import { TAG_KEY_PATTERN } from "../tags/validate";
import { MAX_API_BODY_BYTES } from "./body";

type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const param = (name: string): Json => ({ $ref: `#/components/parameters/${name}` });
const response = (name: string): Json => ({ $ref: `#/components/responses/${name}` });

/** `{success: true, result: <schema>}`, with `result_info` for cursor-paginated lists. */
function envelope(result: Json, paginated = false): Json {
  return {
    allOf: [
      ref("Envelope"),
      {
        type: "object",
        required: paginated ? ["result", "result_info"] : ["result"],
        properties: paginated ? { result, result_info: ref("ResultInfo") } : { result },
      },
    ],
  };
}

function ok(description: string, result: Json, paginated = false, headers?: Json): Json {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { "application/json": { schema: envelope(result, paginated) } },
  };
}

const ETAG_HEADER: Json = {
  ETag: { description: 'The tag set\'s ETag, quoted: `"v1:…"`', schema: { type: "string" } },
};

const COMMON_ERRORS: Json = {
  "400": response("BadRequest"),
  "401": response("Unauthenticated"),
  "403": response("Forbidden"),
  "404": response("NotFound"),
};

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
].join("; ");

const tagPaths: Record<string, Json> = {
  "/accounts/{account_id}/tags": {
    parameters: [param("AccountId")],
    get: {
      operationId: "getResourceTags",
      summary: "Tags of one resource",
      description: "An untagged or unknown resource answers 200 with `tags: {}` and the ETag of the empty set.",
      security: [{ bearer: ["tags:read"] }],
      parameters: [
        { name: "resource_type", in: "query", required: true, schema: ref("AccountResourceType") },
        { name: "resource_id", in: "query", required: true, schema: ref("ResourceId") },
        { name: "worker_id", in: "query", description: "Required for `worker_version`.", schema: ref("ResourceId") },
      ],
      responses: { "200": ok("The resource's tags", ref("TaggedResource"), false, ETAG_HEADER), ...COMMON_ERRORS },
    },
    put: {
      operationId: "setResourceTags",
      summary: "Replace the whole tag set of one resource",
      description:
        "No merge: the body's `tags` become the resource's only tags; `{}` or no `tags` removes them all. " +
        "Optimistic concurrency with `If-Match`. Refused with 1016 when the account would exceed its tag limit.",
      security: [{ bearer: ["tags:write"] }],
      parameters: [param("IfMatch")],
      requestBody: { required: true, content: { "application/json": { schema: ref("SetTagsBody") } } },
      responses: {
        "200": ok("The resource with its new tags", ref("TaggedResource"), false, ETAG_HEADER),
        ...COMMON_ERRORS,
        "412": response("PreconditionFailed"),
        "413": response("TooLarge"),
      },
    },
    delete: {
      operationId: "deleteResourceTags",
      summary: "Remove every tag of one resource (idempotent)",
      security: [{ bearer: ["tags:write"] }],
      parameters: [param("IfMatch")],
      requestBody: { required: true, content: { "application/json": { schema: ref("ResourceBody") } } },
      responses: {
        "204": { description: "Removed (or there was nothing to remove); no body" },
        ...COMMON_ERRORS,
        "412": response("PreconditionFailed"),
        "413": response("TooLarge"),
      },
    },
  },
  "/accounts/{account_id}/tags/keys": {
    parameters: [param("AccountId")],
    get: {
      operationId: "listTagKeys",
      summary: "Distinct tag keys, ascending by code point",
      security: [{ bearer: ["tags:read"] }],
      parameters: [param("Cursor")],
      responses: { "200": ok("One page (at most 100 keys)", { type: "array", items: ref("TagKey") }, true), ...COMMON_ERRORS },
    },
  },
  "/accounts/{account_id}/tags/values/{tag_key}": {
    parameters: [param("AccountId")],
    get: {
      operationId: "listTagValues",
      summary: "Distinct values of one key, ascending by code point",
      security: [{ bearer: ["tags:read"] }],
      parameters: [
        { name: "tag_key", in: "path", required: true, description: "URL-encoded key.", schema: ref("TagKey") },
        { name: "type", in: "query", schema: ref("ResourceType") },
        param("Cursor"),
      ],
      responses: { "200": ok("One page (at most 100 values)", { type: "array", items: ref("TagValue") }, true), ...COMMON_ERRORS },
    },
  },
  "/accounts/{account_id}/tags/resources": {
    parameters: [param("AccountId")],
    get: {
      operationId: "listTaggedResources",
      summary: "Tagged resources matching every filter",
      description:
        "Filters (`tag`, repeatable, ANDed): `k` (has k), `k=v`, `k=v1,v2` (one of, ≤10), `!k` (lacks k), " +
        "`k!=v[,v2]` (exact negation of `k=v…`: includes resources lacking k). Encode `+` as `%2B`. " +
        "Order: resource type, worker id, resource id, by code point.",
      security: [{ bearer: ["tags:read"] }],
      parameters: [
        {
          name: "tag",
          in: "query",
          style: "form",
          explode: true,
          schema: { type: "array", maxItems: MAX_FILTERS, items: { type: "string" } },
          example: ["env=prod,staging", "!archived"],
        },
        { name: "type", in: "query", style: "form", explode: true, schema: { type: "array", items: ref("ResourceType") } },
        {
          name: "id",
          in: "query",
          style: "form",
          explode: true,
          schema: { type: "array", maxItems: MAX_ID_PARAMS, items: ref("ResourceId") },
        },
        {
          name: "name",
          in: "query",
          description: "Case-insensitive substring of the resource name.",
          schema: { type: "string", maxLength: MAX_NAME_CODE_POINTS },
        },
        {
          name: "case_insensitive",
          in: "query",
          description: "Compare `tag` keys and values case-insensitively (stored casing is unchanged).",
          schema: { type: "string", enum: ["true", "false"] },
        },
        param("Cursor"),
      ],
      responses: {
        "200": ok("One page (at most 100 resources and 8 MiB of JSON)", { type: "array", items: ref("TaggedResource") }, true),
        ...COMMON_ERRORS,
      },
    },
  },
  "/accounts/{account_id}/tags/summary": {
    parameters: [param("AccountId")],
    get: {
      operationId: "tagSummary",
      summary: "Keys with all their distinct values (100 keys per page)",
      description:
        "A key whose values would pass the page's 8 MiB byte budget is split: the page ends inside it and the next " +
        "page starts with the same key and the values after the last one returned.",
      security: [{ bearer: ["tags:read"] }],
      parameters: [param("Cursor")],
      responses: {
        "200": ok(
          "One page",
          {
            type: "array",
            items: {
              type: "object",
              required: ["key", "values"],
              properties: { key: ref("TagKey"), values: { type: "array", items: ref("TagValue") } },
            },
          },
          true,
        ),
        ...COMMON_ERRORS,
      },
    },
  },
};

const PHASES = ["http_custom_errors", "http_request_firewall_custom", "http_ratelimit"];

const zonePaths: Record<string, Json> = {
  "/zones/{zone}": {
    parameters: [param("Zone")],
    get: {
      operationId: "getZone",
      summary: "A zone's configuration",
      security: [{ bearer: ["zones:read"] }],
      responses: { "200": ok("The zone", ref("Zone")), ...COMMON_ERRORS },
    },
    put: {
      operationId: "putZone",
      summary: "Create or replace a zone",
      security: [{ bearer: ["zones:write"] }],
      requestBody: { required: true, content: { "application/json": { schema: ref("ZoneSettings") } } },
      responses: { "200": ok("The stored zone", ref("Zone")), ...COMMON_ERRORS, "413": response("TooLarge") },
    },
    delete: {
      operationId: "deleteZone",
      summary: "Delete a zone with all its rules and pages",
      security: [{ bearer: ["zones:write"] }],
      responses: {
        "200": ok("Deleted", { type: "object", required: ["id"], properties: { id: { type: "string" } } }),
        ...COMMON_ERRORS,
      },
    },
  },
  "/zones/{zone}/rulesets/phases/{phase}/entrypoint": {
    parameters: [param("Zone"), { name: "phase", in: "path", required: true, schema: { type: "string", enum: PHASES } }],
    get: {
      operationId: "getPhaseEntrypoint",
      summary: "The zone's ruleset of one phase",
      security: [{ bearer: ["zones:read"] }],
      responses: { "200": ok("The ruleset", ref("Ruleset")), ...COMMON_ERRORS },
    },
    put: {
      operationId: "putPhaseEntrypoint",
      summary: "Replace the zone's ruleset of one phase",
      description:
        "Every expression is compiled and every limit checked before anything is stored; an invalid expression " +
        "answers 400 naming the rule index, the 1-based line and column and what was expected.",
      security: [{ bearer: ["zones:write"] }],
      requestBody: { required: true, content: { "application/json": { schema: ref("Ruleset") } } },
      responses: { "200": ok("The stored ruleset", ref("Ruleset")), ...COMMON_ERRORS, "413": response("TooLarge") },
    },
  },
  "/zones/{zone}/custom_pages": {
    parameters: [param("Zone")],
    get: {
      operationId: "listCustomPages",
      summary: "Page types with their state",
      security: [{ bearer: ["zones:read"] }],
      responses: { "200": ok("The pages", { type: "array", items: ref("CustomPage") }), ...COMMON_ERRORS },
    },
  },
  "/zones/{zone}/custom_pages/{id}": {
    parameters: [param("Zone"), { name: "id", in: "path", required: true, schema: { type: "string", enum: ["500_errors", "1000_errors"] } }],
    get: {
      operationId: "getCustomPage",
      summary: "One custom page",
      security: [{ bearer: ["zones:read"] }],
      responses: { "200": ok("The page", ref("CustomPage")), ...COMMON_ERRORS },
    },
    put: {
      operationId: "putCustomPage",
      summary: "Customise a page or restore the default",
      security: [{ bearer: ["zones:write"] }],
      requestBody: { required: true, content: { "application/json": { schema: ref("CustomPageBody") } } },
      responses: { "200": ok("The page", ref("CustomPage")), ...COMMON_ERRORS, "413": response("TooLarge") },
    },
  },
  "/zones/{zone}/access_rules": {
    parameters: [param("Zone")],
    get: {
      operationId: "getAccessRules",
      summary: "IP access rules",
      security: [{ bearer: ["zones:read"] }],
      responses: { "200": ok("The rules", ref("AccessRules")), ...COMMON_ERRORS },
    },
    put: {
      operationId: "putAccessRules",
      summary: "Replace the IP access rules",
      security: [{ bearer: ["zones:write"] }],
      requestBody: { required: true, content: { "application/json": { schema: ref("AccessRules") } } },
      responses: { "200": ok("The stored rules", ref("AccessRules")), ...COMMON_ERRORS, "413": response("TooLarge") },
    },
  },
  "/zones/{zone}/preview/{code}": {
    parameters: [param("Zone"), { name: "code", in: "path", required: true, schema: { type: "integer" } }],
    get: {
      operationId: "previewError",
      summary: "Exactly the response the zone would serve for this error to this request",
      description: "Negotiated from the request's `Accept` and other headers, with the zone's rules and pages applied.",
      security: [{ bearer: ["zones:read"] }],
      responses: {
        default: {
          description: "The error response (JSON, Markdown or HTML per contract §1)",
          content: { "application/json": {}, "text/markdown": {}, "text/html": {} },
        },
      },
    },
    head: {
      operationId: "previewErrorHead",
      summary: "Headers of the preview",
      security: [{ bearer: ["zones:read"] }],
      responses: { default: { description: "The error response's headers" } },
    },
  },
};

function errorResponse(description: string): Json {
  return { description, content: { "application/json": { schema: ref("FailureEnvelope") } } };
}

const resourceIdSchema: Json = { type: "string", minLength: 1, maxLength: MAX_RESOURCE_ID_CODE_POINTS };

const schemas: Record<string, Json> = {
  Envelope: {
    type: "object",
    required: ["success", "errors", "messages", "result"],
    properties: {
      success: { type: "boolean" },
      errors: { type: "array", items: ref("Message") },
      messages: { type: "array", items: ref("Message") },
      result: {},
    },
  },
  FailureEnvelope: {
    type: "object",
    required: ["success", "errors", "messages", "result"],
    properties: {
      success: { const: false },
      errors: { type: "array", minItems: 1, items: ref("Message") },
      messages: { type: "array", items: ref("Message") },
      result: { type: "null" },
    },
    example: { success: false, errors: [{ code: 1010, message: "too many tag filters (maximum 20)" }], messages: [], result: null },
  },
  Message: {
    type: "object",
    required: ["code", "message"],
    properties: { code: { type: "integer", minimum: 1000 }, message: { type: "string" } },
  },
  ResultInfo: {
    type: "object",
    description:
      "`cursor` (docs) and `cursors.after` (SDKs) carry the same opaque cursor; null on the last page. A page holds " +
      "at most `per_page` items and at most 8 MiB of JSON: it may end early with a cursor, so follow `cursor` until null.",
    required: ["count", "per_page", "cursor", "cursors"],
    properties: {
      count: {
        type: "integer",
        description: "Items on this page: below `per_page` on the last page, or when the page reached its 8 MiB byte budget.",
      },
      per_page: { const: 100 },
      cursor: { type: ["string", "null"] },
      cursors: { type: "object", properties: { after: { type: ["string", "null"] } } },
    },
  },
  TagKey: {
    type: "string",
    minLength: 1,
    maxLength: MAX_KEY_CODE_POINTS,
    pattern: TAG_KEY_PATTERN.source,
    description: "Letters of any script with combining marks, decimal digits, `_ . -`; case-sensitive; lengths in code points.",
  },
  TagValue: { type: "string", maxLength: MAX_VALUE_CODE_POINTS, description: "Any well-formed string; `\"\"` for key-only tags." },
  Tags: { type: "object", propertyNames: ref("TagKey"), additionalProperties: ref("TagValue") },
  AccountResourceType: { type: "string", enum: [...ACCOUNT_RESOURCE_TYPES] },
  ResourceType: { type: "string", enum: [...ACCOUNT_RESOURCE_TYPES, ...ZONE_RESOURCE_TYPES] },
  ResourceId: resourceIdSchema,
  TaggedResource: {
    type: "object",
    required: ["id", "type", "name", "tags", "etag"],
    properties: {
      id: { type: "string" },
      type: { type: "string" },
      name: { type: "string" },
      tags: ref("Tags"),
      etag: { type: "string", pattern: "^v1:[A-Za-z0-9_-]{22}$" },
      tags_updated_at: { type: "string", format: "date-time" },
      worker_id: { type: "string" },
    },
  },
  ResourceBody: {
    type: "object",
    additionalProperties: false,
    required: ["resource_type", "resource_id"],
    properties: { resource_type: ref("AccountResourceType"), resource_id: ref("ResourceId"), worker_id: ref("ResourceId") },
  },
  SetTagsBody: {
    type: "object",
    additionalProperties: false,
    required: ["resource_type", "resource_id"],
    properties: {
      resource_type: ref("AccountResourceType"),
      resource_id: ref("ResourceId"),
      worker_id: ref("ResourceId"),
      tags: ref("Tags"),
    },
    example: { resource_type: "worker", resource_id: "api", tags: { environment: "production", team: "platform" } },
  },
  ZoneSettings: {
    type: "object",
    required: ["plan", "origin"],
    properties: {
      plan: { type: "string", enum: ["free", "pro", "business", "enterprise"] },
      origin: { type: "string", format: "uri", description: "`http(s)://host[:port]`" },
      connect_timeout: { type: "number", description: "seconds" },
      read_timeout: { type: "number", description: "seconds" },
      max_request_header_bytes: { type: "integer" },
    },
  },
  Zone: {
    description: "The zone's settings as written, with its name and the document's revision.",
    allOf: [
      ref("ZoneSettings"),
      {
        type: "object",
        required: ["zone", "version", "modified_on"],
        properties: { zone: { type: "string" }, version: { type: "integer" }, modified_on: { type: "string", format: "date-time" } },
      },
    ],
  },
  Rule: {
    type: "object",
    required: ["expression", "action"],
    properties: {
      id: { type: "string" },
      expression: { type: "string" },
      action: { type: "string", enum: ["serve_error", "block"] },
      action_parameters: { type: "object" },
      ratelimit: { type: "object" },
      description: { type: "string" },
      enabled: { type: "boolean" },
    },
  },
  Ruleset: { type: "object", required: ["rules"], properties: { rules: { type: "array", items: ref("Rule") } } },
  CustomPage: {
    type: "object",
    properties: { id: { type: "string" }, state: { type: "string", enum: ["default", "customized"] }, content: { type: "string" } },
  },
  CustomPageBody: {
    oneOf: [
      { type: "object", required: ["state", "content"], properties: { state: { const: "customized" }, content: { type: "string" } } },
      { type: "object", required: ["state"], properties: { state: { const: "default" } } },
    ],
  },
  AccessRules: {
    type: "object",
    required: ["rules"],
    properties: {
      rules: {
        type: "array",
        items: {
          type: "object",
          required: ["mode", "configuration"],
          properties: {
            mode: { const: "block" },
            configuration: {
              type: "object",
              required: ["target", "value"],
              properties: { target: { type: "string", enum: ["ip", "ip_range", "country"] }, value: { type: "string" } },
            },
          },
        },
      },
    },
  },
};

export const OPENAPI_DOCUMENT: Json = {
  openapi: "3.1.0",
  info: {
    title: "Edge management API",
    version: "1.0.0",
    description:
      "Account resource tagging (contract §5) and zone configuration (contract §6). Cloudflare v4 envelope; " +
      "paths are also served under `/client/v4`. Bodies are limited to " +
      `${MAX_API_BODY_BYTES} bytes (413). Tagging error codes: ${TAG_ERROR_CODES}.`,
  },
  servers: [{ url: "/" }, { url: "/client/v4" }],
  security: [{ bearer: [] }],
  paths: { ...tagPaths, ...zonePaths },
  components: {
    securitySchemes: {
      bearer: {
        type: "http",
        scheme: "bearer",
        description: "ADMIN_TOKEN, or a scoped API_TOKENS entry (permissions tags:read, tags:write, zones:read, zones:write).",
      },
    },
    parameters: {
      AccountId: { name: "account_id", in: "path", required: true, schema: { type: "string", pattern: "^[0-9a-f]{32}$" } },
      Zone: { name: "zone", in: "path", required: true, description: "Hostname.", schema: { type: "string" } },
      Cursor: {
        name: "cursor",
        in: "query",
        description: "Opaque; from `result_info.cursor` of the previous page of the same query. Never expires.",
        schema: { type: "string" },
      },
      IfMatch: {
        name: "If-Match",
        in: "header",
        description: "`*` or the resource's ETag (quoted or bare); a mismatch answers 412 (1018).",
        schema: { type: "string" },
      },
    },
    responses: {
      BadRequest: errorResponse("Validation error: the first failing check's code"),
      Unauthenticated: errorResponse("Missing or unknown token (10000)"),
      Forbidden: errorResponse("The token lacks the permission or the account/zone (10001)"),
      NotFound: errorResponse("Unknown route, or an account_id that is not 32 lower-case hex characters (7003)"),
      PreconditionFailed: errorResponse("If-Match does not match the current ETag (1018)"),
      TooLarge: errorResponse("Body over 1 MiB (10413)"),
    },
    schemas,
  },
};

const SERIALISED = JSON.stringify(OPENAPI_DOCUMENT);

/** `GET /openapi.json` on API hosts. */
export function serveOpenApi(): Response {
  return new Response(SERIALISED, {
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "public, max-age=300" },
  });
}
