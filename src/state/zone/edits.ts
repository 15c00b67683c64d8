/**
 * Every write of a zone document as an edit: a data value (it crosses the RPC boundary to the zone's writer) and one
 * pure function that applies it to the document (docs/architecture.md "The API kit"; docs/configuration.md "The
 * writer of record"). The writer (writer.ts) applies an edit inside its serialised step to the document as it is
 * then, so what an edit checks against the stored document (the plan, whether an asset exists or is in use, a
 * ruleset's rules and versions) is never stale and parallel writes of one zone never conflict; a dry run applies the
 * same edit, with the same function, to the document as read and stores nothing. No bindings here.
 *
 * What does not depend on the stored document (a body's shape, an access-rule list, a fetched asset page) is
 * validated by the route before the edit is sent, so a refused body costs no round trip to the writer.
 */
import { err, ok, type Result } from "../../shared/result";
import type { UrlNormalization } from "../../shared/url-normalise";
import { applyAccessRuleChange, type AccessRuleChange, type AccessRuleChangeFailure } from "./access-rules/changes";
import { ACCESS_RULES_SECTION, storedAccessRules } from "./access-rules/stored";
import type { AccessRules } from "./access-rules/types";
import {
  ASSETS_SECTION,
  assetPart,
  assetUsers,
  assetWriteAllowed,
  storedAssets,
  type AssetFailure,
  type AssetMeta,
} from "./custom-pages/assets";
import { pagePart, pageSection, type PageMeta } from "./custom-pages/stored";
import { parsePageBody, type PageFailure, type PageId } from "./custom-pages/validate";
import { applyRulesetEdit, type RulesetEdit, type RulesetEditFailure, type RulesetEdited } from "./rulesets/edits";
import { rulesetSection, storedRuleset } from "./rulesets/stored";
import { PHASES } from "./rulesets/phases";
import type { StoredRuleset } from "./rulesets/validate";
import { headerLimitFits } from "./rulesets/stored-cost";
import { isObject, type Issues } from "../../shared/validation";
import { parseZoneSettings, ZONE_DOC_SCHEMA, zoneAccountId, type ZoneDocument, type ZoneSettings } from "./schema";
import { parseDocument, type StoreFailure } from "./store";
import { URL_NORMALIZATION_SECTION } from "./url-normalization/stored";
import type { TelemetrySettings } from "./telemetry/settings";
import { TELEMETRY_SECTION } from "./telemetry/stored";
import { ANALYTICS_SECTION, storedShardPlan, withShards } from "../analytics/shards";

/** A custom error asset as a create or update sends it: everything but the time it is stored. */
export type AssetWrite = Omit<AssetMeta, "last_updated">;

