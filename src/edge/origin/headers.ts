/**
 * Request headers on the way to the origin (docs/origin.md):
 * - hop-by-hop fields are dropped (RFC 9110 §7.6.1: Connection and every field it names, Proxy-Connection,
 *   Keep-Alive, TE, Transfer-Encoding, Upgrade), as are Proxy-Authorization / Proxy-Authenticate (meant for
 *   this hop's proxy) and `Host`, which the runtime derives from the origin URL;
 * - `X-Forwarded-For` gets the client address appended (from `CF-Connecting-IP` only, as `ip.src`, docs/rules-language.md),
 *   `X-Forwarded-Proto` / `X-Forwarded-Host` say what the client asked for;
 * - `CDN-Loop` (RFC 8586) gets this service's mark, and a request already carrying it is a loop (1000).
 */
import { clientAddressOf } from "../../shared/client-address";

/** This service's `cdn-id` in `CDN-Loop` (RFC 8586 §2: a token). */
export const CDN_LOOP_ID = "edge-errors";

/** Never forwarded: hop-by-hop (RFC 9110 §7.6.1), this hop's proxy credentials, and `Host` (set from the URL). */
const HOP_BY_HOP = new Set([
  "connection",
  "proxy-connection",
  "keep-alive",
  "te",
  "transfer-encoding",
  "upgrade",
  "trailer",
  "proxy-authorization",
  "proxy-authenticate",
  "host",
]);

/** What the client asked for, as the origin should learn it. */
export interface ForwardedFor {
  /** `http` or `https`: the scheme the client used. */
  readonly proto: string;
  /** The `Host` the client sent (with its port, if any). */
  readonly host: string;
  /**
   * On a zone with telemetry, the W3C trace context the origin gets (docs/telemetry.md "Trace context"): this
   * service's span as parent, replacing whatever the client sent; absent, the client's fields pass unchanged.
   */
  readonly trace?: TraceFields;
}

/** `traceparent` and `tracestate` (W3C Trace Context §3.2, §3.3); `tracestate` `null` removes the client's. */
export interface TraceFields {
  readonly traceparent: string;
  readonly tracestate: string | null;
}

/**
 * Everything the proxy needs from the request headers, gathered in ONE pass, including the fields to forward.
 *
 * Why a plain record and not a copy of the incoming `Headers` with edits: every call into
 * the runtime's `Headers` crosses from JavaScript into the runtime, and counted under callgrind each `set` on a copy
 * cost ~20,000 instructions per request, about 60,000 for the three or four the proxy needs (~4 % of a proxied
 * request), while handing `fetch` a record of the fields the scan already read cost ~15,000 in all (docs/benchmarks-history.md
 * "The performance-targets work (2026-11-24): the proxy, second pass"). An array of pairs cost more than the copy. The record carries the same
 * fields and values: iterating `Headers` already gives one value per name, a repeated field's values joined with
 * ", " (Fetch standard; RFC 9110 §5.3 allows a proxy to combine them so). The two names a record cannot carry
 * take the copy: `Set-Cookie` (iterated once per value, never joined) and `__proto__` (not an own key of a record).
 */
export interface RequestHeaderScan {
  /** Size of the header section as sent on HTTP/1.1 (`name: value\r\n` per field): the 1038 limit's measure. */
  readonly bytes: number;
  /** `CDN-Loop` already names this service (RFC 8586): a loop, 1000. */
  readonly loop: boolean;
  /** Present fields that must not be forwarded (hop-by-hop, and those named in `Connection`). */
  readonly drop: readonly string[];
  readonly forwardedFor: string | null;
  readonly cdnLoop: string | null;
  /** `CF-Connecting-IP` as sent (read here so the proxy needs no second call into the runtime's `Headers`). */
  readonly connectingIp: string | null;
  /**
   * The fields to forward (lower-case names), without the hop-by-hop ones: filled by the scan, then completed by
   * `upstreamHeaders` (the one user, which writes to it); `null` when a field forbids a record (above).
   */
  readonly fields: Record<string, string> | null;
}

