/**
 * `GET /zones` (docs/configuration.md "Listing zones"): the zones a token may read, in the published v4 shape
 * (`result` an array of zone objects, `result_info` with `page`, `per_page`, `count`, `total_count`,
 * `total_pages`), by name.
 *
 * The index is KV `CONFIG` itself: every configured zone has exactly one document key, `zone:{zone}`, written and
 * deleted by the zone's writer of record (src/state/zone/writer.ts); its parts sit under `zone:{zone}:…` and are
 * skipped (a hostname holds no colon). Listing the prefix `zone:` therefore lists the zones, in key order, with
 * no second copy to keep in step. KV lists are keyset pages (at most 1,000 keys per call, resumed by an opaque
 * cursor), so there are two ways to page:
 *
 * - `page` / `per_page` (the published pagination): counts every zone in scope for `total_count`, so it reads
 *   the whole `zone:` prefix, one list call per 1,000 keys, at most `maxListCalls` calls;
 * - `cursor` (keyset): resumes where the previous page ended (the KV cursor of the list page that held its last
 *   zone, and that zone's name), so a page costs one list call however deep it is. Every answer carries the
 *   cursor of the page after it (`null` on the last), in both modes.
 *
 * A scoped token lists only the zones of its scope: those its `zones` name and those of its `accounts`, read from
 * each document key's metadata (src/state/zone/store.ts `ZoneKeyMetadata`, so no document is read to filter;
 * src/api/kit/auth.ts `zoneInScope`); a cursor names a
 * position, never a zone to show, so an altered cursor cannot reveal a zone outside the scope.
 */
import { API_CODES } from "../kit/codes";
import { apiFailureResponse, apiSuccess, failureOf, type ApiFailure } from "../kit/envelope";
import { zoneInScope } from "../kit/auth";
import type { ApiContext, ApiRoute } from "../kit/types";
import { zoneApiFailure } from "../kit/zone-section";
import { causeOf, err, ok, type Result } from "../../shared/result";
import { base64UrlToBytes, bytesToBase64Url } from "../../state/tags/base64url";
import * as z from "zod/mini";
import { ACCOUNT_ID, parseZoneName, PLANS, ZONE_ACCOUNT } from "../../state/zone/schema";
import { dateTime, described, fields, later, named, oneOf, parseWith, text, type Answer } from "../../shared/schema";
import { PAGE_PARAMETERS, pageFields, queryObject } from "../kit/query";
import { accountOfMetadata, readZone } from "../../state/zone/store";

export const ZONE_LIST = {
  defaultPerPage: 20,
  /** The published maximum of `GET /zones`. */
  maxPerPage: 50,
  /** Keys per KV list call: the platform's maximum. */
  listLimit: 1000,
  /**
   * KV list calls one request may make: 25,000 keys. A page-number request that cannot count every zone within
   * it is refused (20061, use `cursor`); a cursor request answers what it found with a cursor to the rest.
   */
  maxListCalls: 25,
  /** A cursor is a KV cursor and a zone name (≤ 253), base64url: far below this. */
  maxCursorLength: 2048,
} as const;

export const ZONE_LIST_CODES = {
  invalidParameter: API_CODES["invalid-zone-list"].code,
  tooManyToCount: API_CODES["zone-list-too-large"].code,
} as const;

const PREFIX = "zone:";

/** Where a listing resumes: the KV list page starting at `kv` (null = the first), zone names after `after`. */
interface Position {
  readonly kv: string | null;
  readonly after: string;
}

/** One zone found in the index, with the KV cursor of the list page that held it (for the next position). */
interface Found {
  readonly name: string;
  readonly page: string | null;
}

type Paging =
  | { readonly kind: "page"; readonly page: number; readonly perPage: number }
  | { readonly kind: "cursor"; readonly from: Position; readonly perPage: number };

/** Whether a zone of this name and account (from its key's metadata) is in the token's scope. */
type InScope = (name: string, account: string | null) => boolean;

