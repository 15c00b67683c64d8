/**
 * Custom error assets (docs/configuration.md `/zones/{zone}/custom_pages/assets[/{name}]`; the published custom error documentation, https://developers.cloudflare.com/rules/custom-errors/;
 * docs/custom-errors.md "Custom error assets"): an HTML page fetched once from a URL of the zone, its stylesheets
 * and images inlined, stored and served by custom error rules that name it (`serve_error` with `asset_name`).
 *
 * Where it lives: the inlined HTML is a part of its own (`zone:{zone}:asset:{name}`), written to KV before the
 * document section `custom_assets` (name → metadata) that references it, in one serialised step of the zone's writer.
 *
 * Pure: names, bodies, URL scope and the references rules make; no bindings (the fetch is src/api/custom-pages/).
 */
import * as z from "zod/mini";
import { normaliseHostname } from "../../../shared/host";
import { err, ok, type Result } from "../../../shared/result";
import { described, fields, later, named, parseWith, text } from "../../../shared/schema";
import { IssueList, isObject, oneIssue, type IssueKind, type Issues } from "../../../shared/validation";
import type { Plan, PlanForbids, ZoneDocument } from "../schema";
import type { StoredRule } from "../rulesets/validate";
import { ASSET_NAME, ASSET_NAME_LENGTH, assetNameProblem } from "./asset-name";

/** The published limits (the published custom error documentation, https://developers.cloudflare.com/rules/custom-errors/): name `[A-Za-z0-9_]`, ≤ 200, immutable; assets per plan. */
export const ASSET_LIMITS = {
  nameLength: ASSET_NAME_LENGTH,
  /** The published "≤ 1.5 MB": UTF-8 bytes of the final, inlined HTML, its value tokens at their longest. */
  bytes: 1_500_000,
  descriptionLength: 500,
  urlLength: 2048,
  /** Stylesheets and images one asset may inline (distinct URLs): bounds the fetches one API call makes. */
  resources: 64,
  perPlan: { free: 0, pro: 25, business: 50, enterprise: 300 } satisfies Readonly<Record<Plan, number>>,
} as const;

/** What the zone document records of an asset (the published shape of the API's `result`). */
export interface AssetMeta {
  readonly name: string;
  readonly description: string;
  readonly url: string;
  readonly last_updated: string;
  readonly size_bytes: number;
}

/** The document section holding every asset's metadata, by name. */
export const ASSETS_SECTION = "custom_assets";
export const assetPart = (name: string): string => `asset:${name}`;
/** The KV key of an asset's inlined HTML (a part under the zone's prefix, deleted with the zone). */
export const assetKey = (zone: string, name: string): string => `zone:${zone}:${assetPart(name)}`;

export function storedAssets(document: ZoneDocument): Readonly<Record<string, AssetMeta>> {
  const section = document[ASSETS_SECTION];
  return isObject(section) ? (section as Readonly<Record<string, AssetMeta>>) : {};
}

/** Every way an asset write or lookup is refused, as values (mapped to HTTP in src/api/kit/zone-section.ts). */
export type AssetFailure =
  | PlanForbids
  | { readonly kind: "invalid-asset"; readonly issues: Issues }
  | { readonly kind: "unknown-asset"; readonly name: string }
  | { readonly kind: "asset-exists"; readonly name: string }
  | { readonly kind: "asset-limit"; readonly plan: Plan; readonly limit: number }
  | { readonly kind: "asset-in-use"; readonly name: string; readonly rules: readonly AssetUser[] }
  /** The URL could not be made into an asset: the origin failed, answered a redirect, or a resource did. */
  | { readonly kind: "asset-fetch-failed"; readonly url: string; readonly reason: string }
  | { readonly kind: "asset-too-large"; readonly bytes: number; readonly limit: number; readonly what: string };

/** A custom error rule naming an asset: its position and id (for the in-use refusal). */
export interface AssetUser {
  readonly index: number;
  readonly id: string;
  readonly description: string;
}

const invalid = (kind: IssueKind, path: string, message: string): Result<never, AssetFailure> =>
  err({ kind: "invalid-asset", issues: oneIssue(kind, path, message) });

/** A name as the path or a body gives it. */
export function checkAssetName(name: unknown, path = "name"): Result<string, AssetFailure> {
  const problem = assetNameProblem(name);
  if (problem !== null) return invalid(problem.kind, path, problem.message);
  return typeof name === "string" ? ok(name) : invalid("wrong-type", path, "must be a string");
}

