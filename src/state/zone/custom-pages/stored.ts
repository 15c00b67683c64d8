/** Where a custom page lives: its HTML as a part of its own, its metadata as a section of the zone document. */
import type { ZoneDocument } from "../schema";
import type { PageId } from "./validate";

/** What the zone document records of a customised page; the HTML itself is the part `page:{id}`. */
export interface PageMeta {
  readonly state: "customized";
  readonly modified_on: string;
  readonly bytes: number;
  /** The URL the page was fetched from (`PUT` with the published `url`), absent when it was sent as `content`. */
  readonly url?: string;
}

export const pageSection = (id: PageId): string => `custom_page:${id}`;
export const pagePart = (id: PageId): string => `page:${id}`;
/** The KV key of a page's HTML (a part under the zone's prefix, deleted with the zone). */
export const pageKey = (zone: string, id: PageId): string => `zone:${zone}:${pagePart(id)}`;

export function pageMeta(document: ZoneDocument, id: PageId): PageMeta | null {
  return (document[pageSection(id)] as PageMeta | undefined) ?? null;
}
