/**
 * Zone configuration API: `PUT/GET/PATCH/DELETE /zones/{zone}` (docs/configuration.md), in the v4 envelope, behind `zones:read` /
 * `zones:write` scoped by zone (docs/configuration.md). The root (src/api/kit/mount.ts) has already authenticated and authorised;
 * here, cheapest first and nothing stored until everything passed: zone name (400) → body size (413) and JSON (400)
 * → settings (400) → the edit `settings` (PATCH: `patch-settings`, validated by the writer on the merged settings), applied by the zone's writer of record (writer.ts), which serialises
 * writes of one zone. `?dry_run=true` applies it to the document as read and stores nothing (kit/dry-run.ts).
 * DELETE also empties the zone's analytics object.
 */
import { zoneInScope } from "../kit/auth";
import { wipeZone } from "../../state/analytics/fan-out";
import { DEFAULT_PLAN, storedShardPlan, type ShardPlan } from "../../state/analytics/shards";
import { readJsonBody } from "../kit/body";
import { apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import {
  editZone,
  readZone,
  withWriter,
  zoneHandler,
  zoneTarget,
  type ZoneAnswer,
  type ZoneApiFailure,
} from "../kit/zone-section";
import { parseOriginUrl, pointsAtApi } from "../../shared/origin-url";
import { oneIssue } from "../../shared/validation";
import { parseWith } from "../../shared/schema";
import { causeOf, err, ok, type Result } from "../../shared/result";
import { remember } from "../../state/zone/cache";
import { parseZoneSettings, ZONE_PATCH, zoneAccountId, type Zone } from "../../state/zone/schema";
import { parseDocument } from "../../state/zone/store";
import type { AccountReach } from "../../state/zone/edits";
import { zoneListRoutes } from "./list";

/** The zone as the API shows it: the settings as written, plus the document's version. */
function present(zone: Zone): Record<string, unknown> {
  return { zone: zone.zone, ...zone.settings, version: zone.version, modified_on: zone.modifiedOn };
}

async function getZone(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const current = await readZone(c.env, zone);
  return current.ok ? ok(apiSuccess(present(current.value.zone))) : current;
}

async function putZone(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const body = await readJsonBody(c.request);
  if (!body.ok) return err({ kind: "body", failure: body.error });
  const parsed = parseZoneSettings(body.value);
  if (!parsed.ok) return err({ kind: "invalid-settings", issues: parsed.error });
  if (pointsAtApi(parsed.value.target, c.settings.apiHosts)) return err(originIsApi());
  if (fallbackIsApi(c, parsed.value.settings.fallback_origin)) return err(originIsApi("fallback_origin"));
  // Settings replace settings whatever was stored (the sections are kept); a larger header limit is checked
  // against the stored request-phase rules by the edit (rulesets/worst-case.ts).
  const written = await editZone(c, zone, {
    kind: "settings",
    settings: parsed.value.settings,
    reach: reachOf(c, zone),
  });
  if (!written.ok) return written;
  const stored = parseDocument(zone, written.value.document);
  return stored.ok ? ok(apiSuccess(present(stored.value))) : stored;
}

/**
 * `PATCH /zones/{zone}` (docs/configuration.md "Editing a zone"): the fields given replace the stored ones (`null`
 * resets one to its default) and the result is validated by the very validator of `PUT` (`parseZoneSettings`), in
 * the writer's serialised step on the settings as stored then, so every zone setting, present or added later, is
 * patchable and checked alike. The patch itself is parsed first with `ZONE_PATCH` (every field of `ZONE_SETTINGS`,
 * each nullable: types, bounds and unknown keys refused before the writer is asked), and an origin it names must be
 * no API host (an origin it does not name was checked when written).
 */
async function patchZone(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const body = await readJsonBody(c.request);
  if (!body.ok) return err({ kind: "body", failure: body.error });
  const patch = parseWith(ZONE_PATCH, body.value, { root: "body" });
  if (!patch.ok) return err({ kind: "invalid-settings", issues: patch.error });
  const origin = patch.value.origin;
  const target = typeof origin === "string" ? parseOriginUrl(origin) : null;
  if (target?.ok === true && pointsAtApi(target.value, c.settings.apiHosts)) return err(originIsApi());
  if (fallbackIsApi(c, patch.value.fallback_origin)) return err(originIsApi("fallback_origin"));
  const written = await editZone(c, zone, { kind: "patch-settings", patch: patch.value, reach: reachOf(c, zone) });
  if (!written.ok) return written;
  const stored = parseDocument(zone, written.value.document);
  return stored.ok ? ok(apiSuccess(present(stored.value))) : stored;
}

function originIsApi(field: "origin" | "fallback_origin" = "origin"): ZoneApiFailure {
  const message = "must not be a host of API_HOSTS, on any port (docs/origin.md)";
  return { kind: "invalid-settings", issues: oneIssue("not-allowed", field, message) };
}

/** A fallback origin is an origin like the first (docs/fewer-errors.md "Fail over"): never an API host. */
function fallbackIsApi(c: ApiContext, fallback: unknown): boolean {
  const target = typeof fallback === "string" ? parseOriginUrl(fallback) : null;
  return target?.ok === true && pointsAtApi(target.value, c.settings.apiHosts);
}

/** The writing token's reach, for the writer to check the account stored and written against (edits.ts). */
function reachOf(c: ApiContext, zone: string): AccountReach {
  const { accounts } = c.principal;
  return { accounts: accounts === "*" ? "*" : [...accounts], namesZone: zoneInScope(c.principal, zone, null) };
}

async function removeZone(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  if (c.dryRun) {
    // A rehearsed delete answers as the delete would (404 for a zone not configured) and removes nothing.
    const current = await readZone(c.env, zone);
    return current.ok ? ok(apiSuccess(null)) : current;
  }
  // The shard counts in force are read before the document goes: every shard of them is wiped below.
  const before = await withWriter(c.env, zone, (w) => w.read(zone));
  const plan = before.ok && before.value !== null ? storedShardPlan(before.value) : ok(DEFAULT_PLAN);
  // The zone's account, read before the document goes: its tags go with it (docs/tags-api.md "Zone tags").
  const current = await readZone(c.env, zone);
  const account = current.ok ? zoneAccountId(current.value.zone.settings) : null;
  const deleted = await withWriter(c.env, zone, (w) => w.remove(zone));
  if (!deleted.ok) return deleted;
  remember(zone, null);
  if (account !== null && deleted.value) {
    try {
      await c.env.TAG_STORE.get(c.env.TAG_STORE.idFromName(account)).forgetZone({ zone, actor: c.principal.name });
    } catch (e) {
      return err({ kind: "unavailable", cause: `TAG_STORE forgetZone failed: ${causeOf(e)}` });
    }
  }
  // Everything else the zone owned goes with it (docs/configuration.md "Deleting a zone"): its error records now.
  // Its rate-limit counters cannot be listed; they are named by the zone's incarnation, which a zone created again
  // under the name never shares, and expire on their own. The records are wiped on every DELETE, of a zone not
  // configured too: a DELETE retried after the wipe failed (500, the document already gone) completes it.
  const wiped = await wipeAnalytics(c.env, zone, plan.ok ? plan.value : DEFAULT_PLAN);
  if (!wiped.ok) return wiped;
  return deleted.value ? ok(apiSuccess({ id: zone })) : err({ kind: "not-found" });
}

/** Every ZoneAnalytics shard of the zone emptied (src/state/analytics/fan-out.ts `wipeZone`); a failure is a value. */
async function wipeAnalytics(env: Env, zone: string, plan: ShardPlan): Promise<Result<null, ZoneApiFailure>> {
  try {
    await wipeZone(env.ZONE_ANALYTICS, zone, plan);
    return ok(null);
  } catch (e) {
    return err({ kind: "unavailable", cause: `ZONE_ANALYTICS wipe failed: ${causeOf(e)}` });
  }
}

export const zoneRoutes: readonly ApiRoute[] = [
  ...zoneListRoutes,
  { method: "GET", path: "/zones/:zone", permission: "zones:read", target: zoneTarget, handle: zoneHandler(getZone) },
  {
    method: "PUT",
    path: "/zones/:zone",
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(putZone),
    dryRun: true,
    createsZone: true,
  },
  {
    method: "PATCH",
    path: "/zones/:zone",
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(patchZone),
    dryRun: true,
  },
  {
    method: "DELETE",
    path: "/zones/:zone",
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(removeZone),
    dryRun: true,
  },
];
