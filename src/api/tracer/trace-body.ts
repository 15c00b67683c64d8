/**
 * The body of `POST /accounts/{account_id}/request-tracer/trace` (docs/custom-errors.md "Request tracer"): the
 * published `TraceCreateParams` with this service's `origin`, as one schema (the validator, the type and the OpenAPI
 * component `TraceBody`), and the described request a run takes from it. Pure: no bindings.
 */
import * as z from "zod/mini";
import {
  failureWithoutAnswer,
  headerList,
  headerMap,
  headerValue,
  hostRefused,
  originFields,
  ORIGIN_ONE_RULE,
  ORIGIN_SHAPE_RULE,
  originError,
  REQUEST_LIMITS,
} from "../explain/described";
import { ORIGIN_FAILURES, type DescribedError, type DescribedRequest } from "../explain/explain";
import type { ZoneApiFailure } from "../kit/zone-section";
import { normaliseHostname } from "../../shared/host";
import { parseIp } from "../../shared/ip";
import { err, ok, type Result } from "../../shared/result";
import { described, exactlyOne, fields, later, oneOf, parseWith, text, type Output } from "../../shared/schema";
import { parseZoneName } from "../../state/zone/schema";

/** How the origin takes part in a trace. */
export type OriginPart =
  | { readonly kind: "not-contacted" }
  | { readonly kind: "described"; readonly error: DescribedError }
  | { readonly kind: "contact" };

/** A parsed trace body: the zone (the URL's host), the request on it, and what the origin does. */
export interface TraceRequest {
  readonly zone: string;
  readonly described: Omit<DescribedRequest, "error">;
  readonly origin: OriginPart;
}

/** The methods `origin.contact` sends: safe ones only (RFC 9110 §9.2.1), so a trace never changes the origin's state. */
const CONTACT_METHODS: readonly string[] = ["GET", "HEAD"];

const URL_RULE = `must be an absolute http or https URL of at most ${REQUEST_LIMITS.pathChars} characters`;

/** The URL as the run sends it, on its zone (the host, normalised; the port is the zone's), or why it names none. */
function zoneUrl(raw: string): Result<{ readonly url: URL; readonly zone: string }, string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return err("must be an absolute http or https URL (https://zone.example/path)");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return err("must be an http or https URL");
  const zone = parseZoneName(normaliseHostname(url.hostname));
  if (!zone.ok) return err(`its host ${zone.error}`);
  return ok({ url: new URL(`${url.protocol}//${zone.value}${url.pathname}${url.search}`), zone: zone.value });
}

/*
 * The parts of the body below are made by functions, inside the body's own maker (`TRACE_BODY`, made on its first
 * parse or when the document is built), not at module evaluation.
 */

const traceUrl = () =>
  z.pipe(
    described(
      // `abort`: a URL too long is one refusal, not that and its parse too.
      z.string({ error: URL_RULE }).check(z.maxLength(REQUEST_LIMITS.pathChars, { error: URL_RULE, abort: true })),
      "An absolute http(s) URL; its host is the zone",
    ),
    z.transform((raw: string, context) => {
      const at = zoneUrl(raw);
      if (at.ok) return at.value;
      context.issues.push({ code: "custom", message: at.error, input: raw });
      return z.NEVER;
    }),
  );

const CLIENT_IP_RULE = "must be an IPv4 or IPv6 address (the client's address)";

/** The draft preview's header object, except that `CF-Connecting-IP` is the client's address, read by `ip.src`. */
const traceHeaders = () =>
  headerMap(
    (name, value) =>
      name === "cf-connecting-ip" ? (parseIp(value) === undefined ? CLIENT_IP_RULE : undefined) : hostRefused(name),
    "`CF-Connecting-IP` gives the client's address (`ip.src`); `Host` is refused (the host is the URL's).",
  );

const cookieHeader = (cookies: Readonly<Record<string, string>>): string =>
  Object.entries(cookies)
    .map(([name, value]) => `${name}=${value}`)
    .join("; ");

const COOKIE_RULE =
  `must make one Cookie header of at most ${REQUEST_LIMITS.headerValueChars} characters, ` +
  "with no control characters and only Latin-1 (RFC 9110 §5.5)";

/** Sent as one `Cookie` header, which must be a header value as any other. */
const cookies = () => {
  const value = headerValue();
  return z
    .record(z.string(), z.string({ error: "must be a string" }), { error: 'must be an object {"name": "value"}' })
    .check(
      z.refine((cookies) => value.safeParse(cookieHeader(cookies)).success, { error: COOKIE_RULE }),
      z.describe("Sent as one `Cookie` header"),
    );
};

/** A published field this service accepts and never reads (no rule of it reads the body, a bot score, …). */
const unused = (meta: { readonly type: string; readonly description: string }) =>
  z.optional(z.unknown().check(z.meta({ ...meta })));

const COUNTRY_RULE = "must be a two-letter country code (ISO 3166-1 alpha-2)";

