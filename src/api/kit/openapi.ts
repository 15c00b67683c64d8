/**
 * The OpenAPI 3.1 kit of the management API (docs/tags-api.md, docs/configuration.md): the envelope, common parameters and responses, and
 * the document builder. Each feature describes its own paths and schemas next to its routes
 * (`src/api/tags/openapi.ts`, `src/api/zones/openapi.ts`); the root (src/app.ts) assembles them, and a test compares the
 * assembled document with the route table in both directions, so the document never promises a route that does
 * not exist. Served as `GET /openapi.json` on API hosts without a token (docs/differences.md): it holds no data.
 */
import { MAX_API_BODY_BYTES } from "./body";
import * as z from "zod/mini";
import { answerSchemasMade, API_SCHEMAS, type Schema } from "../../shared/schema";
import { ACCOUNT_ID_TEXT } from "../../state/zone/schema";
import { TRUE_OR_FALSE } from "./query";

export type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };

export const OPENAPI_PATH = "/openapi.json";

export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
export const param = (name: string): Json => ({ $ref: `#/components/parameters/${name}` });
export const response = (name: string): Json => ({ $ref: `#/components/responses/${name}` });

/**
 * `{success: true, result: <schema>}`, with `result_info` for a paginated list: `paginated` is its schema (`true`:
 * `ResultInfo`, the cursor's).
 */
function envelope(result: Json, paginated: Json): Json {
  const info = paginated === true ? ref("ResultInfo") : paginated;
  return {
    allOf: [
      ref("Envelope"),
      {
        type: "object",
        required: info ? ["result", "result_info"] : ["result"],
        properties: info ? { result, result_info: info } : { result },
      },
    ],
  };
}

/** A 200 response in the envelope. */
export function ok(description: string, result: Json, paginated: Json = false, headers?: Json): Json {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { "application/json": { schema: envelope(result, paginated) } },
  };
}

export const COMMON_ERRORS: Readonly<Record<string, Json>> = {
  "400": response("BadRequest"),
  "401": response("Unauthenticated"),
  "403": response("Forbidden"),
  "404": response("NotFound"),
};

/** A refusal in the failure envelope. */
export function errorResponse(description: string): Json {
  return { description, content: { "application/json": { schema: ref("FailureEnvelope") } } };
}

/** What an operation says beside its permission, id, summary and answers. */
interface OperationMore {
  readonly description?: string;
  readonly parameters?: Json;
  readonly requestBody?: Json;
}

/**
 * An operation the token permission `permission` (`zones:read`) may call: its answers, with the common refusals
 * (`COMMON_ERRORS`) beside them.
 */
export function operation(
  permission: string,
  operationId: string,
  summary: string,
  responses: Readonly<Record<string, Json>>,
  more: OperationMore = {},
): Json {
  return {
    operationId,
    summary,
    ...more,
    security: [{ bearer: [permission] }],
    responses: { ...COMMON_ERRORS, ...responses },
  };
}

/** The kit's components not (yet) made from a schema; the envelope and its messages are envelope.ts's schemas. */
const KIT_SCHEMAS: Record<string, Json> = {
  ResultInfo: {
    type: "object",
    description: "`cursor` (docs) and `cursors.after` (SDKs) carry the same opaque cursor; null on the last page.",
    required: ["count", "per_page", "cursor", "cursors"],
    properties: {
      count: { type: "integer" },
      per_page: { const: 100 },
      cursor: { type: ["string", "null"] },
      cursors: { type: "object", properties: { after: { type: ["string", "null"] } } },
    },
  },
};

/**
 * Every schema named with `named()` (src/shared/schema.ts), of a request or of an answer, as a component of the
 * document, emitted by zod's JSON Schema emitter (JSON Schema 2020-12, the dialect of OpenAPI 3.1) from the schema
 * the endpoint validates with or types its answer with: its types, bounds, patterns, enums, defaults and unknown-key
 * refusal are the code's own. A named schema inside another is a `$ref`. Input shapes (`io: "input"`): a field with a
 * default is optional.
 */
