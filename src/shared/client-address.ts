/**
 * The client's address, read in one place: `CF-Connecting-IP` only, never `X-Forwarded-For`, which the client
 * writes (docs/rules-language.md `ip.src`, docs/producers.md IP access rules). One valid IPv4 or IPv6 address after trimming; a list
 * (`1.2.3.4, 5.6.7.8`), a port, garbage or an absent header is no address, never passed through. Every user takes
 * it from here: the Rules field `ip.src`, IP access rules, rate limiting's `ip.src` characteristic (through the
 * field), `::CLIENT_IP::` on custom pages and the `X-Forwarded-For` sent to the origin.
 */
import { parseIp, type IpAddress } from "./ip";

export interface ClientAddress {
  /** The header's own characters, trimmed (hex digits, `.`, `:`), as the client's address is shown or forwarded. */
  readonly text: string;
  /** The parsed address: a number for IPv4, a bigint for IPv6 (src/shared/ip.ts). */
  readonly address: IpAddress;
}

/** The validated client address of a request (or of its headers), or undefined when there is none. */
export function clientAddress(from: Request | Headers): ClientAddress | undefined {
  const headers = from instanceof Headers ? from : from.headers;
  return clientAddressOf(headers.get("cf-connecting-ip"));
}

/** The validated client address of a `CF-Connecting-IP` value already read (`null`: absent), or undefined. */
export function clientAddressOf(raw: string | null): ClientAddress | undefined {
  if (raw === null) return undefined;
  const text = raw.trim();
  const address = parseIp(text);
  return address === undefined ? undefined : { text, address };
}
