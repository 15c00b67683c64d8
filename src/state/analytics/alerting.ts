/**
 * A zone's alerting (docs/analytics.md "Alerts"): its alert policies, their events and the webhook outbox, kept by
 * shard 0 of the zone (the object named after it) beside its share of the recorded errors. This room owns three
 * tables, `alert_policies`, `alert_events` and `alert_attempts` (schema.ts migration 6), and one row of
 * `analytics_meta` (`alerts_evaluated`, the last minute evaluated); every statement it runs is named below. The
 * Durable Object (zone-analytics.ts) delegates to it: the API's calls, and its alarm's evaluation and delivery.
 * The rules are alerts.ts (pure); the counts over every shard come through alert-counts.ts; the signature is
 * webhook.ts.
 */
import { settingsFor } from "../../shared/settings";
import { randomId } from "../../shared/crypto";
import { logEvent } from "../../shared/log";
import { TIMEOUT, within } from "../../shared/timeout";
import { lookupZone } from "../zone/cache";
import {
  ATTEMPT_TIMEOUT_MS,
  checkTarget,
  evaluate,
  EVENTS_KEPT,
  MAX_ALERT_POLICIES,
  MAX_ATTEMPTS,
  RETRY_DELAYS_MS,
  windowsOf,
  type AlertSpec,
  type AlertState,
  type WindowCount,
  type WindowQuery,
} from "./alerts";
import { zoneAlertCounts } from "./alert-counts";
import { STEP_MS } from "./schema";
import { storedShardPlan } from "./shards";
import { newEventId, newWebhookSecret, webhookHeaders } from "./webhook";

