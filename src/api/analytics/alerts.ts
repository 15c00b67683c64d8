/**
 * Alert policies of a zone (docs/analytics.md "Alerts"): `GET, POST /zones/{zone}/analytics/alerts`,
 * `GET, PUT, DELETE /zones/{zone}/analytics/alerts/{id}` and `GET …/{id}/deliveries`. The policies live in the
 * zone's shard 0 (src/state/analytics/zone-analytics.ts, whose alerting is alerting.ts), which evaluates them on its alarm and delivers their
 * webhooks. Reading needs `zones:read`, writing `zones:write`; the signing secret is in the POST answer only.
 */
import { readJsonBody } from "../kit/body";
import { apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import { zoneHandler, zoneTarget, type ZoneAnswer, type ZoneApiFailure } from "../kit/zone-section";
import { err, ok, type Result } from "../../shared/result";
import { lookupZone } from "../../state/zone/cache";
import { MAX_ALERT_POLICIES, parseAlertBody, type AlertSpec } from "../../state/analytics/alerts";
import { shardName } from "../../state/analytics/shards";
import type { AlertDelivery, StoredAlert } from "../../state/analytics/alerting";
import type { ZoneAnalytics } from "../../state/analytics/zone-analytics";
import type { Answer } from "../../shared/schema";
import { ALERT_ID, type ALERT_DELIVERY, type ALERT_POLICY } from "./schemas";

/** Shard 0 of a configured zone (reading or writing never creates storage for a name that is not a zone). */
async function holder(c: ApiContext, zone: string): Promise<Result<DurableObjectStub<ZoneAnalytics>, ZoneApiFailure>> {
  const config = await lookupZone(c.env.CONFIG, zone);
  if (!config.ok) return config;
  if (config.value === null) return err({ kind: "not-found" });
  const ns = c.env.ZONE_ANALYTICS;
  return ok(ns.get(ns.idFromName(shardName(zone, 0))));
}

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

/** A policy as answered: its definition flat (as the body that makes it), its state, never its secret. */
export function presentAlert(a: StoredAlert): Answer<typeof ALERT_POLICY> {
  const { kind, ...rule } = a.spec.rule;
  return {
    id: a.id,
    name: a.spec.name,
    kind,
    enabled: a.spec.enabled,
    ...rule,
    resolve_after: a.spec.resolve_after,
    webhook: { url: a.spec.webhook_url },
    state: {
      status: a.state.status,
      since: iso(a.state.since),
      value: a.state.value,
      evaluated_at: isoOrNull(a.state.evaluatedAt),
    },
    created_at: iso(a.createdAt),
    updated_at: iso(a.updatedAt),
  };
}

function presentDelivery(d: AlertDelivery): Answer<typeof ALERT_DELIVERY> {
  return {
    id: d.id,
    type: d.type,
    created_at: iso(d.createdAt),
    status: d.status,
    next_attempt_at: isoOrNull(d.nextAt),
    // The body this service wrote (alerting.ts `addEvent`): a JSON object.
    payload: JSON.parse(d.body) as Record<string, unknown>,
    attempts: d.attempts.map((a) => ({
      attempt: a.attempt,
      at: iso(a.at),
      outcome: a.outcome,
      http_status: a.httpStatus,
      error: a.error,
    })),
  };
}

async function parseBody(c: ApiContext): Promise<Result<AlertSpec, ZoneApiFailure>> {
  const body = await readJsonBody(c.request);
  if (!body.ok) return err({ kind: "body", failure: body.error });
  const targets = { apiHosts: c.settings.apiHosts, loopbackAllowed: c.settings.webhookLoopback };
  return parseAlertBody(body.value, targets);
}

function policyId(c: ApiContext): Result<string, ZoneApiFailure> {
  const id = c.params.alert_id ?? "";
  return ALERT_ID().safeParse(id).success ? ok(id) : err({ kind: "unknown-alert", id });
}

async function list(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const stub = await holder(c, zone);
  if (!stub.ok) return stub;
  return ok(apiSuccess((await stub.value.listAlerts()).map(presentAlert)));
}

async function create(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const spec = await parseBody(c);
  if (!spec.ok) return spec;
  const stub = await holder(c, zone);
  if (!stub.ok) return stub;
  if (c.dryRun) {
    // Rehearsed (docs/configuration.md "any write"): checked, limit included; nothing stored, no id or secret made.
    const count = (await stub.value.listAlerts()).length;
    if (count >= MAX_ALERT_POLICIES) return err({ kind: "too-many-alerts", limit: MAX_ALERT_POLICIES });
    return ok(apiSuccess(null));
  }
  const made = await stub.value.createAlert(spec.value);
  if (made.kind === "too-many") return err({ kind: "too-many-alerts", limit: made.limit });
  // The one answer that carries the secret: it is never shown again (docs/analytics.md "Delivery").
  return ok(apiSuccess({ ...presentAlert(made.alert), webhook: { url: spec.value.webhook_url, secret: made.secret } }));
}

async function read(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const id = policyId(c);
  if (!id.ok) return id;
  const stub = await holder(c, zone);
  if (!stub.ok) return stub;
  const alert = await stub.value.getAlert(id.value);
  return alert === null ? err({ kind: "unknown-alert", id: id.value }) : ok(apiSuccess(presentAlert(alert)));
}

async function update(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const id = policyId(c);
  if (!id.ok) return id;
  const spec = await parseBody(c);
  if (!spec.ok) return spec;
  const stub = await holder(c, zone);
  if (!stub.ok) return stub;
  if (c.dryRun) {
    const known = await stub.value.getAlert(id.value);
    if (known === null) return err({ kind: "unknown-alert", id: id.value });
    return ok(apiSuccess(null));
  }
  const alert = await stub.value.updateAlert(id.value, spec.value);
  return alert === null ? err({ kind: "unknown-alert", id: id.value }) : ok(apiSuccess(presentAlert(alert)));
}

async function remove(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const id = policyId(c);
  if (!id.ok) return id;
  const stub = await holder(c, zone);
  if (!stub.ok) return stub;
  const gone = c.dryRun ? (await stub.value.getAlert(id.value)) !== null : await stub.value.deleteAlert(id.value);
  return gone ? ok(apiSuccess({ id: id.value })) : err({ kind: "unknown-alert", id: id.value });
}

async function deliveries(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const id = policyId(c);
  if (!id.ok) return id;
  const stub = await holder(c, zone);
  if (!stub.ok) return stub;
  const found = await stub.value.alertDeliveries(id.value);
  return found === null ? err({ kind: "unknown-alert", id: id.value }) : ok(apiSuccess(found.map(presentDelivery)));
}

const LIST = "/zones/:zone/analytics/alerts";
const ONE = "/zones/:zone/analytics/alerts/:alert_id";

export const alertRoutes: readonly ApiRoute[] = [
  { method: "GET", path: LIST, permission: "zones:read", target: zoneTarget, handle: zoneHandler(list) },
  {
    method: "POST",
    path: LIST,
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(create),
    dryRun: true,
  },
  { method: "GET", path: ONE, permission: "zones:read", target: zoneTarget, handle: zoneHandler(read) },
  {
    method: "PUT",
    path: ONE,
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(update),
    dryRun: true,
  },
  {
    method: "DELETE",
    path: ONE,
    permission: "zones:write",
    target: zoneTarget,
    handle: zoneHandler(remove),
    dryRun: true,
  },
  {
    method: "GET",
    path: `${ONE}/deliveries`,
    permission: "zones:read",
    target: zoneTarget,
    handle: zoneHandler(deliveries),
  },
];
