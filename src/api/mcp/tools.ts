/**
 * The MCP endpoint's tools (docs/mcp.md "Tools"), in the order `tools/list` shows them. Every tool reads (none stores)
 * and needs `zones:read`; `trace_request` also needs a token with accounts.
 */
import { explainError, errorRate, topErrors } from "./analytics-tools";
import { lintRules, previewError, replayDraft, traceRequest } from "./preview-tools";
import * as z from "zod/mini";
import { envelopeOf } from "./route-call";
import { defineTool, done, failed, refusal, type McpTool } from "./tool";

/** The published maximum page of `GET /zones`. */
const PER_PAGE = 50;

interface ListedZone {
  readonly name: string;
  readonly plan?: { readonly legacy_id: string };
  readonly account?: { readonly id: string };
  readonly modified_on?: string;
}

export const listZones = defineTool(() => ({
  name: "list_zones",
  title: "List the zones this token can read",
  description:
    "The zones (hostnames) this token may read, with plan, account and last change, 50 a page. USE THIS FIRST when you do not know the zone's exact name, or after a tool says the token may not read a zone. Same as GET /zones.",
  input: z.strictObject({
    page: z.optional(z.int().check(z.minimum(1), z.maximum(10_000), z.describe("The page, from 1; default 1."))),
  }),
  output: z.looseObject({
    zones: z.array(z.looseObject({ name: z.string() })),
    page: z.number(),
    total_pages: z.number(),
    total_count: z.number(),
  }),
  run: async ({ page }, t) => {
    const query = { page: String(page ?? 1), per_page: String(PER_PAGE) };
    const answer = await envelopeOf(await t.call({ method: "GET", path: "/zones", query }));
    if (!answer.ok) return failed(refusal("list_zones", answer.error, "the zone list"));
    const zones = (answer.value.result as ListedZone[]).map((zone) => ({
      name: zone.name,
      plan: zone.plan?.legacy_id ?? null,
      account_id: zone.account?.id ?? null,
      modified_on: zone.modified_on ?? null,
    }));
    const info = answer.value.resultInfo ?? {};
    const structured = {
      zones,
      page: Number(info.page ?? 1),
      total_pages: Number(info.total_pages ?? 1),
      total_count: Number(info.total_count ?? zones.length),
    };
    return done(
      structured,
      zones.length === 0
        ? "This token can read no zone."
        : `${structured.total_count} zone${structured.total_count === 1 ? "" : "s"}: ${zones.map((z) => z.name).join(", ")}` +
            (structured.total_pages > structured.page
              ? ` (page ${structured.page} of ${structured.total_pages})`
              : "") +
            ".",
    );
  },
}));

export const TOOLS: readonly McpTool[] = [
  listZones,
  explainError,
  topErrors,
  errorRate,
  previewError,
  lintRules,
  traceRequest,
  replayDraft,
];