/** A validated create (`POST`, with `name`) or update (`PUT`, the name from the path) body. */
export interface AssetBody {
  readonly name: string;
  readonly description: string;
  readonly url: AssetUrl;
}

const NOT_AN_ASSET_FIELD = "is not a custom asset field";
const NOT_AN_OBJECT = "must be a JSON object {name, description, url}";
const URL_LENGTH = `must be 1 to ${ASSET_LIMITS.urlLength} characters`;

/** The published API marks `description` required; here it may be left out (`""`), so a client that sends it works. */
const description = () =>
  z._default(
    text(
      { max: ASSET_LIMITS.descriptionLength },
      `must be a string of at most ${ASSET_LIMITS.descriptionLength} characters`,
    ),
    "",
  );
/** The URL's shape; its scope (the zone's host, never an API host) is checked after the parse (`parseAssetUrl`). */
const urlText = () =>
  described(
    z
      .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a URL string") })
      .check(z.minLength(1, { error: URL_LENGTH }), z.maxLength(ASSET_LIMITS.urlLength, { error: URL_LENGTH })),
    "An http(s) URL on the zone's host or one of its subdomains",
  );

export const ASSET_CREATE = later(() =>
  named(
    fields(
      {
        name: ASSET_NAME,
        description: description(),
        url: urlText(),
      },
      NOT_AN_ASSET_FIELD,
      NOT_AN_OBJECT,
    ),
    {
      id: "CustomAssetCreate",
      example: {
        name: "maintenance_page",
        description: "Shown while the origin is down",
        url: "https://shop.example/errors/maintenance.html",
      },
    },
  ),
);

export const ASSET_UPDATE = later(() =>
  named(
    fields(
      {
        name: z.optional(described(z.string(), "Optional; must equal the path's name (names are immutable)")),
        description: description(),
        url: urlText(),
      },
      NOT_AN_ASSET_FIELD,
      NOT_AN_OBJECT,
    ),
    {
      id: "CustomAssetUpdate",
      example: { description: "Shown while the origin is down", url: "https://shop.example/errors/maintenance.html" },
    },
  ),
);

/**
 * `{name, description?, url}` (create) or `{description?, url}` (update; a `name` equal to the path's is allowed,
 * another is refused: names are immutable).
 */
export function parseAssetBody(
  body: unknown,
  scope: AssetScope,
  pathName: string | null,
): Result<AssetBody, AssetFailure> {
  const parsed = parseWith(pathName === null ? ASSET_CREATE() : ASSET_UPDATE(), body, { root: "body" });
  if (!parsed.ok) return err({ kind: "invalid-asset", issues: parsed.error });
  const given = parsed.value;
  if (pathName !== null && given.name !== undefined && given.name !== pathName)
    return invalid("not-allowed", "name", `must be ${JSON.stringify(pathName)} (an asset's name cannot change)`);
  const url = parseAssetUrl(given.url, scope);
  if (!url.ok) return invalid("invalid", "url", url.error);
  return ok({ name: given.name ?? pathName ?? "", description: given.description, url: url.value });
}

/** What an asset URL may point at: the zone's host and its subdomains, never a host of API_HOSTS. */
export interface AssetScope {
  readonly zone: string;
  readonly apiHosts: ReadonlySet<string>;
}

/** An asset (or linked resource) URL inside the zone's scope: what is stored, and what the origin is asked for. */
export interface AssetUrl {
  /** The URL as stored and shown (normalised by the URL parser, without a fragment). */
  readonly href: string;
  /** The host the URL names (lower-case): sent to the origin as `X-Forwarded-Host`, as the proxy does. */
  readonly host: string;
  /** The path and query the zone's origin is asked for. */
  readonly path: string;
}

/**
 * Same scope only (published: "A custom error rule can only reference an asset defined in the same scope"): the URL
 * is `http(s)`, without credentials, names the zone's host or one of its subdomains (a zone here is one hostname;
 * on the published platform a zone covers its subdomains), and never a host of API_HOSTS (on any port, as origins,
 * docs/origin.md). Only its path and query are used: they are fetched from the zone's own origin (docs/custom-errors.md).
 * `base` resolves a resource's relative reference against the page or stylesheet that names it.
 */
