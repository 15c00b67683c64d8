/**
 * A zone's telemetry settings (docs/telemetry.md): where its traces and logs go over OTLP/HTTP, how many requests are
 * sampled, and whether a client's W3C trace context is honoured. The request schema is zod 4; the same schema reads
 * the stored section back (stored.ts). Pure, no bindings.
 *
 * The header values are secrets (an API key of the operator's backend): stored, sent with each export, never
 * answered back (`redactedTelemetry`).
 */
import { z } from "zod/v4";
import { err, ok, type Result } from "../../../shared/result";
import { IssueList, type Issues } from "../../../shared/validation";
import { checkTarget, type TargetPolicy } from "../../analytics/alerts";

export const OTLP_PROTOCOLS = ["http/json", "http/protobuf"] as const;
export const TRACE_CONTEXT_POLICIES = ["accept", "ignore"] as const;

/** Bounds of the settings (docs/telemetry.md "Settings"). */
export const TELEMETRY_LIMITS = { headers: 16, headerValueChars: 4096, urlChars: 2048 } as const;

/**
 * Headers an export sets itself or that belong to the connection (RFC 9110 §7.6.1): an operator's value for one of
 * these would break the export, so it is refused when written.
 */
const RESERVED_HEADERS = new Set(["content-type", "content-length", "host", "connection", "transfer-encoding", "te"]);

/** RFC 9110 §5.1 field name: a token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 9110 §5.5 field value, visible ASCII and inner spaces only (a secret is a key, not prose). */
const FIELD_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

const rate = z.number().min(0).max(1);

/** The body of `PUT /zones/{zone}/telemetry`, in zod 4 (docs/telemetry.md "Settings"). */
export const telemetryBodySchema = z.strictObject({
  otlp: z.strictObject({
    endpoint: z.string().min(1).max(TELEMETRY_LIMITS.urlChars),
    logs_endpoint: z.string().min(1).max(TELEMETRY_LIMITS.urlChars).optional(),
    protocol: z.enum(OTLP_PROTOCOLS),
    headers: z
      .record(
        z.string().regex(TOKEN, "must be a header name (RFC 9110 token)"),
        z
          .string()
          .max(TELEMETRY_LIMITS.headerValueChars)
          .regex(FIELD_VALUE, "must be a header value of visible ASCII characters"),
      )
      .default({})
      .refine((headers) => Object.keys(headers).length <= TELEMETRY_LIMITS.headers, {
        message: `at most ${TELEMETRY_LIMITS.headers} headers`,
      })
      .refine((headers) => Object.keys(headers).every((name) => !RESERVED_HEADERS.has(name.toLowerCase())), {
        message: `must not set ${[...RESERVED_HEADERS].join(", ")} (the export sets them)`,
      }),
  }),
  sample: z.strictObject({ errors: rate.default(1), requests: rate.default(0) }).default({ errors: 1, requests: 0 }),
  trace_context: z.enum(TRACE_CONTEXT_POLICIES).default("accept"),
});

/** The settings as stored (secrets included). */
export type TelemetrySettings = z.infer<typeof telemetryBodySchema>;

/** What `GET` answers: the settings with every header value replaced by `"set"`. */
export type RedactedTelemetry = Omit<TelemetrySettings, "otlp"> & {
  readonly otlp: Omit<TelemetrySettings["otlp"], "headers"> & { readonly headers: Readonly<Record<string, "set">> };
};

/**
 * A `PUT` body into settings: the shape by the schema, then each endpoint by the alert webhook target rules
 * (docs/analytics.md "Webhook targets": https, never an API host, loopback only under WEBHOOK_LOOPBACK=allow).
 */
export function parseTelemetry(body: unknown, targets: TargetPolicy): Result<TelemetrySettings, Issues> {
  const issues = new IssueList();
  const parsed = telemetryBodySchema.safeParse(body);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      issues.add(issue.code === "unrecognized_keys" ? "unknown-field" : "invalid", pathOf(issue.path), issue.message);
    }
    return err(issues.issues);
  }
  const settings = parsed.data;
  const endpoint = checkTarget(settings.otlp.endpoint, targets, "otlp.endpoint");
  if (!endpoint.ok) issues.add("invalid", "otlp.endpoint", endpoint.error.message);
  const logs = settings.otlp.logs_endpoint;
  const logsChecked = logs === undefined ? null : checkTarget(logs, targets, "otlp.logs_endpoint");
  if (logsChecked !== null && !logsChecked.ok) issues.add("invalid", "otlp.logs_endpoint", logsChecked.error.message);
  if (issues.count > 0) return err(issues.issues);
  return ok(settings);
}

function pathOf(path: readonly PropertyKey[]): string {
  return path
    .map((part, i) => (typeof part === "number" ? `[${part}]` : `${i === 0 ? "" : "."}${String(part)}`))
    .join("");
}
