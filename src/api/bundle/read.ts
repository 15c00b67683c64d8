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
import { pageKey, pageMeta } from "../../state/zone/custom-pages/stored";
import { assetKey, storedAssets } from "../../state/zone/custom-pages/assets";
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

/** Each page: `default`, or `customized` with its HTML (read from its part; a part missing is shown empty). */
async function customPages(env: Env, zone: string, document: ZoneDocument): Promise<Record<PageId, unknown>> {
  const entries = await Promise.all(
    PAGE_IDS.map(async (id) => {
      if (pageMeta(document, id) === null) return [id, { state: "default" }] as const;
      const content = (await env.CONFIG.get(pageKey(zone, id))) ?? "";
      return [id, { state: "customized", content }] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<PageId, unknown>;
}

/** Each asset by name: what was written (description, url) and the SHA-256 of the HTML stored (not the HTML). */
async function customAssets(env: Env, zone: string, document: ZoneDocument): Promise<Record<string, unknown>> {
  const assets = Object.values(storedAssets(document));
  const entries = await Promise.all(
    assets.map(async (asset) => {
      const html = (await env.CONFIG.get(assetKey(zone, asset.name))) ?? "";
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

async function alertPolicies(env: Env, zone: string): Promise<Record<string, unknown>> {
  const ns = env.ZONE_ANALYTICS;
  const alerts = await ns.get(ns.idFromName(shardName(zone, 0))).listAlerts();
  return Object.fromEntries(alerts.map((alert) => [alert.id, alertBody(alert.spec)]));
}

/**
 * The zone's own tags, from its account's TagStore: only for a token that may read tags, and only when the zone
 * belongs to an account (a zone without one has no tags); `undefined` leaves the section out.
 */
async function zoneTags(c: ApiContext, zone: string, account: string | null): Promise<JsonValue | undefined> {
  if (account === null || !c.principal.permissions.has("tags:read")) return undefined;
  const store = c.env.TAG_STORE.get(c.env.TAG_STORE.idFromName(account));
  const resource = await store.getTags({ type: "zone", parent: zone, id: zone });
  return canonical(resource.tags);
}

/** The zone's bundle and its ETag; the zone not configured: `not-found`. */
export async function readBundle(c: ApiContext, zone: string): Promise<Result<ReadBundle, ZoneApiFailure>> {
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  const { document, zone: parsed } = current.value;
  const telemetry = storedTelemetry(document);
  const accessRules = storedAccessRules(document);
  const [pages, assets, alerts, tags] = await Promise.all([
    customPages(c.env, zone, document),
    customAssets(c.env, zone, document),
    alertPolicies(c.env, zone),
    zoneTags(c, zone, zoneAccountId(parsed.settings)),
  ]);
  const bundle = canonical({
    zone,
    settings: parsed.settings,
    rulesets: rulesets(document),
    custom_pages: pages,
    custom_assets: assets,
    access_rules: presentAccessRules(accessRules ?? { rules: [] }),
    url_normalization: storedUrlNormalization(document),
    telemetry: telemetry === null ? null : redactedTelemetry(telemetry),
    alert_policies: alerts,
    tags,
  }) as { readonly [section: string]: JsonValue };
  return ok({ bundle, etag: await bundleEtag(bundle) });
}
