/**
 * Writing a planned bundle, all sections or none (docs/config-as-code.md "What atomic means"). A bundle's sections
 * live in three stores, none of which can join another's transaction, so:
 *
 * 1. every store checks its part first, writing nothing (`checkStores`): the tags with every check of a tags write
 *    (If-Match as read, the account's limit and enforced policy), the alert policies as a whole change set against
 *    the policies as read; the zone document's sections were already applied to the document as read (plan);
 * 2. then the writes, each all or nothing in its own store and each conditional on what was read: the tags (If-Match),
 *    the zone document (the version read), the alert policies (the policies read: ids and write times);
 * 3. a write refused (only a change made by someone else between the check and the write can refuse it) puts back
 *    the ones made before it: the zone document as it was (an edit of its own, conditional on the version the bundle
 *    wrote) and the tags as they were (If-Match: the tags the bundle wrote). Only when that put-back is itself
 *    refused (the zone or its tags written yet again meanwhile) is the answer a partial one.
 *
 * The alert policies are written last because a deleted policy cannot be put back (its id and signing secret are
 * gone); their own change set is one transaction.
 */
import { err, ok, type Result } from "../../shared/result";
import { IssueList } from "../../shared/validation";
import type { ApiContext } from "../kit/types";
import { editZone, type ZoneApiFailure } from "../kit/zone-section";
import type { SectionEdit, ZonePart } from "../../state/zone/edits";
import { zonePartsPrefix } from "../../state/zone/store";
import type { AlertChange, AlertsApplied } from "../../state/analytics/alerting";
import type { AlertSpec } from "../../state/analytics/alerts";
import { etagOf } from "../../state/tags/etag";
import type { WriteFailure } from "../../state/tags/errors";
import type { TagPairs } from "../../state/tags/types";
import type { BundlePlan } from "./plan";
import { alertHolder, tagStore, zoneTagsRef, type CurrentBundle } from "./read";

/** Everything a planned bundle writes. */
export interface BundleWrite {
  readonly zone: string;
  readonly current: CurrentBundle;
  /** The zone document's sections that change, and the names of the parts their write stores. */
  readonly edits: readonly SectionEdit[];
  readonly parts: readonly string[];
  /** The zone's tags as the bundle sets them, in its account's store (`null`: unchanged). */
  readonly tags: { readonly account: string; readonly pairs: TagPairs } | null;
  readonly alerts: readonly AlertChange[];
}

const byKey = ([a]: readonly [string, string], [b]: readonly [string, string]): number => (a < b ? -1 : a > b ? 1 : 0);

/** A tag map as the TagStore keeps it: pairs sorted by key. */
export function tagPairs(tags: Readonly<Record<string, string>>): TagPairs {
  return Object.entries(tags).sort(byKey);
}

/** The alert policies' changes of a plan, with the specs the bundle gives (by its keys). */
export function alertChanges(plan: BundlePlan, specs: ReadonlyMap<string, AlertSpec> | undefined): AlertChange[] {
  const changes: AlertChange[] = [];
  for (const change of plan.sections.alert_policies ?? []) {
    const id = change.id ?? "";
    const spec = specs?.get(id);
    if (change.action === "delete") changes.push({ kind: "delete", id });
    else if (spec === undefined) continue;
    else changes.push(change.action === "update" ? { kind: "update", id, spec } : { kind: "create", spec });
  }
  return changes;
}

const seen = (current: CurrentBundle) => current.alerts.map((a) => ({ id: a.id, updatedAt: a.updatedAt }));

/** A tags write refused: by a change since the read (conflict), or by the account's limit or policy (the bundle's). */
function tagsRefused(failure: WriteFailure): ZoneApiFailure {
  if (failure.kind === "precondition-failed")
    return { kind: "bundle-conflict", section: "tags", why: "their ETag is not the one read" };
  const issues = new IssueList<string>();
  const policy = 'by the account\'s tag policy (enforced; docs/tags-api.md "Policies")';
  switch (failure.kind) {
    case "limit-reached":
      issues.add("out-of-range", "tags", `would take the account past its limit of ${failure.limit} tags (TAG_LIMIT)`);
      break;
    case "key-not-allowed":
      issues.add("not-allowed", `tags.${failure.key}`, `is not a key allowed ${policy}`);
      break;
    case "value-not-allowed":
      issues.add(
        "not-allowed",
        `tags.${failure.key}`,
        `${JSON.stringify(failure.value)} is not a value allowed ${policy}`,
      );
      break;
    case "required-key-missing":
      issues.add("missing", `tags.${failure.key}`, `is required ${policy}`);
      break;
    case "key-case":
      issues.add("not-allowed", `tags.${failure.key}`, `must be ${failure.case} case ${policy}`);
      break;
  }
  return { kind: "invalid-bundle", issues: issues.issues };
}