/** One write of a zone, as plain data. */
export type ZoneEdit =
  /**
   * `PUT /zones/{zone}`: creates the zone or replaces its settings, keeping every section. `reach` (absent: any) is
   * the writing token's scope, checked against the account stored and the account written.
   */
  | { readonly kind: "settings"; readonly settings: ZoneSettings; readonly reach?: AccountReach }
  /**
   * `PATCH /zones/{zone}`: the fields given replace the stored ones (`null` resets one to its default), and the
   * result is validated as a `PUT` body is (`parseZoneSettings`), here, on the settings as stored now.
   */
  | {
      readonly kind: "patch-settings";
      readonly patch: Readonly<Record<string, unknown>>;
      readonly reach?: AccountReach;
    }
  /** A write of the rulesets API (rulesets/edits.ts); the writer records the version it makes. */
  | { readonly kind: "ruleset"; readonly edit: RulesetEdit }
  /**
   * `PUT …/custom_pages/{id}`: the body as sent, validated against the zone's plan as it is when applied; `url` when
   * the page was fetched from the published `url` (its inlined HTML is then the body's `content`).
   */
  | { readonly kind: "page"; readonly id: PageId; readonly body: unknown; readonly url?: string }
  /** `POST …/custom_pages/assets`: a new name, room on the plan. `html` is the fetched, inlined page. */
  | { readonly kind: "create-asset"; readonly asset: AssetWrite; readonly html: string }
  /** `PUT …/custom_pages/assets/{name}`: an existing asset. */
  | { readonly kind: "update-asset"; readonly asset: AssetWrite; readonly html: string }
  /** `DELETE …/custom_pages/assets/{name}`: refused while a custom error rule names it. */
  | { readonly kind: "delete-asset"; readonly name: string }
  /** `PUT …/access_rules`: the whole list, validated. */
  | { readonly kind: "access-rules"; readonly rules: AccessRules }
  /** One access rule created, edited or deleted (`…/firewall/access_rules/rules[/{id}]`), checked against the list. */
  | { readonly kind: "access-rule"; readonly change: AccessRuleChange }
  /** `PUT …/url_normalization` (a setting) or `DELETE` (`null`: the defaults again). */
  | { readonly kind: "url-normalization"; readonly setting: UrlNormalization | null }
  /** `PUT …/telemetry` (the settings, secrets included) or `DELETE` (`null`: no telemetry). */
  | { readonly kind: "telemetry"; readonly settings: TelemetrySettings | null }
  /** `PUT …/analytics/settings`: the zone's analytics shard count; the count before is kept while it holds rows. */
  | { readonly kind: "analytics-shards"; readonly shards: number }
  /**
   * `PUT /zones/{zone}/bundle` (docs/config-as-code.md "Applying"): several sections' edits, applied in order to the
   * document as each leaves it, stored as one document in one step, or none of them. `version` is the version the
   * bundle was planned against: any other write of the zone since then refuses it (`bundle-stale`).
   */
  | { readonly kind: "bundle"; readonly version: number; readonly sections: readonly SectionEdit[] }
  /**
   * A bundle undone (docs/config-as-code.md "What atomic means"): the document as it was before the bundle wrote it
   * (`document`) written back, with the content the bundle's parts had before (`parts`), when a store written after
   * the zone document refused. Refused (`bundle-stale`) unless the zone is still at `version`, the version the
   * bundle wrote: a write made since is never undone.
   */
  | {
      readonly kind: "restore";
      readonly version: number;
      readonly document: ZoneDocument;
      readonly parts: readonly ZonePart[];
    };

/** One section of a bundle as the edit that writes it; `section` names it in a refusal (`rulesets.http_ratelimit`). */
export interface SectionEdit {
  readonly section: string;
  readonly edit: Exclude<ZoneEdit, { readonly kind: "bundle" | "restore" }>;
}

/** A bundle's section refused by its own edit: the section, and that edit's failure. */
export interface SectionFailure {
  readonly kind: "bundle-section";
  readonly section: string;
  readonly failure: ZoneEditFailure;
}

/** The zone was written after the bundle was planned (its version is no longer the one planned against). */
export interface BundleStale {
  readonly kind: "bundle-stale";
  readonly planned: number;
  readonly current: number | null;
}

/**
 * Which zones a token reaches, as the writer checks it (docs/configuration.md "Zone accounts"): the accounts it may
 * name (`"*"`: any), and whether it names this zone itself (its `zones` scope), so that it reaches the zone whatever
 * its account.
 */
export interface AccountReach {
  readonly accounts: "*" | readonly string[];
  readonly namesZone: boolean;
}

/** A settings write that would put a zone in an account, or take it out of one, beyond the token's reach (403). */
export interface AccountForbidden {
  readonly kind: "account-forbidden";
  /** The account refused: the one written, or the one stored (`null`: the zone would belong to none). */
  readonly account: string | null;
  readonly why: "not-yours" | "stored-not-yours" | "would-leave-reach";
}

export type ZoneWriteFailure =
  | { readonly kind: "not-found" }
  /** KV (or the writer's storage) failed: the service's own failure, 500 at the edge (docs/origin.md). */
  | { readonly kind: "unavailable"; readonly cause: string }
  /** The changed document would pass `MAX_DOCUMENT_BYTES`: nothing was written (docs/configuration.md). */
  | { readonly kind: "too-large"; readonly bytes: number; readonly limit: number };

/** Every way an edit is refused, as values (mapped to HTTP in src/api/kit/zone-section.ts). */
/** A `PATCH` whose merged settings fail the zone settings' validation (the issues name the fields). */
export interface InvalidSettings {
  readonly kind: "invalid-settings";
  readonly issues: Issues;
}

export type ZoneEditFailure =
  | ZoneWriteFailure
  | AccountForbidden
  | InvalidSettings
  | AccessRuleChangeFailure
  | StoreFailure
  | RulesetEditFailure
  | PageFailure
  | AssetFailure
  | SectionFailure
  | BundleStale;

