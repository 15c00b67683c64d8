/**
 * The published request simulator, `POST /accounts/{account_id}/request-tracer/trace` (docs/custom-errors.md
 * "Request tracer"; the published API: https://developers.cloudflare.com/api/resources/request_tracers/): a described request
 * in the published `TraceCreateParams` shape → `{status_code, trace}` in `TraceCreateResponse`'s, every phase this
 * service runs on zone traffic a `TraceItem`:
 *
 *   url_normalization → ip_access → http_request_firewall_custom → http_ratelimit → origin → http_custom_errors →
 *   custom page → default
 *
 * The request goes through the draft preview's engine (explain.ts, request-phases.ts), which runs the edge's own
 * code on the zone's saved, compiled configuration. The zone is the URL's host, and must belong to the account in
 * the path (the zone object's `account.id`; any other zone, configured or not, is 404 alike, so a trace cannot tell
 * whether another account's zone exists); the token's account scope is checked by the mount, its zone scope here.
 * Rate-limiting rules are evaluated, never counted. The origin is not contacted unless asked: `origin` (this
 * service's addition) describes what it did (`{status, headers?, body?}` or `{failure}`), or `{contact: true}` sends
 * the request to it for real (as traffic would, its answer classified by the proxy's own code); absent, the trace
 * ends before the origin when nothing blocked it, with no `status_code`. Bounded like the draft preview (bound.ts).
 */
import { apiFailureResponse, apiSuccess, failureOf, type ApiFailure } from "../kit/envelope";
import type { ApiContext } from "../kit/types";
import { zoneApiFailure, type ZoneAnswer } from "../kit/zone-section";
import { zoneInScope } from "../kit/auth";
import { causeOf, err, ok } from "../../shared/result";
import { textPrefix } from "../../shared/text-prefix";
import { RuleUrl } from "../../shared/rule-url";
import { readJsonBody } from "../kit/body";
import { lookupZone } from "../../state/zone/cache";
import { zoneAccountId, type Zone } from "../../state/zone/schema";
import { storedRuleset } from "../../state/zone/rulesets/stored";
import { pageClassOf } from "../../state/zone/custom-pages/validate";
import { compiledOf, type CompiledZone } from "../../edge/compiled-zone";
import { assetsOf } from "../../edge/custom-errors/apply";
import { pageHtml } from "../../edge/custom-errors/page-cache";
import { forwardToOrigin } from "../../edge/origin/forward";
import { connectorFor } from "../../edge/origin/connector";
import { scanRequestHeaders } from "../../edge/origin/headers";
import { checkRateLimit } from "../../edge/request-phases/rate-limit/check";
import { requestContext } from "../../rules/rule-list";
import { admitPreview, PREVIEW_BOUNDS } from "../explain/bound";
import { REQUEST_LIMITS } from "../explain/described";
import { parseTraceBody, type TraceRequest } from "./trace-body";
import {
  explain,
  requestOf,
  phasesOverBudget,
  tracedPhases,
  type DescribedError,
  type DescribedRequest,
  type Explanation,
} from "../explain/explain";
import { requestPhasesOf, type RequestPhasesExplained } from "../explain/request-phases";
import { Turns } from "../explain/turns";
import type { RuleTrace } from "../explain/trace";

/** The kinds of a trace's items (the type and the document's enum). */
export const TRACE_ITEM_TYPES = ["phase", "ruleset", "rule", "origin", "page", "default"] as const;

/** The published `TraceItem` (cloudflare SDK `requestTracers.traces`), with this service's `outcome` and `reason`. */
export interface TraceItem {
  readonly step_name: string;
  readonly type: (typeof TRACE_ITEM_TYPES)[number];
  readonly matched: boolean;
  readonly expression?: string;
  readonly action?: string;
  readonly action_parameters?: unknown;
  readonly description?: string;
  readonly kind?: string;
  readonly name?: string;
  readonly outcome?: string;
  readonly reason?: string;
  readonly trace?: readonly TraceItem[];
}

/** The permission `origin.contact` needs besides the tracer's own `zones:read` (403, code 10001). */
const CONTACT_FORBIDDEN: ApiFailure = failureOf(
  "forbidden",
  'Authorization error: origin {"contact": true} needs the zones:write permission',
);

/** `POST /accounts/{account_id}/request-tracer/trace`. */
export async function traceRequest(c: ApiContext): Promise<Response> {
  const account = c.params.account ?? "";
  const body = await readJsonBody(c.request);
  if (!body.ok) return apiFailureResponse(body.error);
  const parsed = parseTraceBody(body.value);
  if (!parsed.ok) return apiFailureResponse(zoneApiFailure(parsed.error, ""));
  const { zone } = parsed.value;
  // The token's zone scope (its account scope was checked by the mount on the path's account).
  if (!zoneInScope(c.principal, zone, account)) return apiFailureResponse(zoneApiFailure({ kind: "not-found" }, zone));
  // Contacting the origin sends a real request on the zone's behalf (docs/custom-errors.md "Request tracer"): it
  // needs the permission that may change what the zone does, not only the one that reads it.
  if (parsed.value.origin.kind === "contact" && !c.principal.permissions.has("zones:write"))
    return apiFailureResponse(CONTACT_FORBIDDEN);
  // Bounded per token and zone like the draft preview: the same work, the same allowance.
  const admission = admitPreview(c.principal, zone);
  if (admission.kind === "limited")
    return apiFailureResponse(
      zoneApiFailure(
        { kind: "preview-limited", why: admission.why, retryAfter: admission.retryAfter, bounds: PREVIEW_BOUNDS },
        zone,
      ),
    );
  try {
    const answer = await runTrace(c, account, parsed.value);
    return answer.ok ? answer.value : apiFailureResponse(zoneApiFailure(answer.error, zone));
  } finally {
    admission.release();
  }
}

