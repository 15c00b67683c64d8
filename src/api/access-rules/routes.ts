/**
 * `GET/PUT /zones/{zone}/access_rules` (docs/configuration.md): validate the whole list (pure, validate.ts) → the
 * edit `access-rules`, applied by the zone's writer of record (section `access_rules`) → envelope. PUT replaces the
 * list; a refused body stores nothing.
 * IP access rules are available on every plan (the published platform offers them on free).
 */
import { readJsonBody } from "../kit/body";
import { apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import { API_CODES } from "../kit/codes";
import { editZone, readZone, zoneHandler, zoneTarget, type ZoneAnswer } from "../kit/zone-section";
import { err, ok } from "../../shared/result";
import { ACCESS_RULES_MAX_BYTES, presentedBytes } from "../../state/zone/access-rules/size";
import { storedAccessRules } from "../../state/zone/access-rules/stored";
import { presentAccessRules } from "../../state/zone/access-rules/types";
import { accessRuleIssues, parseAccessRules } from "../../state/zone/access-rules/validate";

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
  if (!parsed.ok) return err({ kind: "invalid-access-rules", issues: accessRuleIssues(parsed.error) });
  // A body within the limit can still render larger (ids and notes it left out are filled in): such a list is
  // refused, so every stored list fits the body limit when GET hands it back.
  const bytes = presentedBytes(parsed.value);
  if (bytes > ACCESS_RULES_MAX_BYTES) {
    const tooLarge = { kind: "list-too-large", bytes, max: ACCESS_RULES_MAX_BYTES } as const;
    return err({ kind: "invalid-access-rules", issues: accessRuleIssues([tooLarge]) });
  }
  // The list replaces the stored one whatever it was: of parallel PUTs, the last the writer applies wins.
  const written = await editZone(c, zone, { kind: "access-rules", rules: parsed.value });
  return written.ok ? ok(apiSuccess(presentAccessRules(parsed.value))) : written;
}

const PATH = "/zones/:zone/access_rules";

export const accessRuleRoutes: readonly ApiRoute[] = [
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
