/**
 * What every tool of the MCP endpoint shares (docs/mcp.md "Tools"): one definition per tool holds its name, its
 * zod input and output schemas (the JSON Schemas `tools/list` shows are made from them, so a schema lives in one
 * place), its annotations, which tokens see it, and what it runs. Arguments are parsed before anything runs; a
 * refusal, like every failure, is a tool result with `isError: true` and a sentence naming what to change
 * (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling), never a JSON-RPC error.
 */
import * as z from "zod/mini";
import type { Principal } from "../kit/auth";
import { API_CODES } from "../kit/codes";
import type { Settings } from "../../shared/settings";
import type { EnvelopeFailure, RouteCaller } from "./route-call";

/** What a tool needs besides its arguments: the token's principal, the route caller, the clock. */
export interface ToolContext {
  readonly principal: Principal;
  readonly call: RouteCaller;
  readonly now: number;
  readonly settings: Settings;
}

export type ToolOutcome =
  | { readonly kind: "ok"; readonly structured: Record<string, unknown>; readonly summary: string }
  | { readonly kind: "failed"; readonly sentence: string };

export const done = (structured: Record<string, unknown>, summary: string): ToolOutcome => ({
  kind: "ok",
  structured,
  summary,
});
export const failed = (sentence: string): ToolOutcome => ({ kind: "failed", sentence });

export interface ToolDefinition<I extends z.ZodMiniType> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: I;
  readonly output: z.ZodMiniType;
  /** Which tokens see (and may call) the tool; every tool needs `zones:read` (the endpoint checks it). */
  readonly visible?: (principal: Principal) => boolean;
  readonly run: (args: z.output<I>, t: ToolContext) => Promise<ToolOutcome>;
}

/** A tool with its types erased, as the endpoint lists and calls them. */
export interface McpTool {
  readonly name: string;
  /** The `Tool` object of `tools/list`. */
  readonly listed: () => Record<string, unknown>;
  readonly visible: (principal: Principal) => boolean;
  readonly call: (args: unknown, t: ToolContext) => Promise<ToolOutcome>;
}

/** JSON Schema (draft-07, the dialect MCP clients validate with) of a zod schema, without `$schema`. */
function jsonSchema(schema: z.ZodMiniType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-7", io }) as Record<string, unknown>;
  return portable(rest) as Record<string, unknown>;
}

/**
 * The same schema in the spelling the most clients read: `additionalProperties: true` for zod's `{}` (open
 * objects), and a nullable `type: [t, "null"]` as `anyOf` branches of one type each (tool schemas are mapped onto
 * single-type dialects by some model providers; the MCP inspector's `--strict` check names both).
 */
function portable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(portable);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (
      key === "additionalProperties" &&
      typeof value === "object" &&
      value !== null &&
      Object.keys(value).length === 0
    )
      out[key] = true;
    else out[key] = portable(value);
  }
  if (Array.isArray(out.type)) {
    const { type, ...rest } = out;
    return { anyOf: (type as unknown[]).map((t) => ({ ...rest, type: t })) };
  }
  return out;
}

/**
 * A tool from its definition, made on the isolate's first MCP request that names or lists a tool, not at start-up:
 * a definition holds zod schemas, which are objects to construct when the module is evaluated (docs/benchmarks.md
 * "2026-11-29 (ninth)"), and most isolates never answer `/mcp`.
 */
