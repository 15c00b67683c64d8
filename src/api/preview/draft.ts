/**
 * The body of `POST /zones/{zone}/preview` (docs/custom-errors.md "Draft preview"): an optional draft and
 * a described request, validated into values. Pure apart from the zone it is given: no bindings, nothing stored.
 *
 * A draft is validated exactly as a write would be: its rules by `parseRuleset` (the entrypoint PUT's validator,
 * same plan limits, same zone-wide regex program cap over the other phases), each page by `parsePageBody` (the
 * custom pages PUT's validator). What a draft omits is the saved configuration. The described request has limits of
 * its own (`REQUEST_LIMITS`), each refusal a 400 naming the field (code `PREVIEW_CODE`).
 */
import * as z from "zod/mini";
import { API_CODES } from "../kit/codes";
import {
  catalogCode,
  describedHeaders,
  describedOrigin,
  headerList,
  originError,
  REQUEST_LIMITS,
} from "../explain/described";
import type { DescribedRequest } from "../explain/explain";
import { randomId } from "../../shared/crypto";
import { parseIp } from "../../shared/ip";
import { err, ok, type Result } from "../../shared/result";
import { described, exactlyOne, fields, later, oneOf, parseWith, type Output } from "../../shared/schema";
import type { FieldIssue, Issues } from "../../shared/validation";
import { pageSection, type PageMeta } from "../../state/zone/custom-pages/stored";
import { PAGE_IDS, parsePageBody, type PageId } from "../../state/zone/custom-pages/validate";
import type { Phase } from "../../state/zone/rulesets/phases";
import { rulesetSection, storedRuleset } from "../../state/zone/rulesets/stored";
import { parseRuleset, type StoredRule } from "../../state/zone/rulesets/validate";
import type { Zone, ZoneDocument } from "../../state/zone/schema";
import type { ZoneApiFailure } from "../kit/zone-section";

/** The envelope code of a refused described request or preview body (the zone API's 200xx block). */
export const PREVIEW_CODE = API_CODES["invalid-preview"].code;

/** Visible ASCII, no `#` (a fragment never reaches the edge): a path as a client sends it, percent-encoded. */
const PATH = /^\/[\x21-\x22\x24-\x7e]*$/;

export interface DraftPreview {
  /** The zone document with the draft's sections in place of the saved ones (never written). */
  readonly document: ZoneDocument;
  /** The draft's custom error rules, validated and shaped as a write would store them. */
  readonly rules: readonly StoredRule[];
  /** The draft's customised pages; a page the draft resets to `default` is absent from `document`. */
  readonly pages: ReadonlyMap<PageId, string>;
}

/**
 * A part of the draft the schema passes on unread: `applyDraft` checks it with the write's own validator (its codes,
 * 20021 for rules and 20023 for pages), and the document shows that validator's component.
 */
const checkedByTheWrite = (schema: Record<string, unknown>) => z.optional(z.unknown().check(z.meta(schema)));

/**
 * A draft: the custom error rules and pages a preview or a replay runs instead of the saved ones. Made on the first
 * parse of either body (or when the document is built), as the bodies' schemas are.
 */
export const DRAFT = later(
  () =>
    fields(
      {
        rules: checkedByTheWrite({
          type: "array",
          items: { $ref: "#/components/schemas/RuleBody" },
          description: "The http_custom_errors rules, as the entrypoint PUT takes them (same plan limits)",
        }),
        pages: z.optional(
          fields(
            Object.fromEntries(
              PAGE_IDS.map((id) => [id, checkedByTheWrite({ $ref: "#/components/schemas/CustomPageBody" })]),
            ),
            `is not a page: one of ${PAGE_IDS.join(", ")}`,
            `must be an object keyed by ${PAGE_IDS.join(" or ")}`,
          ),
        ),
      },
      "is not a draft field",
      "must be an object {rules?, pages?}",
    ),
  { id: "Draft", description: "What the draft omits is the saved configuration" },
);

const COUNTRY_RULE = "must be a two-letter upper-case country code (ISO 3166-1 alpha-2)";
const PATH_RULE = "must start with / and hold visible ASCII only, no # (percent-encode anything else)";

/** The request a draft preview describes; exactly one of `code` (the edge's error) and `origin` (what it did). */
const DESCRIBED_REQUEST = later(
  () =>
    fields(
      {
        method: z._default(oneOf(REQUEST_LIMITS.methods), "GET"),
        scheme: z._default(oneOf(["http", "https"], "must be http or https"), "https"),
        path: z._default(
          described(
            z.string({ error: "must be a string" }).check(
              // `abort`: a path too long is one refusal, not that and its characters too.
              z.maxLength(REQUEST_LIMITS.pathChars, {
                error: `must be at most ${REQUEST_LIMITS.pathChars} characters`,
                abort: true,
              }),
              z.regex(PATH, { error: PATH_RULE }),
            ),
            "Path and query as a client sends them (percent-encoded, no fragment)",
          ),
          "/",
        ),
        headers: z.optional(describedHeaders()),
        // `null` is absent, as the run's own fields write it.
        client_ip: z.optional(
          z.nullable(
            described(
              z
                .string({ error: "must be an IPv4 or IPv6 address" })
                .check(z.refine((ip) => parseIp(ip) !== undefined, { error: "must be an IPv4 or IPv6 address" })),
              "Sent as CF-Connecting-IP (ip.src, ::CLIENT_IP::)",
            ),
          ),
        ),
        country: z.optional(
          z.nullable(
            described(
              z.string({ error: COUNTRY_RULE }).check(z.regex(/^[A-Z]{2}$/, { error: COUNTRY_RULE })),
              "request.cf.country (ip.src.country, ::GEO::)",
            ),
          ),
        ),
        code: z.optional(catalogCode()),
        origin: z.optional(describedOrigin()),
      },
      "is not a field of a described request",
      "must be an object {method?, path?, headers?, client_ip?, country?, code | origin}",
    ).check(
      exactlyOne(["code", "origin"], "give exactly one of code (a catalog error) or origin (what the origin did)"),
    ),
  { id: "DescribedRequest", description: "Exactly one of `code` and `origin`" },
);

