/**
 * The Rulesets API for zone rulesets (docs/configuration.md; docs/rulesets-api.md), shaped as published so the official
 * client (`cloudflare` npm package: `rulesets.*`, `rulesets.rules.*`, `rulesets.versions.*`,
 * `rulesets.phases.*`) drives every call:
 *
 *   GET/PUT  /zones/{zone}/rulesets/phases/{phase}/entrypoint[/versions[/{version}]]
 *   GET/POST /zones/{zone}/rulesets             GET/PUT/DELETE /zones/{zone}/rulesets/{id}
 *   POST     /zones/{zone}/rulesets/{id}/rules  PATCH/DELETE   /zones/{zone}/rulesets/{id}/rules/{rule}
 *   GET      /zones/{zone}/rulesets/{id}/versions[/{version}]  DELETE …/versions/{version}
 *
 * A zone has at most one ruleset per phase, its entry point (kind `zone`); the entrypoint and the id address the
 * same ruleset, with the same ids. Every write is one edit (state/zone/rulesets/edits.ts) applied by the zone's
 * writer of record inside its serialised step, which also records the version it makes: no write is prepared
 * from a stale ruleset, none is lost under concurrency, a refused one stores nothing. `?dry_run=true` applies the
 * same edit to the document as read and stores nothing (no version either).
 */
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
import { err, ok, type Result } from "../../shared/result";
import { findRuleset, type RulesetEdit, type RulesetEdited } from "../../state/zone/rulesets/edits";
import { isPhase, PHASES, type Phase } from "../../state/zone/rulesets/phases";
import { storedRuleset } from "../../state/zone/rulesets/stored";
import { presentRuleset, RULESET_SUMMARY, type StoredRuleset } from "../../state/zone/rulesets/validate";
import type { Answer } from "../../shared/schema";
import type { VersionSummary } from "../../state/zone/rulesets/versions";
import type { ZoneDocument } from "../../state/zone/schema";
import { lintMessages } from "../kit/lint-messages";

/**
 * Applies one edit: through the zone's writer (serialised, versioned), or on a dry run to the document as read,
 * with the same validation and nothing stored (kit/zone-section.ts `editZone`).
 */
async function edit(
  c: ApiContext,
  zone: string,
  change: RulesetEdit,
): Promise<Result<RulesetEdited & { readonly document: ZoneDocument }, ZoneApiFailure>> {
  const written = await editZone(c, zone, { kind: "ruleset", edit: change });
  if (!written.ok) return written;
  // A rulesets API edit always leaves what it edited (src/state/zone/edits.ts).
  const { ruleset, document } = written.value;
  return ruleset ? ok({ ...ruleset, document }) : err({ kind: "not-found" });
}

/**
 * A write answered with the ruleset after it (rules included), as published, and the rule linter's warnings about
 * the zone as the write leaves it in `messages` (docs/lint.md; a dry run keeps them, kit/dry-run.ts).
 */
async function answerRuleset(c: ApiContext, zone: string, change: RulesetEdit): Promise<ZoneAnswer> {
  const edited = await edit(c, zone, change);
  if (!edited.ok) return edited;
  const messages = await lintMessages(c.env, zone, edited.value.document);
  return ok(apiSuccess(presentRuleset(zone, edited.value.phase, edited.value.ruleset), { messages }));
}

/** 204 carries no body (RFC 9110 §15.3.5), hence no envelope, as the published deletes answer. */
const noContent = (): Response => new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } });

/** A ruleset without its rules: the list items and version summaries of the published API. */
function summary(zone: string, phase: Phase, ruleset: StoredRuleset | VersionSummary): Answer<typeof RULESET_SUMMARY> {
  return {
    id: ruleset.id,
    name: ruleset.name ?? `${zone} ${phase}`,
    description: ruleset.description ?? "",
    kind: "zone",
    phase,
    version: ruleset.version,
    last_updated: ruleset.last_updated,
  };
}

const param = (c: ApiContext, name: string): string => c.params[name] ?? "";

// --- entry points (docs/configuration.md: kept byte-compatible; writes now make versions) ---

async function getEntrypoint(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const phase = param(c, "phase");
  if (!isPhase(phase)) return err({ kind: "unknown-phase", phase });
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  return ok(apiSuccess(presentRuleset(zone, phase, storedRuleset(current.value.document, phase))));
}

async function putEntrypoint(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const phase = param(c, "phase");
  if (!isPhase(phase)) return err({ kind: "unknown-phase", phase });
  const body = await readJsonBody(c.request);
  if (!body.ok) return err({ kind: "body", failure: body.error });
  return answerRuleset(c, zone, { kind: "replace-phase", phase, body: body.value });
}

/** The id of a phase's entry point ruleset, for its versions; a phase without one has none (404). */
async function entrypointId(c: ApiContext, zone: string): Promise<Result<string, ZoneApiFailure>> {
  const phase = param(c, "phase");
  if (!isPhase(phase)) return err({ kind: "unknown-phase", phase });
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  const ruleset = storedRuleset(current.value.document, phase);
  return ruleset ? ok(ruleset.id) : err({ kind: "unknown-ruleset", id: `phases/${phase}/entrypoint` });
}

// --- rulesets ---

async function listRulesets(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  const rulesets = PHASES.flatMap((phase) => {
    const ruleset = storedRuleset(current.value.document, phase);
    return ruleset ? [summary(zone, phase, ruleset)] : [];
  });
  // At most one ruleset per phase: one page, no cursor (the client's cursor pagination stops on its absence).
  return ok(apiSuccess(rulesets));
}

