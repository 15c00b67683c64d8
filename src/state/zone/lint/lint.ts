/**
 * The rule linter (docs/lint.md): warnings, never refusals, about a zone's rules, pages and assets as they are or
 * as a write or a draft would leave them. Every rules write (the entrypoint PUT, the Rulesets API's create, update,
 * add and edit), its dry run and the draft preview answer them in the envelope's `messages`; a replay may call
 * `lintZone` on the draft it replays. Pure: no bindings (the zone's recorded error rate is given by the caller).
 *
 *   20080 serves-non-json       a rule or page answers HTML or text to clients that accept only JSON
 *   20081 unguarded-origin-rule a rule that rewrites the origin's own errors without a path or Accept guard
 *   20082 shadowed              an earlier rule matches every request this one matches (first match wins)
 *   20083 never-matches         no request can match it in its phase
 *   20084 over-error-budget     a page or asset bigger than the per-error budget, or whose bytes at the zone's
 *                               recorded error rate exceed the hourly budget
 */
import type { ZoneDocument } from "../schema";
import { pageMeta } from "../custom-pages/stored";
import { PAGE_IDS, type PageId } from "../custom-pages/validate";
import { storedAssets } from "../custom-pages/assets";
import type { Phase } from "../rulesets/phases";
import { storedRuleset } from "../rulesets/stored";
import type { StoredRule } from "../rulesets/validate";
import { BoundedCache } from "../../../shared/bounded-cache";
import { analyse, impossibility, type Analysed, type Disjunct, type Domain } from "./expression";

export const LINT_CODES = {
  "serves-non-json": 20080,
  "unguarded-origin-rule": 20081,
  shadowed: 20082,
  "never-matches": 20083,
  "over-error-budget": 20084,
} as const;
export type LintKind = keyof typeof LINT_CODES;

/** One warning, as the envelope's `messages` carry it. `rule_id` is null for a page or an asset no rule serves. */
export interface LintWarning {
  readonly code: number;
  readonly message: string;
  readonly rule_id: string | null;
  readonly phase?: Phase;
  readonly page?: PageId;
  readonly asset?: string;
}

/**
 * The error-rate budget of one page or asset (docs/lint.md "Error budget"): every error it answers carries its
 * whole body, so a body is judged by what it costs per error and per hour at the zone's recorded error rate.
 */
export const ERROR_BUDGET = {
  /** One answer: 256 KiB, a sixth of the 1.5 MB an asset or page may be; the structured default HTML page is about 9.4 KB (docs/errors.md). */
  perErrorBytes: 262_144,
  /** Per hour at the zone's mean hourly error rate over the last 24 hours of its analytics: 64 MiB. */
  hourlyBytes: 67_108_864,
} as const;

export interface LintInput {
  readonly rules: Readonly<Partial<Record<Phase, readonly StoredRule[]>>>;
  /** Customised pages and their size in bytes. */
  readonly pages: readonly { readonly id: PageId; readonly bytes: number }[];
  readonly assets: readonly { readonly name: string; readonly bytes: number }[];
  /** Errors per hour the zone recorded (mean over the last 24 h); null when not known (no budget by rate). */
  readonly errorsPerHour: number | null;
}

const rulesOfDocument = new WeakMap<ZoneDocument, LintInput["rules"]>();

/** The linter's input read off a zone document (saved, rehearsed, or a draft applied to it). */
export function lintInputOf(document: ZoneDocument, errorsPerHour: number | null): LintInput {
  // One rules object per document, so that its rule warnings are computed once (`lintZone`'s cache): a zone's
  // saved document and a draft's are each one object per version or content (the zone cache, the draft cache).
  let rules = rulesOfDocument.get(document);
  if (rules === undefined) {
    rules = {
      http_custom_errors: storedRuleset(document, "http_custom_errors")?.rules ?? [],
      http_request_firewall_custom: storedRuleset(document, "http_request_firewall_custom")?.rules ?? [],
      http_ratelimit: storedRuleset(document, "http_ratelimit")?.rules ?? [],
    };
    rulesOfDocument.set(document, rules);
  }
  return {
    rules,
    pages: PAGE_IDS.flatMap((id) => {
      const meta = pageMeta(document, id);
      return meta === null ? [] : [{ id, bytes: meta.bytes }];
    }),
    assets: Object.values(storedAssets(document)).map((a) => ({ name: a.name, bytes: a.size_bytes })),
    errorsPerHour,
  };
}

/**
 * The values a field can have in custom error rules (docs/custom-errors.md): only errors reach them, generated ones
 * (4xx/5xx, a 1xxx code or none) and the origin's own (status ≥ 400, error type `""`).
 */
const CUSTOM_ERROR_DOMAINS: Readonly<Record<string, Domain>> = {
  "http.response.code": { kind: "ints", intervals: [{ min: 400, max: 599 }] },
  "edge.response.error_type": { kind: "bytes", values: ["1xxx", "5xx", ""] },
  "edge.response.1xxx_code": {
    kind: "ints",
    intervals: [
      { min: 0, max: 0 },
      { min: 1000, max: 1999 },
    ],
  },
};

