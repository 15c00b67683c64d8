/**
 * The tools over recorded errors (docs/mcp.md, docs/analytics.md): `explain_error` (the Ray lookup,
 * `GET /zones/{zone}/errors/{ray}`, with the catalog's reference entry and what to do), `top_errors` and
 * `error_rate` (both `GET /zones/{zone}/analytics/errors`, the counts the analytics API answers).
 */
import { catalogEntry } from "../../errors/catalog";
import { typeUri } from "../../errors/pipeline";
import { typicalReach, type ReachedOrigin } from "../../errors/reached-origin";
import { referenceEntry } from "../../errors/reference";
import { DIMENSIONS } from "../../state/analytics/query";
import * as z from "zod/mini";
import { envelopeOf, segment } from "./route-call";
import {
  defineTool,
  done,
  failed,
  refusal,
  sinceArgument,
  sinceParameter,
  zoneArgument,
  type ToolContext,
} from "./tool";

interface Phase {
  readonly phase: string;
  readonly outcome: string;
  readonly rule_id?: string;
  readonly page_id?: string;
  readonly failure?: string;
  readonly status?: number;
}

interface Occurrence {
  readonly ray: string;
  readonly time: string;
  readonly code: number;
  readonly status: number;
  readonly source: string;
  readonly answered_by: string;
  readonly answer_id: string | null;
  readonly method: string;
  readonly path: string;
  readonly cause: string | null;
  readonly phases: readonly Phase[];
}

const phaseSchema = () => z.looseObject({ phase: z.string(), outcome: z.string() });

const explainOutput = () =>
  z.looseObject({
    zone: z.string(),
    ray_id: z.string(),
    time: z.string(),
    error_code: z.number(),
    status: z.number(),
    source: z.string(),
    request: z.looseObject({ method: z.string(), path: z.string() }),
    request_reached_origin: z.nullable(z.boolean()),
    answered: z.looseObject({ phase: z.string() }),
    blocked_by: z.nullable(z.looseObject({ phase: z.string() })),
    phases: z.array(phaseSchema()),
    reference: z.nullable(z.looseObject({ error_code: z.number(), title: z.string(), what_you_should_do: z.string() })),
    what_to_do: z.array(z.string()),
  });

/** Whether the origin saw the request: what the record's origin phase says, else the code's usual value. */
function reachedOrigin(o: Occurrence): ReachedOrigin {
  const origin = o.phases.find((p) => p.phase === "origin");
  if (origin?.outcome === "responded") return true;
  if (origin?.outcome === "not-reached") return false;
  const entry = catalogEntry(o.code);
  return entry ? typicalReach(entry) : null;
}

/** The phase that shaped the answer: a custom error rule, a custom page, the origin's own response, or the default. */
function answeredBy(o: Occurrence): { readonly phase: string } & Record<string, unknown> {
  switch (o.answered_by) {
    case "rule":
      return { phase: "custom_error_rules", rule_id: o.answer_id };
    case "page":
      return { phase: "custom_page", page_id: o.answer_id };
    case "origin":
      return { phase: "origin", status: o.status };
    default:
      return { phase: "default" };
  }
}

function whatToDo(o: Occurrence, zone: string, blocked: Phase | undefined, reached: ReachedOrigin): string[] {
  const steps: string[] = [];
  if (blocked !== undefined) {
    const rule = blocked.rule_id === undefined ? "a rule" : `rule ${blocked.rule_id}`;
    steps.push(
      `The ${blocked.phase} phase blocked this request with ${rule}: if the request should have passed, edit or disable that rule (lint_rules and replay_draft show what a change would do).`,
    );
  }
  const origin = o.phases.find((p) => p.phase === "origin");
  if (origin?.outcome === "failed") {
    const entry = catalogEntry(o.code);
    steps.push(
      `The origin of ${zone} failed (${origin.failure ?? "error"}${reached === false ? ", the request never reached it" : ""}): ${entry?.detail ?? o.cause ?? ""}`.trim(),
    );
    steps.push(
      "Check that the origin is up and accepts connections from the edge, then watch error_rate for this zone.",
    );
  } else if (o.source === "origin") {
    steps.push(`The origin itself answered ${o.status}: look in its logs for ${o.method} ${o.path} near ${o.time}.`);
  }
  if (o.answered_by === "rule" && o.answer_id !== null)
    steps.push(`Custom error rule ${o.answer_id} shaped what the visitor got; preview_error shows it for any code.`);
  return steps;
}

