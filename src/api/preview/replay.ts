/**
 * `POST /zones/{zone}/preview/replay` (docs/custom-errors.md "Replay"): "had this draft been live, what would the
 * zone's recorded errors have got?" A draft (the same one the draft preview takes, draft.ts) is evaluated against the
 * zone's recorded errors of a window, at most REPLAY_LIMITS.records of them, newest first, each rebuilt from what its
 * record keeps (docs/analytics.md "Request detail") and run through the preview's engine (explain.ts `respond`: the
 * edge's own pipeline and custom error rules). What changed is counted per (answer before → answer after), with
 * format and status, per rule, with sample Ray IDs.
 *
 * A replay stores nothing (it reads the analytics object, the zone and its pages; the draft is compiled as a preview's
 * is, never a version) and is bounded like a preview: per token and zone (bound.ts `admitReplay`), at most
 * REPLAY_LIMITS.records records, each evaluated within a management run's budget, all of them within
 * `MANAGEMENT_BUDGET.replayUnits`, in turns with traffic (turns.ts); past either it stops and says `truncated`. It
 * logs one `preview_replay` line per call, none per record (docs/configuration.md "Events").
 *
 * The request phases are not replayed: a draft holds custom error rules and pages only, so a recorded block or
 * origin failure is the same error after; what a draft changes is who answers it and how.
 */
import { bodyText, parseJsonText } from "../kit/body";
import { apiSuccess } from "../kit/envelope";
import { lintMessages } from "../kit/lint-messages";
import type { ApiContext } from "../kit/types";
import type { ZoneAnswer, ZoneApiFailure } from "../kit/zone-section";
import { catalogEntry } from "../../errors/catalog";
import { logEvent } from "../../shared/log";
import { err, ok, type Result } from "../../shared/result";
import * as z from "zod/mini";
import { described, fields, int, later, parseWith } from "../../shared/schema";
import { IssueList } from "../../shared/validation";
import { formatOf, type AnsweredBy, type ErrorRecord, type ServedFormat } from "../../state/analytics/record";
import { decodeDetail, type AcceptFamily, type AddressClass } from "../../state/analytics/request-detail";
import { RETENTION } from "../../state/analytics/schema";
import { shardNames, storedShardPlan, type ShardPlan } from "../../state/analytics/shards";
import type { ZoneAnalytics } from "../../state/analytics/zone-analytics";
import { assetsOf } from "../../edge/custom-errors/apply";
import { admitReplay } from "../explain/bound";
import { draftedZone } from "./drafted-zone";
import { DRAFT } from "./draft";
import { storedRuleset } from "../../state/zone/rulesets/stored";
import type { StoredRule } from "../../state/zone/rulesets/validate";
import type { CompiledCustomErrors } from "../../edge/custom-errors/compiled";
import { overBudget, respond, type DescribedRequest, type ExplainSetup } from "../explain/explain";
import { inTurn, MANAGEMENT_BUDGET, pacedBodyBytes, Turns } from "../explain/turns";
import { RuleRecorder } from "../explain/trace";

export const REPLAY_LIMITS = {
  /** Recorded errors one replay evaluates at most: the newest of the window. */
  records: 1000,
  /** Sample Ray IDs per change and per rule, at most. */
  samples: 10,
  defaultSamples: 3,
} as const;

/**
 * The `Accept` a replay sends for each family: each negotiates the representation the recorded request did
 * (docs/negotiation.md); `none` sends none.
 */
const ACCEPT_OF: Readonly<Record<AcceptFamily, string | null>> = {
  html: "text/html",
  json: "application/json",
  "problem+json": "application/problem+json",
  markdown: "text/markdown",
  mcp: "application/json, text/event-stream",
  other: "application/octet-stream",
  none: null,
};

/** An address of each class, from the documentation ranges (RFC 5737, RFC 3849) and RFC 1918. */
const ADDRESS_OF: Readonly<Record<AddressClass, string | null>> = {
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  private: "10.0.0.1",
  none: null,
};

/** The media type sent for an origin's recorded format (`other`: none). */
const MEDIA_OF: Readonly<Record<ServedFormat, string | null>> = {
  json: "application/json",
  "problem+json": "application/problem+json",
  markdown: "text/markdown",
  html: "text/html",
  text: "text/plain",
  xml: "application/xml",
  grpc: "application/grpc",
  other: null,
};