export function schemaComponents(): Record<string, Json> {
  answerSchemasMade();
  const emitted = z.toJSONSchema(API_SCHEMAS, {
    uri: (id) => `#/components/schemas/${id}`,
    io: "input",
    target: "draft-2020-12",
    // A check the emitter cannot state (a refinement: an origin URL's shape, an expression) is left to the prose.
    unrepresentable: "any",
  });
  const components: Record<string, Json> = {};
  // By name: the registry's order is the order schemas were made in, which for one made by its first parse depends on
  // the requests an isolate served before this one.
  for (const [id, schema] of Object.entries(emitted.schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const { $schema: _dialect, $id: _id, ...rest } = schema;
    components[id] = rest as Json;
  }
  return components;
}

/**
 * The query parameters of a named query schema (`named()`, an object schema): one per field, each schema a `$ref` to
 * that field of the component, so the bounds, enums and defaults the route validates with are the document's; a
 * field the schema requires is a required parameter, unless `optional` (the fields are given together or not at
 * all: the tag history's resource).
 */
export function queryParameters(schema: z.ZodMiniObject, optional = false): Json[] {
  const id = API_SCHEMAS.get(schema)?.id;
  if (id === undefined) throw new Error("queryParameters: the query schema has no component name (named())");
  // A JSON Pointer segment escapes `~` and `/` (RFC 6901 section 3).
  const pointer = (name: string): string => name.replaceAll("~", "~0").replaceAll("/", "~1");
  return Object.keys(schema.shape).map((name) => ({
    name,
    in: "query",
    required: !optional && schema.shape[name]?._zod.optin === undefined,
    schema: { $ref: `#/components/schemas/${id}/properties/${pointer(name)}` },
  }));
}

/** A parameter of a path, a query or a header as the document states it beside its schema. */
export interface ParameterMeta {
  readonly name: string;
  readonly in: "path" | "query" | "header";
  readonly description?: string;
  readonly example?: Json;
}

/**
 * A parameter whose schema is the named schema (`named()`) the route parses it with, as a `$ref` to its component:
 * its pattern, bounds and enum are the validator's. A path parameter is required, any other optional.
 */
export function parameterOf(schema: Schema, meta: ParameterMeta): Json {
  return { ...meta, required: meta.in === "path", schema: refTo(schema) };
}

/** A `$ref` to the component of a named schema (`named()`): what the code checks or builds, not a copy of it. */
export function refTo(schema: Schema): Json {
  const id = API_SCHEMAS.get(schema)?.id;
  if (id === undefined) throw new Error("refTo: the schema has no component name (named())");
  return ref(id);
}

/** A JSON request body of the named schema. */
export function jsonBody(id: string): Json {
  return { required: true, content: { "application/json": { schema: ref(id) } } };
}

/** What one feature contributes to the document. */
export interface OpenApiFragment {
  readonly paths: Record<string, Json>;
  readonly parameters?: Record<string, Json>;
  readonly schemas?: Record<string, Json>;
  /** One sentence for the document's description. */
  readonly description?: string;
  /**
   * Makes and names (`named()`) the schemas only the document shows, which no route parses or types its answer with:
   * called when the document is built, so an isolate that never serves it never constructs them (every zod object
   * built at module evaluation is work before an isolate's first answer: docs/benchmarks.md "2026-11-29 (ninth)").
   * Called again, it names fresh copies (the registry keeps the last schema of an id).
   */
  readonly documentOnly?: () => void;
}

/** `?dry_run=` as every operation that can rehearse documents it (kit/dry-run.ts; docs/configuration.md "any write"). */
const DRY_RUN_PARAMETER: Json = parameterOf(TRUE_OR_FALSE, {
  name: "dry_run",
  in: "query",
  description:
    "`true`: authorise and validate exactly as the write, store nothing; a 200 answers `result: null`, a 204 " +
    "stays a 204. Only `true` and `false` are valid (else 400, code 10003).",
});

/** `account_id` of every account path (tagging, analytics, the request tracer): any other value is 404. */
const ACCOUNT_ID_PARAMETER: Json = parameterOf(ACCOUNT_ID_TEXT, { name: "account_id", in: "path" });

/** A path with its parameter names erased, so `/zones/:zone` and `/zones/{zone_id}` compare equal. */
const pathShape = (path: string): string => path.replace(/\{[^}]+\}|:\w+/g, "{}");

