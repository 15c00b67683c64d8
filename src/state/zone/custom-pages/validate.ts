/**
 * Zone error pages (docs/custom-errors.md step 2, docs/configuration.md): `500_errors` for 5xx, `1000_errors` for 1xxx. Pure validation of
 * `PUT /zones/{zone}/custom_pages/{id}` bodies: `{state: "customized", content}` or `{state: "default"}`.
 * A page must contain `<head>` and `</head>` and its class's box token exactly once (the published `::CLOUDFLARE_…::`
 * spellings are accepted as aliases and count with it), never the other class's; at most 1.5 MB (in practice the
 * 1 MiB body limit of docs/configuration.md comes first), its value tokens at their longest included. Paid plans only.
 *
 * Why once (docs/custom-errors.md "at most once: a stored page never renders past a documented size"):
 * each token becomes a whole box (~14 KB), so a 1 MiB page of 45,581 tokens rendered 119,650,138 bytes on every
 * error of the zone. With one box and the value tokens bounded here, a page renders to at most
 * MAX_RENDERED_PAGE_BYTES (edge/custom-errors/apply.ts); the renderer also replaces only the first box token, so a page
 * stored before this check is bounded too.
 */
import * as z from "zod/mini";
import { err, ok, type Result } from "../../../shared/result";
import { described, fields, later, named, oneOf, parseWith } from "../../../shared/schema";
import { isOneOf, oneIssue, type IssueKind, type Issues } from "../../../shared/validation";
import type { Plan, PlanForbids } from "../schema";

export const PAGE_IDS = ["500_errors", "1000_errors"] as const;
export type PageId = (typeof PAGE_IDS)[number];

/** The box tokens of each class: ours first, then the published platform's alias. */
export const BOX_TOKENS: Readonly<Record<PageId, readonly [string, string]>> = {
  "500_errors": ["::EDGE_ERROR_500S_BOX::", "::CLOUDFLARE_ERROR_500S_BOX::"],
  "1000_errors": ["::EDGE_ERROR_1000S_BOX::", "::CLOUDFLARE_ERROR_1000S_BOX::"],
};

export const MAX_PAGE_BYTES = 1_500_000;

/**
 * How much longer than its token a value token's value can be, in bytes: `::RAY_ID::` (10) → 16 hex characters;
 * `::CLIENT_IP::` (13) → an IP address, at most 45 characters (`parseIp` refuses longer text); `::GEO::` (7) → 2.
 */
export const TOKEN_GROWTH: readonly (readonly [string, number])[] = [
  ["::RAY_ID::", 16 - 10],
  ["::CLIENT_IP::", 45 - 13],
];

/** Non-overlapping occurrences of `part` in `text` (a token cannot overlap itself: it starts and ends with `::`). */
export function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) count++;
  return count;
}

export function isPageId(value: string): value is PageId {
  return isOneOf(PAGE_IDS, value);
}

/** The page class of a generated error (docs/custom-errors.md: `500_errors` for 5xx, `1000_errors` for 1xxx). */
export function pageClassOf(code: number): PageId {
  return code >= 1000 ? "1000_errors" : "500_errors";
}

/** A page's states: the service's own page, or the zone's. */
export const PAGE_STATES = ["default", "customized"] as const;

/** The page ids as the OpenAPI document names them (the path's `{id}`, a page's `id`). */
export const PAGE_ID = named(oneOf(PAGE_IDS), { id: "CustomPageId", example: "1000_errors" });
export const PAGE_STATE = later(() =>
  named(oneOf(PAGE_STATES, 'must be "customized" or "default"'), {
    id: "CustomPageState",
    description: "`default`: the service's own page; `customized`: the zone's",
    example: "customized",
  }),
);

const NOT_A_PAGE_FIELD = "is not a custom page field";
const CONTENT = "must be a non-empty HTML string";

