/**
 * `GET/PUT /zones/{zone}/rulesets/phases/{phase}/entrypoint` (contract §6) for the three phases: validate (pure,
 * validate.ts) → the zone's writer of record (one section per phase, `ruleset:{phase}`, written only if the zone
 * did not change since it was read, so a rule's version history is never computed from a stale ruleset) →
 * envelope. Nothing is stored unless every expression compiled and every limit held.
 */
import { readJsonBody } from "../kit/body";
import { apiFailureResponse, apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import { randomId } from "../../shared/crypto";
import { err, type Result } from "../../shared/result";
import { parseDocument } from "../../state/zone/store";
import { rememberWritten, withWriter, zoneFailure, zoneName, zoneTarget, type ZoneFailure } from "../zones/routes";
import { isPhase, PHASES, type Phase } from "../../state/zone/rulesets/phases";
import { rulesetSection, storedRuleset } from "../../state/zone/rulesets/stored";
import {
  parseRuleset,
  presentRuleset,
  rulesetProgramSize,
  type RulesetFailure,
} from "../../state/zone/rulesets/validate";

/** How often a write is prepared again when the zone changed under it (optimistic concurrency). */
const ATTEMPTS = 5;

type Failure = ZoneFailure | RulesetFailure | { readonly kind: "unknown-phase"; readonly phase: string };

/** The one mapping of this surface's failures to the wire; zone failures keep theirs. */
function failure(f: Failure, zone: string): Response {
  switch (f.kind) {
    case "plan-forbids":
      return apiFailureResponse({
        status: 403,
        errors: [
          {
            code: 1100,
            message: `The ${f.plan} plan cannot use ${f.phase}: custom error rules need a paid plan (contract §2.1)`,
          },
        ],
      });
    case "invalid-ruleset":
      return apiFailureResponse({
        status: 400,
        errors: f.errors.slice(0, 20).map((e) => ({
          code: 20021,
          message: `${e.index === undefined ? "" : `rules[${e.index}].`}${e.field}: ${e.message}`,
        })),
      });
    case "unknown-phase":
      return apiFailureResponse({
        status: 400,
        errors: [{ code: 20022, message: `Unknown phase ${JSON.stringify(f.phase)}: one of ${PHASES.join(", ")}` }],
      });
    default:
      return zoneFailure(f, zone);
  }
}

function phaseOf(c: ApiContext): Result<Phase, Failure> {
  const phase = c.params.phase ?? "";
  return isPhase(phase) ? { ok: true, value: phase } : err({ kind: "unknown-phase", phase });
}

async function getRuleset(c: ApiContext): Promise<Response> {
  const zone = zoneName(c);
  if (!zone.ok) return failure(zone.error, "");
  const phase = phaseOf(c);
  if (!phase.ok) return failure(phase.error, zone.value);
  const found = await withWriter(c.env, zone.value, (w) => w.read(zone.value));
  if (!found.ok) return failure(found.error, zone.value);
  if (found.value === null) return failure({ kind: "not-found" }, zone.value);
  return apiSuccess(presentRuleset(zone.value, phase.value, storedRuleset(found.value, phase.value)));
}

async function putRuleset(c: ApiContext): Promise<Response> {
  const zone = zoneName(c);
  if (!zone.ok) return failure(zone.error, "");
  const phase = phaseOf(c);
  if (!phase.ok) return failure(phase.error, zone.value);
  const body = await readJsonBody(c.request);
  if (!body.ok) return failure({ kind: "api", failure: body.error }, zone.value);
  for (let attempt = 1; ; attempt++) {
    const found = await withWriter(c.env, zone.value, (w) => w.read(zone.value));
    if (!found.ok) return failure(found.error, zone.value);
    if (found.value === null) return failure({ kind: "not-found" }, zone.value);
    const current = parseDocument(zone.value, found.value);
    if (!current.ok) return failure(current.error, zone.value);
    // The zone's cap on compiled regexes covers every phase (validate.ts LIMITS.zoneProgramSize).
    const document = found.value;
    const others = PHASES.filter((p) => p !== phase.value).reduce(
      (n, p) => n + rulesetProgramSize(p, storedRuleset(document, p)),
      0,
    );
    const parsed = parseRuleset(
      body.value,
      phase.value,
      current.value.settings.plan,
      storedRuleset(found.value, phase.value),
      new Date(),
      randomId,
      others,
    );
    if (!parsed.ok) return failure(parsed.error, zone.value);
    const section = rulesetSection(phase.value);
    const written = await withWriter(c.env, zone.value, (w) =>
      w.putSection(zone.value, section, parsed.value, found.value?.version),
    );
    if (written.ok) {
      rememberWritten(zone.value, written.value);
      return apiSuccess(presentRuleset(zone.value, phase.value, parsed.value));
    }
    if (written.error.kind !== "conflict" || attempt === ATTEMPTS) return failure(written.error, zone.value);
  }
}

const PATH = "/zones/:zone/rulesets/phases/:phase/entrypoint";

export const rulesetRoutes: readonly ApiRoute[] = [
  { method: "GET", path: PATH, permission: "zones:read", target: zoneTarget, handle: getRuleset },
  { method: "PUT", path: PATH, permission: "zones:write", target: zoneTarget, handle: putRuleset },
];
