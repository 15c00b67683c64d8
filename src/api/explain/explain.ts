/**
 * The draft preview's engine (docs/custom-errors.md "Draft preview"): a described request (method, URL,
 * headers, client IP, country, and what went wrong: a catalog code, an origin failure, or the origin's own error
 * response) run through exactly the code zone traffic runs, on a compiled custom-errors value (the zone's saved
 * one, or a draft's compiled the same way), with a tracer in the rule loop:
 *
 *   generated error  → errorResponse (src/errors/pipeline.ts) with the zone's steps: rules → page → default
 *   origin response  → applyToOriginError (src/edge/custom-errors/apply.ts), else the origin's response unchanged
 *
 * The request phases run first (request-phases.ts: IP access, firewall, rate limiting evaluated without counting, on
 * the edge's own `requestPhase`); one that blocks the request makes the error, as on traffic. The described request
 * has a management run's budget (turns.ts `MANAGEMENT_BUDGET.runUnits`, a fifth of a request's), and every run takes
 * its turn with traffic (turns.ts): a run that needed more is reported `truncated`, never shown as traffic's answer.
 */
import { errorResponse, type AnsweredBy as PipelineAnswer } from "../../errors/pipeline";
import { chooseErrorFormat, type ErrorFormat } from "../../errors/format";
import { catalogEntry } from "../../errors/catalog";
import { MAX_REQUEST_UNITS, MAX_RULE_UNITS } from "../../rules/budget";
import { RuleUrl } from "../../shared/rule-url";
import type { Settings } from "../../shared/settings";
import type { RetryHintProfile } from "../../errors/retry-hints";
import type { LanguageChooser } from "../../errors/language";
import { pageClassOf, type PageId } from "../../state/zone/custom-pages/validate";
import type { StoredRule } from "../../state/zone/rulesets/validate";
import {
  classifyReachedOrigin,
  classifyTls,
  responseTimeout,
  unreachedOrigin,
  type OriginFailure,
} from "../../edge/origin/classify";
import {
  applyToOriginError,
  tracedCustomization,
  type AssetSource,
  type PageSource,
} from "../../edge/custom-errors/apply";
import type { CompiledCustomErrors } from "../../edge/custom-errors/compiled";
import { RuleRecorder, ruleTraces, type RuleTrace, type ShownValue } from "./trace";
import { explainRequestPhases, type RequestPhasesExplained, type RequestPhasesSetup } from "./request-phases";
import { capBudget, MANAGEMENT_BUDGET, type Turns } from "./turns";

/** The origin failures a described request may name, each classified by the proxy's own classifier (docs/origin.md). */
export const ORIGIN_FAILURES = [
  "refused",
  "unreachable",
  "unresolvable",
  "connect-timeout",
  "read-timeout",
  "reset",
  "malformed",
  "tls-handshake",
  "tls-certificate",
] as const;
export type OriginFailureName = (typeof ORIGIN_FAILURES)[number];

export type DescribedError =
  /** `cause`: why the error was generated, when a phase of the trace made it (request-phases.ts). */
  | { readonly kind: "code"; readonly code: number; readonly cause?: string }
  | { readonly kind: "origin-failure"; readonly failure: OriginFailureName }
  | {
      readonly kind: "origin-response";
      readonly status: number;
      readonly headers: readonly (readonly [string, string])[];
      readonly body: string;
    };

export interface DescribedRequest {
  readonly method: string;
  /** `{scheme}://{zone}{path}`: the URL traffic for this zone has. */
  readonly url: URL;
  readonly headers: readonly (readonly [string, string])[];
  /** Sent as `CF-Connecting-IP`, the one header `ip.src` is read from (docs/rules-language.md). */
  readonly clientIp: string | null;
  /** `request.cf.country` (`ip.src.country`, `::GEO::`). */
  readonly country: string | null;
  readonly error: DescribedError;
}

