/**
 * Where a zone's URL normalisation setting lives: one section of the zone document (`url_normalization`), written
 * only by routes.ts. Absent = the published defaults (docs/rules-language.md).
 */
import {
  URL_NORMALIZATION_SCOPES,
  URL_NORMALIZATION_TYPES,
  type UrlNormalization,
} from "../../../shared/url-normalise";
import type { ZoneDocument } from "../schema";

export const URL_NORMALIZATION_SECTION = "url_normalization";

/** The stored setting, or `null` when none was written (or what is stored is not one: never trusted). */
export function storedUrlNormalization(document: ZoneDocument): UrlNormalization | null {
  const value = document[URL_NORMALIZATION_SECTION];
  if (typeof value !== "object" || value === null) return null;
  const { scope, type } = value as Record<string, unknown>;
  const known =
    (URL_NORMALIZATION_SCOPES as readonly unknown[]).includes(scope) &&
    (URL_NORMALIZATION_TYPES as readonly unknown[]).includes(type);
  return known ? (value as UrlNormalization) : null;
}
