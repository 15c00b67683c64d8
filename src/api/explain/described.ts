/**
 * The described request's parts both runs read the same way, the draft preview (`POST /zones/{zone}/preview`,
 * src/api/preview/draft.ts) and the request tracer (src/api/tracer/tracer.ts): their limits (`REQUEST_LIMITS`), a
 * header object, and what the origin did (docs/custom-errors.md "Draft preview", "Request tracer"). Pure: no bindings.
 */
import * as z from "zod/mini";
import { catalogEntry } from "../../errors/catalog";
import { described, exactlyOne, fields, int, oneOf, text, type Output } from "../../shared/schema";
import { ORIGIN_FAILURES, type DescribedError } from "./explain";

export const REQUEST_LIMITS = {
  methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
  pathChars: 8192,
  headers: 100,
  headerNameChars: 256,
  headerValueChars: 8192,
  /** All described header names and values together (the zone's own limit, docs/configuration.md, applies to traffic before rules). */
  headerBytes: 65_536,
  originBodyChars: 65_536,
  /** An origin response status: 200–599 (under 400 it passes through, as on traffic). */
  originStatus: { min: 200, max: 599 },
} as const;

/** RFC 9110 §5.6.2 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const HEADER_NAME_RULE = `is not a header name (RFC 9110 token characters, at most ${REQUEST_LIMITS.headerNameChars})`;
const HEADER_VALUE_RULE = `must be a string of at most ${REQUEST_LIMITS.headerValueChars} characters`;

/*
 * The schemas below are made by functions, not at module evaluation: each is part of a body's schema that is made on
 * its first parse (`later`, src/shared/schema.ts), and is made inside that body's maker.
 */

/** A header's value as a Headers object holds it. */
export const headerValue = () =>
  z.string({ error: HEADER_VALUE_RULE }).check(
    // `abort`: a value too long is one refusal, not that and its characters too.
    z.maxLength(REQUEST_LIMITS.headerValueChars, { error: HEADER_VALUE_RULE, abort: true }),
    // RFC 9110 §5.5: no CR, LF or NUL in a field value; the rest of Latin-1 is what a Headers object can hold.
    z.regex(/^[\t\x20-\x7e\x80-\xff]*$/, { error: "must hold no control characters and only Latin-1 (RFC 9110 §5.5)" }),
  );

/**
 * Why a header the run sets itself is refused, by its lower-case name (`undefined`: it is the caller's to give);
 * `value` for a header the run reads (the tracer's client address).
 */
type HeaderRefusal = (name: string, value: string) => string | undefined;

/** Set by the preview itself: the zone's host is the URL's, the client address is `client_ip`. */
const SET_BY_THE_PREVIEW = "is set by the preview (the host is the zone; give client_ip for the address)";

/**
 * A header object `{name: value}` within `REQUEST_LIMITS`: each name a token, each value a string of Latin-1 without
 * controls, none that `refusal` refuses, at most `headers` of them and `headerBytes` of names and values.
 */
export function headerMap(refusal: HeaderRefusal, description: string) {
  return z
    .record(text({ max: REQUEST_LIMITS.headerNameChars, pattern: TOKEN }, HEADER_NAME_RULE), headerValue(), {
      error: (issue) =>
        issue.code === "invalid_key"
          ? HEADER_NAME_RULE
          : issue.code === "invalid_type"
            ? 'must be an object {"name": "value"}'
            : undefined,
    })
    .check(
      z.superRefine((headers, context) => {
        const entries = Object.entries(headers);
        if (entries.length > REQUEST_LIMITS.headers) {
          context.issues.push({
            code: "custom",
            message: `must hold at most ${REQUEST_LIMITS.headers} headers`,
            input: headers,
          });
          return;
        }
        let bytes = 0;
        for (const [name, value] of entries) {
          bytes += name.length + value.length;
          const refused = refusal(name.toLowerCase(), value);
          if (refused !== undefined)
            context.issues.push({ code: "custom", message: refused, path: [name], input: value });
        }
        if (bytes > REQUEST_LIMITS.headerBytes)
          context.issues.push({
            code: "custom",
            message: `must be at most ${REQUEST_LIMITS.headerBytes} bytes of names and values`,
            input: headers,
          });
      }),
      // What the emitter cannot read from the refinement above, stated from the same constant.
      z.meta({
        maxProperties: REQUEST_LIMITS.headers,
        description: `Header name → value; at most ${REQUEST_LIMITS.headerBytes} bytes of names and values. ${description}`,
      }),
    );
}

