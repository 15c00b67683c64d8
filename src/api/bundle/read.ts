/**
 * A zone's whole configuration as one document (docs/config-as-code.md "The bundle"): what `GET
 * /zones/{zone}/bundle` answers and what a `PUT` is compared with. Read from the zone's writer of record (settings
 * and every section of the zone document), the page and asset parts in KV (a page's HTML, an asset's hash), shard 0
 * of the zone's analytics (alert policies) and the TagStore of the zone's account (its tags).
 *
 * What is left out, so that the same configuration is always the same document: what the stores stamp on a write
 * (versions, timestamps, a ruleset's id), what a policy is doing (its state), and secrets (telemetry header values
 * are `"set"`, a webhook's signing secret is never read). Pure but for the reads.
 */
import { ok, type Result } from "../../shared/result";
import { sha256Hex } from "../../shared/crypto";
import type { ApiContext } from "../kit/types";
import { readZone, type ZoneApiFailure } from "../kit/zone-section";
import type { ZoneDocument } from "../../state/zone/schema";
import { PHASES, type Phase } from "../../state/zone/rulesets/phases";
import { storedRuleset } from "../../state/zone/rulesets/stored";
import type { StoredRule } from "../../state/zone/rulesets/validate";
import { PAGE_IDS, type PageId } from "../../state/zone/custom-pages/validate";
import { pageMeta, pagePart } from "../../state/zone/custom-pages/stored";
import { assetPart, storedAssets } from "../../state/zone/custom-pages/assets";
import { parseDocument, zonePartsPrefix, type StoreFailure } from "../../state/zone/store";
import type { ZonePart } from "../../state/zone/edits";
import type { StoredAlert } from "../../state/analytics/alerting";
import type { ZoneAnalytics } from "../../state/analytics/zone-analytics";
import type { TagStore } from "../../state/tags/tag-store";
import type { ResourceRef } from "../../state/tags/types";
import { storedAccessRules } from "../../state/zone/access-rules/stored";
import { presentAccessRules } from "../../state/zone/access-rules/types";
import { storedUrlNormalization } from "../../state/zone/url-normalization/stored";
import { redactedTelemetry, storedTelemetry } from "../../state/zone/telemetry/stored";
import { zoneAccountId } from "../../state/zone/schema";
import { shardName } from "../../state/analytics/shards";
import type { AlertSpec } from "../../state/analytics/alerts";
import { bundleEtag, canonical, type JsonValue } from "./canonical";

/** A bundle as read: the canonical document and its entity tag. */
export interface ReadBundle {
  readonly bundle: { readonly [section: string]: JsonValue };
  readonly etag: string;
}

/** A rule as the bundle shows it: its id as `ref`, without what the store stamps (version, last_updated). */
export function bundleRule(rule: StoredRule): Record<string, unknown> {
  const { id, version: _version, last_updated: _updated, ...rest } = rule;
  return { ref: id, ...rest };
}

/** Every phase, a stored ruleset or none alike as `{rules}` (name and description only when one was written). */
function rulesets(document: ZoneDocument): Record<Phase, unknown> {
  const entries = PHASES.map((phase) => {
    const stored = storedRuleset(document, phase);
    return [
      phase,
      {
        rules: (stored?.rules ?? []).map(bundleRule),
        ...(stored?.name === undefined ? {} : { name: stored.name }),
        ...(stored?.description === undefined ? {} : { description: stored.description }),
      },
    ] as const;
  });
  return Object.fromEntries(entries) as Record<Phase, unknown>;
}

/**
 * Where a page's HTML and an asset's hash come from: KV for the stored zone, the edit's own parts first for a zone
 * as a planned bundle would leave it (plan.ts).
 */
export type PartText = (name: string) => Promise<string | null>;

/** Reads parts from KV, the parts of a planned write (`ZonePart`, `null`: deleted) first. */
export function partReader(env: Env, zone: string, planned: readonly ZonePart[] = []): PartText {
  const overrides = new Map(planned.map((part) => [part.name, part.content]));
  return (name) => {
    const planned = overrides.get(name);
    return planned !== undefined ? Promise.resolve(planned) : env.CONFIG.get(`${zonePartsPrefix(zone)}${name}`);
  };
}

