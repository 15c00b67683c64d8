/**
 * The tools over a zone's configuration (docs/mcp.md, docs/custom-errors.md): `preview_error`
 * (`GET /zones/{zone}/preview/{code}`: what a visitor gets), `lint_rules` (the rule linter's warnings, as the draft
 * preview `POST /zones/{zone}/preview` gives them), `replay_draft` (`POST /zones/{zone}/preview/replay`) and
 * `trace_request` (`POST /accounts/{account}/request-tracer/trace`). None stores anything; the previews, replays and
 * traces count against the token's preview bounds exactly as the REST calls do (docs/custom-errors.md "Bounds").
 */
import * as z from "zod/mini";
import { envelopeOf, segment } from "./route-call";
import { defineTool, done, failed, refusal, sinceArgument, sinceParameter, zoneArgument } from "./tool";
import { HEX_ID } from "../../shared/crypto";

/** The most of a previewed body a tool result carries (an HTML page with inlined assets can be large). */
const MAX_BODY_CHARS = 65_536;

const draftArgument = () =>
  z.looseObject({
    rules: z.optional(
      z
        .array(z.looseObject({}))
        .check(z.describe("Custom error rules (phase http_custom_errors), as the Rulesets API takes them.")),
    ),
    pages: z.optional(
      z
        .record(z.string(), z.unknown())
        .check(z.describe("Error pages by id (500_errors, 1000_errors): {state, content}.")),
    ),
  });

const warningSchema = () => z.looseObject({ code: z.number(), message: z.string() });

/** The headers of a previewed error that say what a client does with it. */
const SHOWN_HEADERS = [
  "content-type",
  "content-language",
  "cache-control",
  "retry-after",
  "proxy-status",
  "ray-id",
  "x-should-retry",
  "retry-after-ms",
  "vary",
] as const;

