/**
 * What a record keeps of the request itself (docs/analytics.md "Request detail"): the family of its `Accept` and the
 * class of its client address. Pure (no bindings), on the error path of every recorded error: one memoised
 * negotiation (src/errors/format.ts) and the one address parser.
 */
import { chooseErrorFormat } from "../../errors/format";
import { clientAddress } from "../../shared/client-address";
import type { AcceptFamily, AddressClass } from "../../state/analytics/request-detail";

/**
 * The request's `Accept` family (request-detail.ts): the negotiated representation (memoised per `Accept`,
 * src/errors/format.ts), told apart from an HTML fallback and from an MCP client: a POST with an `Mcp-Method` header
 * or accepting both JSON and `text/event-stream` (the Streamable HTTP transport,
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/transports).
 */
export function acceptFamily(request: Request): AcceptFamily {
  const accept = request.headers.get("Accept");
  // MCP clients send their messages as POSTs: a GET or HEAD pays no second header read.
  if (
    request.method === "POST" &&
    ((accept !== null && accept.includes("application/json") && accept.includes("text/event-stream")) ||
      request.headers.has("Mcp-Method"))
  )
    return "mcp";
  if (accept === null || accept.trim() === "") return "none";
  const format = chooseErrorFormat(accept).format;
  if (format !== "html") return format;
  // HTML asked for (named, or a wildcard's default), or reached because nothing acceptable was named.
  return /html|\*/i.test(accept) ? "html" : "other";
}

/** The class of the client address (request-detail.ts `AddressClass`), never the address itself. */
export function addressClass(request: Request): AddressClass {
  const client = clientAddress(request);
  if (client === undefined) return "none";
  const a = client.address;
  if (typeof a === "number") return privateV4(a) ? "private" : "ipv4";
  // IPv4-mapped (::ffff:0:0/96) is its IPv4 address.
  if (a >> 32n === 0xffffn) return privateV4(Number(a & 0xffffffffn)) ? "private" : "ipv4";
  const top = Number(a >> 112n);
  const privateV6 = a === 1n || (top & 0xfe00) === 0xfc00 || (top & 0xffc0) === 0xfe80;
  return privateV6 ? "private" : "ipv6";
}

/** Loopback, RFC 1918, RFC 6598 shared, link-local. */
function privateV4(a: number): boolean {
  const first = a >>> 24;
  const second = (a >>> 16) & 255;
  return (
    first === 10 ||
    first === 127 ||
    (first === 172 && second >= 16 && second <= 31) ||
    (first === 192 && second === 168) ||
    (first === 169 && second === 254) ||
    (first === 100 && second >= 64 && second <= 127)
  );
}