/**
 * Adds the `dry_run` parameter to each operation named in `dryRun` (`METHOD /path`, as `routeSignatures` writes
 * them): the document is told by the route table which writes can rehearse, so the two cannot disagree.
 */
function withDryRun(paths: Record<string, Json>, dryRun: ReadonlySet<string>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [path, item] of Object.entries(paths)) {
    const operations: Record<string, Json> = { ...(item as Record<string, Json>) };
    for (const [method, operation] of Object.entries(operations)) {
      if (!dryRun.has(`${method.toUpperCase()} ${pathShape(path)}`)) continue;
      const op = operation as Record<string, Json>;
      const parameters = Array.isArray(op.parameters) ? (op.parameters as readonly Json[]) : [];
      operations[method] = { ...op, parameters: [...parameters, param("DryRun")] };
    }
    out[path] = operations;
  }
  return out;
}

/**
 * The whole document from the features' fragments. `dryRun` lists the operations (`METHOD /path`) whose routes
 * honour `?dry_run` (the route table's `dryRun` flag).
 */
export function openApiDocument(fragments: readonly OpenApiFragment[], dryRun: readonly string[] = []): Json {
  for (const fragment of fragments) fragment.documentOnly?.();
  const merged = <K extends "paths" | "parameters" | "schemas">(key: K): Record<string, Json> =>
    Object.assign({}, ...fragments.map((f) => f[key] ?? {})) as Record<string, Json>;
  const rehearsable = new Set(dryRun.map((signature) => pathShape(signature)));
  return {
    openapi: "3.1.0",
    info: {
      title: "Edge management API",
      version: "1.0.0",
      description: [
        "Cloudflare v4 envelope; paths are also served under `/client/v4`. Every request needs a bearer token",
        `(401 before anything else), except this document. Bodies are limited to ${MAX_API_BODY_BYTES} bytes (413)`,
        "unless an operation names its own limit.",
        ...fragments.flatMap((f) => (f.description ? [f.description] : [])),
      ].join(" "),
    },
    servers: [{ url: "/" }, { url: "/client/v4" }],
    security: [{ bearer: [] }],
    paths: withDryRun(merged("paths"), rehearsable),
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description:
            "ADMIN_TOKEN, or a scoped API_TOKENS entry (permissions tags:read, tags:write, zones:read, zones:write).",
        },
      },
      parameters: { ...merged("parameters"), AccountId: ACCOUNT_ID_PARAMETER, DryRun: DRY_RUN_PARAMETER },
      responses: {
        BadRequest: errorResponse("Validation error: the first failing check's code"),
        Unauthenticated: errorResponse("Missing or unknown token (10000)"),
        Forbidden: errorResponse("The token lacks the permission or the account/zone (10001)"),
        NotFound: errorResponse("Unknown route, or an account_id that is not 32 lower-case hex characters (7003)"),
        MethodNotAllowed: errorResponse("The path exists, the method does not (10405, with `Allow`)"),
        PreconditionFailed: errorResponse("If-Match does not match the current ETag (1018)"),
        TooLarge: errorResponse("Body over 1 MiB (10413)"),
      },
      schemas: { ...KIT_SCHEMAS, ...schemaComponents(), ...merged("schemas") },
    },
  };
}

/** `GET /openapi.json`: the document serialised once per isolate by the caller and served from memory. */
export function openApiResponse(serialised: string): Response {
  return new Response(serialised, {
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "public, max-age=300" },
  });
}
