/** Where a phase's ruleset lives in the zone document (written only by routes.ts, after validation). */
import type { ZoneDocument } from "../schema";
import type { Phase } from "./phases";
import type { StoredRuleset } from "./validate";

/** The zone document's section holding one phase's ruleset. */
export const rulesetSection = (phase: Phase): string => `ruleset:${phase}`;

/** A phase's stored ruleset in a zone document, or `null`. */
export function storedRuleset(document: ZoneDocument, phase: Phase): StoredRuleset | null {
  return (document[rulesetSection(phase)] as StoredRuleset | undefined) ?? null;
}
