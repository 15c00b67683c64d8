/**
 * Runtime values of the Rules language.
 *
 * - String/Bytes: a *byte string*, a JS string whose every code unit is one byte (0–255). Wirefilter compares
 *   bytes (rules-language.md §3.2); a byte string keeps `===`, `<`, `includes` and `Set` lookups native and
 *   fast, and `"\x80"` stays one byte. `toByteString` converts ordinary text (UTF-8).
 * - Int: a JS number (literals are range-checked as i64; see docs/rules-language.md, deviations).
 * - Bool: boolean.
 * - IP: IPv4 as a number (0 … 2³²−1), IPv6 as a bigint; the JS type is the family, so v4 and v6 never compare
 *   equal (an IPv4-mapped IPv6 address is not the IPv4 address, as in wirefilter).
 * - Array: a readonly array; Map: a ReadonlyMap with byte-string keys.
 * - A missing value (absent map key, index out of range, unset field) is `undefined` (contract §2.2).
 */
export type Value = string | number | boolean | bigint | ValueArray | ValueMap;
export type ValueArray = readonly (Value | undefined)[];
export type ValueMap = ReadonlyMap<string, Value>;

const NON_ASCII = /[^\x00-\x7f]/;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8");

/** UTF-8 encodes text into a byte string; ASCII text is returned as is (the common case, no allocation). */
export function toByteString(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return fromBytes(encoder.encode(text));
}

/** A byte string from raw bytes. */
export function fromBytes(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 4096) {
    out += String.fromCharCode(...bytes.subarray(i, i + 4096));
  }
  return out;
}

/** The raw bytes of a byte string. */
export function toBytes(byteString: string): Uint8Array {
  const bytes = new Uint8Array(byteString.length);
  for (let i = 0; i < byteString.length; i++) bytes[i] = byteString.charCodeAt(i) & 0xff;
  return bytes;
}

/** Decodes a byte string as UTF-8 (invalid sequences become U+FFFD); ASCII is returned as is. */
export function fromByteString(byteString: string): string {
  if (!NON_ASCII.test(byteString)) return byteString;
  return decoder.decode(toBytes(byteString));
}

const UPPER = /[A-Z]/;
const LOWER = /[a-z]/;
const UPPER_RUN = /[A-Z]+/g;
const LOWER_RUN = /[a-z]+/g;

/** ASCII-only lower-casing (wirefilter's `lower`; bytes ≥ 0x80 are untouched). */
export function asciiLower(s: string): string {
  return UPPER.test(s) ? s.replace(UPPER_RUN, (run) => run.toLowerCase()) : s;
}

/** ASCII-only upper-casing. */
export function asciiUpper(s: string): string {
  return LOWER.test(s) ? s.replace(LOWER_RUN, (run) => run.toUpperCase()) : s;
}