async function getRuleset(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  const found = findRuleset(current.value.document, param(c, "ruleset"));
  if (!found) return err({ kind: "unknown-ruleset", id: param(c, "ruleset") });
  return ok(apiSuccess(presentRuleset(zone, found.phase, found.ruleset)));
}

async function createRuleset(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const body = await readJsonBody(c.request);
  if (!body.ok) return err({ kind: "body", failure: body.error });
  return answerRuleset(c, zone, { kind: "create", body: body.value });
}

async function updateRuleset(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const body = await readJsonBody(c.request);
  if (!body.ok) return err({ kind: "body", failure: body.error });
  return answerRuleset(c, zone, { kind: "update", rulesetId: param(c, "ruleset"), body: body.value });
}

async function deleteRuleset(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const deleted = await edit(c, zone, { kind: "delete", rulesetId: param(c, "ruleset") });
  return deleted.ok ? ok(noContent()) : deleted;
}

// --- rules ---

async function addRule(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const body = await readJsonBody(c.request);
  if (!body.ok) return err({ kind: "body", failure: body.error });
  return answerRuleset(c, zone, { kind: "add-rule", rulesetId: param(c, "ruleset"), body: body.value });
}

async function editRule(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const body = await readJsonBody(c.request);
  if (!body.ok) return err({ kind: "body", failure: body.error });
  const target = { rulesetId: param(c, "ruleset"), ruleId: param(c, "rule") };
  return answerRuleset(c, zone, { kind: "edit-rule", ...target, body: body.value });
}

async function deleteRule(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  return answerRuleset(c, zone, { kind: "delete-rule", rulesetId: param(c, "ruleset"), ruleId: param(c, "rule") });
}

// --- versions ---

async function listVersions(c: ApiContext, zone: string, rulesetId: string): Promise<ZoneAnswer> {
  const listed = await withWriter(c.env, zone, (w) => w.rulesetVersions(zone, rulesetId));
  if (!listed.ok) return listed;
  const { phase, versions } = listed.value;
  return ok(apiSuccess(versions.map((v) => summary(zone, phase, v))));
}

async function getVersion(c: ApiContext, zone: string, rulesetId: string): Promise<ZoneAnswer> {
  const found = await withWriter(c.env, zone, (w) => w.rulesetVersion(zone, rulesetId, param(c, "version")));
  if (!found.ok) return found;
  return ok(apiSuccess(presentRuleset(zone, found.value.phase, found.value.ruleset)));
}

async function deleteVersion(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const rulesetId = param(c, "ruleset");
  const deleted = await withWriter(c.env, zone, (w) =>
    w.deleteRulesetVersion(zone, rulesetId, param(c, "version"), c.dryRun),
  );
  return deleted.ok ? ok(noContent()) : deleted;
}

/** A versions handler of a ruleset named by id, or of a phase's entry point. */
const byId =
  (handle: (c: ApiContext, zone: string, id: string) => Promise<ZoneAnswer>) =>
  (c: ApiContext, zone: string): Promise<ZoneAnswer> =>
    handle(c, zone, param(c, "ruleset"));
const byPhase =
  (handle: (c: ApiContext, zone: string, id: string) => Promise<ZoneAnswer>) =>
  async (c: ApiContext, zone: string): Promise<ZoneAnswer> => {
    const id = await entrypointId(c, zone);
    return id.ok ? handle(c, zone, id.value) : id;
  };

const ENTRYPOINT = "/zones/:zone/rulesets/phases/:phase/entrypoint";
const RULESETS = "/zones/:zone/rulesets";
const RULESET = `${RULESETS}/:ruleset`;

const read = (path: string, handle: (c: ApiContext, zone: string) => Promise<ZoneAnswer>): ApiRoute => ({
  method: "GET",
  path,
  permission: "zones:read",
  target: zoneTarget,
  handle: zoneHandler(handle),
});
const write = (
  method: "PUT" | "POST" | "PATCH" | "DELETE",
  path: string,
  handle: (c: ApiContext, zone: string) => Promise<ZoneAnswer>,
): ApiRoute => ({
  method,
  path,
  permission: "zones:write",
  target: zoneTarget,
  handle: zoneHandler(handle),
  dryRun: true,
});

export const rulesetRoutes: readonly ApiRoute[] = [
  read(ENTRYPOINT, getEntrypoint),
  write("PUT", ENTRYPOINT, putEntrypoint),
  read(`${ENTRYPOINT}/versions`, byPhase(listVersions)),
  read(`${ENTRYPOINT}/versions/:version`, byPhase(getVersion)),
  read(RULESETS, listRulesets),
  write("POST", RULESETS, createRuleset),
  read(RULESET, getRuleset),
  write("PUT", RULESET, updateRuleset),
  write("DELETE", RULESET, deleteRuleset),
  write("POST", `${RULESET}/rules`, addRule),
  write("PATCH", `${RULESET}/rules/:rule`, editRule),
  write("DELETE", `${RULESET}/rules/:rule`, deleteRule),
  read(`${RULESET}/versions`, byId(listVersions)),
  read(`${RULESET}/versions/:version`, byId(getVersion)),
  write("DELETE", `${RULESET}/versions/:version`, deleteVersion),
];
