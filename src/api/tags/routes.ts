/**
 * Tagging API routes (docs/tags-api.md): validate (pure, validate.ts) → the account's TagStore object (RPC) →
 * envelope. Every account's data lives in its own object, `TAG_STORE.idFromName(account_id)`.
 *
 * Check order of every request: token (401, docs/configuration.md) → route (404/405) → account_id (404, docs/tags-api.md) →
 * permission and account scope (403) — those four in src/api/kit/mount.ts — then body size (413, docs/configuration.md) and the
 * endpoint's checks in the order of docs/tags-api.md, cursor first.
 */
import type { AccessTarget, Permission } from "../kit/auth";
import { readJsonBody } from "../kit/body";
import {
  API_FAILURES,
  apiFailureResponse,
  apiSuccess,
  type ApiFailure,
  type ApiMessage,
  type ResultInfo,
} from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import type { Settings } from "../../shared/settings";
import { err, ok, type Result } from "../../shared/result";
import { toApiFailure } from "./api-failure";
import { decodeCursor, type DecodedCursor } from "../../state/tags/cursor";
import type { InvalidCursor, PolicyRule, PolicyViolation, TagFailure } from "../../state/tags/errors";
import { parsePolicy } from "../../state/tags/policy";
import { etagOf } from "../../state/tags/etag";
import { isAccountId } from "../../state/zone/schema";
import { PAGE_SIZE } from "../../state/tags/filters";
import type { EditOutcome, PageRequest, TagStore } from "../../state/tags/tag-store";
import type { Page, ResourceRef } from "../../state/tags/types";
import {
  ACCOUNT_SCOPE,
  parseBulkBody,
  parseDeleteBody,
  parseEffective,
  parseIfMatch,
  parsePatchBody,
  parsePutBody,
  parseResourceParams,
  parseResourceQuery,
  parseValuesQuery,
  typeParam,
  type TagScope,
} from "./validate";

export interface TagRequest {
  readonly request: Request;
  readonly params: Readonly<Record<string, string>>;
  readonly url: URL;
  readonly account: string;
  readonly store: DurableObjectStub<TagStore>;
  readonly settings: Settings;
  /** The token's name, kept in the history (docs/tags-api.md "History"). */
  readonly actor: string;
  /** Account route, or zone route with its zone (which resource types it names). */
  readonly scope: TagScope;
}

type Handler = (c: TagRequest) => Promise<Response>;

const BASE = "/accounts/:account/tags";

/** The route target of every tag endpoint: the account in the path; anything but 32 lower-case hex is 404. */
function accountTarget(params: Readonly<Record<string, string>>): Result<AccessTarget, ApiFailure> {
  const account = params.account ?? "";
  return isAccountId(account) ? ok({ kind: "account", id: account }) : err(API_FAILURES.notFound());
}

/** An endpoint on the account's own TagStore object (`TAG_STORE.idFromName(account_id)`). */
function route(method: ApiRoute["method"], path: string, permission: Permission, handler: Handler): ApiRoute {
  return {
    method,
    path,
    permission,
    target: accountTarget,
    handle: (c: ApiContext) => {
      const account = c.params.account ?? "";
      const store = c.env.TAG_STORE.get(c.env.TAG_STORE.idFromName(account));
      return handler({
        request: c.request,
        params: c.params,
        url: c.url,
        account,
        store,
        settings: c.settings,
        actor: c.principal.name,
        scope: ACCOUNT_SCOPE,
      });
    },
  };
}

export const tagRoutes: readonly ApiRoute[] = [
  route("GET", `${BASE}/keys`, "tags:read", listKeys),
  route("GET", `${BASE}/summary`, "tags:read", summary),
  route("GET", `${BASE}/resources`, "tags:read", listResources),
  route("GET", `${BASE}/values/:key`, "tags:read", listValues),
  // `/tags/values/` with no key: 1009 (docs/tags-api.md), once the caller is known to be allowed to ask.
  route("GET", `${BASE}/values`, "tags:read", async () => failure({ kind: "tag-key-required" })),
  route("GET", BASE, "tags:read", getTags),
  route("PUT", BASE, "tags:write", putTags),
  route("DELETE", BASE, "tags:write", deleteTags),
  route("PATCH", BASE, "tags:write", patchTags),
  route("POST", `${BASE}/bulk`, "tags:write", bulkTags),
  route("GET", `${BASE}/history`, "tags:read", listHistory),
  route("GET", `${BASE}/policy`, "tags:read", getPolicy),
  route("PUT", `${BASE}/policy`, "tags:write", putPolicy),
  route("DELETE", `${BASE}/policy`, "tags:write", deletePolicy),
  route("GET", `${BASE}/policy/required_keys`, "tags:read", requiredKeys),
  route("GET", `${BASE}/compliance`, "tags:read", compliance),
];

