/**
 * A zone's IP access rules (docs/producers.md "IP access rules"), one stored list (the zone document's section
 * `access_rules`) behind two doors:
 *
 * - the published `/zones/{zone}/firewall/access_rules/rules[/{rule_id}]`, one rule at a time: list (paginated,
 *   filtered: query.ts), create, get, edit, delete, each rule in the published shape; a write is the edit
 *   `access-rule` (src/state/zone/access-rules/changes.ts), applied by the zone's writer to the list as stored then,
 *   with the whole list's validator and limits;
 * - `GET/PUT /zones/{zone}/access_rules`, the whole list at once (validate.ts → the edit `access-rules`).
 *
 * A refused body stores nothing. IP access rules are available on every plan (the published platform offers them on
 * free).
 */
import { readJsonBody } from "../kit/body";
import { apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import { API_CODES } from "../kit/codes";
import { editZone, readZone, zoneHandler, zoneTarget, type ZoneAnswer, type ZoneApiFailure } from "../kit/zone-section";
import { HEX_ID, randomId } from "../../shared/crypto";
import { err, ok, type Result } from "../../shared/result";
import { oneIssue } from "../../shared/validation";
import { findAccessRule, type AccessRuleChange } from "../../state/zone/access-rules/changes";
import { ACCESS_RULES_MAX_BYTES, presentedBytes } from "../../state/zone/access-rules/size";
import { storedAccessRules } from "../../state/zone/access-rules/stored";
import { ACCESS_RULE_MODES, presentAccessRules, type AccessRule } from "../../state/zone/access-rules/types";
import { parseAccessRules } from "../../state/zone/access-rules/validate";
import { readAccessRuleQuery, runAccessRuleQuery } from "./query";

/** The envelope code of an invalid access rule (this service's 200xx block of zone configuration errors). */
export const INVALID_ACCESS_RULE = API_CODES["invalid-access-rules"].code;

async function getAccessRules(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  return ok(apiSuccess(presentAccessRules(storedAccessRules(current.value.document) ?? { rules: [] })));
}

async function putAccessRules(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  // The body limit is the largest list GET can return (size.ts), not the 1 MiB of other bodies: whatever GET
  // answered can be PUT back. It is still a limit enforced while the body streams in, before any parsing (docs/configuration.md).
  const body = await readJsonBody(c.request, ACCESS_RULES_MAX_BYTES);
  if (!body.ok) return err({ kind: "body", failure: body.error });
  const parsed = parseAccessRules(body.value);
  if (!parsed.ok) return err({ kind: "invalid-access-rules", issues: parsed.error });
  // A body within the limit can still render larger (ids and notes it left out are filled in): such a list is
  // refused, so every stored list fits the body limit when GET hands it back.
  const bytes = presentedBytes(parsed.value);
  if (bytes > ACCESS_RULES_MAX_BYTES) {
    const message =
      `the rules as GET returns them (ids, notes and canonical values filled in) would be ${bytes} bytes, ` +
      `at most ${ACCESS_RULES_MAX_BYTES}: shorten notes or remove rules`;
    return err({ kind: "invalid-access-rules", issues: oneIssue("out-of-range", "", message) });
  }
  // The list replaces the stored one whatever it was: of parallel PUTs, the last the writer applies wins.
  const written = await editZone(c, zone, { kind: "access-rules", rules: parsed.value });
  return written.ok ? ok(apiSuccess(presentAccessRules(parsed.value))) : written;
}

const PATH = "/zones/:zone/access_rules";
const PUBLISHED = "/zones/:zone/firewall/access_rules/rules";
const PUBLISHED_RULE = `${PUBLISHED}/:rule_id`;

/** The published access rule object (`allowed_modes`: the modes this service stores). */
function presentRule(rule: AccessRule): Record<string, unknown> {
  return {
    id: rule.id,
    mode: rule.mode,
    allowed_modes: [...ACCESS_RULE_MODES],
    configuration: { target: rule.target, value: rule.value },
    notes: rule.notes,
  };
}

/** The rule id of the path; one that is no id is a rule that does not exist. */
function ruleIdOf(c: ApiContext): Result<string, ZoneApiFailure> {
  const id = c.params.rule_id ?? "";
  if (HEX_ID.test(id)) return ok(id);
  return err({ kind: "unknown-access-rule", id: id.length > 64 ? `${id.slice(0, 64)}…` : id });
}

async function listRules(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const query = readAccessRuleQuery(c.url);
  if (!query.ok) return err({ kind: "invalid-access-rule-query", issues: query.error });
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  const rules = storedAccessRules(current.value.document)?.rules ?? [];
  const { page, total } = runAccessRuleQuery(rules, query.value);
  const perPage = query.value.perPage;
  const resultInfo = {
    page: query.value.page,
    per_page: perPage,
    count: page.length,
    total_count: total,
    total_pages: Math.ceil(total / perPage),
  };
  return ok(apiSuccess(page.map(presentRule), { resultInfo }));
}

async function getRule(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const id = ruleIdOf(c);
  if (!id.ok) return id;
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  const rule = findAccessRule(storedAccessRules(current.value.document), id.value);
  return rule ? ok(apiSuccess(presentRule(rule))) : err({ kind: "unknown-access-rule", id: id.value });
}

/** A single-rule write: the change applied by the zone's writer, the rule it leaves answered. */
async function changeRule(c: ApiContext, zone: string, change: AccessRuleChange): Promise<ZoneAnswer> {
  const written = await editZone(c, zone, { kind: "access-rule", change });
  if (!written.ok) return written;
  if (change.kind === "delete") return ok(apiSuccess({ id: change.id }));
  const rule = findAccessRule(storedAccessRules(written.value.document), change.id);
  return rule ? ok(apiSuccess(presentRule(rule))) : err({ kind: "unknown-access-rule", id: change.id });
}

async function createRule(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const body = await readJsonBody(c.request);
  if (!body.ok) return err({ kind: "body", failure: body.error });
  return changeRule(c, zone, { kind: "create", id: randomId(), body: body.value });
}

async function editRule(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const id = ruleIdOf(c);
  if (!id.ok) return id;
  const body = await readJsonBody(c.request);
  if (!body.ok) return err({ kind: "body", failure: body.error });
  return changeRule(c, zone, { kind: "edit", id: id.value, body: body.value });
}

async function deleteRule(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const id = ruleIdOf(c);
  return id.ok ? changeRule(c, zone, { kind: "delete", id: id.value }) : id;
}

const read = { permission: "zones:read", target: zoneTarget } as const;
const write = { permission: "zones:write", target: zoneTarget, dryRun: true } as const;

export const accessRuleRoutes: readonly ApiRoute[] = [
  { method: "GET", path: PUBLISHED, ...read, handle: zoneHandler(listRules) },
  { method: "POST", path: PUBLISHED, ...write, handle: zoneHandler(createRule) },
  { method: "GET", path: PUBLISHED_RULE, ...read, handle: zoneHandler(getRule) },
  { method: "PATCH", path: PUBLISHED_RULE, ...write, handle: zoneHandler(editRule) },
  { method: "DELETE", path: PUBLISHED_RULE, ...write, handle: zoneHandler(deleteRule) },
  { method: "GET", path: PATH, permission: "zones:read", target: zoneTarget, handle: zoneHandler(getAccessRules) },
  {
    method: "PUT",
    path: PATH,
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(putAccessRules),
    dryRun: true,
  },
];