export const previewError = defineTool(() => ({
  name: "preview_error",
  title: "Preview what a visitor gets for an error",
  description:
    "Exactly the response a zone serves for an error code right now (status, headers, body), its custom error rules and pages applied, for a client sending the given Accept. USE THIS WHEN asked what visitors or API clients see for an error, or to check a custom page or rule once saved. Same as GET /zones/{zone}/preview/{code}. For a draft not yet saved, use lint_rules or replay_draft.",
  input: z.strictObject({
    zone: zoneArgument(),
    code: z.int().check(z.minimum(100), z.maximum(9999), z.describe("The error code, e.g. 521 or 1020.")),
    accept: z.optional(
      z
        .string()
        .check(
          z.maxLength(1024),
          z.describe("The client's Accept header, e.g. text/html or application/json; default application/json."),
        ),
    ),
  }),
  output: z.looseObject({
    zone: z.string(),
    code: z.number(),
    status: z.number(),
    headers: z.record(z.string(), z.string()),
    body: z.string(),
    truncated: z.boolean(),
    problem: z.nullable(z.record(z.string(), z.unknown())),
  }),
  run: async ({ zone, code, accept }, t) => {
    const response = await t.call({
      method: "GET",
      path: `/zones/${segment(zone)}/preview/${code}`,
      accept: accept ?? "application/json",
    });
    const text = await response.text();
    const parsed = jsonObject(text);
    // The API's own refusal is an envelope; the previewed error never is (it is a problem object or a page).
    if (parsed !== null && parsed.success === false && Array.isArray(parsed.errors)) {
      return failed(
        refusal(
          "preview_error",
          { status: response.status, errors: parsed.errors as { code: number; message: string }[], retryAfter: null },
          `zone ${zone}`,
        ),
      );
    }
    const headers: Record<string, string> = {};
    for (const name of SHOWN_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    const structured = {
      zone,
      code,
      status: response.status,
      headers,
      body: text.slice(0, MAX_BODY_CHARS),
      truncated: text.length > MAX_BODY_CHARS,
      problem: headers["content-type"]?.includes("json") === true ? parsed : null,
    };
    return done(
      structured,
      `${zone} serves error ${code} as HTTP ${response.status} ${headers["content-type"] ?? ""} (${text.length} characters).`,
    );
  },
}));

function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

export const lintRules = defineTool(() => ({
  name: "lint_rules",
  title: "Lint a zone's rules and pages",
  description:
    "The rule linter's warnings for a zone as saved, or with a draft of custom error rules and pages on top: rules that send HTML to JSON clients, origin-error rules without a guard, shadowed or unreachable rules, pages over the error budget. USE THIS WHEN reviewing a zone's rules or before proposing a rule change. Nothing is saved. Same warnings as the messages of POST /zones/{zone}/preview.",
  input: z.strictObject({
    zone: zoneArgument(),
    draft: z.optional(draftArgument().check(z.describe("Rules and/or pages to lint on top of the saved zone."))),
  }),
  output: z.looseObject({
    zone: z.string(),
    version: z.number(),
    draft: z.boolean(),
    count: z.number(),
    warnings: z.array(warningSchema()),
  }),
  run: async ({ zone, draft }, t) => {
    // The draft preview of one described request: its `messages` are the linter's warnings of the zone it previews.
    const body = { ...(draft === undefined ? {} : { draft }), request: { path: "/", code: 500 } };
    const answer = await envelopeOf(await t.call({ method: "POST", path: `/zones/${segment(zone)}/preview`, body }));
    if (!answer.ok) return failed(refusal("lint_rules", answer.error, `zone ${zone}`));
    const result = answer.value.result as { version: number };
    const warnings = answer.value.messages;
    return done(
      { zone, version: result.version, draft: draft !== undefined, count: warnings.length, warnings },
      warnings.length === 0
        ? `No warnings for ${zone}${draft === undefined ? "" : " with the draft"}.`
        : `${warnings.length} warning${warnings.length > 1 ? "s" : ""} for ${zone}: ${warnings.map((w) => w.message).join(" | ")}`,
    );
  },
}));

export const replayDraft = defineTool(() => ({
  name: "replay_draft",
  title: "Replay a draft over recorded errors",
  description:
    "Had this draft of custom error rules and pages been live, what would the zone's recorded errors of the window have got: how many changed, from which answer to which, per rule, with sample Ray IDs and the linter's warnings. USE THIS WHEN judging a rule change against real traffic before saving it. Nothing is saved. Same as POST /zones/{zone}/preview/replay.",
  input: z.strictObject({
    zone: zoneArgument(),
    draft: draftArgument(),
    since: sinceArgument(),
  }),
  output: z.looseObject({
    zone: z.string(),
    version: z.number(),
    window: z.looseObject({ since: z.string(), until: z.string() }),
    records: z.number(),
    replayed: z.number(),
    changed: z.number(),
    changes: z.array(z.looseObject({})),
    warnings: z.array(warningSchema()),
  }),
  run: async ({ zone, draft, since }, t) => {
    const window = since === undefined ? {} : { window: { since: sinceParameter(since, t.now) } };
    const answer = await envelopeOf(
      await t.call({ method: "POST", path: `/zones/${segment(zone)}/preview/replay`, body: { draft, ...window } }),
    );
    if (!answer.ok) return failed(refusal("replay_draft", answer.error, `zone ${zone}`));
    const result = answer.value.result as { records: number; replayed: number; changed: number };
    return done(
      { ...(answer.value.result as Record<string, unknown>), warnings: answer.value.messages },
      `${result.changed} of ${result.replayed} replayed errors of ${zone} would change with the draft.`,
    );
  },
}));

export const traceRequest = defineTool(() => ({
  name: "trace_request",
  title: "Trace a request through a zone",
  description:
    "What the edge would do with a request to one of the account's zones: every phase (URL normalisation, IP access, firewall, rate limiting, origin, custom error rules, page, default) with the rules that matched, ending before the origin when nothing blocked it. USE THIS WHEN asked whether a request would be blocked, by which rule, or how it would be answered. The origin is not contacted. Same as POST /accounts/{account}/request-tracer/trace.",
  input: z.strictObject({
    account: z
      .string()
      .check(z.regex(HEX_ID), z.describe("The account id (32 lower-case hex) that owns the URL's zone.")),
    url: z
      .string()
      .check(z.minLength(1), z.maxLength(4096), z.describe("The full URL, e.g. https://shop.example/cart.")),
    method: z.optional(z.string().check(z.regex(/^[A-Z]{1,16}$/), z.describe("The HTTP method; default GET."))),
    headers: z.optional(z.record(z.string(), z.string()).check(z.describe("Request headers by name."))),
  }),
  output: z.looseObject({ trace: z.array(z.looseObject({})) }),
  // A trace names an account: a token scoped only by zone names reaches none, so it is not offered the tool.
  visible: (principal) => principal.accounts === "*" || principal.accounts.size > 0,
  run: async ({ account, url, method, headers }, t) => {
    const body = { url, method: method ?? "GET", ...(headers === undefined ? {} : { headers }) };
    const answer = await envelopeOf(
      await t.call({ method: "POST", path: `/accounts/${segment(account)}/request-tracer/trace`, body }),
    );
    if (!answer.ok) return failed(refusal("trace_request", answer.error, `account ${account} or the URL's zone`));
    const result = answer.value.result as {
      status_code?: number;
      trace: readonly { step_name: string; matched: boolean }[];
    };
    const matched = result.trace.filter((s) => s.matched).map((s) => s.step_name);
    return done(
      answer.value.result as Record<string, unknown>,
      `${method ?? "GET"} ${url}: ${result.status_code === undefined ? "no error before the origin" : `HTTP ${result.status_code}`}` +
        `${matched.length ? `; matched: ${matched.join(", ")}` : ""}.`,
    );
  },
}));
