/**
 * `/zones/{zone}/custom_pages/assets` (list, create) and `/zones/{zone}/custom_pages/assets/{name}` (get, update,
 * delete): custom error assets with the published shapes (docs/configuration.md; cloudflare-typescript
 * `resources/custom-pages/assets.ts`; docs/custom-errors.md "Custom error assets"). Result `{name, description, url,
 * last_updated, size_bytes}`; delete answers 204; the list is page-number paginated (`page`, `per_page`).
 *
 * A create or update checks name, plan and count against the zone as read, fetches the URL (src/api/asset-fetch/: through
 * the zone's origin, stylesheets and images inlined), then sends the edit `create-asset` / `update-asset`: the
 * zone's writer checks name, plan and count again against the zone as it is then and writes the part and the
 * `custom_assets` section in one serialised step (src/state/zone/edits.ts). `?dry_run=true` fetches and validates all
 * the same and stores nothing (kit/zone-section.ts). An asset a custom error rule names cannot be deleted (409 naming
 * the rules, checked by the writer), so a rule never points at nothing.
 */
import { fetchZoneAsset } from "../asset-fetch/asset-fetch";
import { readJsonBody } from "../kit/body";
import { apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import { editZone, readZone, zoneHandler, zoneTarget, type ZoneAnswer, type ZoneApiFailure } from "../kit/zone-section";
import { err, ok, type Result } from "../../shared/result";
import * as z from "zod/mini";
import { dateTime, described, later, parseWith, type Answer } from "../../shared/schema";
import { PAGE_PARAMETERS, pageFields, queryObject } from "../kit/query";
import { ASSET_NAME } from "../../state/zone/custom-pages/asset-name";
import {
  assetWriteAllowed,
  checkAssetName,
  parseAssetBody,
  storedAssets,
  type AssetMeta,
  type AssetScope,
} from "../../state/zone/custom-pages/assets";

/** Page-number pagination of the list (published `page`, `per_page`). */
const ASSET_PAGES = { defaultPerPage: 20, maxPerPage: 100 } as const;

/** An asset as answered (the published shape). */
export const CUSTOM_ASSET = later(
  () =>
    z.object({
      name: ASSET_NAME(),
      description: z.string(),
      url: z.string().check(z.meta({ format: "uri" })),
      last_updated: dateTime(),
      size_bytes: described(z.int(), "UTF-8 bytes of the stored (inlined) HTML"),
    }),
  { id: "CustomAsset" },
);

const scopeOf = (c: ApiContext, zone: string): AssetScope => ({ zone, apiHosts: c.settings.apiHosts });

async function listAssets(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const paging = readPaging(c.url);
  if (!paging.ok) return paging;
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  const all = Object.values(storedAssets(current.value.document)).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  const { page, perPage } = paging.value;
  const shown = all.slice((page - 1) * perPage, page * perPage);
  return ok(
    apiSuccess(shown.map(present), {
      resultInfo: {
        page,
        per_page: perPage,
        count: shown.length,
        total_count: all.length,
        total_pages: Math.ceil(all.length / perPage),
      },
    }),
  );
}

/** The list's query: the published page-number pagination; other parameters are ignored, as the published list does. */
export const ASSET_QUERY = later(
  () => z.object(pageFields(ASSET_PAGES, (max) => `must be given once, as an integer from 1 to ${max}`)),
  { id: "CustomAssetQuery", example: { page: 1, per_page: 50 } },
);

function readPaging(url: URL): Result<{ page: number; perPage: number }, ZoneApiFailure> {
  // Only the pagination is read: any other parameter is ignored, repeated or not.
  const paging = new URLSearchParams(
    [...url.searchParams].filter(([name]) => (PAGE_PARAMETERS as readonly string[]).includes(name)),
  );
  const given = queryObject(paging, PAGE_PARAMETERS);
  const parsed = given.ok ? parseWith(ASSET_QUERY, given.value, { cap: 1 }) : given;
  if (!parsed.ok) return err({ kind: "invalid-asset-paging", issues: parsed.error });
  return ok({ page: parsed.value.page, perPage: parsed.value.per_page });
}

async function getAsset(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const name = checkAssetName(decodeName(c.params.name), "asset_name");
  if (!name.ok) return name;
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  const meta = storedAssets(current.value.document)[name.value];
  return meta ? ok(apiSuccess(present(meta))) : err({ kind: "unknown-asset", name: name.value });
}

async function createAsset(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  return writeAsset(c, zone, null);
}

async function updateAsset(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const name = checkAssetName(decodeName(c.params.name), "asset_name");
  if (!name.ok) return name;
  return writeAsset(c, zone, name.value);
}

/** Create (`pathName` null) or update: validate, fetch (always: a PUT with the same URL refetches), write. */
async function writeAsset(c: ApiContext, zone: string, pathName: string | null): Promise<ZoneAnswer> {
  const body = await readJsonBody(c.request);
  if (!body.ok) return err({ kind: "body", failure: body.error });
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  // Cheap refusals first (docs/configuration.md: limits before work), the fetch only for a write that can land.
  const parsed = parseAssetBody(body.value, scopeOf(c, zone), pathName);
  if (!parsed.ok) return parsed;
  const { document, zone: read } = current.value;
  const create = pathName === null;
  const allowed = assetWriteAllowed(document, read.settings.plan, parsed.value.name, create);
  if (!allowed.ok) return allowed;
  const fetched = await fetchZoneAsset(c.env, read, parsed.value.url, scopeOf(c, zone));
  if (!fetched.ok) return fetched;
  // Checked again by the writer against the zone as it is then: the fetch took time, and another write may have
  // landed meanwhile.
  const asset = {
    name: parsed.value.name,
    description: parsed.value.description,
    url: parsed.value.url.href,
    size_bytes: fetched.value.bytes,
  };
  const written = await editZone(c, zone, {
    kind: create ? "create-asset" : "update-asset",
    asset,
    html: fetched.value.html,
  });
  if (!written.ok) return written;
  const stored = storedAssets(written.value.document)[asset.name];
  return stored ? ok(apiSuccess(present(stored))) : err({ kind: "unknown-asset", name: asset.name });
}

async function deleteAsset(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const name = checkAssetName(decodeName(c.params.name), "asset_name");
  if (!name.ok) return name;
  const written = await editZone(c, zone, { kind: "delete-asset", name: name.value });
  // Published: a delete answers 204 without a body (the official client sends `Accept: */*`).
  return written.ok ? ok(new Response(null, { status: 204 })) : written;
}

/** The path segment, percent-decoded (a malformed escape is kept, and refused by the name check). */
function decodeName(segment: string | undefined): string {
  try {
    return decodeURIComponent(segment ?? "");
  } catch {
    return segment ?? "";
  }
}

function present(meta: AssetMeta): Answer<typeof CUSTOM_ASSET> {
  return {
    name: meta.name,
    description: meta.description,
    url: meta.url,
    last_updated: meta.last_updated,
    size_bytes: meta.size_bytes,
  };
}

const LIST = "/zones/:zone/custom_pages/assets";
const ONE = "/zones/:zone/custom_pages/assets/:name";

/** Before `/custom_pages/:id` in the route table: the first match wins, and `assets` is not a page id. */
export const assetRoutes: readonly ApiRoute[] = [
  { method: "GET", path: LIST, permission: "zones:read", target: zoneTarget, handle: zoneHandler(listAssets) },
  {
    method: "POST",
    path: LIST,
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(createAsset),
    dryRun: true,
  },
  { method: "GET", path: ONE, permission: "zones:read", target: zoneTarget, handle: zoneHandler(getAsset) },
  {
    method: "PUT",
    path: ONE,
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(updateAsset),
    dryRun: true,
  },
  {
    method: "DELETE",
    path: ONE,
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(deleteAsset),
    dryRun: true,
  },
];