const traceContext = () =>
  fields(
    {
      // The published geoloc has more fields; only the country is read, the rest is passed over.
      geoloc: z.optional(
        z.looseObject(
          {
            iso_code: z.optional(
              described(text({ pattern: /^[A-Za-z]{2}$/ }, COUNTRY_RULE), "The client's country (`ip.src.country`)"),
            ),
          },
          { error: (issue) => (issue.code === "invalid_type" ? "must be an object {iso_code?, …}" : undefined) },
        ),
      ),
      bot_score: unused({ type: "integer", description: "Accepted and unused: this service has no bot score" }),
      threat_score: unused({ type: "integer", description: "Accepted and unused" }),
      skip_challenge: unused({ type: "boolean", description: "Accepted and unused: this service has no challenge" }),
    },
    "is not a context field",
    "must be an object {geoloc?, …}",
  );

const CONTACT_RULE = 'must be true, alone: {"contact": true} sends the request to the origin';

/** The described origin of the draft preview, or `{contact: true}`: the origin is sent the request for real. */
const traceOrigin = () =>
  fields(
    { contact: z.optional(z.literal(true, { error: CONTACT_RULE })), ...originFields() },
    "is not an origin field",
    ORIGIN_SHAPE_RULE,
  ).check(
    z.superRefine((origin, context) => {
      // Pushed as is, the issue ends this object's checks: `contact` with more is that refusal only.
      if (origin.contact !== undefined && Object.keys(origin).length !== 1)
        context.issues.push({ code: "custom", message: CONTACT_RULE, path: ["contact"], input: origin.contact });
    }),
    exactlyOne(["status", "failure", "contact"], ORIGIN_ONE_RULE),
    failureWithoutAnswer(),
    z.describe(
      "This service's addition: `{contact: true}` sends the request (GET or HEAD only; the token needs " +
        "`zones:write`; counted by the zone's rate-limiting rules) to the zone's origin for real, and reads at " +
        "most 64 KiB of an error body; `{status, headers?, body?}` is the origin's described answer; `{failure}` one " +
        `of ${ORIGIN_FAILURES.join(", ")}. Absent: not contacted.`,
    ),
  );

/** `POST /accounts/{account_id}/request-tracer/trace`: the published `TraceCreateParams` and `origin`. */
const TRACE_BODY = later(
  () =>
    fields(
      {
        method: oneOf(REQUEST_LIMITS.methods),
        url: traceUrl(),
        headers: z.optional(traceHeaders()),
        cookies: z.optional(cookies()),
        context: z.optional(traceContext()),
        body: unused({ type: "object", description: "Accepted and unused: no rule of this service reads the body" }),
        protocol: unused({ type: "string", description: "Accepted and unused" }),
        origin: z.optional(traceOrigin()),
        skip_response: z.optional(
          described(
            z.boolean({ error: "must be a boolean" }),
            "Published: do not contact the origin. The origin is contacted only with `origin.contact`.",
          ),
        ),
      },
      "is not a trace field",
      "must be a JSON object {method, url, headers?, context?, cookies?, origin?}",
    ).check(
      z.superRefine((trace, context) => {
        if (trace.origin?.contact === undefined) return;
        if (!CONTACT_METHODS.includes(trace.method))
          context.issues.push({
            code: "custom",
            message: `sends only ${CONTACT_METHODS.join(" and ")} to the origin, not ${trace.method}`,
            path: ["origin", "contact"],
            input: trace.origin.contact,
          });
        if (trace.skip_response === true)
          context.issues.push({
            code: "custom",
            message: "cannot be true with origin.contact: the origin is not contacted then",
            path: ["skip_response"],
            input: trace.skip_response,
          });
      }),
    ),
  {
    id: "TraceBody",
    example: {
      method: "GET",
      url: "https://shop.example/api/cart",
      headers: { Accept: "application/json", "CF-Connecting-IP": "203.0.113.7" },
      context: { geoloc: { iso_code: "FR" } },
      origin: { status: 503, headers: { "Content-Type": "text/html" }, body: "<h1>down</h1>" },
    },
  },
);

/** The published body → a described request on its zone; refusals name the field (400, `invalid-trace`). */
export function parseTraceBody(body: unknown): Result<TraceRequest, ZoneApiFailure> {
  const parsed = parseWith(TRACE_BODY, body, { root: "body" });
  if (!parsed.ok) return err({ kind: "invalid-trace", issues: parsed.error });
  const { method, url, headers, cookies, context, origin } = parsed.value;
  let clientIp: string | null = null;
  const sent: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    // The client's address is the one header `ip.src` is read from (docs/rules-language.md).
    if (name.toLowerCase() === "cf-connecting-ip") clientIp = value;
    else sent[name] = value;
  }
  if (cookies !== undefined && Object.keys(cookies).length > 0) sent.Cookie = cookieHeader(cookies);
  return ok({
    zone: url.zone,
    described: {
      method,
      url: url.url,
      headers: headerList(sent),
      clientIp,
      country: context?.geoloc?.iso_code?.toUpperCase() ?? null,
    },
    origin: originPart(origin),
  });
}

function originPart(origin: Output<typeof TRACE_BODY>["origin"]): OriginPart {
  if (origin === undefined) return { kind: "not-contacted" };
  // The schema let `contact` through only alone.
  if (origin.contact === true) return { kind: "contact" };
  return { kind: "described", error: originError(origin) };
}
