/**
 * The one home of the service's small cryptographic leaves: SHA-256 (WebCrypto, FIPS 180-4), hex encoding and
 * decoding, and random bytes and ids from the CSPRNG (`crypto.getRandomValues`). Pure apart from the runtime's
 * `crypto`; used by the API tokens (digests), the CSP hashes, tag ETags, rate-limit counting keys, Ray IDs and the
 * ids of rules and access rules.
 */

const encoder = new TextEncoder();

/** Byte → two lower-case hex digits, built once: per-byte `toString(16).padStart(2, "0")` showed up at 5–8 % of an
 * error's CPU in the profile of the errors benchmark (docs/benchmarks.md), where Ray IDs are encoded. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** SHA-256 of `text` as UTF-8: the 32-byte digest. */
export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

/** SHA-256 of `text` as lower-case hex, of the whole digest or of its first `bytes` bytes (a shorter fixed-size key). */
export async function sha256Hex(text: string, bytes = 32): Promise<string> {
  const digest = await sha256(text);
  return toHex(digest, 0, Math.min(bytes, digest.length));
}

/** Bytes `start` to `end` (exclusive) of `bytes` as lower-case hex, two digits a byte. */
export function toHex(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let hex = "";
  for (let i = start; i < end; i++) hex += HEX[bytes[i] ?? 0] ?? "";
  return hex;
}

/** Hex text (either case) of exactly `length` bytes as those bytes, or null when it is anything else. */
export function fromHex(hex: string, length: number): Uint8Array | null {
  if (hex.length !== length * 2 || !/^[0-9a-fA-F]*$/.test(hex)) return null;
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** `count` bytes from the CSPRNG. */
export function randomBytes(count: number): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(count));
}

/**
 * An id of the published API's shape: 32 lower-case hex characters (zone, account, ruleset, rule and alert ids), the
 * one spelling of the pattern every reader of such an id checks.
 */
export const HEX_ID = /^[0-9a-f]{32}$/;

/** A fresh id: 32 random lower-case hex characters (128 bits), the shape of the published API's rule ids (`HEX_ID`). */
export function randomId(): string {
  return toHex(randomBytes(16));
}