/** The same, for an origin's own error response: error type `""`, no 1xxx code. */
const ORIGIN_ERROR_DOMAINS: Readonly<Record<string, Domain>> = {
  ...CUSTOM_ERROR_DOMAINS,
  "edge.response.error_type": { kind: "bytes", values: [""] },
  "edge.response.1xxx_code": { kind: "ints", intervals: [{ min: 0, max: 0 }] },
};

/** The fields that read the request's path (a path guard); the query alone is not one. */
const PATH_FIELDS = new Set([
  "http.request.uri",
  "http.request.uri.path",
  "http.request.full_uri",
  "raw.http.request.uri",
  "raw.http.request.uri.path",
  "raw.http.request.full_uri",
]);
const ACCEPT = 'http.request.headers["accept"]';

/** The phases where the first matching rule answers and the rest are not evaluated (rate limiting counts all). */
const FIRST_MATCH_PHASES: readonly Phase[] = ["http_custom_errors", "http_request_firewall_custom"];

const JSON_TYPES = new Set(["application/json", "application/problem+json"]);

type Warn = (kind: LintKind, message: string, where: Omit<LintWarning, "code" | "message">) => void;

/**
 * The rules' own warnings (20080–20083), which depend on the rules alone: a caller may keep them per ruleset
 * content (src/api/kit/lint-messages.ts keeps them per zone document) and add the budget's, which depend on the rate.
 */
const ruleWarningsCache = new WeakMap<LintInput["rules"], readonly LintWarning[]>();

/** Every warning of the input, in phase and rule order, then pages, then assets. */
export function lintZone(input: LintInput): LintWarning[] {
  let rules = ruleWarningsCache.get(input.rules);
  if (rules === undefined) {
    rules = lintRules(input.rules);
    ruleWarningsCache.set(input.rules, rules);
  }
  const out: LintWarning[] = [...rules];
  const warn: Warn = (kind, message, where) => {
    out.push({ code: LINT_CODES[kind], message, ...where });
  };
  lintPagesAndAssets(input, warn);
  return out;
}

function lintRules(input: LintInput["rules"]): LintWarning[] {
  const out: LintWarning[] = [];
  const warn: Warn = (kind, message, where) => {
    out.push({ code: LINT_CODES[kind], message, ...where });
  };
  const phases: Phase[] = ["http_custom_errors", "http_request_firewall_custom", "http_ratelimit"];
  const analysed = new Map<StoredRule, Analysed | null>();
  for (const phase of phases) for (const rule of input[phase] ?? []) analysed.set(rule, analysedOf(rule.expression));
  for (const phase of phases) {
    const rules = input[phase] ?? [];
    const domains = phase === "http_custom_errors" ? CUSTOM_ERROR_DOMAINS : {};
    rules.forEach((rule, index) => {
      const shape = analysed.get(rule) ?? null;
      if (!rule.enabled || shape === null) return;
      const where = { rule_id: rule.id, phase };
      const label = `${phase} rules[${index}] (id ${rule.id}${rule.description ? `, ${JSON.stringify(rule.description)}` : ""})`;
      const possible = shape.disjuncts.filter((d) => impossibility(d, domains) === null);
      if (possible.length === 0) {
        const why = shape.disjuncts.map((d) => impossibility(d, domains)).find((w) => w !== null) ?? "";
        warn("never-matches", `${label} can never match: ${why}`, where);
        return;
      }
      if (FIRST_MATCH_PHASES.includes(phase)) {
        const earlier = shadowedBy(rules, index, possible, analysed, phase);
        if (earlier !== null)
          warn(
            "shadowed",
            `${label} is never reached: the earlier rules[${earlier}] (id ${rules[earlier]?.id ?? ""}) matches every request it matches (docs/lint.md "Shadowed rules")`,
            where,
          );
      }
      if (phase !== "http_custom_errors") return;
      const served = servedType(rule);
      if (served !== null && !JSON_TYPES.has(served) && possible.some((d) => !guarded(d, (f) => f === ACCEPT)))
        warn(
          "serves-non-json",
          `${label} serves ${served} with no Accept guard: clients that accept only JSON get ${served} ` +
            `(add a condition on http.request.headers["accept"], or use an overlay, which keeps the negotiated format)`,
          where,
        );
      if (servesOriginErrors(rule, shape)) {
        const origin = shape.disjuncts.filter((d) => impossibility(d, ORIGIN_ERROR_DOMAINS) === null);
        if (origin.some((d) => !guarded(d, (f) => f === ACCEPT || PATH_FIELDS.has(f))))
          warn(
            "unguarded-origin-rule",
            `${label} rewrites the origin's own error responses with no path or Accept guard: an API's JSON errors ` +
              'are replaced too (add a condition on the path or on http.request.headers["accept"], or edge.response.error_type ne "" to leave the origin\'s errors alone)',
            where,
          );
      }
    });
  }
  return out;
}

