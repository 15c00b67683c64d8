/**
 * `GET /zones/{zone}/bundle` and `PUT /zones/{zone}/bundle` (docs/config-as-code.md): the zone's whole
 * configuration as one deterministic document with a strong `ETag`, the SHA-256 of its canonical bytes
 * (canonical.ts), and the write of one: checked whole, planned (plan.ts), then applied, or with `?plan=true` only
 * planned.
 *
 * Applying, in order: every section is checked first (the schema, then each section's own validator: prepare.ts),
 * and the zone document's sections are planned by applying them to the document as read, with the writer's own
 * function (edits.ts `applyZoneEdit`), storing nothing; the tags and alert policies are checked by their stores.
 * Then the writes, all sections or none (apply.ts; what that means exactly is stated in the doc).
 */
import { readJsonBody } from "../kit/body";
import { apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import { zoneHandler, zoneTarget, type ZoneAnswer, type ZoneApiFailure } from "../kit/zone-section";
import { err, ok, type Result } from "../../shared/result";
import { alertChanges, applyBundle, checkStores, tagPairs, type BundleWrite } from "./apply";
import { randomId } from "../../shared/crypto";
import { parseWith } from "../../shared/schema";
import { applyZoneEdit, type SectionEdit } from "../../state/zone/edits";
import { canonical, type JsonValue } from "./canonical";
import { planBundle, type BundlePlan } from "./plan";
import { prepareBundle, type Prepared } from "./prepare";
import { alertBody, documentSections, partReader, readBundle, type CurrentBundle } from "./read";
import { ZONE_BUNDLE } from "./schema";
import { fetchZoneAsset, type FetchedAsset } from "../asset-fetch/asset-fetch";
import { parseDocument } from "../../state/zone/store";

async function getBundle(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const read = await readBundle(c, zone);
  if (!read.ok) return read;
  return ok(apiSuccess(read.value.bundle, { headers: { ETag: read.value.etag } }));
}

/** The entity tags of an `If-Match` value (RFC 9110 §13.1.1), `*` kept as itself. */
function ifMatchTags(header: string): string[] {
  return header
    .split(",")
    .map((tag) => tag.trim())
    .filter((tag) => tag !== "");
}

/** The plan, and what applying it writes (the zone document's edits that change something, the other stores'). */
interface Planned {
  readonly plan: BundlePlan;
  readonly write: BundleWrite;
}

/** Whether the plan changes the part of the zone document an edit writes. */
function changes(plan: BundlePlan, edit: SectionEdit): boolean {
  const [section = "", item] = edit.section.split(/\.(.*)/s);
  if (section === "rulesets") return plan.sections[edit.section] !== undefined;
  const listed = plan.sections[section];
  if (listed === undefined) return false;
  return item === undefined || listed.some((change) => change.name === item);
}

async function planned(
  c: ApiContext,
  zone: string,
  current: CurrentBundle,
  prepared: Prepared,
): Promise<Result<Planned, ZoneApiFailure>> {
  let sections: Record<string, unknown> = current.bundle;
  let parts: readonly string[] = [];
  if (prepared.sections.length > 0) {
    // The writer's own function over the document as read: what the write would store, stored nowhere.
    const version = current.document.version;
    const target = { zone, previous: current.document, version: version + 1, now: new Date(), newId: randomId };
    const rehearsed = applyZoneEdit(target, { kind: "bundle", version, sections: prepared.sections });
    if (!rehearsed.ok) return rehearsed;
    const read = await documentSections(zone, rehearsed.value.document, partReader(c.env, zone, rehearsed.value.parts));
    if (!read.ok) return read;
    sections = read.value;
    parts = rehearsed.value.parts.map((part) => part.name);
  }
  const alerts = prepared.alerts;
  const desired = canonical({
    ...sections,
    alert_policies: alerts
      ? Object.fromEntries([...alerts].map(([key, spec]) => [key, alertBody(spec)]))
      : current.bundle.alert_policies,
    tags: prepared.tags ?? current.bundle.tags,
  }) as { readonly [section: string]: JsonValue };
  const plan = planBundle(current.bundle, desired, prepared.minted);
  const account = (current.bundle.settings as { account?: { id?: string } }).account?.id;
  const tags =
    plan.sections.tags !== undefined && prepared.tags !== undefined && account !== undefined
      ? { account, pairs: tagPairs(prepared.tags) }
      : null;
  const edits = prepared.sections.filter((edit) => changes(plan, edit));
  return ok({
    plan,
    write: { zone, current, edits, parts: edits.length > 0 ? parts : [], tags, alerts: alertChanges(plan, alerts) },
  });
}

/**
 * The assets a bundle creates or changes, fetched through the zone's origin as the zone is read (before the
 * bundle's own settings), each into its edit; a fetch refused names the asset's section.
 */
async function fetchAssets(
  c: ApiContext,
  zone: string,
  current: CurrentBundle,
  prepared: Prepared,
): Promise<Result<Prepared, ZoneApiFailure>> {
  if (prepared.fetches.length === 0) return ok(prepared);
  const read = parseDocument(zone, current.document);
  if (!read.ok) return read;
  const scope = { zone, apiHosts: c.settings.apiHosts };
  const fetched = new Map<string, FetchedAsset>();
  for (const { section, url } of prepared.fetches) {
    const asset = await fetchZoneAsset(c.env, read.value, url, scope);
    if (!asset.ok) return err({ kind: "bundle-section", section, failure: asset.error });
    fetched.set(section, asset.value);
  }
  const sections = prepared.sections.map((section): SectionEdit => {
    const asset = fetched.get(section.section);
    const { edit } = section;
    if (asset === undefined || (edit.kind !== "create-asset" && edit.kind !== "update-asset")) return section;
    return { ...section, edit: { ...edit, asset: { ...edit.asset, size_bytes: asset.bytes }, html: asset.html } };
  });
  return ok({ ...prepared, sections });
}

async function putBundle(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const body = await readJsonBody(c.request);
  if (!body.ok) return err({ kind: "body", failure: body.error });
  const parsed = parseWith(ZONE_BUNDLE, body.value, { root: "body" });
  if (!parsed.ok) return err({ kind: "invalid-bundle", issues: parsed.error });
  const current = await readBundle(c, zone);
  if (!current.ok) return current;
  const ifMatch = c.request.headers.get("If-Match");
  if (ifMatch !== null) {
    const tags = ifMatchTags(ifMatch);
    if (!tags.includes("*") && !tags.includes(current.value.etag))
      return err({ kind: "bundle-precondition", given: ifMatch.slice(0, 100), current: current.value.etag });
  }
  const prepared = prepareBundle(c, zone, body.value as Readonly<Record<string, unknown>>, current.value, randomId);
  if (!prepared.ok) return err({ kind: "invalid-bundle", issues: prepared.error });
  const withAssets = await fetchAssets(c, zone, current.value, prepared.value);
  if (!withAssets.ok) return withAssets;
  const plan = await planned(c, zone, current.value, withAssets.value);
  if (!plan.ok) return plan;
  // The other stores check their part before anything is written, a plan included: a plan that applies cleanly.
  const checked = await checkStores(c, plan.value.write);
  if (!checked.ok) return checked;
  const onlyPlan = c.dryRun || c.url.searchParams.get("plan") === "true";
  if (onlyPlan || plan.value.plan.changes === 0)
    return ok(apiSuccess(plan.value.plan, { headers: { ETag: current.value.etag } }));
  const applied = await applyBundle(c, plan.value.write);
  if (!applied.ok) return applied;
  const after = await readBundle(c, zone);
  if (!after.ok) return after;
  return ok(apiSuccess(plan.value.plan, { headers: { ETag: after.value.etag } }));
}

const PATH = "/zones/:zone/bundle";

export const bundleRoutes: readonly ApiRoute[] = [
  { method: "GET", path: PATH, permission: "zones:read", target: zoneTarget, handle: zoneHandler(getBundle) },
  {
    method: "PUT",
    path: PATH,
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(putBundle),
    dryRun: true,
  },
];