/**
 * The fields a replay rebuilds exactly from a record. A rule reading any other field (a header besides `Accept`,
 * the query, the client address, the user agent, the origin's headers…) is evaluated on the rebuilt request and
 * listed with `reads_unrecorded`: its replayed outcome may differ from what traffic would get.
 */
const RECORDED_FIELDS = new Set([
  "http.host",
  "http.request.method",
  "http.request.uri.path",
  "ip.src.country",
  "http.response.code",
  "edge.response.1xxx_code",
  "edge.response.error_type",
  "true",
]);

interface Window {
  readonly since: number;
  readonly until: number;
  readonly limit: number;
}

interface ReplayBody {
  readonly draft: Readonly<Record<string, unknown>> | null;
  readonly window: Window;
  readonly samples: number;
}

/** Who answered and how: the pair a replay compares. */
interface AnswerKey {
  readonly answered_by: AnsweredBy;
  readonly answer_id: string | null;
  readonly status: number;
  readonly format: ServedFormat;
}

interface Change {
  readonly before: AnswerKey;
  readonly after: AnswerKey;
  count: number;
  readonly codes: Set<number>;
  readonly sample_rays: string[];
}

interface RuleTally {
  before: number;
  after: number;
  gained: number;
  lost: number;
  readonly gained_rays: string[];
  readonly lost_rays: string[];
}

export async function replay(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  // Bounded per token and zone before the body is read (bound.ts).
  const admission = admitReplay(c.principal, zone);
  if (admission.kind === "limited")
    return err({ kind: "replay-limited", why: admission.why, retryAfter: admission.retryAfter });
  try {
    return await runReplay(c, zone);
  } finally {
    admission.release();
  }
}

async function runReplay(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  // Read first, then decoded, parsed and validated in a turn, as the draft preview's body is (routes.ts).
  const bytes = await pacedBodyBytes(c.request);
  if (!bytes.ok) return err({ kind: "body", failure: bytes.error });
  const input = await inTurn((): Result<ReplayBody, ZoneApiFailure> => {
    const text = bodyText(bytes.value);
    if (!text.ok) return err({ kind: "body", failure: text.error });
    const body = parseJsonText(text.value);
    return body.ok ? parseReplayBody(body.value, Date.now()) : err({ kind: "body", failure: body.error });
  });
  if (!input.ok) return input;
  const drafted = await draftedZone(c, zone, input.value.draft);
  if (!drafted.ok) return drafted;
  const { current, compiled, custom, stored, pages, linted } = drafted.value;
  const turns = new Turns();
  const setup: ExplainSetup = {
    zone,
    turns,
    compiled: custom,
    stored,
    pages,
    assets: assetsOf(compiled.customErrors, c.env.CONFIG),
    settings: c.settings,
    invocation: c.ctx,
    // As traffic answers (docs/errors.md "Retry-hint profiles").
    retryHints: compiled.retryHints,
    readTimeout: compiled.readTimeout,
    languages: compiled.languages,
    // One summary line below, not one per record: none of them failed (docs/configuration.md "Events").
    quiet: true,
  };
  const { window, samples } = input.value;
  const plan = storedShardPlan(current.document);
  if (!plan.ok) return err({ kind: "corrupt", cause: plan.error });
  const records = await windowRecords(c.env.ZONE_ANALYTICS, zone, plan.value, window);
  const report = await evaluate(records, setup, samples).finally(() => turns.close());
  logEvent("preview_replay", {
    zone,
    draft: input.value.draft !== null,
    records: report.totals.records,
    replayed: report.totals.replayed,
    changed: report.totals.changed,
    truncated: report.totals.truncated,
    units: report.units,
  });
  const savedRules = storedRuleset(current.document, "http_custom_errors")?.rules ?? [];
  // The rule linter's warnings about the configuration replayed (the draft on the saved zone), docs/lint.md, as
  // the draft preview gives them.
  const messages = await lintMessages(c.env, zone, linted, inTurn);
  // Written in a turn, as the draft preview's answer is (routes.ts).
  return ok(
    await inTurn(() =>
      apiSuccess(
        {
          zone,
          version: current.version,
          draft: input.value.draft !== null,
          window: {
            since: new Date(window.since).toISOString(),
            until: new Date(window.until).toISOString(),
            limit: window.limit,
          },
          ...report.totals,
          changes: report.changes,
          rules: ruleReport(report.rules, stored, savedRules, custom),
          cost: {
            units: report.units,
            budget: MANAGEMENT_BUDGET.replayUnits,
            budget_per_record: MANAGEMENT_BUDGET.runUnits,
          },
        },
        { messages },
      ),
    ),
  );
}