export function parseAssetUrl(raw: unknown, scope: AssetScope, base?: string): Result<AssetUrl, string> {
  if (typeof raw !== "string") return err("must be a URL string");
  if (raw.length === 0 || raw.length > ASSET_LIMITS.urlLength)
    return err(`must be 1 to ${ASSET_LIMITS.urlLength} characters`);
  if (!URL.canParse(raw, base)) return err(`${JSON.stringify(raw)} is not a valid URL`);
  const url = new URL(raw, base);
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return err(`must be an http or https URL, not ${url.protocol.slice(0, -1)}:`);
  if (url.username !== "" || url.password !== "") return err("must not contain credentials (user:password@)");
  const host = normaliseHostname(url.hostname);
  if (scope.apiHosts.has(host)) return err(`must not point at ${host}, a host of the management API (API_HOSTS)`);
  if (host !== scope.zone && !host.endsWith(`.${scope.zone}`))
    return err(`must be on the zone's host ${scope.zone} or one of its subdomains, not ${host} (same scope only)`);
  url.hash = "";
  return ok({ href: url.href, host, path: url.pathname + url.search });
}

/** Whether the zone's plan can hold one more asset (Free 0, Pro 25, Business 50, Enterprise 300). */
export function planAllowsAnother(plan: Plan, count: number): Result<void, AssetFailure> {
  const limit = ASSET_LIMITS.perPlan[plan];
  if (limit === 0)
    return err({ kind: "plan-forbids", plan, feature: "custom error assets", reason: "they need a paid plan" });
  if (count >= limit) return err({ kind: "asset-limit", plan, limit });
  return ok(undefined);
}

/**
 * Plan, count and existence against the zone as it is: a create needs a free name and room on the plan, an update an
 * existing asset. The zone's writer checks it inside its serialised step (src/state/zone/edits.ts); the API checks it
 * before fetching too, so a write that cannot land fetches nothing.
 */
export function assetWriteAllowed(
  document: ZoneDocument,
  plan: Plan,
  name: string,
  create: boolean,
): Result<void, AssetFailure> {
  const assets = storedAssets(document);
  const exists = Object.hasOwn(assets, name);
  if (create) {
    const room = planAllowsAnother(plan, Object.keys(assets).length);
    if (!room.ok) return room;
    if (exists) return err({ kind: "asset-exists", name });
    return ok(undefined);
  }
  // An update adds nothing, but a free zone refuses every write of the feature, as it refuses pages.
  const paid = planAllowsAnother(plan, 0);
  if (!paid.ok) return paid;
  return exists ? ok(undefined) : err({ kind: "unknown-asset", name });
}

/** The `asset_name` a stored custom error rule serves, if it serves an asset. */
export function assetNameOf(rule: Pick<StoredRule, "action_parameters">): string | undefined {
  const parameters: unknown = rule.action_parameters;
  return isObject(parameters) && typeof parameters.asset_name === "string" ? parameters.asset_name : undefined;
}

/** The custom error rules (enabled or not: both reference it) that serve the asset `name`. */
export function assetUsers(rules: readonly StoredRule[], name: string): AssetUser[] {
  const users: AssetUser[] = [];
  for (const [index, rule] of rules.entries()) {
    if (assetNameOf(rule) === name) users.push({ index, id: rule.id, description: rule.description });
  }
  return users;
}

/**
 * The rules of a custom error ruleset about to be written that name an asset the zone does not have: `[index,
 * name]` pairs. The asset must exist when the rule is written (docs/custom-errors.md), in the same document version
 * the write is based on, so a concurrent delete cannot slip between the check and the write.
 */
export function missingAssets(
  rules: readonly Pick<StoredRule, "action_parameters">[],
  document: ZoneDocument,
): [number, string][] {
  const assets = storedAssets(document);
  const missing: [number, string][] = [];
  for (const [index, rule] of rules.entries()) {
    const name = assetNameOf(rule);
    if (name !== undefined && !Object.hasOwn(assets, name)) missing.push([index, name]);
  }
  return missing;
}

/** `missingAssets` as the rulesets API's failure (400, 20021): one issue per rule naming an asset that is not there. */
export function missingAssetIssues(
  rules: readonly Pick<StoredRule, "action_parameters">[],
  document: ZoneDocument,
): { readonly kind: "invalid-ruleset"; readonly issues: Issues } | null {
  const missing = missingAssets(rules, document);
  if (missing.length === 0) return null;
  const issues = new IssueList();
  for (const [index, name] of missing)
    issues.add(
      "invalid",
      `rules[${index}].action_parameters.asset_name`,
      `names no custom error asset of this zone (${JSON.stringify(name)}); create it first with ` +
        "POST /zones/{zone}/custom_pages/assets",
    );
  return { kind: "invalid-ruleset", issues: issues.issues };
}