/** A policy as stored (the secret apart): what the API presents. */
export interface StoredAlert {
  readonly id: string;
  readonly spec: AlertSpec;
  readonly state: AlertState;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** One event (a firing or a resolution) and its delivery attempts. */
export interface AlertDelivery {
  readonly id: string;
  readonly type: "alert.firing" | "alert.resolved";
  readonly createdAt: number;
  readonly status: "pending" | "delivered" | "failed";
  readonly nextAt: number | null;
  readonly body: string;
  readonly attempts: readonly {
    readonly attempt: number;
    readonly at: number;
    readonly outcome: "delivered" | "failed" | "refused";
    readonly httpStatus: number | null;
    readonly error: string | null;
  }[];
}

export type CreatedAlert =
  | { readonly kind: "created"; readonly alert: StoredAlert; readonly secret: string }
  | { readonly kind: "too-many"; readonly limit: number };

/** One change of a zone's policy set, as a bundle applies it (docs/config-as-code.md "What atomic means"). */
export type AlertChange =
  | { readonly kind: "create"; readonly spec: AlertSpec }
  | { readonly kind: "update"; readonly id: string; readonly spec: AlertSpec }
  | { readonly kind: "delete"; readonly id: string };

/** A policy as a change set was planned against: its id and when it was last written. */
export interface AlertSeen {
  readonly id: string;
  readonly updatedAt: number;
}

/**
 * A change set applied (or, dry, found applicable), or why not: the policies are no longer the ones it was planned
 * against (one written, added or deleted since), or it would leave more than the zone may have.
 */
export type AlertsApplied =
  { readonly kind: "applied" } | { readonly kind: "changed" } | { readonly kind: "too-many"; readonly limit: number };

/** The next evaluation runs this long after its minute ends, so the minute's batches and tallies have arrived. */
export const EVALUATE_DELAY_MS = 5_000;

/** What alerting needs of the object that holds it. */
export interface AlertingHost {
  /** The object's state: its storage, and its name (the zone, for shard 0, the only shard holding policies). */
  readonly ctx: DurableObjectState;
  readonly env: Env;
  /** This shard's own counts over the windows (asked directly, not over an RPC to itself). */
  readonly ownWindows: (windows: readonly WindowQuery[]) => readonly WindowCount[];
}

interface PolicyRow extends Record<string, SqlStorageValue> {
  id: string;
  spec: string;
  created_at: number;
  updated_at: number;
  status: string;
  since: number;
  clear_streak: number;
  value: number | null;
  evaluated_at: number | null;
}

interface EventRow extends Record<string, SqlStorageValue> {
  seq: number;
  id: string;
  type: string;
  created_at: number;
  status: string;
  next_at: number | null;
  body: string;
}

interface AttemptRow extends Record<string, SqlStorageValue> {
  attempt: number;
  at: number;
  outcome: string;
  http_status: number | null;
  error: string | null;
}

interface PendingRow extends Record<string, SqlStorageValue> {
  seq: number;
  id: string;
  policy_id: string;
  body: string;
  attempts: number;
  next_at: number;
}

/** One attempt's answer, as stored in `alert_attempts`. */
interface AttemptAnswer {
  readonly outcome: "delivered" | "failed" | "refused";
  readonly status: number | null;
  readonly error: string | null;
}

const POLICY_COLUMNS = "id, spec, created_at, updated_at, status, since, clear_streak, value, evaluated_at";

/** A policy's events past the newest EVENTS_KEPT, never a pending one (?1: the policy). */
const OLD_EVENTS = `SELECT seq FROM alert_events WHERE policy_id = ?1 AND status != 'pending'
  AND seq < (SELECT min(seq) FROM (SELECT seq FROM alert_events WHERE policy_id = ?1 ORDER BY seq DESC LIMIT ${EVENTS_KEPT}))`;

/** Every statement alerting runs. */
const SQL = {
  listPolicies: `SELECT ${POLICY_COLUMNS} FROM alert_policies ORDER BY created_at, id`,
  policy: `SELECT ${POLICY_COLUMNS} FROM alert_policies WHERE id = ?`,
  countPolicies: "SELECT count(*) AS n FROM alert_policies",
  policySpecs: "SELECT spec FROM alert_policies",
  policyTarget: "SELECT spec, secret FROM alert_policies WHERE id = ?",
  insertPolicy:
    "INSERT INTO alert_policies (id, spec, secret, created_at, updated_at, status, since, clear_streak) VALUES (?, ?, ?, ?, ?, 'ok', ?, 0)",
  // Disabling a policy sets it ok (since now, no event): a policy nobody evaluates is not shown firing.
  updatePolicy: `UPDATE alert_policies SET spec = ?1, updated_at = ?2,
      status = CASE WHEN ?3 THEN status ELSE 'ok' END,
      since = CASE WHEN ?3 OR status = 'ok' THEN since ELSE ?2 END,
      clear_streak = CASE WHEN ?3 THEN clear_streak ELSE 0 END
    WHERE id = ?4`,
  setPolicyState:
    "UPDATE alert_policies SET status = ?, since = ?, clear_streak = ?, value = ?, evaluated_at = ? WHERE id = ?",
  deletePolicyAttempts:
    "DELETE FROM alert_attempts WHERE event_seq IN (SELECT seq FROM alert_events WHERE policy_id = ?)",
  deletePolicyEvents: "DELETE FROM alert_events WHERE policy_id = ?",
  deletePolicy: "DELETE FROM alert_policies WHERE id = ?",
  events:
    "SELECT seq, id, type, created_at, status, next_at, body FROM alert_events WHERE policy_id = ? ORDER BY seq DESC",
  attempts: "SELECT attempt, at, outcome, http_status, error FROM alert_attempts WHERE event_seq = ? ORDER BY attempt",
  insertEvent:
    "INSERT INTO alert_events (id, policy_id, type, body, created_at, status, attempts, next_at) VALUES (?, ?, ?, ?, ?, 'pending', 0, ?)",
  deleteOldAttempts: `DELETE FROM alert_attempts WHERE event_seq IN (${OLD_EVENTS})`,
  deleteOldEvents: `DELETE FROM alert_events WHERE seq IN (${OLD_EVENTS})`,
  pending: "SELECT seq, id, policy_id, body, attempts, next_at FROM alert_events WHERE status = 'pending' ORDER BY seq",
  nextDue: "SELECT min(next_at) AS t FROM alert_events WHERE status = 'pending'",
  anyEvent: "SELECT count(*) AS n FROM (SELECT 1 FROM alert_events LIMIT 1)",
  setEventState: "UPDATE alert_events SET status = ?, attempts = ?, next_at = ? WHERE seq = ?",
  putAttempt:
    "INSERT OR REPLACE INTO alert_attempts (event_seq, attempt, at, outcome, http_status, error) VALUES (?, ?, ?, ?, ?, ?)",
  // The last minute evaluated is one row of the object's meta table (created with it, schema.ts migration 2).
  lastEvaluated: "SELECT value FROM analytics_meta WHERE name = 'alerts_evaluated'",
  setLastEvaluated: "INSERT OR REPLACE INTO analytics_meta (name, value) VALUES ('alerts_evaluated', ?)",
} as const;

const floorTo = (ms: number, step: number): number => Math.floor(ms / step) * step;

const toStored = (row: PolicyRow): StoredAlert => ({
  id: row.id,
  spec: JSON.parse(row.spec) as AlertSpec,
  state: {
    status: row.status === "firing" ? "firing" : "ok",
    since: row.since,
    clearStreak: row.clear_streak,
    value: row.value,
    evaluatedAt: row.evaluated_at,
  },
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export class Alerting {
  private readonly sql: SqlStorage;
  /** Events whose attempt is in flight in this object life: a second alarm run never sends them again meanwhile. */
  private readonly sending = new Set<number>();

  constructor(private readonly host: AlertingHost) {
    this.sql = host.ctx.storage.sql;
  }

  /** The zone's policies, oldest first. */
  list(): StoredAlert[] {
    return this.sql.exec<PolicyRow>(SQL.listPolicies).toArray().map(toStored);
  }

  get(id: string): StoredAlert | null {
    const row = this.sql.exec<PolicyRow>(SQL.policy, id).toArray()[0];
    return row === undefined ? null : toStored(row);
  }

  /** A new policy, state ok, with a new secret (answered here once, never read back by the API). */
  create(spec: AlertSpec, now: number): CreatedAlert {
    const n = this.sql.exec<{ n: number }>(SQL.countPolicies).one().n;
    if (n >= MAX_ALERT_POLICIES) return { kind: "too-many", limit: MAX_ALERT_POLICIES };
    const id = randomId();
    const secret = newWebhookSecret();
    this.sql.exec(SQL.insertPolicy, id, JSON.stringify(spec), secret, now, now, now);
    return { kind: "created", alert: this.get(id)!, secret };
  }

  /** Replaces a policy's definition; its id, secret, state and events stay (SQL.updatePolicy: disabling). */
  update(id: string, spec: AlertSpec, now: number): StoredAlert | null {
    const written = this.sql.exec(SQL.updatePolicy, JSON.stringify(spec), now, spec.enabled ? 1 : 0, id).rowsWritten;
    return written === 0 ? null : this.get(id);
  }

  /** Deletes a policy with its events and attempts (a pending event is not sent). */
  delete(id: string): boolean {
    return this.host.ctx.storage.transactionSync(() => this.deleteRows(id));
  }

  /**
   * A bundle's policies, all or none, in one transaction: refused unless the policies are exactly those `seen`
   * (same ids, none written since), so what is applied is what was planned; `dryRun` checks the same and writes
   * nothing. Created policies get a new id and secret, as `create` gives them (the secret is never shown).
   */
  apply(seen: readonly AlertSeen[], changes: readonly AlertChange[], now: number, dryRun: boolean): AlertsApplied {
    return this.host.ctx.storage.transactionSync((): AlertsApplied => {
      const listed = this.list();
      const byId = new Map(listed.map((alert) => [alert.id, alert.updatedAt]));
      if (listed.length !== seen.length || seen.some((s) => byId.get(s.id) !== s.updatedAt)) return { kind: "changed" };
      const created = changes.filter((c) => c.kind === "create").length;
      const deleted = changes.filter((c) => c.kind === "delete").length;
      if (listed.length + created - deleted > MAX_ALERT_POLICIES)
        return { kind: "too-many", limit: MAX_ALERT_POLICIES };
      if (changes.some((c) => c.kind !== "create" && !byId.has(c.id))) return { kind: "changed" };
      if (dryRun) return { kind: "applied" };
      for (const change of changes) {
        if (change.kind === "delete") this.deleteRows(change.id);
        else if (change.kind === "update")
          this.sql.exec(SQL.updatePolicy, JSON.stringify(change.spec), now, change.spec.enabled ? 1 : 0, change.id);
        else
          this.sql.exec(SQL.insertPolicy, randomId(), JSON.stringify(change.spec), newWebhookSecret(), now, now, now);
      }
      return { kind: "applied" };
    });
  }

  private deleteRows(id: string): boolean {
    this.sql.exec(SQL.deletePolicyAttempts, id);
    this.sql.exec(SQL.deletePolicyEvents, id);
    return this.sql.exec(SQL.deletePolicy, id).rowsWritten > 0;
  }

  /** A policy's events, newest first, each with its attempts; null when the policy does not exist. */
  deliveries(id: string): AlertDelivery[] | null {
    if (this.get(id) === null) return null;
    return this.sql
      .exec<EventRow>(SQL.events, id)
      .toArray()
      .map((e) => ({
        id: e.id,
        type: e.type as AlertDelivery["type"],
        createdAt: e.created_at,
        status: e.status as AlertDelivery["status"],
        nextAt: e.status === "pending" ? e.next_at : null,
        body: e.body,
        attempts: this.sql
          .exec<AttemptRow>(SQL.attempts, e.seq)
          .toArray()
          .map((a) => ({
            attempt: a.attempt,
            at: a.at,
            outcome: a.outcome as AlertDelivery["attempts"][number]["outcome"],
            httpStatus: a.http_status,
            error: a.error,
          })),
      }));
  }

  /** Whether any event is kept (the object's alarm keeps running while one is: docs/analytics.md "Alerts"). */
  holdsEvents(): boolean {
    return this.sql.exec<{ n: number }>(SQL.anyEvent).one().n > 0;
  }

  /** When alerting next needs the alarm: the next evaluation (a policy enabled) or the next attempt due; or null. */
  nextWake(now: number): number | null {
    const times: number[] = [];
    if (this.enabledPolicies() > 0) times.push(floorTo(now, STEP_MS.minute) + STEP_MS.minute + EVALUATE_DELAY_MS);
    const due = this.sql.exec<{ t: number | null }>(SQL.nextDue).one().t;
    if (due !== null) times.push(due);
    return times.length === 0 ? null : Math.min(...times);
  }

  /**
   * Evaluates every enabled policy once per minute that ended (a second run within the same minute does nothing),
   * over every shard of the zone; a change of state writes an event to deliver. Returns how many were evaluated.
   */
  async evaluate(now: number): Promise<number> {
    const minute = floorTo(now, STEP_MS.minute);
    const policies = this.list().filter((p) => p.spec.enabled);
    if (policies.length === 0) return 0;
    const last = this.sql.exec<{ value: number }>(SQL.lastEvaluated).toArray()[0]?.value ?? null;
    if (last !== null && minute <= last) return 0;
    this.sql.exec(SQL.setLastEvaluated, minute);
    const zone = this.host.ctx.id.name;
    if (zone === undefined) return 0;
    const config = await lookupZone(this.host.env.CONFIG, zone);
    if (!config.ok || config.value === null) return 0;
    const plan = storedShardPlan(config.value.document);
    if (!plan.ok) return 0;
    const windows = policies.map((p) => windowsOf(p.spec.rule, now));
    const all = windows.flat();
    const ns = this.host.env.ZONE_ANALYTICS;
    const counts = await zoneAlertCounts(zone, plan.value, all, (name) =>
      name === zone ? this.host.ownWindows(all) : ns.get(ns.idFromName(name)).alertWindows(all),
    );
    let offset = 0;
    for (const [i, p] of policies.entries()) {
      const size = windows[i]!.length;
      const result = evaluate(p.spec, p.state, counts.slice(offset, offset + size), now);
      offset += size;
      this.host.ctx.storage.transactionSync(() => {
        // The policy may have been deleted while the counts were read: its state and events go with it.
        const s = result.state;
        const kept = this.sql.exec(
          SQL.setPolicyState,
          s.status,
          s.since,
          s.clearStreak,
          s.value,
          s.evaluatedAt,
          p.id,
        ).rowsWritten;
        if (kept > 0 && result.transition !== null) this.addEvent(zone, p, result.state, now);
      });
    }
    return policies.length;
  }

  /**
   * Sends the events that are due, oldest first, the oldest pending event of each policy only (a resolution never
   * overtakes its firing). An event is sent under its one id on every attempt; once a 2xx answered it, it is
   * `delivered` and never sent again; after MAX_ATTEMPTS it is `failed`. The target is checked again against the
   * settings of now (API_HOSTS may have changed): refused, the event fails without a request.
   */
  async deliverDue(now: number): Promise<number> {
    const pending = this.sql.exec<PendingRow>(SQL.pending).toArray();
    const seen = new Set<string>();
    const due = pending.filter((e) => {
      const first = !seen.has(e.policy_id);
      seen.add(e.policy_id);
      return first && e.next_at <= now && !this.sending.has(e.seq);
    });
    const settings = settingsFor(this.host.env);
    const targets = { apiHosts: settings.apiHosts, loopbackAllowed: settings.webhookLoopback };
    await Promise.all(
      due.map(async (e) => {
        const policy = this.sql.exec<{ spec: string; secret: string }>(SQL.policyTarget, e.policy_id).toArray()[0];
        if (policy === undefined) return;
        const target = checkTarget((JSON.parse(policy.spec) as AlertSpec).webhook_url, targets);
        const attempt = e.attempts + 1;
        if (!target.ok) {
          this.recordAttempt(e, attempt, now, { outcome: "refused", status: null, error: target.error.message });
          return;
        }
        this.sending.add(e.seq);
        try {
          const answer = await send(target.value, policy.secret, e.id, e.body);
          this.recordAttempt(e, attempt, now, answer);
        } finally {
          this.sending.delete(e.seq);
        }
      }),
    );
    return due.length;
  }

  private enabledPolicies(): number {
    let n = 0;
    for (const row of this.sql.exec<{ spec: string }>(SQL.policySpecs)) {
      if ((JSON.parse(row.spec) as AlertSpec).enabled) n++;
    }
    return n;
  }

  /** One event (Standard Webhooks payload: type, timestamp, data), its body fixed for every attempt. */
  private addEvent(zone: string, p: StoredAlert, state: AlertState, now: number): void {
    const type = state.status === "firing" ? "alert.firing" : "alert.resolved";
    const id = newEventId();
    const body = JSON.stringify({
      type,
      timestamp: new Date(now).toISOString(),
      data: {
        zone,
        policy: { id: p.id, name: p.spec.name, ...p.spec.rule },
        status: state.status,
        since: new Date(state.since).toISOString(),
        value: state.value,
      },
    });
    this.sql.exec(SQL.insertEvent, id, p.id, type, body, now, now);
    // Bounded: the newest EVENTS_KEPT of the policy stay, and a pending one is never dropped.
    this.sql.exec(SQL.deleteOldAttempts, p.id);
    this.sql.exec(SQL.deleteOldEvents, p.id);
  }

  private recordAttempt(
    e: { readonly seq: number; readonly id: string; readonly policy_id: string },
    attempt: number,
    now: number,
    r: AttemptAnswer,
  ): void {
    const final = r.outcome !== "failed" || attempt >= MAX_ATTEMPTS;
    const status = r.outcome === "delivered" ? "delivered" : final ? "failed" : "pending";
    const next = status === "pending" ? now + (RETRY_DELAYS_MS[attempt - 1] ?? 0) : null;
    this.host.ctx.storage.transactionSync(() => {
      // The event may have been deleted with its policy while the attempt was in flight.
      const kept = this.sql.exec(SQL.setEventState, status, attempt, next, e.seq).rowsWritten;
      if (kept === 0) return;
      this.sql.exec(SQL.putAttempt, e.seq, attempt, now, r.outcome, r.status, r.error);
    });
    if (status === "failed") {
      logEvent("alert_webhook_failed", {
        zone: this.host.ctx.id.name ?? null,
        policy: e.policy_id,
        message: e.id,
        attempts: attempt,
        cause: r.error ?? (r.status === null ? r.outcome : `HTTP ${r.status}`),
      });
    }
  }
}

/** One webhook attempt: a signed POST, answered within ATTEMPT_TIMEOUT_MS or counted as failed. */
async function send(url: string, secret: string, id: string, body: string): Promise<AttemptAnswer> {
  const headers = await webhookHeaders(secret, id, body);
  // Aborted when the attempt times out, so a receiver that never answers does not keep its connection (and the
  // object's outbound request) open after the attempt is counted as failed.
  const abort = new AbortController();
  try {
    // No redirect is followed: a 3xx is an answer, not a new target (it could name a host refused above).
    const answer = await within(
      fetch(url, { method: "POST", headers, body, redirect: "manual", signal: abort.signal }),
      ATTEMPT_TIMEOUT_MS,
    );
    if (answer === TIMEOUT) {
      abort.abort();
      return { outcome: "failed", status: null, error: `no answer within ${ATTEMPT_TIMEOUT_MS} ms` };
    }
    await answer.body?.cancel();
    const delivered = answer.status >= 200 && answer.status < 300;
    return { outcome: delivered ? "delivered" : "failed", status: answer.status, error: null };
  } catch (e) {
    return { outcome: "failed", status: null, error: String(e instanceof Error ? e.message : e).slice(0, 200) };
  }
}
