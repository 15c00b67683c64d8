/**
 * Interprets the bare words the parser keeps (`word` literals) by the type they meet (docs/rules-language.md:
 * "the right-hand side is read according to the left-hand type"). Each function returns the value or an
 * error message; positions are added by the caller.
 */
import { cidrRange, parseIp, type IpAddress, type IpRange } from "../shared/ip";
import { err, ok, type Result } from "../shared/result";

const INT = /^(-?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/;
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/**
 * Integers as wirefilter reads them: decimal, `0x` hex, and a leading `0` means OCTAL (`0123` = 83).
 * Range-checked as i64, then held as a JS number (exact up to 2⁵³; see the deviations in docs/rules-language.md).
 */
export function parseInt64(text: string): Result<number, string> {
  const m = INT.exec(text);
  if (!m) return err(`expected an integer (decimal, 0x hex or 0 octal), found \`${text}\``);
  const digits = m[2] ?? "";
  let magnitude: bigint;
  if (/^0[xX]/.test(digits)) magnitude = BigInt(digits.toLowerCase());
  else if (digits.length > 1 && digits.startsWith("0")) magnitude = BigInt("0o" + digits.slice(1));
  else magnitude = BigInt(digits);
  const value = m[1] === "-" ? -magnitude : magnitude;
  if (value < I64_MIN || value > I64_MAX) return err(`integer out of range (a 64-bit signed integer): \`${text}\``);
  return ok(Number(value));
}

/** `a..b` or `a` as an inclusive integer range; start must not exceed end. */
export function parseIntRange(text: string): Result<readonly [number, number], string> {
  const dots = text.indexOf("..");
  if (dots === -1) {
    const single = parseInt64(text);
    return single.ok ? ok([single.value, single.value] as const) : single;
  }
  const start = parseInt64(text.slice(0, dots));
  if (!start.ok) return start;
  const end = parseInt64(text.slice(dots + 2));
  if (!end.ok) return end;
  if (start.value > end.value) return err(`range start is greater than its end: \`${text}\``);
  return ok([start.value, end.value] as const);
}

/** One IP address; CIDR and ranges belong in `{…}` sets (docs/rules-language.md, Magic Firewall docs). */
export function parseIpLiteral(text: string): Result<IpAddress, string> {
  if (text.includes("/") || text.includes("..")) {
    return err(`\`${text}\`: CIDR blocks and ranges are only allowed inside a set, e.g. \`in { ${text} }\``);
  }
  const ip = parseIp(text);
  return ip === undefined ? err(`expected an IP address, found \`${text}\``) : ok(ip);
}

/** `a`, `a/len` or `a..b` (same family, start ≤ end) as an inclusive range. */
export function parseIpSetItem(text: string): Result<IpRange, string> {
  const dots = text.indexOf("..");
  if (dots !== -1) {
    const start = parseIp(text.slice(0, dots));
    const end = parseIp(text.slice(dots + 2));
    if (start === undefined || end === undefined) return err(`expected an IP range \`a..b\`, found \`${text}\``);
    if (typeof start !== typeof end) return err(`range bounds are of different IP families: \`${text}\``);
    if (start > end) return err(`range start is greater than its end: \`${text}\``);
    return ok([start, end] as IpRange);
  }
  const slash = text.indexOf("/");
  if (slash !== -1) {
    const address = parseIp(text.slice(0, slash));
    if (address === undefined) return err(`expected an IP address before \`/\`, found \`${text}\``);
    const lengthText = text.slice(slash + 1);
    if (!/^[0-9]{1,3}$/.test(lengthText)) return err(`invalid network length \`${lengthText}\``);
    const length = Number(lengthText);
    const max = typeof address === "number" ? 32 : 128;
    if (length > max) return err(`network length ${length} is longer than ${max}`);
    return ok(cidrRange(address, length));
  }
  const address = parseIp(text);
  if (address === undefined) return err(`expected an IP address, found \`${text}\``);
  return ok([address, address] as IpRange);
}

const HEX_BYTES = /^[0-9a-fA-F]{2}([:.\-][0-9a-fA-F]{2})+$/;

/** Hex byte strings `6F:72:67` (separators `:`, `-`, `.`, at least two bytes), as wirefilter has them. */
export function parseHexBytes(text: string): Result<string, string> {
  if (!HEX_BYTES.test(text)) {
    return err(`expected a string ("…") or hex bytes (e.g. 6F:72:67), found \`${text}\``);
  }
  let out = "";
  for (let i = 0; i < text.length; i += 3) out += String.fromCharCode(parseInt(text.slice(i, i + 2), 16));
  return ok(out);
}
