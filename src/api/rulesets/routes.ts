/**
 * `GET/PUT /zones/{zone}/rulesets/phases/{phase}/entrypoint` (contract §6) for the three phases: validate (pure,
 * validate.ts) → the zone's writer of record (one section per phase, `ruleset:{phase}`, written only if the zone
 * did not change since it was read, so a rule's version history is never computed from a stale ruleset) →
 * envelope. Nothing is stored unless every expression compiled and every limit held.
 */
import { readJsonBody } from "../kit/body";
import { randomId } from "../../shared/crypto";
import { apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import { readZone, updateZone, zoneHandler, zoneTarget, type ZoneAnswer } from "../kit/zone-section";
import { err, ok } from "../../shared/result";
import { isPhase, PHASES } from "../../state/zone/rulesets/phases";
import { rulesetSection, storedRuleset } from "../../state/zone/rulesets/stored";
import { parseRuleset, presentRuleset, rulesetProgramSize } from "../../state/zone/rulesets/validate";

async function getRuleset(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const phase = c.params.phase ?? "";
  if (!isPhase(phase)) return err({ kind: "unknown-phase", phase });
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  return ok(apiSuccess(presentRuleset(zone, phase, storedRuleset(current.value.document, phase))));
}

async function putRuleset(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const phase = c.params.phase ?? "";
  if (!isPhase(phase)) return err({ kind: "unknown-phase", phase });
  const body = await readJsonBody(c.request);
  if (!body.ok) return err({ kind: "api", failure: body.error });
  // A rule's version history is computed from the stored ruleset: written only over the version it was read at.
  const written = await updateZone(c, zone, ({ document, zone: current }) => {
    // The zone's cap on compiled regexes covers every phase (validate.ts LIMITS.zoneProgramSize).
    const others = PHASES.filter((p) => p !== phase).reduce(
      (n, p) => n + rulesetProgramSize(p, storedRuleset(document, p)),
      0,
    );
    const previous = storedRuleset(document, phase);
    const parsed = parseRuleset(body.value, phase, current.settings.plan, previous, new Date(), randomId, others);
    if (!parsed.ok) return parsed;
    return ok({ change: { kind: "section", name: rulesetSection(phase), value: parsed.value }, result: parsed.value });
  });
  return written.ok ? ok(apiSuccess(presentRuleset(zone, phase, written.value.result))) : written;
}

const PATH = "/zones/:zone/rulesets/phases/:phase/entrypoint";

export const rulesetRoutes: readonly ApiRoute[] = [
  { method: "GET", path: PATH, permission: "zones:read", target: zoneTarget, handle: zoneHandler(getRuleset) },
  {
    method: "PUT",
    path: PATH,
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(putRuleset),
    dryRun: true,
  },
];
