/**
 * The zone a draft preview and a replay run against: the saved zone as traffic sees it (the per-isolate cache, KV
 * behind it), compiled once per version (src/edge/compiled-zone.ts), and a draft's rules and pages on top of it
 * (draft-cache.ts), pages the draft does not change read as saved. A draft is never stored as a version.
 */
import type { ApiContext } from "../kit/types";
import type { ZoneApiFailure } from "../kit/zone-section";
import { causeOf, err, ok, type Result } from "../../shared/result";
import { lookupZone } from "../../state/zone/cache";
import { storedRuleset } from "../../state/zone/rulesets/stored";
import type { StoredRule } from "../../state/zone/rulesets/validate";
import type { PageSource } from "../../edge/custom-errors/apply";
import { pageHtml } from "../../edge/custom-errors/page-cache";
import { compiledOf, type CompiledZone } from "../../edge/compiled-zone";
import type { CompiledCustomErrors } from "../../edge/custom-errors/compiled";
import type { Zone } from "../../state/zone/schema";
import { compiledDraft } from "./draft-cache";
import type { Draft } from "./draft";

export interface DraftedZone {
  /** The saved zone and its compiled form (request phases, assets and the retry-hint profile stay as saved). */
  readonly current: Zone;
  readonly compiled: CompiledZone;
  /** The custom error rules, their stored form and the pages that answer: the draft's where it has them. */
  readonly custom: CompiledCustomErrors;
  readonly stored: readonly StoredRule[];
  readonly pages: PageSource;
  /** The document the rule linter reads (docs/lint.md): the draft on the saved zone. */
  readonly linted: Zone["document"];
}

export async function draftedZone(
  c: ApiContext,
  zone: string,
  draft: Draft | null,
): Promise<Result<DraftedZone, ZoneApiFailure>> {
  const read = await lookupZone(c.env.CONFIG, zone).catch((e: unknown) =>
    err({ kind: "unavailable" as const, cause: `CONFIG unavailable: ${causeOf(e)}` }),
  );
  if (!read.ok) return read;
  if (read.value === null) return err({ kind: "not-found" });
  const current = read.value;
  const compiled = compiledOf(current);
  const saved = compiled.customErrors;
  const savedPages: PageSource = (id) => pageHtml(c.env.CONFIG, saved, id);
  const stored = storedRuleset(current.document, "http_custom_errors")?.rules ?? [];
  if (draft === null) {
    return ok({ current, compiled, custom: saved, stored, pages: savedPages, linted: current.document });
  }
  // Validated and compiled once per content and zone version (draft-cache.ts).
  const drafted = await compiledDraft(current, compiled, draft);
  if (!drafted.ok) return drafted;
  const own = drafted.value.pages;
  return ok({
    current,
    compiled,
    custom: drafted.value.compiled,
    stored: drafted.value.rules,
    pages: (id) => {
      const page = own.get(id);
      return page === undefined ? savedPages(id) : Promise.resolve(page);
    },
    linted: drafted.value.document,
  });
}