/** What a page is given as in the zone's writer and in a draft: `content`, never `url` (the API fetches that). */
const pageFields = () => ({
  state: PAGE_STATE(),
  content: z.optional(
    described(
      // Characters bound the bytes from below: a page longer than this in characters is longer in bytes.
      z
        .string({ error: CONTENT })
        .check(
          z.minLength(1, { error: CONTENT }),
          z.maxLength(MAX_PAGE_BYTES, { error: `must be at most ${MAX_PAGE_BYTES} bytes` }),
        ),
      "The page's HTML (with `state: customized`): `<head>`, `</head>` and the class's box token once",
    ),
  ),
});
/** A page as the zone's writer and a bundle take it: `state` and `content`, never `url`. */
export const PAGE_CONTENT_BODY = later(() => fields(pageFields(), NOT_A_PAGE_FIELD));

/**
 * `PUT /zones/{zone}/custom_pages/{id}`: the page as `content`, or as the published `url` (fetched and inlined by
 * src/api/custom-pages/page-url.ts, its HTML then the `content` the writer validates).
 */
export const PAGE_BODY = later(() =>
  named(
    fields(
      {
        ...pageFields(),
        url: z.optional(
          described(
            z.string({ error: "must be a URL string" }),
            "Instead of `content`: a URL of the zone, fetched from its origin and inlined as a custom error asset is; " +
              "with `state: default` only empty",
          ),
        ),
      },
      NOT_A_PAGE_FIELD,
    ),
    {
      id: "CustomPageBody",
      // For the `PageId` parameter's example (1000_errors).
      example: {
        state: "customized",
        content: `<!doctype html><html><head><title>Sorry</title></head><body>${BOX_TOKENS["1000_errors"][0]}</body></html>`,
      },
    },
  ),
);

export type PageBody = { readonly state: "default" } | { readonly state: "customized"; readonly content: string };

/** Every fault of the body's shape at once; of its content the first failing check only (they depend on each other). */
export type PageFailure = PlanForbids | { readonly kind: "invalid-page"; readonly issues: Issues };

export function parsePageBody(body: unknown, id: PageId, plan: Plan): Result<PageBody, PageFailure> {
  if (plan === "free") {
    return err({ kind: "plan-forbids", plan, feature: "custom error pages", reason: "they need a paid plan" });
  }
  const invalid = (field: string, message: string, kind: IssueKind = "invalid"): Result<never, PageFailure> =>
    err({ kind: "invalid-page", issues: oneIssue(kind, field, message) });
  const parsed = parseWith(PAGE_CONTENT_BODY, body, { root: "body" });
  if (!parsed.ok) return err({ kind: "invalid-page", issues: parsed.error });
  const { state, content } = parsed.value;
  if (state === "default") {
    return content === undefined
      ? ok({ state: "default" })
      : invalid("content", "must be absent when state is default");
  }
  if (content === undefined) return invalid("content", CONTENT, "missing");
  const size = new TextEncoder().encode(content).byteLength;
  if (size > MAX_PAGE_BYTES) return invalid("content", `must be at most ${MAX_PAGE_BYTES} bytes`);
  const growth = TOKEN_GROWTH.reduce((sum, [token, extra]) => sum + occurrences(content, token) * extra, 0);
  if (size + growth > MAX_PAGE_BYTES) {
    return invalid(
      "content",
      `must be at most ${MAX_PAGE_BYTES} bytes once its ::RAY_ID:: and ::CLIENT_IP:: tokens are replaced (up to ${size + growth})`,
    );
  }
  const lower = content.toLowerCase();
  if (!lower.includes("<head>") || !lower.includes("</head>"))
    return invalid("content", "must contain <head> and </head>");
  const [own, alias] = BOX_TOKENS[id];
  const ownCount = occurrences(content, own);
  const aliasCount = occurrences(content, alias);
  if (ownCount + aliasCount === 0) return invalid("content", `must contain the ${id} box token ${own} (or ${alias})`);
  if (ownCount + aliasCount > 1) {
    const found = [ownCount > 0 && `${own} ×${ownCount}`, aliasCount > 0 && `${alias} ×${aliasCount}`].filter(Boolean);
    return invalid(
      "content",
      `must contain the ${id} box token once, found it ${ownCount + aliasCount} times (${found.join(", ")})`,
    );
  }
  const other = id === "500_errors" ? BOX_TOKENS["1000_errors"] : BOX_TOKENS["500_errors"];
  const wrong = other.find((token) => content.includes(token));
  if (wrong !== undefined)
    return invalid("content", `must not contain ${wrong}, the box token of the other page class`);
  return ok({ state: "customized", content });
}
