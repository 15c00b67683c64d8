/**
 * IP addresses, the one parser every layer uses: IPv4 as a number, IPv6 as a bigint (the Rules language's IP values,
 * src/rules/values.ts), CIDR ranges (rules' `{…}` sets, docs/rules-language.md; IP access rules), the client
 * address (client-address.ts) and the IP-literal test of hostnames. Pure; no `node:net` in workerd.
 */
export type IpAddress = number | bigint;

const V4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** Dotted-quad IPv4; leading zeros are decimal (`1.1.1.01` = 1.1.1.1, as wirefilter accepts in sets). */
export function parseIpv4(text: string): number | undefined {
  const m = V4.exec(text);
  if (!m) return undefined;
  let n = 0;
  for (let i = 1; i <= 4; i++) {
    const octet = Number(m[i]);
    if (octet > 255) return undefined;
    n = n * 256 + octet;
  }
  return n;
}

/** RFC 4291 §2.2 text forms: eight groups, `::` compression once, an embedded IPv4 tail. No zone ids. */
export function parseIpv6(text: string): bigint | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || text.length > 45) return undefined;
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parseGroups = (part: string, allowV4Tail: boolean): number[] | undefined => {
    if (part === "") return [];
    const groups = part.split(":");
    const out: number[] = [];
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i] ?? "";
      if (allowV4Tail && i === groups.length - 1 && g.includes(".")) {
        const v4 = parseIpv4(g);
        if (v4 === undefined) return undefined;
        out.push(Math.floor(v4 / 65536), v4 % 65536);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
        out.push(parseInt(g, 16));
      }
    }
    return out;
  };
  const head = parseGroups(halves[0] ?? "", halves.length === 1);
  const tail = halves.length === 2 ? parseGroups(halves[1] ?? "", true) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  let n = 0n;
  for (const g of groups) n = (n << 16n) | BigInt(g);
  return n;
}

/** An IPv4 or IPv6 address, or undefined. */
export function parseIp(text: string): IpAddress | undefined {
  return text.includes(":") ? parseIpv6(text) : parseIpv4(text);
}

/** Inclusive range of one family. */
export type IpRange = readonly [number, number] | readonly [bigint, bigint];

/** `addr/len` as the inclusive range it covers (host bits may be set; the network is taken). */
export function cidrRange(address: IpAddress, prefix: number): IpRange {
  if (typeof address === "number") {
    const size = 2 ** (32 - prefix);
    const start = Math.floor(address / size) * size;
    return [start, start + size - 1];
  }
  const hostBits = BigInt(128 - prefix);
  const start = (address >> hostBits) << hostBits;
  return [start, start + (1n << hostBits) - 1n];
}

/**
 * Whether a hostname is an IP literal rather than a name: `[v6]` as the URL parser brackets it, a bare IPv6 address
 * (`::1`: a name never holds a colon), or a dotted quad (`1.2.3.4`; the URL parser normalises every IPv4 spelling
 * to it, `127.1` and `0x7f.1` included). Used for direct IP access (1003) and for the TLS probe's SNI, which RFC
 * 6066 §3 forbids for literals.
 */
export function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith("[") || hostname.includes(":") || /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname);
}
