/**
 * `GET /zones/{zone}/bundle` and `PUT /zones/{zone}/bundle` (docs/config-as-code.md): the zone's whole
 * configuration as one deterministic document with a strong `ETag`, the SHA-256 of its canonical bytes
 * (canonical.ts), and the write of one: checked whole, planned (plan.ts), then applied, or with `?plan=true` only
 * planned.
 *
 * Applying, in order: every section is checked first (the schema, then each section's own validator: prepare.ts),
 * and the zone document's sections are planned by applying them to the document as read, with the writer's own
 * function (edits.ts `applyZoneEdit`), storing nothing. Then the zone document's sections are written by the zone's
 * writer in one step, refused as a whole if the zone was written since it was read (`bundle-stale`); then the tags,
 * under the tags' own ETag; then the alert policies. What "atomic" means here is stated in the doc.
 */
import { readJsonBody } from "../kit/body";
import { apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import { editZone, zoneHandler, zoneTarget, type ZoneAnswer, type ZoneApiFailure } from "../kit/zone-section";
import { err, ok, type Result } from "../../shared/result";
import { randomId } from "../../shared/crypto";
import { parseWith } from "../../shared/schema";
import { applyZoneEdit, type SectionEdit } from "../../state/zone/edits";
import { etagOf } from "../../state/tags/etag";
import { canonical, type JsonValue } from "./canonical";
import { planBundle, type BundlePlan } from "./plan";
import { prepareBundle, type Prepared } from "./prepare";
import {
  alertBody,
  alertHolder,
  documentSections,
  partReader,
  readBundle,
  tagStore,
  zoneTagsRef,
  type CurrentBundle,
} from "./read";
import { ZONE_BUNDLE } from "./schema";

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

/** The plan, and the zone document's edits that change something (the others are left out of the write). */
interface Planned {
  readonly plan: BundlePlan;
  readonly edits: readonly SectionEdit[];
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
  if (prepared.sections.length > 0) {
    // The writer's own function over the document as read: what the write would store, stored nowhere.
    const version = current.document.version;
    const target = { zone, previous: current.document, version: version + 1, now: new Date(), newId: randomId };
    const rehearsed = applyZoneEdit(target, { kind: "bundle", version, sections: prepared.sections });
    if (!rehearsed.ok) return rehearsed;
    const read = await documentSections(zone, rehearsed.value.document, partReader(c.env, zone, rehearsed.value.parts));
    if (!read.ok) return read;
    sections = read.value;
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
  return ok({ plan, edits: prepared.sections.filter((edit) => changes(plan, edit)) });
}

/** After the zone document was written: the tags, then the alert policies; the first failure is answered. */
async function applyOtherStores(
  c: ApiContext,
  zone: string,
  current: CurrentBundle,
  prepared: Prepared,
  plan: BundlePlan,
): Promise<Result<void, ZoneApiFailure>> {
  const applied =
    plan.sections.settings || Object.keys(plan.sections).some((s) => s !== "tags" && s !== "alert_policies")
      ? ["the zone document's sections"]
      : [];
  if (plan.sections.tags !== undefined && prepared.tags !== undefined) {
    const settings = current.bundle.settings as { account?: { id?: string } };
    const account = settings.account?.id ?? null;
    if (account !== null) {
      const pairs = Object.entries(prepared.tags).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const put = await tagStore(c.env, account).putTags({
        ref: zoneTagsRef(zone),
        tags: pairs,
        etag: await etagOf(pairs),
        ifMatch: current.tagsEtag === null ? null : { kind: "tags", etags: [current.tagsEtag] },
        limit: c.settings.tagLimit,
        actor: c.principal.name,
      });
      if (!put.ok) return err({ kind: "bundle-partial", applied, failed: "tags", why: put.error.kind });
      applied.push("tags");
    }
  }
  const alerts = prepared.alerts;
  if (plan.sections.alert_policies !== undefined && alerts !== undefined) {
    const holder = alertHolder(c.env, zone);
    for (const change of plan.sections.alert_policies) {
      const id = change.id ?? "";
      const spec = alerts.get(id);
      const done =
        change.action === "delete"
          ? await holder.deleteAlert(id)
          : change.action === "update" && spec !== undefined
            ? (await holder.updateAlert(id, spec)) !== null
            : spec !== undefined && (await holder.createAlert(spec)).kind === "created";
      if (!done)
        return err({
          kind: "bundle-partial",
          applied,
          failed: `alert_policies.${id}`,
          why: `${change.action} refused`,
        });
    }
  }
  return ok(undefined);
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
  const plan = await planned(c, zone, current.value, prepared.value);
  if (!plan.ok) return plan;
  const onlyPlan = c.dryRun || c.url.searchParams.get("plan") === "true";
  if (onlyPlan || plan.value.plan.changes === 0)
    return ok(apiSuccess(plan.value.plan, { headers: { ETag: current.value.etag } }));
  if (plan.value.edits.length > 0) {
    const version = current.value.document.version;
    const written = await editZone(c, zone, { kind: "bundle", version, sections: plan.value.edits });
    if (!written.ok) return written;
  }
  const others = await applyOtherStores(c, zone, current.value, prepared.value, plan.value.plan);
  if (!others.ok) return others;
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
