/**
 * A zone's telemetry settings (docs/telemetry.md): where its traces and logs go over OTLP/HTTP, how many requests are
 * sampled, and whether a client's W3C trace context is honoured. One request schema (docs/architecture.md "Request
 * schemas") is the validator, the type and the OpenAPI component `TelemetrySettings`; the same schema reads the
 * stored section back (stored.ts). Pure, no bindings.
 *
 * The header values are secrets (an API key of the operator's backend): stored, sent with each export, never
 * answered back (`redactedTelemetry`).
 */
import * as z from "zod/mini";
import { err, ok, type Result } from "../../../shared/result";
import { described, fields, later, named, num, oneOf, parseWith, text, type Output } from "../../../shared/schema";
import { IssueList, type Issues } from "../../../shared/validation";
import { checkTarget, type TargetPolicy } from "../../analytics/alerts";

export const OTLP_PROTOCOLS = ["http/json", "http/protobuf"] as const;
export const TRACE_CONTEXT_POLICIES = ["accept", "ignore"] as const;

/** Bounds of the settings (docs/telemetry.md "Settings"). */
export const TELEMETRY_LIMITS = { headers: 16, headerValueChars: 4096, urlChars: 2048 } as const;

/** The sampling rates when a body leaves them out: every error's trace, no other request's. */
const DEFAULT_SAMPLE = { errors: 1, requests: 0 } as const;

/**
 * Headers an export sets itself or that belong to the connection (RFC 9110 §7.6.1): an operator's value for one of
 * these would break the export, so it is refused when written.
 */
const RESERVED_HEADERS = new Set(["content-type", "content-length", "host", "connection", "transfer-encoding", "te"]);

/** RFC 9110 §5.1 field name: a token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 9110 §5.5 field value, visible ASCII and inner spaces only (a secret is a key, not prose). */
const FIELD_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

const endpoint = (description: string) =>
  described(
    text(
      { min: 1, max: TELEMETRY_LIMITS.urlChars },
      `must be an absolute https URL of at most ${TELEMETRY_LIMITS.urlChars} characters`,
    ),
    description,
  );

const rate = (description: string, value: number) => described(z._default(num(0, 1), value), description);

const headerMap = () =>
  described(
    z
      .record(
        text({ pattern: TOKEN }, "is not a header name (RFC 9110 token)"),
        text(
          { max: TELEMETRY_LIMITS.headerValueChars, pattern: FIELD_VALUE },
          `must be a header value of visible ASCII characters, at most ${TELEMETRY_LIMITS.headerValueChars}`,
        ),
        // A refused name is named by its path: the key's own message is what the client reads.
        { error: (issue) => (issue.code === "invalid_key" ? "is not a header name (RFC 9110 token)" : undefined) },
      )
      .check(
        z.refine((headers) => Object.keys(headers).length <= TELEMETRY_LIMITS.headers, {
          error: `must have at most ${TELEMETRY_LIMITS.headers} headers`,
        }),
        z.refine((headers) => Object.keys(headers).every((name) => !RESERVED_HEADERS.has(name.toLowerCase())), {
          error: `must not set ${[...RESERVED_HEADERS].join(", ")} (the export sets them)`,
        }),
      ),
    `Sent with every export (an API key), at most ${TELEMETRY_LIMITS.headers}: stored, never answered back ` +
      "(`GET` shows each value as `set`)",
  );

/** The body of `PUT /zones/{zone}/telemetry` (docs/telemetry.md "Settings"). */
export const TELEMETRY_BODY = later(() =>
  named(
    fields(
      {
        otlp: fields(
          {
            endpoint: endpoint(
              "OTLP/HTTP traces endpoint (`…/v1/traces`): https, never a host of API_HOSTS, no private address; " +
                "loopback only when the Worker runs with WEBHOOK_LOOPBACK=allow",
            ),
            logs_endpoint: z.optional(
              endpoint("OTLP/HTTP logs endpoint; absent: the traces endpoint with `/v1/traces` as `/v1/logs`"),
            ),
            protocol: oneOf(OTLP_PROTOCOLS),
            headers: z._default(headerMap(), {}),
          },
          "is not a field of otlp (endpoint, logs_endpoint, protocol, headers)",
        ),
        sample: described(
          z._default(
            fields(
              {
                errors: rate(
                  "Share of requests ending in a generated error whose trace is exported",
                  DEFAULT_SAMPLE.errors,
                ),
                requests: rate(
                  "Share of all requests whose trace is exported (decided when the request arrives)",
                  DEFAULT_SAMPLE.requests,
                ),
              },
              "is not a field of sample (errors, requests)",
            ),
            DEFAULT_SAMPLE,
          ),
          "Sampling rates from 0 to 1",
        ),
        trace_context: described(
          z._default(oneOf(TRACE_CONTEXT_POLICIES), "accept"),
          "`accept`: a client's W3C traceparent is the parent; `ignore`: every request starts a trace",
        ),
      },
      "is not a telemetry setting (otlp, sample, trace_context)",
    ),
    {
      id: "TelemetrySettings",
      example: {
        otlp: {
          endpoint: "https://otlp.example.net/v1/traces",
          protocol: "http/protobuf",
          headers: { "x-api-key": "secret-key" },
        },
        sample: { errors: 1, requests: 0.01 },
        trace_context: "accept",
      },
    },
  ),
);

/** The settings as stored (secrets included). */
export type TelemetrySettings = Output<typeof TELEMETRY_BODY>;

/** What `GET` answers: the settings with every header value replaced by `"set"`. */
export type RedactedTelemetry = Omit<TelemetrySettings, "otlp"> & {
  readonly otlp: Omit<TelemetrySettings["otlp"], "headers"> & { readonly headers: Readonly<Record<string, "set">> };
};

/**
 * A `PUT` body into settings: the shape by the schema, then each endpoint by the alert webhook target rules
 * (docs/analytics.md "Webhook targets": https, never an API host, loopback only under WEBHOOK_LOOPBACK=allow).
 */
export function parseTelemetry(body: unknown, targets: TargetPolicy): Result<TelemetrySettings, Issues> {
  const parsed = parseWith(TELEMETRY_BODY, body, { root: "body" });
  if (!parsed.ok) return parsed;
  const settings = parsed.value;
  const issues = new IssueList();
  const { endpoint, logs_endpoint: logs } = settings.otlp;
  for (const [field, url] of [["otlp.endpoint", endpoint] as const, ["otlp.logs_endpoint", logs] as const]) {
    const checked = url === undefined ? null : checkTarget(url, targets, field);
    // The rules' message starts with the field's name; the issue's path already says it.
    if (checked !== null && !checked.ok) issues.add("invalid", field, checked.error.message.slice(field.length + 1));
  }
  return issues.count > 0 ? err(issues.issues) : ok(settings);
}

/** A stored section read back: settings, or `null` when it is not (never trusted). */
export function readTelemetry(value: unknown): TelemetrySettings | null {
  const parsed = TELEMETRY_BODY().safeParse(value);
  return parsed.success ? parsed.data : null;
}