/** An edit as applied: the document it leaves (stamped) and, for a rulesets API write, the ruleset it leaves. */
export interface ZoneEdited {
  readonly document: ZoneDocument;
  readonly ruleset: RulesetEdited | null;
}

/** A large value under a key of its own (`content` null deletes it). */
export interface ZonePart {
  readonly name: string;
  readonly content: string | null;
}

/** What the writer stores for an applied edit: its parts first, then the document. */
export interface ZoneWrite extends ZoneEdited {
  readonly parts: readonly ZonePart[];
  /** Every ruleset the edit wrote, for the writer's version history (a bundle may write several). */
  readonly rulesets: readonly RulesetEdited[];
  /** The document as KV holds it, and its UTF-8 bytes as the writer keeps them (the size checked is the size stored). */
  readonly text: string;
  readonly bytes: Uint8Array;
}

/**
 * The zone document is one value in the writer's SQLite storage, where a value is at most 2 MB (Cloudflare Durable
 * Object limits; workerd refuses more with SQLITE_TOOBIG), and one KV value (≤ 25 MiB). It is stored as the UTF-8
 * bytes of the JSON that KV holds, so the size checked is the size stored: as a JS object the runtime keeps a string
 * with one character outside Latin-1 in two bytes per character, nearly doubling notes written in ASCII with one `€`
 * (measured: a 1.6 MB access-rule list failed as an object). 10,000 bytes are left for the key and the
 * serialisation header. The check runs before anything is written (limits before work), so a refused change leaves
 * KV and the writer as they were; a dry run makes the same check.
 */
export const MAX_DOCUMENT_BYTES = 2_000_000 - 10_000;

const encoder = new TextEncoder();

/** Where an edit runs: the zone, the document as it is (`null`: not configured), its next version, the clock. */
export interface EditTarget {
  readonly zone: string;
  readonly previous: ZoneDocument | null;
  readonly version: number;
  readonly now: Date;
  /** Mints ruleset and rule ids. */
  readonly newId: () => string;
}

/** Applies one edit to the document: the document it leaves at `version`, ready to store, or why not. */
export function applyZoneEdit(target: EditTarget, edit: ZoneEdit): Result<ZoneWrite, ZoneEditFailure> {
  const changed = change(target, edit);
  if (!changed.ok) return changed;
  const document: ZoneDocument = {
    ...changed.value.content,
    schema: ZONE_DOC_SCHEMA,
    version: target.version,
    zone: target.zone,
    modified_on: target.now.toISOString(),
    // A zone created now gets the version it is created at as its incarnation, kept by every later write (the
    // content spreads the previous document): versions never repeat for a name, so neither do incarnations, and
    // state keyed by one (rate-limit counters, schema.ts `Zone.incarnation`) is never found again by a zone
    // re-created under the same name. A zone created before incarnations has none.
    ...(target.previous === null ? { incarnation: target.version } : {}),
  };
  const text = JSON.stringify(document);
  const bytes = encoder.encode(text);
  if (bytes.byteLength > MAX_DOCUMENT_BYTES) {
    return err({ kind: "too-large", bytes: bytes.byteLength, limit: MAX_DOCUMENT_BYTES });
  }
  const { parts, rulesets } = changed.value;
  const ruleset = edit.kind === "bundle" || edit.kind === "restore" ? null : (rulesets[0] ?? null);
  return ok({ document, text, bytes, parts, ruleset, rulesets });
}

interface Change {
  readonly content: Readonly<Record<string, unknown>>;
  readonly parts: readonly ZonePart[];
  readonly rulesets: readonly RulesetEdited[];
}

/**
 * A bundle's sections, each edit applied to the document the one before left (so a ruleset is checked against the
 * plan the bundle's settings set), their parts and rulesets gathered: the first refusal refuses the whole bundle.
 */