function lintPagesAndAssets(input: LintInput, warn: Warn): void {
  for (const page of input.pages) {
    warn(
      "serves-non-json",
      `the ${page.id} page is served as text/html to every client whatever its Accept, clients that accept only ` +
        "JSON included (a custom error rule with an Accept guard, or an overlay, answers them in their format)",
      { rule_id: null, page: page.id },
    );
    budget(page.bytes, `the ${page.id} page`, input.errorsPerHour, (m) =>
      warn("over-error-budget", m, { rule_id: null, page: page.id }),
    );
  }
  for (const asset of input.assets) {
    const users = (input.rules.http_custom_errors ?? []).filter(
      (r) =>
        r.action_parameters !== undefined &&
        "asset_name" in r.action_parameters &&
        r.action_parameters.asset_name === asset.name,
    );
    budget(asset.bytes, `the custom asset ${JSON.stringify(asset.name)}`, input.errorsPerHour, (m) => {
      if (users.length === 0) warn("over-error-budget", m, { rule_id: null, asset: asset.name });
      for (const r of users)
        warn("over-error-budget", m, { rule_id: r.id, phase: "http_custom_errors", asset: asset.name });
    });
  }
}

/** The earliest enabled rule before `index` that matches whatever `possible` matches (docs/lint.md lists the proofs). */
function shadowedBy(
  rules: readonly StoredRule[],
  index: number,
  possible: readonly Disjunct[],
  analysed: ReadonlyMap<StoredRule, Analysed | null>,
  phase: Phase,
): number | null {
  const later = rules[index];
  for (let i = 0; i < index; i++) {
    const rule = rules[i];
    const shape = rule === undefined ? null : (analysed.get(rule) ?? null);
    if (rule === undefined || !rule.enabled || shape === null) continue;
    // An overlay rule is passed over for an origin's error response (docs/custom-errors.md "Precedence"): it hides
    // only another overlay rule, which is passed over the same way.
    if (phase === "http_custom_errors" && isOverlay(rule) && !(later !== undefined && isOverlay(later))) continue;
    const covers = possible.every((d) => shape.disjuncts.some((e) => subset(e, d)));
    if (covers) return i;
  }
  return null;
}

/** Every conjunct of `a` is one of `b`'s: `b` implies `a`. */
function subset(a: Disjunct, b: Disjunct): boolean {
  return a.conjuncts.every((c) => b.texts.has(c.text));
}

/**
 * Expressions analysed once per isolate (bounded): a zone's rules are linted on every write and every draft preview,
 * and most of them are the same text each time.
 */
const analysedCache = new BoundedCache<string, Analysed | null>({ capacity: 4096 });

/**
 * Analyses `expression` into the cache ahead of `lintZone`: a draft preview does it in turns with traffic
 * (src/api/preview/draft-cache.ts), so that linting a draft of hundreds of long expressions finds them analysed.
 */
export function analyseForLint(expression: string): void {
  analysedOf(expression);
}

function analysedOf(expression: string): Analysed | null {
  const cached = analysedCache.get(expression);
  if (cached !== undefined) return cached;
  const shape = analyse(expression);
  analysedCache.set(expression, shape);
  return shape;
}

function guarded(d: Disjunct, isGuard: (field: string) => boolean): boolean {
  return d.conjuncts.some((c) => c.reads.some(isGuard));
}

function isOverlay(rule: StoredRule): boolean {
  return rule.action_parameters !== undefined && "overlay" in rule.action_parameters;
}

/** The media type a rule answers with; null for an overlay (the negotiated format) or no parameters. */
function servedType(rule: StoredRule): string | null {
  const p = rule.action_parameters;
  if (p === undefined || "overlay" in p) return null;
  if ("asset_name" in p) return "text/html";
  return p.content_type;
}

/** A content rule that reads the response code or the error type: it can answer an origin's error response. */
function servesOriginErrors(rule: StoredRule, shape: Analysed): boolean {
  if (isOverlay(rule)) return false;
  return shape.disjuncts.some((d) =>
    d.conjuncts.some((c) => c.reads.includes("http.response.code") || c.reads.includes("edge.response.error_type")),
  );
}

function budget(bytes: number, what: string, perHour: number | null, warn: (message: string) => void): void {
  if (bytes > ERROR_BUDGET.perErrorBytes)
    warn(
      `${what} is ${bytes} bytes, over the per-error budget of ${ERROR_BUDGET.perErrorBytes} bytes: every error it ` +
        'answers carries all of it (docs/lint.md "Error budget")',
    );
  else if (perHour !== null && bytes * perHour > ERROR_BUDGET.hourlyBytes)
    warn(
      `${what} is ${bytes} bytes; at the zone's recorded ${Math.round(perHour)} errors per hour that is ` +
        `${Math.round((bytes * perHour) / 1_048_576)} MiB per hour, over the budget of ` +
        `${ERROR_BUDGET.hourlyBytes / 1_048_576} MiB per hour (docs/lint.md "Error budget")`,
    );
}
