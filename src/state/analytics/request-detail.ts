/**
 * What a recorded error keeps of its request and of each phase, beyond the record's first twelve values
 * (docs/analytics.md "Request detail"): which representation its `Accept` asks for, the class of its client address,
 * and what each phase did (IP access, firewall, rate limiting, the origin, the custom error rules). A replay
 * (docs/custom-errors.md "Replay") rebuilds a request from it, and the Ray lookup shows every phase's outcome.
 *
 * Packed into one short string, one character per value and the blocking rule's id last, so a record grows by
 * 10 bytes (45 when a request-phase rule blocked it): `{accept}{client}{ip access}{firewall}{rate limit}{origin}
 * {custom rules}[:{rule id}]`. Pure: no bindings.
 */
import { FORMATS, type ServedFormat } from "./record";
import { HEX_ID } from "../../shared/crypto";

/**
 * Which answer the request's `Accept` negotiates (docs/negotiation.md): one of the four representations, `mcp`
 * (an MCP client: a POST with an `Mcp-Method` header or accepting both `application/json` and `text/event-stream`),
 * `other` (an `Accept` naming none of the four and no wildcard: HTML by fallback), `none` (no `Accept`: HTML).
 */
export const ACCEPT_FAMILIES = ["html", "json", "problem+json", "markdown", "mcp", "other", "none"] as const;
export type AcceptFamily = (typeof ACCEPT_FAMILIES)[number];

/**
 * The client address (`CF-Connecting-IP`, src/shared/client-address.ts) by class, never the address: `private`
 * is loopback, RFC 1918, shared (RFC 6598), link-local and unique-local (RFC 4193) addresses of either family.
 */
export const ADDRESS_CLASSES = ["ipv4", "ipv6", "private", "none"] as const;
export type AddressClass = (typeof ADDRESS_CLASSES)[number];

/** A request phase's outcome: no rule configured, passed, blocked (by `blocked_by`), not reached. */
export const PHASE_MARKS = ["none", "passed", "blocked", "not-reached"] as const;
export type RequestPhaseMark = (typeof PHASE_MARKS)[number];

/** The origin: never contacted, failed (the record's code names how, docs/origin.md), or answered an error. */
export type OriginMark =
  | { readonly kind: "not-reached" }
  | { readonly kind: "failed" }
  | { readonly kind: "responded"; readonly format: ServedFormat };

/** The custom error rules: not run (plan, or no enabled rule), run without a match, matched (the record's answer). */
export const RULES_MARKS = ["not-run", "no-match", "matched"] as const;
export type RulesMark = (typeof RULES_MARKS)[number];

export interface RequestDetail {
  readonly accept: AcceptFamily;
  readonly client: AddressClass;
  readonly ipAccess: RequestPhaseMark;
  readonly firewall: RequestPhaseMark;
  readonly rateLimit: RequestPhaseMark;
  readonly origin: OriginMark;
  readonly rules: RulesMark;
  /** The id of the IP access, firewall or rate-limiting rule that blocked the request, else null. */
  readonly blockedBy: string | null;
}

const ACCEPT_CHARS = "hjpmcon";
const CLIENT_CHARS = "46p-";
const PHASE_CHARS = "-pbn";
/**
 * The origin's own format, one character per FORMATS entry; `n` not reached, `f` failed. `g` (gRPC) came later and
 * `other` keeps its `o`, so a detail stored before it reads the same.
 */
const FORMAT_CHARS = "jpmhtxgo";
const RULES_CHARS = "-xm";

export function encodeDetail(d: RequestDetail): string {
  const origin =
    d.origin.kind === "not-reached"
      ? "n"
      : d.origin.kind === "failed"
        ? "f"
        : FORMAT_CHARS[FORMATS.indexOf(d.origin.format)];
  const head =
    ACCEPT_CHARS[ACCEPT_FAMILIES.indexOf(d.accept)]! +
    CLIENT_CHARS[ADDRESS_CLASSES.indexOf(d.client)]! +
    PHASE_CHARS[PHASE_MARKS.indexOf(d.ipAccess)]! +
    PHASE_CHARS[PHASE_MARKS.indexOf(d.firewall)]! +
    PHASE_CHARS[PHASE_MARKS.indexOf(d.rateLimit)]! +
    origin! +
    RULES_CHARS[RULES_MARKS.indexOf(d.rules)]!;
  return d.blockedBy !== null && HEX_ID.test(d.blockedBy) ? `${head}:${d.blockedBy}` : head;
}

/** The detail of a stored value; null for a record stored before it was kept (schema migration 4) or unreadable. */
export function decodeDetail(text: unknown): RequestDetail | null {
  if (typeof text !== "string" || text.length < 7) return null;
  const accept = ACCEPT_FAMILIES[ACCEPT_CHARS.indexOf(text[0]!)];
  const client = ADDRESS_CLASSES[CLIENT_CHARS.indexOf(text[1]!)];
  const ipAccess = PHASE_MARKS[PHASE_CHARS.indexOf(text[2]!)];
  const firewall = PHASE_MARKS[PHASE_CHARS.indexOf(text[3]!)];
  const rateLimit = PHASE_MARKS[PHASE_CHARS.indexOf(text[4]!)];
  const o = text[5]!;
  const format = FORMATS[FORMAT_CHARS.indexOf(o)];
  const origin: OriginMark | undefined =
    o === "n"
      ? { kind: "not-reached" }
      : o === "f"
        ? { kind: "failed" }
        : format !== undefined
          ? { kind: "responded", format }
          : undefined;
  const rules = RULES_MARKS[RULES_CHARS.indexOf(text[6]!)];
  const id = text.length > 8 && text[7] === ":" ? text.slice(8) : null;
  if (
    accept === undefined ||
    client === undefined ||
    ipAccess === undefined ||
    firewall === undefined ||
    rateLimit === undefined ||
    origin === undefined ||
    rules === undefined ||
    (id !== null && !HEX_ID.test(id))
  )
    return null;
  return { accept, client, ipAccess, firewall, rateLimit, origin, rules, blockedBy: id };
}

/** The request-phase marks of a zone whose phases did not run (a limit refused the request first, or none exist). */
export const NOT_REACHED = { ipAccess: "not-reached", firewall: "not-reached", rateLimit: "not-reached" } as const;

/**
 * The origin failure each code stands for (docs/origin.md "How each failure is detected"), named as a draft preview names a
 * described failure (src/api/explain/explain.ts `ORIGIN_FAILURES`).
 */
export const ORIGIN_FAILURE_OF_CODE: Readonly<Record<number, string>> = {
  520: "reset",
  502: "malformed",
  521: "refused",
  522: "connect-timeout",
  523: "unreachable",
  524: "read-timeout",
  525: "tls-handshake",
  526: "tls-certificate",
  1016: "unresolvable",
};