export interface ExplainSetup {
  readonly zone: string;
  readonly compiled: CompiledCustomErrors;
  /** The ruleset the compiled list came from, in its order (the trace names every rule, disabled ones too). */
  readonly stored: readonly StoredRule[];
  readonly pages: PageSource;
  /**
   * Where a rule's custom error asset is read (src/edge/custom-errors/apply.ts `assetsOf`); none: such a rule does
   * not answer.
   */
  readonly assets?: AssetSource;
  readonly settings: Settings;
  readonly invocation?: ExecutionContext;
  /**
   * The zone's `retry_hints` (docs/errors.md "Retry-hint profiles"), as traffic sends them: under `agent`, each run's
   * hint is spread by its own Ray ID. Absent: `published`.
   */
  readonly retryHints?: RetryHintProfile;
  /** The zone's `read_timeout` in seconds, which the 524 text names (docs/errors.md "Words"). */
  readonly readTimeout?: number;
  /** The zone's `languages` (docs/languages.md "A zone's languages"); absent: every language. */
  readonly languages?: LanguageChooser | undefined;
  /** No `edge_error` line per run: a replay writes one line for all its records (docs/custom-errors.md "Replay"). */
  readonly quiet?: boolean;
  /**
   * The call's turns with traffic (turns.ts): each run is one evaluation in them. The caller closes them when the
   * call ends.
   */
  readonly turns: Turns;
  /** The units each run may spend (default `MANAGEMENT_BUDGET.runUnits`; a replay's last records get less). */
  readonly runUnits?: number;
  /**
   * The zone's saved request phases (IP access, firewall, rate limiting): the described request goes through them
   * first, as traffic does (request-phases.ts); one that blocks it makes the error (1006, 1009, 1020).
   */
  readonly requestPhases?: RequestPhasesSetup;
}

/** The four formats answered, with the `Accept` that asks for each (docs/negotiation.md). */
export const PREVIEW_FORMATS = {
  json: "application/json",
  problem_json: "application/problem+json",
  markdown: "text/markdown",
  html: "text/html",
} as const;
export type PreviewFormat = keyof typeof PREVIEW_FORMATS;

/**
 * A body is shown up to this many characters (a custom page can be 1.5 MB and is answered for up to five runs):
 * `body_bytes` is always the whole body's size, `body_truncated` says when the text was cut.
 */
export const MAX_SHOWN_BODY_CHARS = 262_144;

export type AnsweredBy =
  | { readonly kind: "rule"; readonly id: string; readonly index: number }
  | { readonly kind: "page"; readonly id: string }
  | { readonly kind: "default" }
  | { readonly kind: "origin" };

export interface ShownResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly body_bytes: number;
  readonly body_truncated: boolean;
  readonly answered_by: AnsweredBy;
}

/** The steps of the error path a preview traces, and what each did (the type and the document's enums). */
export const STEPS = ["rules", "page", "default", "origin"] as const;
export const STEP_OUTCOMES = ["answered", "no-match", "not-customized", "not-run", "passed-through"] as const;
export type StepOutcome = (typeof STEP_OUTCOMES)[number];

export interface StepTrace {
  readonly step: (typeof STEPS)[number];
  readonly outcome: StepOutcome;
  readonly id?: PageId;
  readonly reason?: string;
}

export interface Explanation {
  readonly error:
    | { readonly kind: "generated"; readonly code: number; readonly status: number; readonly cause: string }
    | { readonly kind: "origin-response"; readonly status: number };
  /** The format the described request's own `Accept` negotiates to (docs/negotiation.md). */
  readonly format: ErrorFormat;
  readonly answered_by: AnsweredBy;
  /** What the described request, with its own headers, is served. */
  readonly response: ShownResponse;
  readonly responses: Readonly<Record<PreviewFormat, ShownResponse>>;
  readonly trace: {
    readonly steps: readonly StepTrace[];
    readonly rules: readonly RuleTrace[];
    /** The value of every field a rule reads, as the rules saw it (bounded: trace.ts). */
    readonly fields: Readonly<Record<string, ShownValue>>;
    /** IP access, firewall and rate-limiting rules on the described request; null when not run. */
    readonly request_phases: RequestPhasesExplained | null;
  };
  readonly cost: { readonly units: number; readonly budget: number; readonly rule_budget: number };
  /**
   * A run needed more than a management run's budget (turns.ts): its rules' outcomes past that point are not what
   * traffic would get (an `over-budget` rule names where it stopped).
   */
  readonly truncated: boolean;
}