export function scanRequestHeaders(headers: Headers): RequestHeaderScan {
  let bytes = 0;
  let connection: string | null = null;
  let forwardedFor: string | null = null;
  let cdnLoop: string | null = null;
  let connectingIp: string | null = null;
  let fields: Record<string, string> | null = {};
  const drop: string[] = [];
  // Header values are byte strings, so `length` counts bytes.
  for (const [name, value] of headers) {
    bytes += name.length + value.length + 4;
    if (HOP_BY_HOP.has(name)) {
      drop.push(name);
      if (name === "connection") connection = value;
      continue;
    }
    if (name === "x-forwarded-for") forwardedFor = value;
    else if (name === "cdn-loop") cdnLoop = value;
    else if (name === "cf-connecting-ip") connectingIp = value;
    else if (name === "set-cookie" || name === "__proto__") fields = null;
    if (fields !== null) fields[name] = value;
  }
  if (connection !== null) {
    // RFC 9110 §7.6.1: the fields named in Connection are hop-by-hop too.
    for (const field of connection.split(",")) {
      const name = field.trim().toLowerCase();
      if (name !== "" && /^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) {
        drop.push(name);
        if (fields !== null) delete fields[name];
      }
    }
  }
  const loop = cdnLoop !== null && hasOwnLoopMark(cdnLoop);
  return { bytes, loop, drop, forwardedFor, cdnLoop, connectingIp, fields };
}

/**
 * The header section's size as the runtime passes it on, in bytes: names, values as UTF-8 (what rules see as byte
 * strings and what the origin receives) and 4 per field. The runtime decodes a field's bytes as UTF-8 (measured
 * through workerd: `C3 A9` is one character, an invalid byte one U+FFFD), so a character `scanRequestHeaders`
 * counts is up to 3 of these bytes; zone traffic calls this only when 3 × that count passes the zone's limit.
 */
export function headerSectionBytes(headers: Headers): number {
  let bytes = 0;
  for (const [name, value] of headers) {
    bytes += name.length + 4;
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i);
      // A surrogate pair is two characters and 4 bytes: 2 each.
      bytes += c < 0x80 ? 1 : c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 2 : 3;
    }
  }
  return bytes;
}

/**
 * The upstream request's headers: the incoming ones minus `scan.drop`, `X-Forwarded-For` with the client
 * address appended (from `CF-Connecting-IP` only and only when it is one valid address, as `ip.src` in
 * docs/rules-language.md: src/shared/client-address.ts; nothing invented without it, a list or garbage never passed on),
 * `X-Forwarded-Proto`/`-Host` from what the client asked for (incoming values are overwritten, never trusted),
 * and this service's `CDN-Loop` mark. Never mutates `incoming`; completes and returns `scan.fields` when the scan
 * made a record (once per scan), else a copy of `incoming`.
 */
export function upstreamHeaders(incoming: Headers, scan: RequestHeaderScan, forwarded: ForwardedFor): HeadersInit {
  const { forwardedFor, cdnLoop } = scan;
  const client = clientAddressOf(scan.connectingIp)?.text;
  const xff = client === undefined ? null : forwardedFor ? `${forwardedFor}, ${client}` : client;
  const loopMark = cdnLoop ? `${cdnLoop}, ${CDN_LOOP_ID}` : CDN_LOOP_ID;
  const fields = scan.fields;
  if (fields !== null) {
    if (xff !== null) fields["x-forwarded-for"] = xff;
    fields["x-forwarded-proto"] = forwarded.proto;
    fields["x-forwarded-host"] = forwarded.host;
    fields["cdn-loop"] = loopMark;
    const trace = forwarded.trace;
    if (trace !== undefined) {
      fields.traceparent = trace.traceparent;
      if (trace.tracestate === null) delete fields.tracestate;
      else fields.tracestate = trace.tracestate;
    }
    return fields;
  }
  const headers = new Headers(incoming);
  for (const name of scan.drop) headers.delete(name);
  if (xff !== null) headers.set("x-forwarded-for", xff);
  headers.set("x-forwarded-proto", forwarded.proto);
  headers.set("x-forwarded-host", forwarded.host);
  headers.set("cdn-loop", loopMark);
  if (forwarded.trace !== undefined) {
    headers.set("traceparent", forwarded.trace.traceparent);
    if (forwarded.trace.tracestate === null) headers.delete("tracestate");
    else headers.set("tracestate", forwarded.trace.tracestate);
  }
  return headers;
}

/** Whether a `CDN-Loop` value names this service (RFC 8586 §2: `#( cdn-id [ *( OWS ";" OWS parameter ) ] )`). */
export function hasOwnLoopMark(value: string): boolean {
  if (!value.toLowerCase().includes(CDN_LOOP_ID)) return false; // the common case, without splitting
  for (const member of value.split(",")) {
    const semicolon = member.indexOf(";");
    const id = (semicolon === -1 ? member : member.slice(0, semicolon)).trim().toLowerCase();
    if (id === CDN_LOOP_ID) return true;
  }
  return false;
}
