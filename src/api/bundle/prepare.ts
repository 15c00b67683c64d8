/**
 * A bundle body into what applying it takes (docs/config-as-code.md "Applying"): the zone document's sections as
 * the edits their own endpoints send (edits.ts), each checked by that endpoint's own validator, and the alert
 * policies and tags it sets. Only a section that differs from the zone as read becomes an edit, so a section the
 * zone's plan cannot hold (custom error rules on free) is no refusal while it stays as it is. Every refusal is an
 * issue naming its section and field (`telemetry.otlp.endpoint`); nothing here writes.
 */
import { err, ok, type Result } from "../../shared/result";
import { IssueList, isObject, type Issues } from "../../shared/validation";
import { parseOriginUrl, pointsAtApi } from "../../shared/origin-url";
import type { ApiContext } from "../kit/types";
import { zoneInScope } from "../kit/auth";
import { parseZoneSettings } from "../../state/zone/schema";
import type { AccountReach, SectionEdit } from "../../state/zone/edits";
import { PHASES } from "../../state/zone/rulesets/phases";
import { PAGE_IDS } from "../../state/zone/custom-pages/validate";
import { checkAssetName, parseAssetBody, type AssetUrl } from "../../state/zone/custom-pages/assets";
import { parseAccessRules } from "../../state/zone/access-rules/validate";
import { parseUrlNormalization } from "../../state/zone/url-normalization/validate";
import { parseTelemetry } from "../../state/zone/telemetry/settings";
import { storedTelemetry } from "../../state/zone/telemetry/stored";
import { MAX_ALERT_POLICIES, parseAlertBody, type AlertSpec } from "../../state/analytics/alerts";
import { canonicalText, type JsonValue } from "./canonical";
import type { CurrentBundle } from "./read";

/** What a bundle asks for, checked: the zone document's edits, and the other stores' sections when given. */
export interface Prepared {
  readonly sections: readonly SectionEdit[];
  /** Alert policies by the bundle's key (an existing policy's id, or a new one's name in the bundle). */
  readonly alerts?: ReadonlyMap<string, AlertSpec>;
  readonly tags?: Readonly<Record<string, string>>;
  /** Ids this preparation made for rules and access rules given without one (the plan shows them as new). */
  readonly minted: ReadonlySet<string>;
  /**
   * The assets to fetch, by the section of their edit in `sections`: that edit's `html` and `size_bytes` are
   * placeholders until the fetch fills them (routes.ts `fetchAssets`), which it does before anything is planned.
   */
  readonly fetches: readonly AssetFetch[];
}

/** An asset a bundle creates or changes: its edit's section (`custom_assets.<name>`) and the URL to fetch. */
export interface AssetFetch {
  readonly section: string;
  readonly url: AssetUrl;
}

type Body = Readonly<Record<string, unknown>>;

const differs = (given: unknown, current: JsonValue | undefined): boolean =>
  canonicalText(given) !== canonicalText(current ?? null);

/** A rule of a bundle as the rulesets API takes it: its `ref` as its `id` (absent: a new rule). */
function ruleBody(rule: unknown): unknown {
  if (!isObject(rule)) return rule;
  const { ref, ...rest } = rule;
  return ref === undefined || ref === null ? rest : { ...rest, id: ref };
}

/** Telemetry headers shown as `"set"` keep the value stored; one with no value stored cannot be kept. */
function telemetryBody(given: unknown, c: CurrentBundle, issues: IssueList<string>): unknown {
  if (!isObject(given) || !isObject(given.otlp) || !isObject(given.otlp.headers)) return given;
  const stored = storedTelemetry(c.document)?.otlp.headers ?? {};
  const headers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(given.otlp.headers)) {
    if (value !== "set") headers[name] = value;
    else if (Object.hasOwn(stored, name)) headers[name] = stored[name];
    else
      issues.add(
        "invalid",
        `telemetry.otlp.headers.${name}`,
        'is "set" but no value is stored for it: send the value once with PUT /zones/{zone}/telemetry',
      );
  }
  return { ...given, otlp: { ...given.otlp, headers } };
}

/** Issues of one section's own validator, under the section's name. */
function under(issues: IssueList<string>, section: string, found: Issues): void {
  for (const issue of found.listed)
    issues.add(
      issue.kind,
      issue.path === "" || issue.path === "body" ? section : `${section}.${issue.path.replace(/^body\./, "")}`,
      issue.message,
    );
}