/**
 * The newest records of the window over every shard of the zone (docs/analytics.md "Shards"): each shard's newest
 * `limit`, merged newest first and cut to `limit`, so at most shards × limit records cross the RPCs.
 */
async function windowRecords(
  ns: DurableObjectNamespace<ZoneAnalytics>,
  zone: string,
  plan: ShardPlan,
  window: Window,
): Promise<ErrorRecord[]> {
  const now = Date.now();
  const parts = await Promise.all(
    shardNames(zone, plan, now).map((name) =>
      ns.get(ns.idFromName(name)).recordsBetween(window.since, window.until, window.limit, now),
    ),
  );
  return parts
    .flat()
    .sort((a, b) => b.at - a.at)
    .slice(0, window.limit);
}

interface Evaluated {
  readonly totals: {
    readonly records: number;
    readonly replayed: number;
    readonly unchanged: number;
    readonly changed: number;
    readonly not_replayable: { readonly count: number; readonly reasons: Record<string, number> };
    /** Records of the window not evaluated: the replay's budget was spent before them. */
    readonly not_reached: number;
    /** Some records were not evaluated (`not_reached`, or one needed more than a run's budget). */
    readonly truncated: boolean;
  };
  readonly changes: readonly (Omit<Change, "codes"> & { readonly codes: readonly number[] })[];
  readonly rules: ReadonlyMap<string, RuleTally>;
  readonly units: number;
}

/** Each record rebuilt and answered once, then compared with what it got. */
export async function evaluate(
  records: readonly ErrorRecord[],
  setup: ExplainSetup,
  samples: number,
): Promise<Evaluated> {
  const changes = new Map<string, Change>();
  const rules = new Map<string, RuleTally>();
  const reasons: Record<string, number> = {};
  let replayed = 0;
  let unchanged = 0;
  let units = 0;
  let notReached = 0;
  let cut = 0;
  const tally = (id: string): RuleTally => {
    let t = rules.get(id);
    if (t === undefined) {
      t = { before: 0, after: 0, gained: 0, lost: 0, gained_rays: [], lost_rays: [] };
      rules.set(id, t);
    }
    return t;
  };
  for (const [index, record] of records.entries()) {
    const described = describedOf(record, setup.zone);
    if (typeof described === "string") {
      reasons[described] = (reasons[described] ?? 0) + 1;
      continue;
    }
    // What is left of the replay's budget (turns.ts): each record gets a run's budget, the last ones what is left.
    const left = MANAGEMENT_BUDGET.replayUnits - units;
    if (left <= 0) {
      notReached = records.length - index;
      break;
    }
    const runUnits = Math.min(MANAGEMENT_BUDGET.runUnits, left);
    const recorder = new RuleRecorder();
    const answered = await setup.turns.run(async () => {
      const value = await respond(described, undefined, { ...setup, runUnits }, recorder);
      await value.response.body?.cancel();
      return { value, units: recorder.units };
    });
    units += recorder.units;
    if (overBudget(recorder)) {
      // Stopped for want of units: not what traffic (whose budget is larger) would answer, so not compared.
      if (runUnits < MANAGEMENT_BUDGET.runUnits) {
        notReached = records.length - index;
        break;
      }
      cut += 1;
      continue;
    }
    const by = answered.answer;
    const after: AnswerKey = {
      answered_by:
        by === undefined || by.kind === "default"
          ? answered.error.kind === "origin-response"
            ? "origin"
            : "default"
          : by.kind,
      answer_id: by !== undefined && by.kind !== "default" ? by.id : null,
      status: answered.response.status,
      format: by?.kind === "default" ? by.format : formatOf(answered.response.headers.get("Content-Type")),
    };
    const before: AnswerKey = {
      answered_by: record.answered_by,
      answer_id: record.answer_id,
      status: record.status,
      format: record.format,
    };
    replayed += 1;
    const wasRule = before.answered_by === "rule" ? before.answer_id : null;
    const isRule = after.answered_by === "rule" ? after.answer_id : null;
    if (wasRule !== null) tally(wasRule).before += 1;
    if (isRule !== null) tally(isRule).after += 1;
    if (wasRule !== isRule) {
      if (isRule !== null) {
        const t = tally(isRule);
        t.gained += 1;
        if (t.gained_rays.length < samples) t.gained_rays.push(record.ray);
      }
      if (wasRule !== null) {
        const t = tally(wasRule);
        t.lost += 1;
        if (t.lost_rays.length < samples) t.lost_rays.push(record.ray);
      }
    }
    const key = `${keyOf(before)} → ${keyOf(after)}`;
    if (keyOf(before) === keyOf(after)) {
      unchanged += 1;
      continue;
    }
    let change = changes.get(key);
    if (change === undefined) {
      change = { before, after, count: 0, codes: new Set(), sample_rays: [] };
      changes.set(key, change);
    }
    change.count += 1;
    change.codes.add(record.code);
    if (change.sample_rays.length < samples) change.sample_rays.push(record.ray);
  }
  if (cut > 0) reasons[OVER_RUN_BUDGET] = cut;
  const notReplayable = records.length - replayed - notReached;
  return {
    totals: {
      records: records.length,
      replayed,
      unchanged,
      changed: replayed - unchanged,
      not_replayable: { count: notReplayable, reasons },
      not_reached: notReached,
      truncated: notReached > 0 || cut > 0,
    },
    changes: [...changes.values()]
      .sort((a, b) => b.count - a.count)
      .map((c) => ({ ...c, codes: [...c.codes].sort((x, y) => x - y) })),
    rules,
    units,
  };
}