/** The zone object of the published API, as far as this service has its fields. */
export const LISTED_ZONE = later(() =>
  named(
    z.object({
      id: z.string(),
      name: z.string(),
      status: z.literal("active"),
      plan: z.optional(z.object({ legacy_id: oneOf(PLANS), name: z.string() })),
      account: z.optional(ZONE_ACCOUNT()),
      modified_on: z.optional(dateTime()),
    }),
    {
      id: "ListedZone",
      description:
        "A zone as the published zone list shows it, as far as this service has its fields: `id` is the zone's " +
        "name (every route names a zone by it). `plan` and `modified_on` are absent when the stored document " +
        "failed validation.",
      example: {
        id: "shop.example",
        name: "shop.example",
        status: "active",
        plan: { legacy_id: "pro", name: "Pro" },
        account: { id: "023e105f4ecef8ad9ca31a8372d0c353" },
        modified_on: "2026-11-22T04:00:00.000Z",
      },
    },
  ),
);
type ListedZone = Answer<typeof LISTED_ZONE>;

const cursor = () => z.nullable(z.string());

/** `result_info` of a page-number listing: the published shape, with the keyset cursor of the next page. */
export const ZONE_PAGE_INFO = later(() =>
  named(
    z.object({
      page: z.int(),
      per_page: z.int(),
      count: z.int(),
      total_count: z.int(),
      total_pages: z.int(),
      cursor: cursor(),
    }),
    {
      id: "ZonePageInfo",
      description: "Page-number pagination (the published shape), with the keyset cursor of the next page.",
    },
  ),
);

/** `result_info` of a cursor listing. */
export const ZONE_CURSOR_INFO = later(() =>
  named(z.object({ per_page: z.int(), count: z.int(), cursor: cursor(), cursors: z.object({ after: cursor() }) }), {
    id: "ZoneCursorInfo",
    description: "Keyset pagination: `cursor` (and `cursors.after`) of the next page, null on the last.",
  }),
);

async function listZones(c: ApiContext): Promise<Response> {
  const query = readQuery(c.url);
  if (!query.ok) return apiFailureResponse(query.error);
  // The published `account.id` and `name` filters narrow the token's scope, read from the same key metadata.
  const { paging, account: wanted, name: wantedName } = query.value;
  const scope: InScope = (name, account) =>
    zoneInScope(c.principal, name, account) &&
    (wanted === null || account === wanted) &&
    (wantedName === null || name === wantedName);
  const kv = c.env.CONFIG;
  let found: Result<{ shown: Found[]; next: Position | null; total?: number }, ApiFailure>;
  if (paging.kind === "page") found = await byPage(kv, scope, paging.page, paging.perPage);
  else found = await byCursor(kv, scope, paging.from, paging.perPage);
  if (!found.ok) return apiFailureResponse(found.error);
  const { shown, next, total } = found.value;
  const zones = await Promise.all(shown.map((f) => present(kv, f.name)));
  if (zones.some((z) => z === "unavailable")) return apiFailureResponse(internal("CONFIG.get failed"));
  const result = zones.filter((z): z is ListedZone => z !== null && z !== "unavailable");
  const cursor = next === null ? null : encodeCursor(next);
  const perPage = paging.perPage;
  // `count` is what this page carries: a zone deleted between the list and its read is left out.
  const resultInfo: Answer<typeof ZONE_PAGE_INFO> | Answer<typeof ZONE_CURSOR_INFO> =
    paging.kind === "page"
      ? {
          page: paging.page,
          per_page: perPage,
          count: result.length,
          total_count: total ?? 0,
          total_pages: Math.ceil((total ?? 0) / perPage),
          cursor,
        }
      : { per_page: perPage, count: result.length, cursor, cursors: { after: cursor } };
  return apiSuccess(result, { resultInfo });
}

/** The zone's object from its document; null when it was deleted since the list. */
async function present(kv: KVNamespace, name: string): Promise<ListedZone | null | "unavailable"> {
  const read = await readZone(kv, name);
  if (!read.ok) {
    // A document that fails validation is still a configured zone (its traffic answers 500 until a PUT repairs
    // it, docs/configuration.md): listed by name, without the fields it cannot vouch for.
    return read.error.kind === "corrupt" ? { id: name, name, status: "active" } : "unavailable";
  }
  if (read.value === null) return null;
  const plan = read.value.settings.plan;
  return {
    id: name,
    name,
    status: "active",
    plan: { legacy_id: plan, name: plan[0]!.toUpperCase() + plan.slice(1) },
    ...(read.value.settings.account === undefined ? {} : { account: read.value.settings.account }),
    modified_on: read.value.modifiedOn,
  };
}

