/** Where a zone's IP access rules live: one section of the zone document, written only by routes.ts. */
import type { ZoneDocument } from "../schema";
import type { AccessRules } from "./types";

export const ACCESS_RULES_SECTION = "access_rules";

/** The zone's stored IP access rules, or `null` when none were ever written. */
export function storedAccessRules(document: ZoneDocument): AccessRules | null {
  return (document[ACCESS_RULES_SECTION] as AccessRules | undefined) ?? null;
}