function alertsRefused(applied: Exclude<AlertsApplied, { kind: "applied" }>): ZoneApiFailure {
  if (applied.kind === "changed")
    return { kind: "bundle-conflict", section: "alert policies", why: "one was written, added or deleted" };
  const issues = new IssueList<string>();
  issues.add("out-of-range", "alert_policies", `at most ${applied.limit} alert policies per zone`);
  return { kind: "invalid-bundle", issues: issues.issues };
}

async function putTags(
  c: ApiContext,
  write: BundleWrite,
  pairs: TagPairs,
  ifMatch: string | null,
  dryRun: boolean,
): Promise<Result<string, WriteFailure>> {
  const account = write.tags?.account ?? "";
  const put = await tagStore(c.env, account).putTags({
    ref: zoneTagsRef(write.zone),
    tags: pairs,
    etag: await etagOf(pairs),
    ifMatch: ifMatch === null ? null : { kind: "tags", etags: [ifMatch] },
    limit: c.settings.tagLimit,
    actor: c.principal.name,
    dryRun,
  });
  return put.ok ? ok(put.value.etag) : put;
}

/** Step 1: the tags and the alert policies checked by their stores as they are now; nothing is written. */
export async function checkStores(c: ApiContext, write: BundleWrite): Promise<Result<void, ZoneApiFailure>> {
  if (write.tags !== null) {
    const checked = await putTags(c, write, write.tags.pairs, write.current.tagsEtag, true);
    if (!checked.ok) return err(tagsRefused(checked.error));
  }
  if (write.alerts.length > 0) {
    const checked = await alertHolder(c.env, write.zone).applyAlerts(seen(write.current), write.alerts, true);
    if (checked.kind !== "applied") return err(alertsRefused(checked));
  }
  return ok(undefined);
}

/** The content each part has now (`null`: none), so the zone document can be put back with its parts. */
async function partsNow(env: Env, zone: string, names: readonly string[]): Promise<ZonePart[]> {
  return Promise.all(
    names.map(async (name) => ({ name, content: await env.CONFIG.get(`${zonePartsPrefix(zone)}${name}`) })),
  );
}

/** Steps 2 and 3: the writes in order; the first refused puts back those before it and is answered. */
export async function applyBundle(c: ApiContext, write: BundleWrite): Promise<Result<void, ZoneApiFailure>> {
  const { zone, current } = write;
  const parts = await partsNow(c.env, zone, write.parts);
  let tagsWritten: string | null = null;
  let documentWritten: number | null = null;

  /** Puts back what was written before `failure`; the failure itself when all of it was, else a partial answer. */
  const undo = async (failure: ZoneApiFailure, failed: string): Promise<Result<never, ZoneApiFailure>> => {
    const stuck: string[] = [];
    if (documentWritten !== null) {
      const back = await editZone(c, zone, {
        kind: "restore",
        version: documentWritten,
        document: current.document,
        parts,
      });
      if (!back.ok) stuck.push("the zone document's sections");
    }
    if (tagsWritten !== null) {
      const previous = tagPairs((current.bundle.tags ?? {}) as Record<string, string>);
      const back = await putTags(c, write, previous, tagsWritten, false);
      if (!back.ok) stuck.push("tags");
    }
    if (stuck.length === 0) return err(failure);
    const why = failure.kind === "bundle-conflict" ? failure.why : failure.kind;
    return err({ kind: "bundle-partial", applied: stuck, failed, why });
  };

  if (write.tags !== null) {
    const put = await putTags(c, write, write.tags.pairs, current.tagsEtag, false);
    if (!put.ok) return err(tagsRefused(put.error));
    tagsWritten = put.value;
  }
  if (write.edits.length > 0) {
    const version = current.document.version;
    const written = await editZone(c, zone, { kind: "bundle", version, sections: write.edits });
    if (!written.ok) return undo(written.error, "the zone document's sections");
    documentWritten = written.value.document.version;
  }
  if (write.alerts.length > 0) {
    const applied = await alertHolder(c.env, zone).applyAlerts(seen(current), write.alerts, false);
    if (applied.kind !== "applied") return undo(alertsRefused(applied), "alert_policies");
  }
  return ok(undefined);
}