/** Each page: `default`, or `customized` with its HTML (read from its part; a part missing is shown empty). */
async function customPages(document: ZoneDocument, part: PartText): Promise<Record<PageId, unknown>> {
  const entries = await Promise.all(
    PAGE_IDS.map(async (id) => {
      if (pageMeta(document, id) === null) return [id, { state: "default" }] as const;
      const content = (await part(pagePart(id))) ?? "";
      return [id, { state: "customized", content }] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<PageId, unknown>;
}

/** Each asset by name: what was written (description, url) and the SHA-256 of the HTML stored (not the HTML). */
async function customAssets(document: ZoneDocument, part: PartText): Promise<Record<string, unknown>> {
  const assets = Object.values(storedAssets(document));
  const entries = await Promise.all(
    assets.map(async (asset) => {
      const html = (await part(assetPart(asset.name))) ?? "";
      return [asset.name, { description: asset.description, url: asset.url, sha256: await sha256Hex(html) }] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/** A policy as its `POST` body spells it (the flat definition, the webhook's URL), never its secret nor its state. */
export function alertBody(spec: AlertSpec): Record<string, unknown> {
  const { kind, ...rule } = spec.rule;
  return {
    name: spec.name,
    kind,
    enabled: spec.enabled,
    ...rule,
    resolve_after: spec.resolve_after,
    webhook: { url: spec.webhook_url },
  };
}

/** Shard 0 of the zone's analytics: where its alert policies live (src/state/analytics/alerting.ts). */
export function alertHolder(env: Env, zone: string): DurableObjectStub<ZoneAnalytics> {
  const ns = env.ZONE_ANALYTICS;
  return ns.get(ns.idFromName(shardName(zone, 0)));
}

async function alertPolicies(env: Env, zone: string): Promise<StoredAlert[]> {
  return alertHolder(env, zone).listAlerts();
}

/**
 * The zone's own tags, from its account's TagStore: only for a token that may read tags, and only when the zone
 * belongs to an account (a zone without one has no tags); `undefined` leaves the section out.
 */
async function zoneTags(
  c: ApiContext,
  zone: string,
  account: string | null,
): Promise<{ readonly tags: JsonValue; readonly etag: string } | undefined> {
  if (account === null || !c.principal.permissions.has("tags:read")) return undefined;
  const resource = await tagStore(c.env, account).getTags(zoneTagsRef(zone));
  return { tags: canonical(resource.tags), etag: resource.etag };
}

/** The TagStore of an account (docs/tags-api.md: one per account). */
export function tagStore(env: Env, account: string): DurableObjectStub<TagStore> {
  return env.TAG_STORE.get(env.TAG_STORE.idFromName(account));
}

/** The zone itself as a tagged resource (docs/tags-api.md "Zone tags"). */
export const zoneTagsRef = (zone: string): ResourceRef => ({ type: "zone", parent: zone, id: zone });

/** The sections the zone document holds (every section but alert policies and tags), from a document. */
export async function documentSections(
  zone: string,
  document: ZoneDocument,
  part: PartText,
): Promise<Result<Record<string, unknown>, StoreFailure>> {
  const parsed = parseDocument(zone, document);
  if (!parsed.ok) return parsed;
  const telemetry = storedTelemetry(document);
  const [pages, assets] = await Promise.all([customPages(document, part), customAssets(document, part)]);
  return ok({
    zone,
    settings: parsed.value.settings,
    rulesets: rulesets(document),
    custom_pages: pages,
    custom_assets: assets,
    access_rules: presentAccessRules(storedAccessRules(document) ?? { rules: [] }),
    url_normalization: storedUrlNormalization(document),
    telemetry: telemetry === null ? null : redactedTelemetry(telemetry),
  });
}

/** A bundle as read, with what a write of it plans against: the stored document and the policies by id. */
export interface CurrentBundle extends ReadBundle {
  readonly document: ZoneDocument;
  readonly alerts: readonly StoredAlert[];
  /** The tags' own ETag in the TagStore (`null`: not shown to this token, or no account). */
  readonly tagsEtag: string | null;
}

/** The zone's bundle and its ETag; the zone not configured: `not-found`. */
export async function readBundle(c: ApiContext, zone: string): Promise<Result<CurrentBundle, ZoneApiFailure>> {
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  const { document, zone: parsed } = current.value;
  const [sections, alerts, tags] = await Promise.all([
    documentSections(zone, document, partReader(c.env, zone)),
    alertPolicies(c.env, zone),
    zoneTags(c, zone, zoneAccountId(parsed.settings)),
  ]);
  if (!sections.ok) return sections;
  const bundle = canonical({
    ...sections.value,
    alert_policies: Object.fromEntries(alerts.map((alert) => [alert.id, alertBody(alert.spec)])),
    tags: tags?.tags,
  }) as { readonly [section: string]: JsonValue };
  return ok({ bundle, etag: await bundleEtag(bundle), document, alerts, tagsEtag: tags?.etag ?? null });
}