export function failure(error: TagFailure): Response {
  return apiFailureResponse(toApiFailure(error));
}

/**
 * Reads `?cursor=`. Malformed → 1017 at once. The cursor is checked before the query (docs/tags-api.md), and a cursor
 * is only ever minted for a valid query, so when the query is invalid any cursor is necessarily a bad one:
 * `queryFailure` then becomes 1017 too.
 */
function cursorParam(url: URL, arity: number | readonly number[]): Result<DecodedCursor | null, InvalidCursor> {
  // Two cursors name two positions: refused rather than one of them taken silently.
  if (url.searchParams.getAll("cursor").length > 1) return err({ kind: "invalid-cursor", repeated: true });
  const text = url.searchParams.get("cursor");
  if (text === null || text === "") return ok(null);
  const decoded = decodeCursor(text, arity);
  return decoded.ok ? decoded : err({ kind: "invalid-cursor" });
}

function queryFailure(cursor: DecodedCursor | null, error: TagFailure): Response {
  return failure(cursor ? { kind: "invalid-cursor" } : error);
}

function scope(c: TagRequest, query: unknown): PageRequest["scope"] {
  return { account: c.account, query: JSON.stringify(query) };
}

/**
 * `result_info` of every paginated endpoint (docs/tags-api.md): docs' `cursor` and the SDKs' `cursors.after`.
 * `count` is the number of items this page carries: fewer than `per_page` when the page reached its byte
 * budget (page-budget.ts) with a cursor to the rest.
 */
function pageResponse<T>(page: Result<Page<T>, TagFailure>): Response {
  if (!page.ok) return failure(page.error);
  const resultInfo: ResultInfo = {
    count: page.value.items.length,
    per_page: PAGE_SIZE,
    cursor: page.value.next,
    cursors: { after: page.value.next },
  };
  return apiSuccess(page.value.items, { resultInfo });
}

async function listKeys(c: TagRequest): Promise<Response> {
  const cursor = cursorParam(c.url, 1);
  if (!cursor.ok) return failure(cursor.error);
  return pageResponse(await c.store.listKeys({ scope: scope(c, ["keys"]), cursor: cursor.value }));
}

async function summary(c: TagRequest): Promise<Response> {
  // `[key]` after a whole key, `[key, value]` inside a key split by the byte budget (summary.ts).
  const cursor = cursorParam(c.url, [1, 2]);
  if (!cursor.ok) return failure(cursor.error);
  return pageResponse(await c.store.summary({ scope: scope(c, ["summary"]), cursor: cursor.value }));
}

async function listValues(c: TagRequest): Promise<Response> {
  const cursor = cursorParam(c.url, 1);
  if (!cursor.ok) return failure(cursor.error);
  const query = parseValuesQuery(c.params.key ?? "", c.url.searchParams);
  if (!query.ok) return queryFailure(cursor.value, query.error);
  const { key, type } = query.value;
  return pageResponse(
    await c.store.listValues({ scope: scope(c, ["values", key, type]), cursor: cursor.value, key, type }),
  );
}

async function listResources(c: TagRequest): Promise<Response> {
  const cursor = cursorParam(c.url, 3);
  if (!cursor.ok) return failure(cursor.error);
  const query = parseResourceQuery(c.url.searchParams, c.account);
  if (!query.ok) return queryFailure(cursor.value, query.error);
  return pageResponse(
    await c.store.listResources({
      scope: scope(c, ["resources", query.value]),
      cursor: cursor.value,
      query: query.value,
    }),
  );
}

function etagHeader(etag: string): HeadersInit {
  return { ETag: `"${etag}"` };
}

export async function getTags(c: TagRequest): Promise<Response> {
  const ref = parseResourceParams(c.url.searchParams, c.scope);
  if (!ref.ok) return failure(ref.error);
  const effective = parseEffective(c.url.searchParams);
  if (!effective.ok) return failure(effective.error);
  const resource = effective.value
    ? await c.store.getEffectiveTags({ ref: ref.value, account: c.account })
    : await c.store.getTags(ref.value);
  return apiSuccess(resource, { headers: etagHeader(resource.etag) });
}

/** Malformed JSON is the endpoint's own payload error (1002 / 1015); an oversized body stays 413 (docs/configuration.md). */
async function readBody(request: Request, malformed: (why: string) => TagFailure): Promise<Result<unknown, Response>> {
  const body = await readJsonBody(request);
  if (body.ok) return body;
  if (body.error.status === 413) return err(apiFailureResponse(body.error));
  return err(failure(malformed(body.error.errors[0]?.message ?? "not JSON")));
}

