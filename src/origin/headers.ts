/**
 * Request headers on the way to the origin (contract §3):
 * - hop-by-hop fields are dropped (RFC 9110 §7.6.1: Connection and every field it names, Proxy-Connection,
 *   Keep-Alive, TE, Transfer-Encoding, Upgrade), as are Proxy-Authorization / Proxy-Authenticate (meant for
 *   this hop's proxy) and `Host`, which the runtime derives from the origin URL;
 * - `X-Forwarded-For` gets the client address appended (from `CF-Connecting-IP` only, as `ip.src`, §2.2),
 *   `X-Forwarded-Proto` / `X-Forwarded-Host` say what the client asked for;
 * - `CDN-Loop` (RFC 8586) gets this service's mark, and a request already carrying it is a loop (1000).
 */

/** This service's `cdn-id` in `CDN-Loop` (RFC 8586 §2: a token). */
export const CDN_LOOP_ID = "edge-errors";

const ALWAYS_DROPPED = [
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
] as const;

/** What the client asked for, as the origin should learn it. */
export interface ForwardedFor {
  /** `http` or `https`: the scheme the client used. */
  readonly proto: string;
  /** The `Host` the client sent (with its port, if any). */
  readonly host: string;
}

/** Builds the headers of the upstream request; never mutates `incoming`. */
export function upstreamHeaders(incoming: Headers, forwarded: ForwardedFor): Headers {
  const headers = new Headers(incoming);
  const connection = incoming.get("connection");
  if (connection !== null) {
    // RFC 9110 §7.6.1: the fields named in Connection are hop-by-hop too.
    for (const name of connection.split(",")) {
      const field = name.trim();
      if (field !== "" && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(field)) headers.delete(field);
    }
  }
  for (const name of ALWAYS_DROPPED) headers.delete(name);

  const client = incoming.get("cf-connecting-ip");
  const prior = incoming.get("x-forwarded-for");
  if (client !== null && client !== "") headers.set("x-forwarded-for", prior ? `${prior}, ${client}` : client);
  headers.set("x-forwarded-proto", forwarded.proto);
  headers.set("x-forwarded-host", forwarded.host);
  const loop = incoming.get("cdn-loop");
  headers.set("cdn-loop", loop ? `${loop}, ${CDN_LOOP_ID}` : CDN_LOOP_ID);
  return headers;
}

/** Whether `CDN-Loop` already names this service (RFC 8586 §2: `#( cdn-id [ *( OWS ";" OWS parameter ) ] )`). */
export function carriesOwnLoopMark(headers: Headers): boolean {
  const value = headers.get("cdn-loop");
  if (value === null) return false;
  for (const member of value.split(",")) {
    const semicolon = member.indexOf(";");
    const id = (semicolon === -1 ? member : member.slice(0, semicolon)).trim().toLowerCase();
    if (id === CDN_LOOP_ID) return true;
  }
  return false;
}

/**
 * Size of the request's header section as sent on HTTP/1.1 (`name: value\r\n` per field), the measure the
 * per-zone limit applies to (contract §4, 1038). Header values are byte strings, so `length` counts bytes.
 */
export function requestHeaderBytes(headers: Headers): number {
  let bytes = 0;
  for (const [name, value] of headers) bytes += name.length + value.length + 4;
  return bytes;
}