async function runTrace(c: ApiContext, account: string, input: TraceRequest): Promise<ZoneAnswer> {
  const { zone } = input;
  const read = await lookupZone(c.env.CONFIG, zone).catch((e: unknown) =>
    err({ kind: "unavailable" as const, cause: `CONFIG unavailable: ${causeOf(e)}` }),
  );
  if (!read.ok) return read;
  // Another account's zone answers as one not configured: the trace reveals nothing of it.
  if (read.value === null || zoneAccountId(read.value.settings) !== account) return err({ kind: "not-found" });
  const current = read.value;
  // Every run of the trace takes its turn with traffic (turns.ts); closed whatever happens.
  const turns = new Turns();
  try {
    return await tracedRun(c, input, current, turns);
  } finally {
    turns.close();
  }
}

async function tracedRun(c: ApiContext, input: TraceRequest, current: Zone, turns: Turns): Promise<ZoneAnswer> {
  const { zone } = input;
  const compiled = compiledOf(current);
  const saved = compiled.customErrors;
  const setup = {
    zone,
    turns,
    compiled: saved,
    stored: storedRuleset(current.document, "http_custom_errors")?.rules ?? [],
    pages: (id: Parameters<typeof pageHtml>[2]) => pageHtml(c.env.CONFIG, saved, id),
    assets: assetsOf(saved, c.env.CONFIG),
    settings: c.settings,
    invocation: c.ctx,
    retryHints: compiled.retryHints,
    readTimeout: compiled.readTimeout,
    languages: compiled.languages,
    requestPhases: requestPhasesOf(compiled, current.document),
  };
  const probe: DescribedRequest = { ...input.described, error: { kind: "code", code: 500 } };
  const ruleUrl = new RuleUrl(probe.url, zone, compiled.normalization);
  const phases = await tracedPhases(probe, setup.requestPhases, setup, compiled.normalization);
  let origin: OriginItem;
  let explained: Explanation | null = null;
  // Only a request that goes on to be sent to the origin is counted (originOf).
  const counted = phases.blocked === null && input.origin.kind === "contact";
  if (phases.blocked !== null) {
    origin = { matched: false, description: "not reached: a request phase blocked the request" };
    explained = await explain(probe, setup, phases);
  } else {
    const reached = await originOf(c, input, current, compiled, ruleUrl);
    origin = reached.item;
    if (reached.error !== null) explained = await explain({ ...probe, error: reached.error }, setup, phases);
    else if (reached.status !== null) {
      const trace = traceItems(ruleUrl, phases, origin, null, { compiled: setup.compiled, counted });
      return ok(apiSuccess({ status_code: reached.status, trace, ...truncatedIf(phasesOverBudget(phases)) }));
    }
  }
  const statusCode = explained?.response.status;
  const trace = traceItems(ruleUrl, phases, origin, explained, { compiled: setup.compiled, counted });
  // This service's addition: a run needed more than a management run's budget (turns.ts), so the trace stops there.
  const truncated = truncatedIf(explained?.truncated ?? phasesOverBudget(phases));
  return ok(
    apiSuccess(statusCode === undefined ? { trace, ...truncated } : { status_code: statusCode, trace, ...truncated }),
  );
}

const truncatedIf = (truncated: boolean): { truncated?: true } => (truncated ? { truncated: true } : {});

interface OriginItem {
  readonly matched: boolean;
  readonly description: string;
}

