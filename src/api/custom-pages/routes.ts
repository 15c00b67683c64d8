/**
 * `GET /zones/{zone}/custom_pages`, `GET/PUT /zones/{zone}/custom_pages/{500_errors|1000_errors}` (contract §6).
 * The page HTML is a part of its own (`zone:{zone}:page:{id}`), written to KV before the document section that
 * references it (`custom_page:{id}`: state, modification time, size), in one serialised step of the zone's writer.
 */
import { readJsonBody } from "../kit/body";
import { boxStyleHash } from "../../errors/headers";
import { apiFailureResponse, apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import type { ZoneDocument } from "../../state/zone/schema";
import { parseDocument } from "../../state/zone/store";
import { rememberWritten, withWriter, zoneFailure, zoneName, zoneTarget, type ZoneFailure } from "../zones/routes";
import { pageMeta, pagePart, pageSection, type PageMeta } from "../../state/zone/custom-pages/stored";
import {
  BOX_TOKENS,
  isPageId,
  PAGE_IDS,
  parsePageBody,
  type PageFailure,
  type PageId,
} from "../../state/zone/custom-pages/validate";

const DESCRIPTIONS: Readonly<Record<PageId, string>> = {
  "500_errors": "Shown for 5xx errors the edge generates (origin unreachable, timeouts, TLS failures)",
  "1000_errors": "Shown for 1xxx errors the edge generates (blocks, rate limits, DNS and configuration errors)",
};

type Failure = ZoneFailure | PageFailure | { readonly kind: "unknown-page"; readonly id: string };

function failure(f: Failure, zone: string): Response {
  switch (f.kind) {
    case "plan-forbids":
      return apiFailureResponse({
        status: 403,
        errors: [
          {
            code: 1100,
            message: `The ${f.plan} plan cannot use custom error pages: they need a paid plan (contract §2.1)`,
          },
        ],
      });
    case "invalid-page":
      return apiFailureResponse({ status: 400, errors: [{ code: 20023, message: `${f.field}: ${f.message}` }] });
    case "unknown-page":
      return apiFailureResponse({
        status: 404,
        errors: [
          { code: 20024, message: `Unknown custom page ${JSON.stringify(f.id)}: one of ${PAGE_IDS.join(", ")}` },
        ],
      });
    default:
      return zoneFailure(f, zone);
  }
}

async function present(document: ZoneDocument, id: PageId): Promise<Record<string, unknown>> {
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
  };
}

async function listPages(c: ApiContext): Promise<Response> {
  const zone = zoneName(c);
  if (!zone.ok) return failure(zone.error, "");
  const found = await withWriter(c.env, zone.value, (w) => w.read(zone.value));
  if (!found.ok) return failure(found.error, zone.value);
  if (found.value === null) return failure({ kind: "not-found" }, zone.value);
  const document = found.value;
  return apiSuccess(await Promise.all(PAGE_IDS.map((id) => present(document, id))));
}

async function getPage(c: ApiContext): Promise<Response> {
  const zone = zoneName(c);
  if (!zone.ok) return failure(zone.error, "");
  const id = c.params.id ?? "";
  if (!isPageId(id)) return failure({ kind: "unknown-page", id }, zone.value);
  const found = await withWriter(c.env, zone.value, (w) => w.read(zone.value));
  if (!found.ok) return failure(found.error, zone.value);
  if (found.value === null) return failure({ kind: "not-found" }, zone.value);
  const shown = await present(found.value, id);
  if (shown.state === "customized") {
    shown.content = await c.env.CONFIG.get(`zone:${zone.value}:${pagePart(id)}`);
  }
  return apiSuccess(shown);
}

async function putPage(c: ApiContext): Promise<Response> {
  const zone = zoneName(c);
  if (!zone.ok) return failure(zone.error, "");
  const id = c.params.id ?? "";
  if (!isPageId(id)) return failure({ kind: "unknown-page", id }, zone.value);
  const body = await readJsonBody(c.request);
  if (!body.ok) return failure({ kind: "api", failure: body.error }, zone.value);
  const found = await withWriter(c.env, zone.value, (w) => w.read(zone.value));
  if (!found.ok) return failure(found.error, zone.value);
  if (found.value === null) return failure({ kind: "not-found" }, zone.value);
  const current = parseDocument(zone.value, found.value);
  if (!current.ok) return failure(current.error, zone.value);
  const page = parsePageBody(body.value, id, current.value.settings.plan);
  if (!page.ok) return failure(page.error, zone.value);
  const content = page.value.state === "customized" ? page.value.content : null;
  const meta: PageMeta | null =
    content === null
      ? null
      : {
          state: "customized",
          modified_on: new Date().toISOString(),
          bytes: new TextEncoder().encode(content).byteLength,
        };
  const written = await withWriter(c.env, zone.value, (w) =>
    w.putPart(zone.value, pagePart(id), content, { name: pageSection(id), value: meta }),
  );
  if (!written.ok) return failure(written.error, zone.value);
  rememberWritten(zone.value, written.value);
  return apiSuccess(await present(written.value, id));
}

export const customPageRoutes: readonly ApiRoute[] = [
  { method: "GET", path: "/zones/:zone/custom_pages", permission: "zones:read", target: zoneTarget, handle: listPages },
  {
    method: "GET",
    path: "/zones/:zone/custom_pages/:id",
    permission: "zones:read",
    target: zoneTarget,
    handle: getPage,
  },
  {
    method: "PUT",
    path: "/zones/:zone/custom_pages/:id",
    permission: "zones:write",
    target: zoneTarget,
    handle: putPage,
  },
];
