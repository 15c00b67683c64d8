/**
 * `GET /zones/{zone}/custom_pages`, `GET/PUT /zones/{zone}/custom_pages/{500_errors|1000_errors}` (docs/configuration.md).
 * The page HTML is a part of its own (`zone:{zone}:page:{id}`), written to KV before the document section that
 * references it (`custom_page:{id}`: state, modification time, size), in one serialised step of the zone's writer
 * (the edit `page`, validated there against the zone's plan as it is then). A page is sent as `content`, or as the
 * published `url`, fetched and inlined as a custom error asset is (page-url.ts).
 */
import { assetRoutes } from "./assets";
import { pageBodyFromUrl } from "./page-url";
import { readJsonBody } from "../kit/body";
import { boxStyleHash } from "../../errors/headers";
import { apiSuccess } from "../kit/envelope";
import { lintMessages } from "../kit/lint-messages";
import type { ApiContext, ApiRoute } from "../kit/types";
import { editZone, readZone, zoneHandler, zoneTarget, type ZoneAnswer, type ZoneApiFailure } from "../kit/zone-section";
import { err, ok } from "../../shared/result";
import { parseWith, type Answer } from "../../shared/schema";
import type { CUSTOM_PAGE } from "./openapi";
import type { ZoneDocument } from "../../state/zone/schema";
import { pageMeta, pagePart } from "../../state/zone/custom-pages/stored";
import { BOX_TOKENS, isPageId, PAGE_BODY, PAGE_IDS, type PageId } from "../../state/zone/custom-pages/validate";

const DESCRIPTIONS: Readonly<Record<PageId, string>> = {
  "500_errors": "Shown for 5xx errors the edge generates (origin unreachable, timeouts, TLS failures)",
  "1000_errors": "Shown for 1xxx errors the edge generates (blocks, rate limits, DNS and configuration errors)",
};

async function present(document: ZoneDocument, id: PageId): Promise<Answer<typeof CUSTOM_PAGE>> {
  const meta = pageMeta(document, id);
  return {
    id,
    state: meta ? "customized" : "default",
    description: DESCRIPTIONS[id],
    required_tokens: [BOX_TOKENS[id][0]],
    // A page with its own Content-Security-Policy adds this to `style-src` for the box's one inline style.
    box_style_hash: await boxStyleHash(),
    modified_on: meta?.modified_on ?? null,
    bytes: meta?.bytes ?? 0,
    // Published: the URL the page was made from; "" for the default page and for one sent as `content`.
    url: meta?.url ?? "",
  };
}

async function listPages(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  const { document } = current.value;
  return ok(apiSuccess(await Promise.all(PAGE_IDS.map((id) => present(document, id)))));
}

async function getPage(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const id = c.params.id ?? "";
  if (!isPageId(id)) return err({ kind: "unknown-page", id });
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  const shown = await present(current.value.document, id);
  if (shown.state !== "customized") return ok(apiSuccess(shown));
  return ok(apiSuccess({ ...shown, content: await c.env.CONFIG.get(`zone:${zone}:${pagePart(id)}`) }));
}

async function putPage(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const id = c.params.id ?? "";
  if (!isPageId(id)) return err({ kind: "unknown-page", id });
  const body = await readJsonBody(c.request);
  if (!body.ok) return err({ kind: "body", failure: body.error });
  // The body's shape first, `url` included (nothing is fetched for a body that cannot be a page).
  const shaped = parseWith(PAGE_BODY, body.value, { root: "body" });
  if (!shaped.ok) return err({ kind: "invalid-page", issues: shaped.error });
  // The published `url`: fetched and inlined as an asset is, its HTML then the page's content (page-url.ts).
  const resolved = await pageBodyFromUrl(c, zone, body.value);
  if (!resolved.ok) return resolved;
  const { url } = resolved.value;
  // Validated by the writer against the zone's plan as it is when the page is stored (src/state/zone/edits.ts).
  const edit = { kind: "page", id, body: resolved.value.body, ...(url === null ? {} : { url }) } as const;
  const written = await editZone(c, zone, edit);
  if (!written.ok) return url === null ? written : err(fetchedPageFailure(written.error));
  // The rule linter's warnings about the zone as the write leaves it (docs/lint.md: pages and their error budget).
  const messages = await lintMessages(c.env, zone, written.value.document);
  return ok(apiSuccess(await present(written.value.document, id), { messages }));
}

/** A refusal of a page fetched from `url`: what the validator says of its `content` is said of the fetched page. */
function fetchedPageFailure(failure: ZoneApiFailure): ZoneApiFailure {
  if (failure.kind !== "invalid-page") return failure;
  const listed = failure.issues.listed.map((issue) =>
    issue.path === "content" ? { ...issue, path: "url", message: `the fetched page ${issue.message}` } : issue,
  );
  return { kind: "invalid-page", issues: { listed, more: failure.issues.more } };
}

export const customPageRoutes: readonly ApiRoute[] = [
  // Custom error assets first: `/custom_pages/assets` would otherwise match `/custom_pages/:id` (first match wins).
  ...assetRoutes,
  {
    method: "GET",
    path: "/zones/:zone/custom_pages",
    permission: "zones:read",
    target: zoneTarget,
    handle: zoneHandler(listPages),
  },
  {
    method: "GET",
    path: "/zones/:zone/custom_pages/:id",
    permission: "zones:read",
    target: zoneTarget,
    handle: zoneHandler(getPage),
  },
  {
    method: "PUT",
    path: "/zones/:zone/custom_pages/:id",
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(putPage),
    dryRun: true,
  },
];