/** The reason of a record whose evaluation needed more than a run's budget (turns.ts). */
export const OVER_RUN_BUDGET = `its rules needed more than a replayed record's budget (${MANAGEMENT_BUDGET.runUnits} units)`;

const keyOf = (a: AnswerKey): string => `${a.answered_by}:${a.answer_id ?? ""}:${a.status}:${a.format}`;

/**
 * The request a record stands for: its method, the zone's URL with its path, the `Accept` of its family, an address
 * of its class, its country, and its error (the catalog code, or the origin's status with its format); or why it
 * cannot be rebuilt.
 */
export function describedOf(record: ErrorRecord, zone: string): DescribedRequest | string {
  const detail = decodeDetail(record.detail);
  if (detail === null) return "recorded before the request detail was kept";
  let url: URL;
  try {
    url = new URL(`https://${zone}${record.path}`);
    // A method the Fetch standard forbids (CONNECT, TRACE, TRACK) cannot be rebuilt as a Request.
    new Request(url, { method: record.method });
  } catch {
    return "its method or path cannot be rebuilt as a request";
  }
  const accept = ACCEPT_OF[detail.accept];
  const base = {
    method: record.method,
    url,
    headers: accept === null ? [] : [["Accept", accept] as const],
    clientIp: ADDRESS_OF[detail.client],
    country: record.country,
  };
  if (record.source === "origin") {
    if (detail.origin.kind !== "responded") return "its origin response was not recorded";
    const media = MEDIA_OF[detail.origin.format];
    const headers = media === null ? [] : [["Content-Type", media] as const];
    return { ...base, error: { kind: "origin-response", status: record.code, headers, body: "" } };
  }
  if (catalogEntry(record.code) === undefined) return "its code is not in the catalog";
  return { ...base, error: { kind: "code", code: record.code } };
}

