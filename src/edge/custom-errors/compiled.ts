/**
 * A zone's custom error configuration as the error path uses it (contract §2.1): the enabled custom error rules
 * compiled once per zone document version, and which error pages are customised. Built on first use per version
 * and kept per isolate in a bounded map, so an error costs rule evaluation only: no compile, no KV read of the
 * document (the zone cache already holds it).
 */
import { logEvent } from "../../shared/log";
import { compile, customErrorFields, RuleIndex, type Rule } from "../../rules";
import { pageMeta } from "../../state/zone/custom-pages/stored";
import type { PageId } from "../../state/zone/custom-pages/validate";
import { storedRuleset } from "../../state/zone/rulesets/stored";
import type { ServeErrorParameters } from "../../state/zone/rulesets/validate";
import type { UrlNormalization } from "../../shared/url-normalise";
import { zoneUrlNormalization } from "../../state/zone/url-normalization/stored";
import type { Zone } from "../../state/zone/schema";
import { VersionedMemo } from "../../state/zone/versioned-memo";

export interface CompiledRule {
  readonly id: string;
  readonly rule: Rule;
  readonly parameters: ServeErrorParameters;
}

export interface CompiledCustomErrors {
  readonly zone: string;
  readonly version: number;
  /** Rules and pages need a paid plan; on `free` they are kept but not served (contract §2.1). */
  readonly active: boolean;
  readonly rules: readonly CompiledRule[];
  /** `rules` indexed by their guards: an error evaluates only the rules that may match it (src/rules/rule-index.ts). */
  readonly index: RuleIndex;
  /** The page classes that are customised (their HTML is read from KV on first use, page-cache.ts). */
  readonly pages: ReadonlySet<PageId>;
  /** The zone's URL normalisation: the path custom error rules see (contract §2.2). */
  readonly normalization: UrlNormalization;
}

const MAX_ZONES = 512;
const compiledByVersion = new VersionedMemo<CompiledCustomErrors>(MAX_ZONES);

/** The zone's compiled custom errors, compiled once per (zone, version) per isolate. */
export function compiledCustomErrors(zone: Zone): CompiledCustomErrors {
  // The zone cache hands out the same `Zone` object while it holds a version: found by identity, no key looked up.
  let compiled = byZoneObject.get(zone);
  if (compiled === undefined) {
    compiled = compiledByVersion.get(zone.zone, zone.version, () => build(zone));
    byZoneObject.set(zone, compiled);
  }
  return compiled;
}

const byZoneObject = new WeakMap<Zone, CompiledCustomErrors>();

function build(zone: Zone): CompiledCustomErrors {
  const active = zone.settings.plan !== "free";
  const rules: CompiledRule[] = [];
  for (const stored of storedRuleset(zone.document, "http_custom_errors")?.rules ?? []) {
    if (!stored.enabled || !stored.action_parameters) continue;
    const compiled = compile(stored.expression, customErrorFields.scheme);
    // Validated when written; a rule that no longer compiles (an engine change) is skipped and said so.
    if (!compiled.ok) {
      logEvent("rule_unusable", {
        zone: zone.zone,
        version: zone.version,
        phase: "http_custom_errors",
        rule: stored.id,
        cause: compiled.error.message,
      });
      continue;
    }
    rules.push({ id: stored.id, rule: compiled.value, parameters: stored.action_parameters });
  }
  const pages = new Set<PageId>();
  for (const id of ["500_errors", "1000_errors"] as const) if (pageMeta(zone.document, id)) pages.add(id);
  return {
    zone: zone.zone,
    version: zone.version,
    active,
    rules,
    index: new RuleIndex(rules.map((r) => r.rule)),
    pages,
    normalization: zoneUrlNormalization(zone),
  };
}