export async function putTags(c: TagRequest): Promise<Response> {
  const body = await readBody(c.request, (why) => ({ kind: "invalid-set-payload", why }));
  if (!body.ok) return body.error;
  const input = parsePutBody(body.value, c.scope);
  if (!input.ok) return failure(input.error);
  const { ref, tags } = input.value;
  const result = await c.store.putTagsReporting({
    ref,
    tags,
    etag: await etagOf(tags),
    ifMatch: parseIfMatch(c.request.headers.get("If-Match")),
    limit: c.settings.tagLimit,
    actor: c.actor,
  });
  if (!result.ok) return failure(result.error);
  return oneResource(result.value);
}

export async function deleteTags(c: TagRequest): Promise<Response> {
  // The published zone DELETE sends no body: it removes the zone's own tags (docs/tags-api.md "Zone tags").
  const bodiless = c.request.body === null || c.request.headers.get("Content-Length") === "0";
  // The official client's account DELETE sends no body either (cloudflare-typescript `accountTags.delete` drops every
  // parameter but the account): the resource is then read from the query, as GET reads it (docs/tags-api.md).
  // Only a request without any body: an empty one (`Content-Length: 0` with a body) stays a malformed payload (1015).
  if (c.scope.kind !== "zone" && c.request.body === null) {
    const queried = parseResourceParams(c.url.searchParams, c.scope);
    if (!queried.ok) return failure(queried.error);
    return deleteResourceTags(c, queried.value);
  }
  const body: Result<unknown, Response> =
    c.scope.kind === "zone" && bodiless
      ? ok({ resource_type: "zone", resource_id: c.scope.zone })
      : await readBody(c.request, (why) => ({ kind: "invalid-delete-payload", why }));
  if (!body.ok) return body.error;
  const ref = parseDeleteBody(body.value, c.scope);
  if (!ref.ok) return failure(ref.error);
  return deleteResourceTags(c, ref.value);
}

async function deleteResourceTags(c: TagRequest, ref: ResourceRef): Promise<Response> {
  const result = await c.store.deleteTags({
    ref,
    ifMatch: parseIfMatch(c.request.headers.get("If-Match")),
    actor: c.actor,
  });
  if (!result.ok) return failure(result.error);
  // 204 carries no body (RFC 9110 §15.3.5), hence no envelope (notes §1.3: the published API answers 204).
  return new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } });
}

/** A policy's advisory violations as envelope `messages` (docs/tags-api.md "Policies"), each with its rule's code. */
function advisoryMessages(outcome: EditOutcome, indexed: boolean): ApiMessage[] {
  return outcome.advisories.map(({ index, violation }) => {
    const [first] = toApiFailure(violation).errors;
    const message = first?.message ?? violation.kind;
    return { code: first?.code ?? 0, message: indexed ? `edits[${index}]: ${message}` : message };
  });
}

function oneResource(outcome: EditOutcome): Response {
  const [resource] = outcome.resources;
  if (!resource) return failure({ kind: "invalid-set-payload", why: "nothing to write" });
  return apiSuccess(resource, { headers: etagHeader(resource.etag), messages: advisoryMessages(outcome, false) });
}

/** `PATCH /tags`: a JSON Merge Patch of one resource's tags (docs/tags-api.md "PATCH"), merged inside the object. */
export async function patchTags(c: TagRequest): Promise<Response> {
  const body = await readBody(c.request, (why) => ({ kind: "invalid-set-payload", why }));
  if (!body.ok) return body.error;
  const input = parsePatchBody(body.value, c.scope);
  if (!input.ok) return failure(input.error);
  const result = await c.store.editTags({
    edits: [{ kind: "merge", ...input.value, ifMatch: parseIfMatch(c.request.headers.get("If-Match")) }],
    actor: c.actor,
    via: "patch",
    limit: c.settings.tagLimit,
  });
  if (!result.ok) return failure(result.error.failure);
  return oneResource(result.value);
}

/** Names the edit of a bulk call that failed (docs/tags-api.md "Bulk edit"): index, resource id, reason. */
function bulkFailure(index: number | null, id: string | null, error: TagFailure): Response {
  const api = toApiFailure(error);
  if (index === null) return apiFailureResponse(api);
  const where = `edits[${index}]${id === null ? "" : ` (resource_id ${JSON.stringify(id)})`}`;
  return apiFailureResponse({
    ...api,
    errors: api.errors.map((e) => ({ ...e, message: `${where}: ${e.message}; nothing was changed` })),
  });
}