/** Per rule of the draft (in its order), then the saved rules the draft drops: counts, samples, unrecorded fields. */
function ruleReport(
  tallies: ReadonlyMap<string, RuleTally>,
  draft: readonly StoredRule[],
  saved: readonly StoredRule[],
  compiled: CompiledCustomErrors,
): unknown[] {
  const fields = new Map(compiled.rules.rules.map((entry) => [entry.id, entry.rule.fields]));
  const empty: RuleTally = { before: 0, after: 0, gained: 0, lost: 0, gained_rays: [], lost_rays: [] };
  const row = (rule: StoredRule, index: number | null) => {
    const t = tallies.get(rule.id) ?? empty;
    const unrecorded = (fields.get(rule.id) ?? []).filter((f) => !RECORDED_FIELDS.has(f));
    return {
      id: rule.id,
      index,
      description: rule.description,
      enabled: rule.enabled,
      before: t.before,
      after: t.after,
      gained: t.gained,
      lost: t.lost,
      sample_rays: { gained: t.gained_rays, lost: t.lost_rays },
      reads_unrecorded: unrecorded,
    };
  };
  const inDraft = new Set(draft.map((r) => r.id));
  return [
    ...draft.map((rule, index) => row(rule, index)),
    ...saved.filter((rule) => !inDraft.has(rule.id)).map((rule) => row(rule, null)),
  ];
}

const TIME_RULE = "must be an RFC 3339 time or epoch seconds";

/** A time as sent: epoch seconds or an RFC 3339 string, in ms (NaN when it names no time). */
const msOf = (time: number | string): number => (typeof time === "number" ? time * 1000 : Date.parse(time));

const time = (description: string) =>
  z.optional(
    described(
      z
        // `abort`: a string not shaped as a time is one refusal, not that and the unparsable time check below.
        .union([z.number(), z.string().check(z.regex(/^\d{4}-\d\d-\d\dT/, { error: TIME_RULE, abort: true }))], {
          error: TIME_RULE,
        })
        .check(z.refine((t) => !Number.isNaN(msOf(t)), { error: TIME_RULE })),
      description,
    ),
  );

/** `POST /zones/{zone}/preview/replay`: `{draft?, window?: {since?, until?, limit?}, samples?}`. */
const REPLAY_BODY = later(
  () =>
    fields(
      {
        draft: z.optional(DRAFT()),
        window: z._default(
          fields(
            {
              since: time("RFC 3339 or epoch seconds; default: 7 days ago"),
              until: time("RFC 3339 or epoch seconds; default: now"),
              limit: z._default(
                described(int(1, REPLAY_LIMITS.records), "The newest recorded errors of the window replayed, at most"),
                REPLAY_LIMITS.records,
              ),
            },
            "is not a window field",
            "must be an object {since?, until?, limit?}",
          ),
          { limit: REPLAY_LIMITS.records },
        ),
        samples: z._default(
          described(int(0, REPLAY_LIMITS.samples), "Sample Ray IDs per change and per rule"),
          REPLAY_LIMITS.defaultSamples,
        ),
      },
      "is not a replay field",
      "must be a JSON object {draft?, window?, samples?}",
    ),
  {
    id: "ReplayBody",
    example: {
      draft: {
        rules: [
          {
            expression: 'starts_with(http.request.uri.path, "/api/") and http.response.code ge 500',
            action: "serve_error",
            action_parameters: { content: '{"error":"upstream"}', content_type: "application/json" },
          },
        ],
      },
      window: { since: "2026-11-26T00:00:00Z", limit: 1000 },
      samples: 3,
    },
  },
);

/**
 * The body (code 20091, each refusal naming its field); then the window against retention, which needs the clock:
 * a `since` before retention's start is that start.
 */
export function parseReplayBody(body: unknown, now: number): Result<ReplayBody, ZoneApiFailure> {
  const parsed = parseWith(REPLAY_BODY, body, { root: "body" });
  if (!parsed.ok) return err({ kind: "invalid-replay", issues: parsed.error });
  const { draft, window, samples } = parsed.value;
  const oldest = now - RETENTION.eventsMs;
  const since = Math.max(window.since === undefined ? oldest : msOf(window.since), oldest);
  const until = window.until === undefined ? now : msOf(window.until);
  if (until <= since) {
    const issues = new IssueList();
    issues.add("out-of-range", "window.until", "must be after since (and after retention's start, 7 days ago)");
    return err({ kind: "invalid-replay", issues: issues.issues });
  }
  return ok({ draft: draft ?? null, window: { since, until, limit: window.limit }, samples });
}