export const explainError = defineTool(() => ({
  name: "explain_error",
  title: "Explain an error by its Ray ID",
  description:
    "What happened to one request that got an error: the recorded occurrence of a Ray ID (time, code, request), which phase and rule answered or blocked it, whether the request reached the origin, the error's reference entry and what to do. USE THIS WHEN a user or a log gives you a Ray ID (16 hex characters, the Ray-ID header or ray_id field of an error). DO NOT USE for counts over time (top_errors, error_rate).",
  input: z.strictObject({
    zone: zoneArgument(),
    ray_id: z
      .string()
      .check(z.minLength(1), z.maxLength(64), z.describe("The Ray ID of the error: 16 lower-case hex characters.")),
  }),
  output: explainOutput(),
  run: async ({ zone, ray_id }, t) => {
    const answer = await envelopeOf(
      await t.call({ method: "GET", path: `/zones/${segment(zone)}/errors/${segment(ray_id)}` }),
    );
    if (!answer.ok) return failed(refusal("explain_error", answer.error, `zone ${zone}`));
    const o = answer.value.result as Occurrence;
    const entry = catalogEntry(o.code);
    const reached = reachedOrigin(o);
    const blocked = o.phases.find((p) => p.outcome === "blocked");
    const structured = {
      zone,
      ray_id: o.ray,
      time: o.time,
      error_code: o.code,
      status: o.status,
      source: o.source,
      title: entry?.title ?? null,
      error_name: entry?.errorName ?? null,
      cause: o.cause,
      request: { method: o.method, path: o.path },
      request_reached_origin: reached,
      answered: answeredBy(o),
      blocked_by: blocked ?? null,
      phases: o.phases,
      reference: entry ? referenceEntry(entry, typeUri(entry.code, `https://${zone}/`, t.settings)) : null,
      what_to_do: whatToDo(o, zone, blocked, reached),
      record: o,
    };
    const title = entry ? `${o.code} ${entry.title}` : `origin status ${o.code}`;
    return done(
      structured,
      `Ray ${o.ray} on ${zone} at ${o.time}: ${title} for ${o.method} ${o.path}; answered by ${structured.answered.phase}; ` +
        `request reached origin: ${reached === null ? "unknown" : String(reached)}.`,
    );
  },
}));

const dimension = () => z.enum(DIMENSIONS);

interface Counts {
  readonly since: string;
  readonly until: string;
  readonly step: string;
  readonly total: number;
  readonly requests: number;
  readonly error_rate: number | null;
  readonly dropped: number;
  readonly timestamps: readonly string[];
  readonly requests_series: readonly number[];
  readonly series: readonly {
    group: Record<string, unknown>;
    counts: readonly number[];
    total: number;
    rate: number | null;
  }[];
  readonly top_paths: readonly unknown[];
}

async function counts(
  tool: string,
  t: ToolContext,
  zone: string,
  query: Record<string, string | undefined>,
): Promise<{ ok: true; counts: Counts } | { ok: false; sentence: string }> {
  const answer = await envelopeOf(
    await t.call({ method: "GET", path: `/zones/${segment(zone)}/analytics/errors`, query }),
  );
  if (!answer.ok) return { ok: false, sentence: refusal(tool, answer.error, `zone ${zone}`) };
  return { ok: true, counts: answer.value.result as Counts };
}

const TOP = 10;