function bundleChange(
  target: EditTarget,
  version: number,
  sections: readonly SectionEdit[],
): Result<Change, ZoneEditFailure> {
  const previous = target.previous;
  if (previous === null || previous.version !== version)
    return err({ kind: "bundle-stale", planned: version, current: previous?.version ?? null });
  let document: ZoneDocument = previous;
  const parts: ZonePart[] = [];
  const rulesets: RulesetEdited[] = [];
  for (const { section, edit } of sections) {
    const changed = change({ ...target, previous: document }, edit);
    if (!changed.ok) return err({ kind: "bundle-section", section, failure: changed.error });
    // The envelope fields (schema, version, zone) are the previous document's: every change spreads it.
    document = changed.value.content as ZoneDocument;
    parts.push(...changed.value.parts);
    rulesets.push(...changed.value.rulesets);
  }
  return ok({ content: document, parts, rulesets });
}

/**
 * The document before a bundle, written back over the one the bundle left. A ruleset the bundle changed comes back
 * as it was under a new version (the next after the bundle's), so its history reads: before, the bundle, back; one
 * the bundle created is deleted with its versions.
 */
function restoreChange(
  target: EditTarget,
  edit: Extract<ZoneEdit, { readonly kind: "restore" }>,
): Result<Change, ZoneEditFailure> {
  const written = target.previous;
  if (written === null || written.version !== edit.version)
    return err({ kind: "bundle-stale", planned: edit.version, current: written?.version ?? null });
  let content: Record<string, unknown> = { ...edit.document };
  const rulesets: RulesetEdited[] = [];
  for (const phase of PHASES) {
    const was = storedRuleset(edit.document, phase);
    const left = storedRuleset(written, phase);
    if (JSON.stringify(was) === JSON.stringify(left)) continue;
    if (was === null) {
      if (left !== null) rulesets.push({ phase, id: left.id, ruleset: null });
      continue;
    }
    const version = String(Math.max(Number(was.version), Number(left?.version ?? "0")) + 1);
    const back: StoredRuleset = { ...was, version, last_updated: target.now.toISOString() };
    content = withSection(content, rulesetSection(phase), back);
    rulesets.push({ phase, id: was.id, ruleset: back });
  }
  return ok({ content, parts: edit.parts, rulesets });
}

function change(target: EditTarget, edit: ZoneEdit): Result<Change, ZoneEditFailure> {
  const { previous, now } = target;
  const section = (name: string, value: unknown, part: ZonePart | null = null): Result<Change, never> =>
    ok({ content: withSection(previous ?? {}, name, value), parts: part === null ? [] : [part], rulesets: [] });
  if (edit.kind === "bundle") return bundleChange(target, edit.version, edit.sections);
  if (edit.kind === "restore") return restoreChange(target, edit);
  if (edit.kind === "settings" || edit.kind === "patch-settings") {
    let settings: ZoneSettings;
    if (edit.kind === "settings") settings = edit.settings;
    else {
      if (previous === null) return err({ kind: "not-found" });
      const merged = parseZoneSettings(patched(previous.settings, edit.patch));
      if (!merged.ok) return err({ kind: "invalid-settings", issues: merged.error });
      settings = merged.value.settings;
    }
    // A larger header limit makes a larger request: the stored request-phase rules must still fit the evaluation
    // budget on it (rulesets/stored-cost.ts).
    const over = headerLimitFits(previous, settings.max_request_header_bytes);
    if (over !== null) return err({ kind: "over-budget", issues: over });
    if (edit.reach !== undefined) {
      const refused = accountRefused(target.zone, previous, settings, edit.reach);
      if (refused !== null) return err(refused);
    }
    return section("settings", settings);
  }
  // Every other edit changes a zone that exists, on the plan it has now.
  if (previous === null) return err({ kind: "not-found" });
  const parsed = parseDocument(target.zone, previous);
  if (!parsed.ok) return parsed;
  const plan = parsed.value.settings.plan;
  switch (edit.kind) {
    case "ruleset": {
      const applied = applyRulesetEdit(previous, plan, edit.edit, now, target.newId);
      if (!applied.ok) return applied;
      const { phase, ruleset } = applied.value;
      const content = withSection(previous, rulesetSection(phase), ruleset);
      return ok({ content, parts: [], rulesets: [applied.value] });
    }
    case "page": {
      const page = parsePageBody(edit.body, edit.id, plan);
      if (!page.ok) return page;
      const content = page.value.state === "customized" ? page.value.content : null;
      const meta: PageMeta | null =
        content === null
          ? null
          : {
              state: "customized",
              modified_on: now.toISOString(),
              bytes: encoder.encode(content).byteLength,
              ...(edit.url === undefined ? {} : { url: edit.url }),
            };
      return section(pageSection(edit.id), meta, { name: pagePart(edit.id), content });
    }
    case "create-asset":
    case "update-asset": {
      const allowed = assetWriteAllowed(previous, plan, edit.asset.name, edit.kind === "create-asset");
      if (!allowed.ok) return allowed;
      const meta: AssetMeta = { ...edit.asset, last_updated: now.toISOString() };
      const assets = { ...storedAssets(previous), [meta.name]: meta };
      return section(ASSETS_SECTION, assets, { name: assetPart(meta.name), content: edit.html });
    }
    case "delete-asset": {
      const assets = storedAssets(previous);
      if (!Object.hasOwn(assets, edit.name)) return err({ kind: "unknown-asset", name: edit.name });
      // Refused while a custom error rule names it (docs/custom-errors.md "Deleting an asset in use").
      const users = assetUsers(storedRuleset(previous, "http_custom_errors")?.rules ?? [], edit.name);
      if (users.length > 0) return err({ kind: "asset-in-use", name: edit.name, rules: users });
      const rest = Object.fromEntries(Object.entries(assets).filter(([key]) => key !== edit.name));
      const value = Object.keys(rest).length === 0 ? null : rest;
      return section(ASSETS_SECTION, value, { name: assetPart(edit.name), content: null });
    }
    case "access-rules":
      return section(ACCESS_RULES_SECTION, edit.rules);
    case "access-rule": {
      const changed = applyAccessRuleChange(storedAccessRules(previous), edit.change);
      return changed.ok ? section(ACCESS_RULES_SECTION, changed.value) : changed;
    }
    case "url-normalization":
      return section(URL_NORMALIZATION_SECTION, edit.setting);
    case "telemetry":
      return section(TELEMETRY_SECTION, edit.settings);
    case "analytics-shards": {
      // docs/analytics.md "Shards": the history is what keeps records written under an earlier count found.
      const plan = storedShardPlan(previous);
      if (!plan.ok) return err({ kind: "unavailable", cause: plan.error });
      return section(ANALYTICS_SECTION, withShards(plan.value, edit.shards, now.getTime()));
    }
  }
}