function reachOf(c: ApiContext, zone: string): AccountReach {
  const { accounts } = c.principal;
  return { accounts: accounts === "*" ? "*" : [...accounts], namesZone: zoneInScope(c.principal, zone, null) };
}

/** The bundle body (already valid by `ZONE_BUNDLE`) against the zone as read. */
export function prepareBundle(
  c: ApiContext,
  zone: string,
  body: Body,
  current: CurrentBundle,
  newId: () => string,
): Result<Prepared, Issues> {
  const issues = new IssueList<string>();
  const now = current.bundle;
  const sections: SectionEdit[] = [];
  const minted = new Set<string>();
  const mint = (): string => {
    const id = newId();
    minted.add(id);
    return id;
  };
  if (body.zone !== undefined && body.zone !== zone)
    issues.add("not-allowed", "zone", `must be ${zone} (the path's zone)`);

  /** The bundle moves the zone to another account (or out of one, or into one). */
  let moved = false;
  if (body.settings !== undefined && differs(body.settings, now.settings)) {
    const parsed = parseZoneSettings(body.settings);
    if (!parsed.ok) under(issues, "settings", parsed.error);
    else {
      const { settings } = parsed.value;
      for (const field of ["origin", "fallback_origin"] as const) {
        const target = settings[field] === undefined ? null : parseOriginUrl(settings[field]);
        if (target?.ok === true && pointsAtApi(target.value, c.settings.apiHosts))
          issues.add(
            "not-allowed",
            `settings.${field}`,
            "must not be a host of API_HOSTS, on any port (docs/origin.md)",
          );
      }
      sections.push({ section: "settings", edit: { kind: "settings", settings, reach: reachOf(c, zone) } });
      const accountNow = isObject(now.settings) && isObject(now.settings.account) ? now.settings.account.id : undefined;
      moved = settings.account?.id !== accountNow;
    }
  }

  if (body.url_normalization !== undefined && differs(body.url_normalization, now.url_normalization)) {
    if (body.url_normalization === null)
      sections.push({ section: "url_normalization", edit: { kind: "url-normalization", setting: null } });
    else {
      const parsed = parseUrlNormalization(body.url_normalization);
      if (!parsed.ok) under(issues, "url_normalization", parsed.error);
      else sections.push({ section: "url_normalization", edit: { kind: "url-normalization", setting: parsed.value } });
    }
  }

  if (body.telemetry !== undefined && differs(body.telemetry, now.telemetry)) {
    if (body.telemetry === null) sections.push({ section: "telemetry", edit: { kind: "telemetry", settings: null } });
    else {
      const targets = { apiHosts: c.settings.apiHosts, loopbackAllowed: c.settings.webhookLoopback };
      const parsed = parseTelemetry(telemetryBody(body.telemetry, current, issues), targets);
      if (!parsed.ok) under(issues, "telemetry", parsed.error);
      else sections.push({ section: "telemetry", edit: { kind: "telemetry", settings: parsed.value } });
    }
  }

  if (body.access_rules !== undefined && differs(body.access_rules, now.access_rules)) {
    const parsed = parseAccessRules(body.access_rules, { newId: mint });
    if (!parsed.ok) under(issues, "access_rules", parsed.error);
    else sections.push({ section: "access_rules", edit: { kind: "access-rules", rules: parsed.value } });
  }

  const pages = isObject(body.custom_pages) ? body.custom_pages : {};
  const pagesNow = isObject(now.custom_pages) ? (now.custom_pages as Record<string, JsonValue>) : {};
  for (const id of PAGE_IDS) {
    if (pages[id] !== undefined && differs(pages[id], pagesNow[id]))
      sections.push({ section: `custom_pages.${id}`, edit: { kind: "page", id, body: pages[id] } });
  }

  // An asset created or changed is written before the rules that name it, one deleted after the rules that stop.
  const rulesetsAt = sections.length;
  const rulesets = isObject(body.rulesets) ? body.rulesets : {};
  const rulesetsNow = isObject(now.rulesets) ? (now.rulesets as Record<string, JsonValue>) : {};
  for (const phase of PHASES) {
    const given = rulesets[phase];
    if (!isObject(given) || !differs(given, rulesetsNow[phase])) continue;
    // A rule without a ref gets its id here, so the plan can tell it is new (parseRuleset would make one too).
    const withId = (rule: unknown): unknown => {
      const body = ruleBody(rule);
      return isObject(body) && body.id === undefined ? { ...body, id: mint() } : body;
    };
    const withIds: unknown = Array.isArray(given.rules) ? given.rules.map(withId) : given.rules;
    const edit = { kind: "replace-phase" as const, phase, body: { ...given, rules: withIds } };
    sections.push({ section: `rulesets.${phase}`, edit: { kind: "ruleset", edit } });
  }

  // An asset is made by fetching its URL: one the bundle adds, or gives another url, description or sha256, is
  // fetched (as `PUT …/custom_pages/assets/{name}` fetches again); the stored hash stands for a sha256 left out.
  const fetches: AssetFetch[] = [];
  const assetWrites: SectionEdit[] = [];
  const assets = isObject(body.custom_assets) ? body.custom_assets : undefined;
  const assetsNow = isObject(now.custom_assets) ? (now.custom_assets as Record<string, JsonValue>) : {};
  if (assets !== undefined) {
    const scope = { zone, apiHosts: c.settings.apiHosts };
    for (const [name, asset] of Object.entries(assets)) {
      const stored = assetsNow[name];
      const shown =
        isObject(asset) && asset.sha256 === undefined && isObject(stored) ? { ...asset, sha256: stored.sha256 } : asset;
      if (!differs(shown, stored)) continue;
      const section = `custom_assets.${name}`;
      const named = checkAssetName(name, "name");
      const { sha256: _hash, ...given } = isObject(asset) ? asset : {};
      const parsed = named.ok ? parseAssetBody(given, scope, name) : named;
      if (!parsed.ok) {
        if (parsed.error.kind === "invalid-asset") under(issues, section, parsed.error.issues);
        else issues.add("invalid", section, "is not a custom asset");
        continue;
      }
      const write = { name, description: parsed.value.description, url: parsed.value.url.href, size_bytes: 0 };
      const kind = stored === undefined ? "create-asset" : "update-asset";
      assetWrites.push({ section, edit: { kind, asset: write, html: "" } });
      fetches.push({ section, url: parsed.value.url });
    }
    for (const name of Object.keys(assetsNow))
      if (!Object.hasOwn(assets, name))
        sections.push({ section: `custom_assets.${name}`, edit: { kind: "delete-asset", name } });
  }
  sections.splice(rulesetsAt, 0, ...assetWrites);

  let alerts: Map<string, AlertSpec> | undefined;
  if (isObject(body.alert_policies)) {
    alerts = new Map();
    const targets = { apiHosts: c.settings.apiHosts, loopbackAllowed: c.settings.webhookLoopback };
    const given = Object.entries(body.alert_policies);
    if (given.length > MAX_ALERT_POLICIES)
      issues.add("out-of-range", "alert_policies", `at most ${MAX_ALERT_POLICIES} alert policies per zone`);
    for (const [key, policy] of given) {
      const parsed = parseAlertBody(policy, targets);
      if (parsed.ok) alerts.set(key, parsed.value);
      else {
        // The policy's own refusals begin with the field they name (`webhook.url must use https`): one path.
        const [field = "", ...rest] = parsed.error.message.split(" ");
        issues.add("invalid", `alert_policies.${key}.${field}`, rest.join(" "));
      }
    }
  }

  let tags: Record<string, string> | undefined;
  if (isObject(body.tags)) {
    tags = Object.fromEntries(Object.entries(body.tags).map(([key, value]) => [key, String(value)]));
    if (moved)
      // A zone's tags live in its account's TagStore: tags given beside a new account would be written to the old
      // account's store and read back from the new one's, so the bundle could never match the zone. Two steps.
      issues.add(
        "not-allowed",
        "tags",
        "cannot be given in a bundle that moves the zone to another account: apply the account change without " +
          "tags, pull the bundle again, then set the tags",
      );
    else if (differs(body.tags, now.tags)) {
      if (!c.principal.permissions.has("tags:read") || !c.principal.permissions.has("tags:write"))
        issues.add("not-allowed", "tags", "need a token with tags:read and tags:write (or leave them out)");
      else if (now.tags === undefined)
        issues.add(
          "not-allowed",
          "tags",
          "cannot be set: the zone belongs to no account, so it has no tags (docs/tags-api.md)",
        );
    }
  }

  return issues.count > 0
    ? err(issues.issues)
    : ok({ sections, minted, fetches, ...(alerts ? { alerts } : {}), ...(tags ? { tags } : {}) });
}
