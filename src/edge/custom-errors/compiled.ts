/**
 * A zone's custom error configuration as the error path uses it (docs/custom-errors.md): the enabled custom error rules as
 * a rule list (src/rules/rule-list.ts) and which error pages are customised. Built once per zone version as part of
 * the compiled zone (src/edge/compiled-zone.ts), so an error costs rule evaluation only: no compile, no KV read of
 * the document.
 */
import type { ErrorCustomization } from "../../errors/pipeline";
import type { CachedPart } from "./page-cache";
import { compileRuleList, logUnusableRules, type RuleList, type RuleListEntry } from "../../rules/rule-list";
import { err, ok } from "../../shared/result";
import type { UrlNormalization } from "../../shared/url-normalise";
import { pageMeta } from "../../state/zone/custom-pages/stored";
import type { PageId } from "../../state/zone/custom-pages/validate";
import { storedRuleset } from "../../state/zone/rulesets/stored";
import { PreparedOverlay } from "../../errors/overlay";
import type { AssetServeError } from "../../state/zone/rulesets/serve-error";
import type { InlineServeError, ServeErrorParameters } from "../../state/zone/rulesets/validate";
import type { Zone } from "../../state/zone/schema";

/** A rule's own content: inline, or a custom error asset (serve-error.ts). */
export type ContentParameters = InlineServeError | AssetServeError;

/**
 * What a rule answers with: fixed content (the published `serve_error`), or an overlay of the structured error
 *, prepared here once per zone version (its brand bar and stylesheet), not per error.
 */
export type RuleAnswer =
  | { readonly kind: "content"; readonly parameters: ContentParameters }
  | { readonly kind: "overlay"; readonly overlay: PreparedOverlay };

export type CompiledRule = RuleListEntry<{ readonly answer: RuleAnswer }>;

export interface CompiledCustomErrors {
  readonly zone: string;
  readonly version: number;
  /** Rules and pages need a paid plan; on `free` they are kept but not served (docs/custom-errors.md). */
  readonly active: boolean;
  readonly rules: RuleList<{ readonly answer: RuleAnswer }>;
  /** The page classes that are customised (their HTML is read from KV on first use, page-cache.ts). */
  readonly pages: ReadonlySet<PageId>;
  /** The zone's URL normalisation: the path custom error rules see (docs/rules-language.md). */
  readonly normalization: UrlNormalization;
  /** The pipeline's customisation steps, built on the first error and kept with the version (apply.ts). */
  steps?: { readonly kv: KVNamespace; readonly steps: ErrorCustomization };
  /** Where its rules' custom error assets are read (apply.ts `assetsOf`), made once per version and binding. */
  assets?: { readonly kv: KVNamespace; readonly source: AssetSource };
}

/**
 * Where a rule with `asset_name` reads its custom error asset (docs/custom-errors.md "Custom error assets"): `held`
 * answers at once when this isolate holds it for the zone's version (`undefined`: not held, `null`: it cannot be
 * read), `read` reads it from KV (once per version; `null` when it cannot be read). A rule whose asset cannot be
 * read does not answer: the next step does.
 */
export interface AssetSource {
  readonly held: (name: string) => CachedPart | null | undefined;
  readonly read: (name: string) => Promise<CachedPart | null>;
}

/** Compiles the zone's custom errors (once per version: src/edge/compiled-zone.ts). */
export function compileCustomErrors(zone: Zone, normalization: UrlNormalization): CompiledCustomErrors {
  const stored = storedRuleset(zone.document, "http_custom_errors")?.rules ?? [];
  const rules = compileRuleList("http_custom_errors", stored, {
    // A disabled rule, or one with nothing to serve, is not a rule of the list.
    admit: (rule) => (rule.enabled && rule.action_parameters ? { kind: "use" } : { kind: "skip" }),
    prepare: (rule) =>
      rule.action_parameters ? ok({ answer: answerOf(rule.action_parameters) }) : err("nothing to serve"),
  });
  // Validated when written; a rule that no longer compiles (an engine change) is skipped and said so.
  logUnusableRules(zone.zone, zone.version, rules.problems);
  const pages = new Set<PageId>();
  for (const id of ["500_errors", "1000_errors"] as const) if (pageMeta(zone.document, id)) pages.add(id);
  return {
    zone: zone.zone,
    version: zone.version,
    active: zone.settings.plan !== "free",
    rules,
    pages,
    normalization,
  };
}

function answerOf(parameters: ServeErrorParameters): RuleAnswer {
  return "overlay" in parameters
    ? { kind: "overlay", overlay: new PreparedOverlay(parameters.overlay) }
    : { kind: "content", parameters };
}