/**
 * Runs the described request through the zone's request phases (when given: `setup.requestPhases`, or `phases`
 * already run by the caller), then, as described or as the phase that blocked it made it, through the error path
 * (traced), then once per format with `Accept` set to it.
 */
export async function explain(
  asDescribed: DescribedRequest,
  setup: ExplainSetup,
  phases?: RequestPhasesExplained,
): Promise<Explanation> {
  const requestPhases =
    phases ??
    (setup.requestPhases === undefined
      ? null
      : await tracedPhases(asDescribed, setup.requestPhases, setup, setup.compiled.normalization));
  const blocked = requestPhases?.blocked ?? null;
  const described: DescribedRequest =
    blocked === null ? asDescribed : { ...asDescribed, error: { kind: "code", ...blocked } };
  const recorder = new RuleRecorder();
  let truncated = requestPhases !== null && phasesOverBudget(requestPhases);
  const main = await runOnce(described, undefined, setup, recorder);
  truncated ||= overBudget(recorder);
  const responses = {} as Record<PreviewFormat, ShownResponse>;
  for (const [format, accept] of Object.entries(PREVIEW_FORMATS) as [PreviewFormat, string][]) {
    const formatRecorder = new RuleRecorder();
    responses[format] = (await runOnce(described, accept, setup, formatRecorder)).shown;
    truncated ||= overBudget(formatRecorder);
  }
  const { rules, fields } = ruleTraces(setup.stored, setup.compiled, recorder);
  return {
    error: main.error,
    format: chooseErrorFormat(new Headers(described.headers as [string, string][]).get("Accept")).format,
    answered_by: main.shown.answered_by,
    response: main.shown,
    responses,
    trace: {
      steps: steps(setup.compiled, recorder, main.shown.answered_by, main.error),
      rules,
      fields,
      request_phases: requestPhases,
    },
    cost: {
      units: recorder.units,
      budget: runUnitsOf(setup),
      rule_budget: Math.min(MAX_RULE_UNITS, runUnitsOf(setup)),
    },
    truncated,
  };
}

const runUnitsOf = (setup: ExplainSetup): number =>
  Math.min(MAX_REQUEST_UNITS, setup.runUnits ?? MANAGEMENT_BUDGET.runUnits);

/** Whether a run stopped a rule for want of units (the run's budget is smaller than traffic's: turns.ts). */
export function overBudget(recorder: RuleRecorder): boolean {
  for (const e of recorder.evaluations.values()) if (e.outcome.kind === "over-budget") return true;
  return false;
}

export function phasesOverBudget(phases: RequestPhasesExplained): boolean {
  return [...phases.firewall.rules, ...phases.rate_limits.rules].some((r) => r.outcome === "over-budget");
}

/**
 * The request phases of the described request (request-phases.ts), as one run in the call's turns, within a run's
 * budget: the preview's and the tracer's first run.
 */
export async function tracedPhases(
  described: Omit<DescribedRequest, "error">,
  phases: RequestPhasesSetup,
  setup: Pick<ExplainSetup, "zone" | "turns" | "runUnits">,
  normalization: CompiledCustomErrors["normalization"],
): Promise<RequestPhasesExplained> {
  return setup.turns.run(async () => {
    const request = requestOf({ ...described, error: { kind: "code", code: 500 } }, undefined);
    capBudget(request, runUnitsOf(setup as ExplainSetup));
    const value = await explainRequestPhases(request, phases, {
      zone: setup.zone,
      ruleUrl: new RuleUrl(described.url, setup.zone, normalization),
      now: Date.now(),
    });
    let units = 0;
    for (const r of [...value.firewall.rules, ...value.rate_limits.rules]) units += r.cost;
    return { value, units };
  });
}

