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
import { API_FAILURES, apiFailureResponse, apiSuccess, type ApiFailure, type ResultInfo } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import type { Settings } from "../../shared/settings";
import { err, ok, type Result } from "../../shared/result";
import { toApiFailure } from "./api-failure";
import { decodeCursor, type DecodedCursor } from "../../state/tags/cursor";
import type { InvalidCursor, TagFailure } from "../../state/tags/errors";
import { etagOf } from "../../state/tags/etag";
import { PAGE_SIZE } from "../../state/tags/filters";
import type { PageRequest, TagStore } from "../../state/tags/tag-store";
import type { Page } from "../../state/tags/types";
import {
  isAccountId,
  parseDeleteBody,
  parseIfMatch,
  parsePutBody,
  parseResourceParams,
  parseResourceQuery,
  parseValuesQuery,
} from "./validate";

interface TagRequest {
  readonly request: Request;
  readonly params: Readonly<Record<string, string>>;
  readonly url: URL;
  readonly account: string;
  readonly store: DurableObjectStub<TagStore>;
  readonly settings: Settings;
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
      return handler({ request: c.request, params: c.params, url: c.url, account, store, settings: c.settings });
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
];

function failure(error: TagFailure): Response {
  return apiFailureResponse(toApiFailure(error));
}

/**
 * Reads `?cursor=`. Malformed → 1017 at once. The cursor is checked before the query (docs/tags-api.md), and a cursor
 * is only ever minted for a valid query, so when the query is invalid any cursor is necessarily a bad one:
 * `queryFailure` then becomes 1017 too.
 */
function cursorParam(url: URL, arity: number | readonly number[]): Result<DecodedCursor | null, InvalidCursor> {
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
  const query = parseResourceQuery(c.url.searchParams);
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

async function getTags(c: TagRequest): Promise<Response> {
  const ref = parseResourceParams(c.url.searchParams);
  if (!ref.ok) return failure(ref.error);
  const resource = await c.store.getTags(ref.value);
  return apiSuccess(resource, { headers: etagHeader(resource.etag) });
}

/** Malformed JSON is the endpoint's own payload error (1002 / 1015); an oversized body stays 413 (docs/configuration.md). */
async function readBody(request: Request, malformed: (why: string) => TagFailure): Promise<Result<unknown, Response>> {
  const body = await readJsonBody(request);
  if (body.ok) return body;
  if (body.error.status === 413) return err(apiFailureResponse(body.error));
  return err(failure(malformed(body.error.errors[0]?.message ?? "not JSON")));
}

async function putTags(c: TagRequest): Promise<Response> {
  const body = await readBody(c.request, (why) => ({ kind: "invalid-set-payload", why }));
  if (!body.ok) return body.error;
  const input = parsePutBody(body.value);
  if (!input.ok) return failure(input.error);
  const { ref, tags } = input.value;
  const result = await c.store.putTags({
    ref,
    tags,
    etag: await etagOf(tags),
    ifMatch: parseIfMatch(c.request.headers.get("If-Match")),
    limit: c.settings.tagLimit,
  });
  if (!result.ok) return failure(result.error);
  return apiSuccess(result.value, { headers: etagHeader(result.value.etag) });
}

async function deleteTags(c: TagRequest): Promise<Response> {
  const body = await readBody(c.request, (why) => ({ kind: "invalid-delete-payload", why }));
  if (!body.ok) return body.error;
  const ref = parseDeleteBody(body.value);
  if (!ref.ok) return failure(ref.error);
  const result = await c.store.deleteTags({ ref: ref.value, ifMatch: parseIfMatch(c.request.headers.get("If-Match")) });
  if (!result.ok) return failure(result.error);
  // 204 carries no body (RFC 9110 §15.3.5), hence no envelope (notes §1.3: the published API answers 204).
  return new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } });
}