export const topErrors = defineTool(() => ({
  name: "top_errors",
  title: "Top errors of a zone",
  description:
    "The errors a zone served most over a window, grouped by code (default), source (edge or origin), answered_by (rule, page, default, origin) or format, with each group's count and share of the requests, and the paths with most errors. USE THIS WHEN asked what is failing on a zone, or which rule or origin the errors come from. The counts are exactly GET /zones/{zone}/analytics/errors.",
  input: z.strictObject({
    zone: zoneArgument(),
    since: sinceArgument(),
    group_by: z.optional(dimension().check(z.describe("How to group the errors; default code."))),
  }),
  output: z.looseObject({
    zone: z.string(),
    since: z.string(),
    until: z.string(),
    group_by: z.string(),
    total: z.number(),
    requests: z.number(),
    error_rate: z.nullable(z.number()),
    top: z.array(
      z.looseObject({ group: z.record(z.string(), z.unknown()), count: z.number(), rate: z.nullable(z.number()) }),
    ),
  }),
  run: async ({ zone, since, group_by }, t) => {
    const by = group_by ?? "code";
    const got = await counts("top_errors", t, zone, { since: sinceParameter(since, t.now), group_by: by });
    if (!got.ok) return failed(got.sentence);
    const c = got.counts;
    const top = c.series.slice(0, TOP).map((s) => ({ group: s.group, count: s.total, rate: s.rate }));
    const structured = {
      zone,
      since: c.since,
      until: c.until,
      group_by: by,
      total: c.total,
      requests: c.requests,
      error_rate: c.error_rate,
      top,
      top_paths: c.top_paths,
    };
    const lead = top.map((s) => `${Object.values(s.group).join("/")}: ${s.count}`).join(", ");
    return done(
      structured,
      `${zone}, ${c.since} to ${c.until}: ${c.total} errors in ${c.requests} requests${lead ? ` (${lead})` : ""}.`,
    );
  },
}));

export const errorRate = defineTool(() => ({
  name: "error_rate",
  title: "Error rate of a zone",
  description:
    "A zone's errors per request over a window: the overall rate, one point per minute (windows up to 6 hours) or hour, and, with `by`, the rate of each group (code, source, answered_by or format). USE THIS WHEN asked whether a zone is healthy, whether errors are rising, or to watch a fix take effect.",
  input: z.strictObject({
    zone: zoneArgument(),
    since: sinceArgument(),
    by: z.optional(dimension().check(z.describe("Split the rate by this dimension."))),
  }),
  output: z.looseObject({
    zone: z.string(),
    since: z.string(),
    until: z.string(),
    step: z.string(),
    errors: z.number(),
    requests: z.number(),
    error_rate: z.nullable(z.number()),
    points: z.array(
      z.looseObject({ time: z.string(), errors: z.number(), requests: z.number(), rate: z.nullable(z.number()) }),
    ),
  }),
  run: async ({ zone, since, by }, t) => {
    const got = await counts("error_rate", t, zone, { since: sinceParameter(since, t.now), group_by: by });
    if (!got.ok) return failed(got.sentence);
    const c = got.counts;
    const errorsAt = c.timestamps.map((_, i) => c.series.reduce((sum, s) => sum + (s.counts[i] ?? 0), 0));
    const points = c.timestamps.map((time, i) => {
      const requests = c.requests_series[i] ?? 0;
      const errors = errorsAt[i] ?? 0;
      return { time, errors, requests, rate: requests === 0 ? null : Math.round((errors / requests) * 1e6) / 1e6 };
    });
    const structured: Record<string, unknown> = {
      zone,
      since: c.since,
      until: c.until,
      step: c.step,
      errors: c.total,
      requests: c.requests,
      error_rate: c.error_rate,
      dropped: c.dropped,
      points,
    };
    if (by !== undefined) structured.by = c.series.map((s) => ({ group: s.group, errors: s.total, rate: s.rate }));
    const rate = c.error_rate === null ? "no requests counted" : `${(c.error_rate * 100).toFixed(2)}%`;
    return done(
      structured,
      `${zone}, ${c.since} to ${c.until}: ${c.total} errors in ${c.requests} requests (${rate}).`,
    );
  },
}));