interface Run {
  readonly error: Explanation["error"];
  readonly shown: ShownResponse;
}

async function runOnce(
  described: DescribedRequest,
  accept: string | undefined,
  setup: ExplainSetup,
  recorder: RuleRecorder,
): Promise<Run> {
  return setup.turns.run(async () => {
    const answer = await respond(described, accept, setup, recorder);
    const shown = await shownOf(answer.response, setup, answer.error.kind === "origin-response", answer.answer);
    return { value: { error: answer.error, shown }, units: recorder.units };
  });
}

/** What one run answers, before its body is read (a replay reads only its status, type and who answered). */
export interface Answer {
  readonly error: Explanation["error"];
  readonly response: Response;
  /** Who answered, as the pipeline or `applyToOriginError` says; undefined: the default or the origin's own. */
  readonly answer: PipelineAnswer | undefined;
}

/**
 * One run of the described request through the edge's own code, with its own `Accept` unless `accept` is given:
 * the preview's runs and each recorded error of a replay (replay.ts).
 */
export async function respond(
  described: DescribedRequest,
  accept: string | undefined,
  setup: ExplainSetup,
  recorder: RuleRecorder,
): Promise<Answer> {
  const request = requestOf(described, accept);
  capBudget(request, runUnitsOf(setup));
  const { url } = described;
  const ruleUrl = new RuleUrl(url, setup.zone, setup.compiled.normalization);
  const error = described.error;
  if (error.kind === "origin-response") {
    // As zone traffic (src/edge/zone-traffic.ts): under 400 the origin's response passes; else rules, else unchanged.
    const origin = originResponse(error);
    const ruled =
      error.status < 400
        ? null
        : await applyToOriginError(setup.compiled, request, origin, {
            url,
            ruleUrl,
            tracer: recorder,
            assets: setup.assets,
          });
    const response = ruled?.response ?? originResponse(error);
    return { error: { kind: "origin-response", status: error.status }, response, answer: ruled?.answeredBy };
  }
  const failure = error.kind === "code" ? null : classified(error.failure);
  const code = failure?.code ?? (error.kind === "code" ? error.code : 500);
  const cause =
    failure?.cause ??
    (error.kind === "code" ? error.cause : undefined) ??
    "described in a draft preview through the zone API";
  const customization = tracedCustomization(setup.compiled, setup.pages, recorder, setup.assets);
  const { response, answeredBy } = await errorResponse(
    {
      code,
      request,
      url,
      cause,
      preview: true,
      ...(customization ? { ruleUrl } : {}),
      ...(failure ? { reachedOrigin: failure.reached } : {}),
    },
    {
      settings: setup.settings,
      zone: setup.zone,
      customization,
      ctx: setup.invocation,
      retryHints: setup.retryHints,
      readTimeout: setup.readTimeout,
      languages: setup.languages,
      quiet: setup.quiet,
    },
  );
  const status = catalogEntry(code)?.status ?? response.status;
  return { error: { kind: "generated", code, status, cause }, response, answer: answeredBy };
}

/** The request traffic would carry: the zone's URL, the described headers, the client address, `cf.country`. */
export function requestOf(described: DescribedRequest, accept: string | undefined): Request {
  const headers = new Headers(described.headers as [string, string][]);
  if (accept !== undefined) headers.set("Accept", accept);
  if (described.clientIp !== null) headers.set("CF-Connecting-IP", described.clientIp);
  const init: RequestInit = { method: described.method, headers };
  return new Request(
    described.url,
    described.country === null ? init : { ...init, cf: { country: described.country } },
  );
}

function originResponse(error: Extract<DescribedError, { kind: "origin-response" }>): Response {
  const empty = error.body === "" || [204, 205, 304].includes(error.status);
  return new Response(empty ? null : error.body, {
    status: error.status,
    headers: error.headers as [string, string][],
  });
}

/**
 * What the proxy's classifier (src/edge/origin/classify.ts) makes of each described failure: the same codes as
 * traffic.
 */
