/**
 * `GET/PUT /zones/{zone}/access_rules` (contract §6): validate the whole list (pure, validate.ts) → the zone's
 * writer of record (section `access_rules`) → envelope. PUT replaces the list; a refused body stores nothing.
 * IP access rules are available on every plan (the published platform offers them on free).
 */
import { readJsonBody } from "../kit/body";
import { apiFailureResponse, apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import { rememberWritten, withWriter, zoneFailure, zoneName, zoneTarget, type ZoneFailure } from "../zones/routes";
import { ACCESS_RULES_MAX_BYTES, presentedBytes } from "../../state/zone/access-rules/size";
import { ACCESS_RULES_SECTION, storedAccessRules } from "../../state/zone/access-rules/stored";
import { presentAccessRules } from "../../state/zone/access-rules/types";
import { accessRuleMessage, parseAccessRules, type AccessRuleFailure } from "../../state/zone/access-rules/validate";

/** The envelope code of an invalid access rule (this service's 200xx block of zone configuration errors). */
export const INVALID_ACCESS_RULE = 20026;

type Failure = ZoneFailure | { readonly kind: "invalid-access-rules"; readonly failures: readonly AccessRuleFailure[] };

function failure(f: Failure, zone: string): Response {
  if (f.kind === "invalid-access-rules") {
    return apiFailureResponse({
      status: 400,
      errors: f.failures.map((x) => ({ code: INVALID_ACCESS_RULE, message: accessRuleMessage(x) })),
    });
  }
  return zoneFailure(f, zone);
}

async function getAccessRules(c: ApiContext): Promise<Response> {
  const zone = zoneName(c);
  if (!zone.ok) return failure(zone.error, "");
  const found = await withWriter(c.env, zone.value, (w) => w.read(zone.value));
  if (!found.ok) return failure(found.error, zone.value);
  if (found.value === null) return failure({ kind: "not-found" }, zone.value);
  return apiSuccess(presentAccessRules(storedAccessRules(found.value) ?? { rules: [] }));
}

async function putAccessRules(c: ApiContext): Promise<Response> {
  const zone = zoneName(c);
  if (!zone.ok) return failure(zone.error, "");
  // The body limit is the largest list GET can return (size.ts), not the 1 MiB of other bodies: whatever GET
  // answered can be PUT back. It is still a limit enforced while the body streams in, before any parsing (§8).
  const body = await readJsonBody(c.request, ACCESS_RULES_MAX_BYTES);
  if (!body.ok) return failure({ kind: "api", failure: body.error }, zone.value);
  const parsed = parseAccessRules(body.value);
  if (!parsed.ok) return failure({ kind: "invalid-access-rules", failures: parsed.error }, zone.value);
  // A body within the limit can still render larger (ids and notes it left out are filled in): such a list is
  // refused, so every stored list fits the body limit when GET hands it back.
  const bytes = presentedBytes(parsed.value);
  if (bytes > ACCESS_RULES_MAX_BYTES) {
    const tooLarge = { kind: "list_too_large", bytes, max: ACCESS_RULES_MAX_BYTES } as const;
    return failure({ kind: "invalid-access-rules", failures: [tooLarge] }, zone.value);
  }
  // The list does not depend on what was stored before, so no version check: the last write wins, serialised.
  const written = await withWriter(c.env, zone.value, (w) =>
    w.putSection(zone.value, ACCESS_RULES_SECTION, parsed.value),
  );
  if (!written.ok) return failure(written.error, zone.value);
  rememberWritten(zone.value, written.value);
  return apiSuccess(presentAccessRules(parsed.value));
}

const PATH = "/zones/:zone/access_rules";

export const accessRuleRoutes: readonly ApiRoute[] = [
  { method: "GET", path: PATH, permission: "zones:read", target: zoneTarget, handle: getAccessRules },
  { method: "PUT", path: PATH, permission: "zones:write", target: zoneTarget, handle: putAccessRules },
];