/**
 * The stored settings with a patch's fields over them: a field given replaces the stored one whole (`account`
 * included), `null` removes it so that validation gives it its default (no account, the default timeouts).
 * Settings stored in a shape that is no object count as none: the merged whole is validated either way.
 */
function patched(stored: unknown, patch: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const kept = Object.entries(isObject(stored) ? stored : {}).filter(([key]) => !Object.hasOwn(patch, key));
  const given = Object.entries(patch).filter(([, value]) => value !== null);
  // `fromEntries` defines own properties, so a key such as `__proto__` stays a key (refused as unknown), never a
  // prototype.
  return Object.fromEntries([...kept, ...given]);
}

/**
 * Whether a settings write stays within the writing token's reach, checked here, in the writer's serialised step,
 * against the account stored now (the mount's check read it earlier): a token reaching the zone only through an
 * account must find it still there; an account written, when it changes, must be one the token may name; and such a
 * token may not leave the zone in no account (it would lose it, and the zone would fall to tokens that name it).
 */
function accountRefused(
  zone: string,
  previous: ZoneDocument | null,
  next: ZoneSettings,
  reach: AccountReach,
): AccountForbidden | null {
  const parsed = previous === null ? null : parseDocument(zone, previous);
  const stored = parsed?.ok === true ? zoneAccountId(parsed.value.settings) : null;
  const written = zoneAccountId(next);
  const may = (account: string): boolean => reach.accounts === "*" || reach.accounts.includes(account);
  if (!reach.namesZone && previous !== null && (stored === null || !may(stored)))
    return { kind: "account-forbidden", account: stored, why: "stored-not-yours" };
  if (written !== null && written !== stored && !may(written))
    return { kind: "account-forbidden", account: written, why: "not-yours" };
  if (written === null && !reach.namesZone)
    return { kind: "account-forbidden", account: null, why: "would-leave-reach" };
  return null;
}

/** The document with one section set (`null` removes it). */
function withSection(
  document: Readonly<Record<string, unknown>>,
  name: string,
  value: unknown,
): Record<string, unknown> {
  const next: Record<string, unknown> = { ...document };
  if (value === null) delete next[name];
  else next[name] = value;
  return next;
}
