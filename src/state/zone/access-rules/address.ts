/**
 * Addresses of IP access rules (docs/producers.md, docs/configuration.md): one IP, a CIDR range, or the client's own address. Pure.
 * The parsing is the one the Rules language uses (`src/shared/ip.ts`), so `ip.src` in a firewall expression and an IP access
 * rule always agree on what an address is.
 */
import { cidrRange, parseIp, type IpAddress, type IpRange } from "../../../shared/ip";

/**
 * Prefix lengths an `ip_range` may have. The published API allows only /16 and /24 (IPv4) and /32, /48, /64
 * (IPv6); we accept every length from a /8 (IPv4) or /16 (IPv6) down to a single address, and refuse shorter
 * prefixes, which would block a large part of the Internet by one typo (docs/producers.md).
 */
export const PREFIX_BOUNDS = { v4: { min: 8, max: 32 }, v6: { min: 16, max: 128 } } as const;

export type RangeFailure =
  | { readonly kind: "not-cidr" }
  | { readonly kind: "bad-address" }
  | { readonly kind: "prefix-out-of-bounds"; readonly family: "v4" | "v6"; readonly min: number; readonly max: number };

/** A parsed `ip_range`: the network (host bits cleared) and its inclusive range. */
export interface ParsedRange {
  readonly network: IpAddress;
  readonly prefix: number;
  readonly range: IpRange;
}

/** `a.b.c.d/n` or `v6/n`; the network address is taken when host bits are set (docs/producers.md). */
export function parseCidr(text: string): ParsedRange | RangeFailure {
  const slash = text.indexOf("/");
  if (slash === -1 || !/^\d{1,3}$/.test(text.slice(slash + 1))) return { kind: "not-cidr" };
  const address = parseIp(text.slice(0, slash));
  if (address === undefined) return { kind: "bad-address" };
  const prefix = Number(text.slice(slash + 1));
  const family = typeof address === "number" ? "v4" : "v6";
  const bounds = PREFIX_BOUNDS[family];
  if (prefix < bounds.min || prefix > bounds.max) return { kind: "prefix-out-of-bounds", family, ...bounds };
  const range = cidrRange(address, prefix);
  return { network: range[0], prefix, range };
}

/**
 * Canonical text of an address (RFC 5952 §4 for IPv6: lower-case, no leading zeros, the longest run of two or
 * more zero groups compressed, the first one on a tie; IPv4-mapped addresses in mixed notation, §5).
 */
export function formatAddress(address: IpAddress): string {
  if (typeof address === "number") return formatV4(address);
  if (address >> 32n === 0xffffn) return `::ffff:${formatV4(Number(address & 0xffffffffn))}`;
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((address >> BigInt(i * 16)) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1; // a single zero group is never compressed (§4.2.2)
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (part: number[]): string => part.map((g) => g.toString(16)).join(":");
  if (bestStart === -1) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}

function formatV4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, RFC 4291 §2.5.5.2), else undefined. */
export function unmapV4(address: IpAddress): number | undefined {
  return typeof address === "bigint" && address >> 32n === 0xffffn ? Number(address & 0xffffffffn) : undefined;
}