/** `POST /zones/{zone}/preview`: `{draft?, request}`. */
const PREVIEW_BODY = later(
  () =>
    fields(
      { draft: z.optional(DRAFT()), request: DESCRIBED_REQUEST() },
      "is not a preview field",
      "must be a JSON object {draft?, request}",
    ),
  {
    id: "PreviewBody",
    example: {
      draft: {
        rules: [
          {
            expression: 'starts_with(http.request.uri.path, "/checkout") and http.response.code eq 522',
            action: "serve_error",
            action_parameters: { content: "<p>Checkout is resting</p>", content_type: "text/html" },
          },
        ],
      },
      request: {
        path: "/checkout/cart",
        headers: { Accept: "text/html" },
        client_ip: "198.51.100.7",
        origin: { failure: "connect-timeout" },
      },
    },
  },
);

export type Draft = Output<typeof DRAFT>;

export interface PreviewBody {
  /** `null`: the saved configuration is previewed. */
  readonly draft: Draft | null;
  readonly request: DescribedRequest;
}

/** The body's shape and the described request (the draft is checked against the zone by `applyDraft`). */
export function parsePreviewBody(body: unknown, zone: string): Result<PreviewBody, ZoneApiFailure> {
  const parsed = parseWith(PREVIEW_BODY, body, { root: "body" });
  if (!parsed.ok) return err({ kind: "invalid-preview", issues: parsed.error });
  const { draft, request } = parsed.value;
  const described: DescribedRequest = {
    method: request.method,
    url: new URL(`${request.scheme}://${zone}${request.path}`),
    headers: headerList(request.headers),
    clientIp: request.client_ip ?? null,
    country: request.country ?? null,
    // The schema's refinement let exactly one of the two through.
    error: request.origin !== undefined ? originError(request.origin) : { kind: "code", code: request.code ?? 0 },
  };
  return ok({ draft: draft ?? null, request: described });
}

/**
 * The draft on top of the zone's saved document, validated as writes would be (docs/custom-errors.md limits, plan
 * included): rules through `parseRuleset`, pages through `parsePageBody`. Refusals name `draft.…` fields.
 */
export function applyDraft(
  zone: Zone,
  draft: Draft,
  /**
   * The regex program size of the zone's saved rules outside `phase`, for the zone-wide cap (draft-cache.ts takes it
   * from the compiled zone, once per version: the saved rules are never compiled per preview).
   */
  savedProgramSize: (phase: Phase) => number,
): Result<DraftPreview, ZoneApiFailure> {
  const document: Record<string, unknown> = { ...zone.document };
  const phase = "http_custom_errors";
  let rules = storedRuleset(zone.document, phase)?.rules ?? [];
  if (draft.rules !== undefined) {
    const others = savedProgramSize(phase);
    const previous = storedRuleset(zone.document, phase);
    const parsed = parseRuleset({ rules: draft.rules }, phase, {
      plan: zone.settings.plan,
      previous,
      now: new Date(),
      newId: randomId,
      otherPhasesProgramSize: others,
    });
    if (!parsed.ok) {
      const failure = parsed.error;
      return err(
        failure.kind === "invalid-ruleset" ? { ...failure, issues: prefixed(failure.issues, "draft.") } : failure,
      );
    }
    document[rulesetSection(phase)] = parsed.value;
    rules = parsed.value.rules;
  }
  const pages = new Map<PageId, string>();
  const drafted: Readonly<Record<string, unknown>> = draft.pages ?? {};
  for (const id of PAGE_IDS) {
    if (drafted[id] === undefined) continue;
    const page = parsePageBody(drafted[id], id, zone.settings.plan);
    if (!page.ok) {
      const failure = page.error;
      return err(
        failure.kind === "invalid-page"
          ? { ...failure, issues: prefixed(failure.issues, `draft.pages.${id}.`) }
          : failure,
      );
    }
    if (page.value.state === "default") delete document[pageSection(id)];
    else {
      const meta: PageMeta = {
        state: "customized",
        modified_on: new Date().toISOString(),
        bytes: new TextEncoder().encode(page.value.content).byteLength,
      };
      document[pageSection(id)] = meta;
      pages.set(id, page.value.content);
    }
  }
  return ok({ document: document as ZoneDocument, rules, pages });
}

function prefixed<K extends string>(issues: Issues<K>, prefix: string): Issues<K> {
  const listed = issues.listed.map((i): FieldIssue<K> => ({
    ...i,
    path: i.path === "body" || i.path === "" ? prefix.slice(0, -1) : prefix + i.path,
  }));
  return { listed, more: issues.more };
}