/** Page `page`: every zone in scope is counted (`total_count`), the page sliced from them. */
async function byPage(
  kv: KVNamespace,
  scope: InScope,
  page: number,
  perPage: number,
): Promise<Result<{ shown: Found[]; next: Position | null; total: number }, ApiFailure>> {
  const all: Found[] = [];
  const scan = await walk(kv, scope, { kv: null, after: "" }, (f) => {
    all.push(f);
    return true;
  });
  if (!scan.ok) return scan;
  if (scan.value.stoppedAt !== null) {
    const keys = ZONE_LIST.maxListCalls * ZONE_LIST.listLimit;
    const message =
      `The zone index holds more than ${keys} keys, too many to count in one request; ` +
      "page with `cursor` instead (start without `page`, then follow `result_info.cursor`)";
    return err(failureOf("zone-list-too-large", message));
  }
  const shown = all.slice((page - 1) * perPage, page * perPage);
  const last = shown[shown.length - 1];
  const more = page * perPage < all.length;
  return ok({ shown, next: more && last ? { kv: last.page, after: last.name } : null, total: all.length });
}

/** `perPage` zones in scope after `from`; the next position only when another zone in scope follows. */
async function byCursor(
  kv: KVNamespace,
  scope: InScope,
  from: Position,
  perPage: number,
): Promise<Result<{ shown: Found[]; next: Position | null }, ApiFailure>> {
  const shown: Found[] = [];
  let more = false;
  const scan = await walk(kv, scope, from, (f) => {
    if (shown.length === perPage) {
      more = true;
      return false;
    }
    shown.push(f);
    return true;
  });
  if (!scan.ok) return scan;
  const last = shown[shown.length - 1];
  if (more && last) return ok({ shown, next: { kv: last.page, after: last.name } });
  // Out of list calls: what was found, and a cursor to the first list page not read.
  if (scan.value.stoppedAt !== null) return ok({ shown, next: scan.value.stoppedAt });
  return ok({ shown, next: null });
}

/**
 * Walks the index from `from`, handing each zone in scope to `visit` until it answers false or the index ends.
 * `stoppedAt` is where the walk stopped for want of list calls (null when it finished or `visit` stopped it).
 */
async function walk(
  kv: KVNamespace,
  scope: InScope,
  from: Position,
  visit: (found: Found) => boolean,
): Promise<Result<{ stoppedAt: Position | null }, ApiFailure>> {
  let cursor = from.kv;
  for (let calls = 0; calls < ZONE_LIST.maxListCalls; calls++) {
    let listed: KVNamespaceListResult<unknown>;
    try {
      listed = await kv.list({ prefix: PREFIX, limit: ZONE_LIST.listLimit, ...(cursor ? { cursor } : {}) });
    } catch (e) {
      // The first call resumes a client's cursor: KV refusing it is the cursor's fault (an old or altered one).
      if (calls === 0 && cursor !== null) return err(invalid(`cursor was not accepted (${causeOf(e)})`));
      return err(internal(`CONFIG.list failed: ${causeOf(e)}`));
    }
    for (const key of listed.keys) {
      const name = key.name.slice(PREFIX.length);
      // A part (`zone:{zone}:…`), or a zone the previous page already showed.
      if (name.includes(":") || (calls === 0 && name <= from.after)) continue;
      if (!scope(name, accountOfMetadata(key.metadata))) continue;
      if (!visit({ name, page: cursor })) return ok({ stoppedAt: null });
    }
    if (listed.list_complete) return ok({ stoppedAt: null });
    cursor = listed.cursor;
  }
  return ok({ stoppedAt: { kv: cursor, after: "" } });
}