/** `POST /tags/bulk`: up to 100 edits, all or nothing (docs/tags-api.md "Bulk edit"). */
async function bulkTags(c: TagRequest): Promise<Response> {
  const body = await readBody(c.request, (why) => ({ kind: "invalid-bulk-payload", why }));
  if (!body.ok) return body.error;
  const edits = parseBulkBody(body.value);
  if (!edits.ok) return bulkFailure(edits.error.index, edits.error.id, edits.error.failure);
  const result = await c.store.editTags({
    edits: edits.value,
    actor: c.actor,
    via: "bulk",
    limit: c.settings.tagLimit,
  });
  if (!result.ok) {
    const { index, failure: why } = result.error;
    return bulkFailure(index, edits.value[index]?.ref.id ?? null, why);
  }
  return apiSuccess(result.value.resources, { messages: advisoryMessages(result.value, true) });
}

/**
 * `GET /accounts/{a}/tags/history[?resource_type=&resource_id=[&worker_id=]]` and
 * `GET /zones/{zone}/tags/history[?resource_type=&resource_id=]`: newest first (docs/tags-api.md "History"). Without
 * a resource, the account route lists the whole account and the zone route the zone's own tags (as its bodiless
 * DELETE names the zone). A zone route's resource is checked as its GET's (zone resource types only); its cursors
 * are bound to the account and the resource, as the account route's are to its query.
 */
export async function listHistory(c: TagRequest): Promise<Response> {
  const cursor = cursorParam(c.url, 1);
  if (!cursor.ok) return failure(cursor.error);
  const params = c.url.searchParams;
  let ref: ResourceRef | null =
    c.scope.kind === "zone" ? { type: "zone", parent: c.scope.zone, id: c.scope.zone } : null;
  if (params.has("resource_type") || params.has("resource_id") || params.has("worker_id")) {
    const parsed = parseResourceParams(params, c.scope);
    if (!parsed.ok) return queryFailure(cursor.value, parsed.error);
    ref = parsed.value;
  }
  return pageResponse(await c.store.history({ scope: scope(c, ["history", ref]), cursor: cursor.value, ref }));
}

async function getPolicy(c: TagRequest): Promise<Response> {
  return apiSuccess(await c.store.getPolicy());
}

/** `PUT /tags/policy`: replaces the policy; existing tags are never rewritten (docs/tags-api.md "Policies"). */
async function putPolicy(c: TagRequest): Promise<Response> {
  const body = await readBody(c.request, (why) => ({ kind: "invalid-policy", why }));
  if (!body.ok) return body.error;
  const policy = parsePolicy(body.value);
  if (!policy.ok) return failure({ kind: "invalid-policy", why: policy.error });
  return apiSuccess(await c.store.setPolicy(policy.value));
}

async function deletePolicy(c: TagRequest): Promise<Response> {
  await c.store.setPolicy(null);
  return new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } });
}

/** `GET /tags/policy/required_keys[?type=]`: the required keys of each resource type (docs/tags-api.md). */
async function requiredKeys(c: TagRequest): Promise<Response> {
  const checked = typeParam(c.url.searchParams);
  if (!checked.ok) return failure(checked.error);
  const type = checked.value;
  const policy = await c.store.getPolicy();
  const rows = Object.entries(policy.required_keys)
    .filter(([t]) => type === null || t === type)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([resourceType, keys]) => ({ resource_type: resourceType, keys, mode: policy.mode }));
  return apiSuccess(rows);
}

/** `GET /tags/compliance[?type=&cursor=]`: tagged resources that break the policy (docs/tags-api.md). */
async function compliance(c: TagRequest): Promise<Response> {
  const cursor = cursorParam(c.url, 3);
  if (!cursor.ok) return failure(cursor.error);
  const checked = typeParam(c.url.searchParams);
  if (!checked.ok) return queryFailure(cursor.value, checked.error);
  const type = checked.value;
  const page = await c.store.compliance({ scope: scope(c, ["compliance", type]), cursor: cursor.value, type });
  if (!page.ok) return failure(page.error);
  return pageResponse(
    ok({
      next: page.value.next,
      items: page.value.items.map((item) => ({
        ...item,
        violations: item.violations.map((v) => {
          const [first] = toApiFailure(v).errors;
          return { ...v, rule: ruleOf(v), code: first?.code, message: first?.message };
        }),
      })),
    }),
  );
}

/** The policy field a violation breaks. */
function ruleOf(v: PolicyViolation): PolicyRule {
  switch (v.kind) {
    case "key-not-allowed":
      return "allowed_keys";
    case "value-not-allowed":
      return "allowed_values";
    case "required-key-missing":
      return "required_keys";
    case "key-case":
      return "key_case";
  }
}
