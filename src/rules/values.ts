/**
 * Runtime values of the Rules language.
 *
 * - String/Bytes: a *byte string*, a JS string whose every code unit is one byte (0–255). Wirefilter compares
 *   bytes (docs/rules-language.md); a byte string keeps `===`, `<`, `includes` and `Set` lookups native and
 *   fast, and `"\x80"` stays one byte. `toByteString` converts ordinary text (UTF-8).
 * - Int: a JS number (literals are range-checked as i64; see docs/rules-language.md, deviations).
 * - Bool: boolean.
 * - IP: IPv4 as a number (0 … 2³²−1), IPv6 as a bigint; the JS type is the family, so v4 and v6 never compare
 *   equal (an IPv4-mapped IPv6 address is not the IPv4 address, as in wirefilter).
 * - Array: a readonly array; Map: a ReadonlyMap with byte-string keys.
 * - A missing value (absent map key, index out of range, unset field) is `undefined` (docs/rules-language.md).
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

/**
 * ASCII-only case mapping (wirefilter's `lower`/`upper`: bytes ≥ 0x80 are untouched). The native mapping is the
 * fast path; it is only wrong when a byte it would also map (Latin-1 letters, µ, ß, ÿ) is present, which one
 * regex test detects, and then the bytes are mapped one by one.
 */
const LATIN1_LOWERED = /[\xc0-\xde]/;
const LATIN1_UPPERED = /[\xb5\xdf-\xff]/;

export function asciiLower(s: string): string {
  const t = s.toLowerCase();
  return t === s || !LATIN1_LOWERED.test(s) ? t : mapBytes(s, 0x41, 32);
}

export function asciiUpper(s: string): string {
  const t = s.toUpperCase();
  return t === s || !LATIN1_UPPERED.test(s) ? t : mapBytes(s, 0x61, -32);
}

function mapBytes(s: string, from: number, delta: number): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += c >= from && c <= from + 25 ? String.fromCharCode(c + delta) : s.charAt(i);
  }
  return out;
}