/** The listing's filters, read with its paging from one query. */
interface ListQuery {
  readonly paging: Paging;
  /** The published `account.id` filter: the zones of one account (null: no filter). */
  readonly account: string | null;
  /** The published `name` filter (null: no filter). */
  readonly name: string | null;
}

const CURSOR_REFUSED = "is not one this listing gave (use result_info.cursor as it came)";

/**
 * The listing's query as a schema (numerals read as numbers first): the validator and the OpenAPI parameters. `name`
 * is the published filter by zone name (`GET /zones?name=example.com`, what the official clients' `zones.list({
 * name })` sends), an exact match, case-insensitive as hostnames are; the published operators (`contains:`,
 * `starts_with:`, ...) are not supported: refused, never read as a name.
 */
export const ZONE_LIST_QUERY = named(
  fields(
    {
      ...pageFields(ZONE_LIST, (max) => `must be given once, as an integer from 1 to ${max}`),
      cursor: z.optional(
        described(
          text({ min: 1, max: ZONE_LIST.maxCursorLength }, CURSOR_REFUSED),
          "`result_info.cursor` of the previous page (not with `page`).",
        ),
      ),
      "account.id": z.optional(
        described(
          text({ pattern: ACCOUNT_ID }, "must be given once, as 32 lower-case hex characters"),
          "Only the zones of this account (within the token's scope).",
        ),
      ),
      name: z.optional(described(z.string(), "Only the zone of this name (an exact name; no filter operators).")),
    },
    "is not a parameter of this listing (page, per_page, cursor, account.id, name)",
  ),
  { id: "ZoneListQuery", example: { per_page: 50, "account.id": "023e105f4ecef8ad9ca31a8372d0c353" } },
);

function readQuery(url: URL): Result<ListQuery, ApiFailure> {
  const given = queryObject(url.searchParams, PAGE_PARAMETERS);
  const parsed = given.ok ? parseWith(ZONE_LIST_QUERY, given.value, { cap: 1 }) : given;
  if (!parsed.ok) {
    const first = parsed.error.listed[0];
    return err(invalid(first === undefined ? "is not valid" : `${first.path} ${first.message}`));
  }
  const q = parsed.value;
  const account = q["account.id"] ?? null;
  let name: string | null = null;
  if (q.name !== undefined) {
    const zone = parseZoneName(q.name);
    if (!zone.ok) return err(invalid(`name: ${zone.error} (an exact zone name; filter operators are not supported)`));
    name = zone.value;
  }
  if (q.cursor === undefined) return ok({ paging: { kind: "page", page: q.page, perPage: q.per_page }, account, name });
  if (url.searchParams.has("page")) return err(invalid("give either page or cursor, not both"));
  const from = decodeCursor(q.cursor);
  if (from === null) return err(invalid(`cursor ${CURSOR_REFUSED}`));
  return ok({ paging: { kind: "cursor", from, perPage: q.per_page }, account, name });
}

/** `[kv cursor or "", last zone name]` as JSON, base64url: opaque to clients, checked when it comes back. */
function encodeCursor(position: Position): string {
  return bytesToBase64Url(new TextEncoder().encode(JSON.stringify([position.kv ?? "", position.after])));
}

function decodeCursor(text: string): Position | null {
  if (text === "" || text.length > ZONE_LIST.maxCursorLength) return null;
  const bytes = base64UrlToBytes(text);
  if (bytes === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [kv, after] = value as unknown[];
  if (typeof kv !== "string" || typeof after !== "string") return null;
  if (after !== "" && !parseZoneName(after).ok) return null;
  return { kv: kv === "" ? null : kv, after };
}

const invalid = (message: string): ApiFailure => failureOf("invalid-zone-list", message);

/** KV failing is the service's own failure: the one mapping of store failures (a 500 with a ray, logged). */
const internal = (cause: string): ApiFailure => zoneApiFailure({ kind: "unavailable", cause }, "");

export const zoneListRoutes: readonly ApiRoute[] = [
  {
    method: "GET",
    path: "/zones",
    permission: "zones:read",
    target: () => ok({ kind: "zone-list" }),
    handle: listZones,
  },
];