/** A described request's headers: `Host` and `CF-Connecting-IP` are the run's (the zone, `client_ip`). */
export const describedHeaders = () =>
  headerMap(
    (name) => (name === "host" || name === "cf-connecting-ip" ? SET_BY_THE_PREVIEW : undefined),
    "`Host` and `CF-Connecting-IP` are refused (the host is the zone; give `client_ip`).",
  );

/** The refusal of a `Host` header, whose value is the zone's (the URL's host). */
export const hostRefused = (name: string): string | undefined => (name === "host" ? SET_BY_THE_PREVIEW : undefined);

/** A parsed header object as the run sends it: values trimmed, in the order given. */
export const headerList = (headers: Readonly<Record<string, string>> | undefined): [string, string][] =>
  Object.entries(headers ?? {}).map(([name, value]) => [name, value.trim()]);

export const ORIGIN_SHAPE_RULE = "must be an object {status, headers?, body?} or {failure}";

/** The fields of a described origin: `{status, headers?, body?}` (it answered) or `{failure}` (it did not). */
export const originFields = () => ({
  status: z.optional(int(REQUEST_LIMITS.originStatus.min, REQUEST_LIMITS.originStatus.max)),
  headers: z.optional(describedHeaders()),
  body: z.optional(
    text(
      { max: REQUEST_LIMITS.originBodyChars },
      `must be a string of at most ${REQUEST_LIMITS.originBodyChars} characters`,
    ),
  ),
  failure: z.optional(
    described(
      oneOf(ORIGIN_FAILURES),
      "Classified by the proxy's own classifier (docs/origin.md): refused 521, unreachable 523, unresolvable " +
        "1016, connect-timeout 522, read-timeout 524, reset 520, malformed 502, tls-handshake 525, " +
        "tls-certificate 526",
    ),
  ),
});

/** The refusal of an origin that gave neither or both of its answers. */
export const ORIGIN_ONE_RULE = "give exactly one of status (the origin's response) or failure";

/** A failed origin sent no response, so nothing of one may be described. */
export const failureWithoutAnswer = () =>
  z.superRefine<{ status?: unknown; failure?: unknown; headers?: unknown; body?: unknown }>((origin, context) => {
    if (
      origin.failure !== undefined &&
      origin.status === undefined &&
      (origin.headers !== undefined || origin.body !== undefined)
    )
      context.issues.push({
        code: "custom",
        message: "takes no headers or body (the origin sent no response)",
        path: ["failure"],
        input: origin.failure,
      });
  });

/** What the origin did: `{status, headers?, body?}` (it answered) or `{failure}` (it did not). */
export const describedOrigin = () =>
  fields(originFields(), "is not an origin field", ORIGIN_SHAPE_RULE).check(
    exactlyOne(["status", "failure"], ORIGIN_ONE_RULE),
    failureWithoutAnswer(),
    z.describe("Exactly one of `status` (the origin answered) and `failure` (it did not)"),
  );

const CODE_RULE = "must be an error code of the catalog (GET /cdn-cgi/errors lists them)";

/** A catalog error the edge generates. */
export const catalogCode = () =>
  z.int({ error: CODE_RULE }).check(
    z.refine((code) => catalogEntry(code) !== undefined, { error: CODE_RULE }),
    z.describe("A catalog error the edge generates (a block, a rate limit, a 52x)"),
  );

/** A parsed origin as the run takes it (the schema's refinement let exactly one of `status` and `failure` through). */
export function originError(origin: Output<ReturnType<typeof describedOrigin>>): DescribedError {
  if (origin.failure !== undefined) return { kind: "origin-failure", failure: origin.failure };
  return {
    kind: "origin-response",
    status: origin.status ?? REQUEST_LIMITS.originStatus.min,
    headers: headerList(origin.headers),
    body: origin.body ?? "",
  };
}
