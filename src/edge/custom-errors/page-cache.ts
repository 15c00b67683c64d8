/**
 * Error page HTML per isolate (contract §6: pages live under keys of their own). Read from KV on the first error
 * that needs a page after the zone's document changed, then served from memory; keyed by zone and document
 * version, so a new page is read once and a stale one is never served past the zone cache's TTL. Bounded by count
 * and bytes (contract §8).
 */
import { logEvent } from "../../shared/log";
import { pageKey } from "../../state/zone/custom-pages/stored";
import type { PageId } from "../../state/zone/custom-pages/validate";
import type { CompiledCustomErrors } from "./compiled";
import { BoundedCache } from "../../shared/bounded-cache";

const MAX_PAGES = 64;
/** UTF-16 code units, the unit `string.length` counts (a JavaScript string holds up to 2 bytes per unit). */
const MAX_BYTES = 32 * 1024 * 1024;
const pages = new BoundedCache<string, string>({
  capacity: MAX_PAGES,
  maxBytes: MAX_BYTES,
  sizeOf: (html) => html.length,
});

/** The page's HTML, or `null` when it cannot be read (the pipeline then answers the structured default). */
export async function pageHtml(kv: KVNamespace, compiled: CompiledCustomErrors, id: PageId): Promise<string | null> {
  const key = `${compiled.zone}\u0000${compiled.version}\u0000${id}`;
  const hit = pages.get(key);
  if (hit !== undefined) return hit;
  let html: string | null;
  try {
    html = await kv.get(pageKey(compiled.zone, id));
  } catch (e) {
    logEvent("custom_page_unavailable", { zone: compiled.zone, page: id, cause: String(e) });
    return null;
  }
  if (html === null) return null;
  pages.set(key, html);
  return html;
}