export function defineTool<I extends z.ZodMiniType>(define: () => ToolDefinition<I>): McpTool {
  let defined: ToolDefinition<I> | null = null;
  const definition = (): ToolDefinition<I> => (defined ??= define());
  // Made on the first `tools/list` of an isolate: most requests of an isolate never list tools.
  let listed: Record<string, unknown> | null = null;
  return {
    get name() {
      return definition().name;
    },
    listed: () => {
      const d = definition();
      return (listed ??= {
        name: d.name,
        title: d.title,
        description: d.description,
        inputSchema: jsonSchema(d.input, "input"),
        outputSchema: jsonSchema(d.output, "output"),
        // Every tool reads; none writes (https://modelcontextprotocol.io/specification/2025-11-25/schema#toolannotations).
        annotations: {
          title: d.title,
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        },
      });
    },
    visible: (principal) => principal.permissions.has("zones:read") && (definition().visible?.(principal) ?? true),
    call: async (args, t) => {
      const d = definition();
      const parsed = d.input.safeParse(args ?? {});
      if (!parsed.success)
        return failed(
          `Invalid arguments for ${d.name}: ${issuesSentence(parsed.error.issues)}. Fix them and call again.`,
        );
      return d.run(parsed.data, t);
    },
  };
}

/** zod's issues in words (zod's mini build carries no messages, only the issue's facts). */
function issuesSentence(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const at = issue.path.length === 0 ? "arguments" : issue.path.join(".");
      switch (issue.code) {
        case "invalid_type":
          return issue.input === undefined
            ? `${at} is required (${issue.expected})`
            : `${at} must be a ${issue.expected}`;
        case "invalid_value":
          return `${at} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
        case "unrecognized_keys":
          return `unknown argument${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`;
        case "too_small":
          return `${at} must be at least ${String(issue.minimum)}${issue.origin === "string" ? " characters long" : ""}`;
        case "too_big":
          return `${at} must be at most ${String(issue.maximum)}${issue.origin === "string" ? " characters long" : ""}`;
        case "invalid_format":
          return `${at} ${issue.message === "Invalid input" ? `is not in the expected format` : issue.message}`;
        default:
          return `${at}: ${issue.message}`;
      }
    })
    .join("; ");
}

/** A route's refusal as a sentence a model can act on: the API's own message, then what to do about its status. */
export function refusal(tool: string, f: EnvelopeFailure, subject: string): string {
  const said = f.errors.map((e) => `${e.message} (code ${e.code})`).join("; ");
  // 403 is also a plan's refusal (a feature the zone's plan lacks): only the token's own refusal is about its scope.
  const next =
    f.status === 403 && f.errors.some((e) => e.code === API_CODES.forbidden.code)
      ? `This token may not read ${subject}: call list_zones for the zones it can read, or use a token whose zones or accounts include it.`
      : f.status === 429
        ? `Too many previews or replays for this token: wait ${f.retryAfter ?? "a few"} seconds and call again.`
        : f.status >= 500
          ? "The service failed; call again later, and report the reference if it persists."
          : "Fix the arguments and call again.";
  return `${tool} failed: ${said}. ${next}`;
}

/** A zone name argument: the hostname, as the API takes it (made with its tool's definition, not at start-up). */
export const zoneArgument = () =>
  z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(253),
      z.describe("The zone: its hostname, e.g. shop.example (list_zones lists them)."),
    );

/** `since`: a duration back from now (`15m`, `1h`, `24h`, `7d`) or an RFC 3339 date-time. */
export const sinceArgument = () =>
  z.optional(
    z
      .string()
      .check(
        z.regex(/^(?:\d{1,4}[smhd]|\d{4}-\d{2}-\d{2}T[0-9:.]{5,18}(?:Z|[+-]\d{2}:\d{2}))$/i),
        z.describe(
          "How far back: a duration before now (15m, 1h, 24h, 7d) or an RFC 3339 date-time; default: the last hour.",
        ),
      ),
  );

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The `since` argument as the API takes it: an RFC 3339 date-time (a duration counted back from `now`). */
export function sinceParameter(raw: string | undefined, now: number): string | undefined {
  if (raw === undefined) return undefined;
  const duration = /^(\d{1,4})([smhd])$/i.exec(raw);
  if (duration === null) return raw;
  return new Date(now - Number(duration[1]) * UNIT_MS[duration[2]!.toLowerCase()]!).toISOString();
}