function classified(failure: OriginFailureName): OriginFailure {
  const context = "described origin failure";
  switch (failure) {
    case "refused":
      return unreachedOrigin({ kind: "refused", detail: "described" }, context);
    case "unreachable":
      return unreachedOrigin({ kind: "unreachable", detail: "described" }, context);
    case "unresolvable":
      return unreachedOrigin({ kind: "unresolvable", detail: "described" }, context);
    case "connect-timeout":
      return unreachedOrigin({ kind: "timeout" }, context);
    case "read-timeout":
      // src/edge/origin/forward.ts: connected, no response headers within the read timeout (docs/origin.md).
      return { ...responseTimeout(0), cause: `${context}; connected, no response headers within the read timeout` };
    case "reset":
      return final(classifyReachedOrigin("connection-lost", "http", context));
    case "malformed":
      return final(classifyReachedOrigin("internal", "http", context));
    case "tls-handshake":
      return classifyTls({ kind: "alert" }, context);
    case "tls-certificate":
      return classifyTls({ kind: "server-hello" }, context);
  }
}

function final(verdict: ReturnType<typeof classifyReachedOrigin>): OriginFailure {
  // On http the classifier always decides (a TLS probe is only asked for on https).
  const fallback: OriginFailure = {
    code: 502,
    cause: "described failure",
    reason: "malformed-response",
    reached: true,
  };
  return verdict.kind === "final" ? verdict.failure : fallback;
}

async function shownOf(
  response: Response,
  setup: ExplainSetup,
  fromOrigin: boolean,
  answer: PipelineAnswer | undefined,
): Promise<ShownResponse> {
  const answeredBy: AnsweredBy =
    answer === undefined || answer.kind === "default"
      ? { kind: fromOrigin ? "origin" : "default" }
      : answer.kind === "rule"
        ? { kind: "rule", id: answer.id, index: setup.stored.findIndex((r) => r.id === answer.id) }
        : { kind: "page", id: answer.id };
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: text.length > MAX_SHOWN_BODY_CHARS ? text.slice(0, MAX_SHOWN_BODY_CHARS) : text,
    body_bytes: bytes.byteLength,
    body_truncated: text.length > MAX_SHOWN_BODY_CHARS,
    answered_by: answeredBy,
  };
}

/** The steps of docs/custom-errors.md as they ran for the described request. */
function steps(
  compiled: CompiledCustomErrors,
  recorder: RuleRecorder,
  answeredBy: AnsweredBy,
  error: Explanation["error"],
): StepTrace[] {
  const rules: StepTrace = !compiled.active
    ? {
        step: "rules",
        outcome: "not-run",
        reason: "the zone's plan does not serve custom errors (docs/custom-errors.md)",
      }
    : compiled.rules.rules.length === 0
      ? { step: "rules", outcome: "not-run", reason: "no enabled rule" }
      : !recorder.ran
        ? { step: "rules", outcome: "not-run", reason: "the origin's response is not an error (status < 400)" }
        : { step: "rules", outcome: answeredBy.kind === "rule" ? "answered" : "no-match" };
  if (error.kind === "origin-response") {
    const passed = answeredBy.kind === "origin";
    return [rules, { step: "origin", outcome: passed ? "passed-through" : "not-run" }];
  }
  const id = pageClassOf(error.code);
  const page: StepTrace =
    answeredBy.kind === "rule"
      ? { step: "page", id, outcome: "not-run" }
      : answeredBy.kind === "page"
        ? { step: "page", id, outcome: "answered" }
        : !compiled.active
          ? { step: "page", id, outcome: "not-run", reason: "the zone's plan does not serve custom errors" }
          : compiled.pages.has(id)
            ? { step: "page", id, outcome: "not-run", reason: "the page's HTML could not be read from CONFIG" }
            : { step: "page", id, outcome: "not-customized" };
  const fallback: StepTrace = { step: "default", outcome: answeredBy.kind === "default" ? "answered" : "not-run" };
  return [rules, page, fallback];
}