/** What the origin did: described, contacted for real (the edge's forwarder), or not contacted. */
async function originOf(
  c: ApiContext,
  input: TraceRequest,
  zone: Zone,
  compiled: CompiledZone,
  ruleUrl: RuleUrl,
): Promise<{ readonly item: OriginItem; readonly error: DescribedError | null; readonly status: number | null }> {
  const part = input.origin;
  if (part.kind === "not-contacted")
    return {
      item: {
        matched: false,
        description: 'not contacted (give "origin": {"contact": true} to send the request, or describe its answer)',
      },
      error: null,
      status: null,
    };
  if (part.kind === "described") {
    const { error } = part;
    const what =
      error.kind === "origin-response"
        ? `described: answered ${error.status}`
        : error.kind === "origin-failure"
          ? `described: ${error.failure}`
          : "described";
    if (error.kind === "origin-response" && error.status < 400)
      return { item: { matched: true, description: what }, error: null, status: error.status };
    return { item: { matched: true, description: what }, error, status: null };
  }
  const request = requestOf({ ...input.described, error: { kind: "code", code: 500 } }, undefined);
  // A request sent to the origin is counted by the zone's rate-limiting rules as traffic's is (docs/producers.md):
  // a trace is no way around a limit, and over it the origin is not contacted.
  const limits = compiled.phases.rateLimits;
  if (limits !== null) {
    const ctx = requestContext(request, ruleUrl);
    const decision = await checkRateLimit(limits, request, { env: c.env, zone: zone.zone, now: Date.now(), ctx });
    if (decision.kind === "block") {
      const cause = `rate-limiting rule ${decision.ruleId} exceeded`;
      return {
        item: { matched: false, description: `not contacted: ${cause} (this trace was counted)` },
        error: { kind: "code", code: 1015, cause },
        status: null,
      };
    }
  }
  const result = await forwardToOrigin(
    request,
    input.described.url,
    scanRequestHeaders(request.headers),
    compiled.route.plan,
    {
      connector: connectorFor(c.env),
      path: ruleUrl.originPath,
    },
  );
  if (!result.ok)
    return {
      item: { matched: true, description: `contacted: ${result.error.cause}` },
      error: { kind: "code", code: result.error.code, cause: result.error.cause },
      status: null,
    };
  const response = result.value;
  const item = { matched: true, description: `contacted ${zone.settings.origin}: answered ${response.status}` };
  if (response.status < 400) {
    await response.body?.cancel();
    return { item, error: null, status: response.status };
  }
  // The origin's error as rules would see it: its status, headers and body, of which only what is kept is read
  // (the rest cancelled: a 30 MB error body costs its first 64 KiB, not 30 MB of isolate memory).
  const { text } = await textPrefix(response.body, REQUEST_LIMITS.originBodyChars);
  return {
    item,
    error: { kind: "origin-response", status: response.status, headers: [...response.headers], body: text },
    status: null,
  };
}

function traceItems(
  ruleUrl: RuleUrl,
  phases: RequestPhasesExplained,
  origin: OriginItem,
  explained: Explanation | null,
  setup: { readonly compiled: { readonly active: boolean }; readonly counted: boolean },
): TraceItem[] {
  const { counted } = setup;
  const items: TraceItem[] = [];
  const path = ruleUrl.path;
  const { scope, type } = ruleUrl.normalization;
  items.push({
    step_name: "url_normalization",
    type: "phase",
    matched: path !== ruleUrl.url.pathname,
    description: `${type} normalisation, scope ${scope}: rules see the path ${JSON.stringify(path)}`,
  });
  items.push({
    step_name: "ip_access",
    type: "phase",
    matched: phases.ip_access.outcome === "blocked",
    outcome: phases.ip_access.outcome,
    trace: phases.ip_access.rules.map((r) => ({
      step_name: r.id,
      type: "rule",
      matched: r.outcome === "match",
      outcome: r.outcome,
      action: "block",
      expression: r.target === "country" ? `ip.src.country eq "${r.value}"` : `ip.src in {${r.value}}`,
      action_parameters: { configuration: { target: r.target, value: r.value } },
      description: r.notes,
    })),
  });
  items.push(
    ruleset("http_request_firewall_custom", phases.firewall.outcome === "blocked", phases.firewall.rules, "block"),
  );
  items.push({
    ...ruleset("http_ratelimit", phases.rate_limits.matched.length > 0, phases.rate_limits.rules, "block"),
    description: counted
      ? "counted: the origin was asked to be contacted, so a matched rule counted this request as traffic's"
      : "evaluated without counting: a matched rule would count this request; none was counted",
  });
  items.push({ step_name: "origin", type: "origin", ...origin });
  if (explained === null) return items;
  const answered = explained.answered_by;
  items.push(ruleset("http_custom_errors", answered.kind === "rule", explained.trace.rules, "serve_error"));
  const error = explained.error;
  if (error.kind === "generated") {
    const id = pageClassOf(error.code);
    const page = explained.trace.steps.find((s) => s.step === "page");
    items.push({
      step_name: id,
      type: "page",
      matched: answered.kind === "page",
      ...(page?.outcome ? { outcome: page.outcome } : {}),
      ...(page?.reason ? { reason: page.reason } : {}),
      description: setup.compiled.active ? `the zone's ${id} page` : "custom pages need a paid plan",
    });
    items.push({
      step_name: "default",
      type: "default",
      matched: answered.kind === "default",
      description: `the structured error ${error.code}: ${error.cause}`,
    });
  }
  return items;
}

function ruleset(phase: string, matched: boolean, rules: readonly RuleTrace[], action: string): TraceItem {
  return {
    step_name: phase,
    type: "ruleset",
    kind: "zone",
    name: phase,
    matched,
    trace: rules.map((r) => ({
      step_name: r.id,
      type: "rule",
      matched: r.outcome === "match",
      outcome: r.outcome,
      ...(r.reason === undefined ? {} : { reason: r.reason }),
      action,
      expression: r.expression,
      description: r.description,
    })),
  };
}
